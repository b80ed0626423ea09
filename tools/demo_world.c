/* demo_world.c: the demo world's own components (DemoBuilding, DemoProp, DemoLight: placeholders
 * that `rill demo` writes into its scenes) and how they draw: rill_demo_register_components makes
 * every tool that reads a scene know them (`rill scene`, `rill fly`, the content hooks of `render`,
 * `run` and `demo`), and rill_demo_make_drawables turns them into boxes, spheres and lights. Kept
 * apart from cmd_demo.c (which generates the world) so those tools do not depend on the demo
 * command. */
#include "demo.h"

#include <math.h>
#include <string.h>

#include "rill/render.h"

/* >>components -------------------------------------------------------------------------------- */

typedef enum demo_style {
    DEMO_STYLE_BRICK,
    DEMO_STYLE_GLASS,
    DEMO_STYLE_CONCRETE,
    DEMO_STYLE_TIMBER
} demo_style;
typedef enum demo_prop_kind {
    DEMO_PROP_BENCH,
    DEMO_PROP_LAMP,
    DEMO_PROP_TREE,
    DEMO_PROP_CRATE,
    DEMO_PROP_BIN,
    DEMO_PROP_HYDRANT,
    DEMO_PROP_WINDOW,
    DEMO_PROP_GROUND,
    DEMO_PROP_STREET,
    DEMO_PROP_ROOF,
} demo_prop_kind;

/* The largest building footprint or prop size in metres (10 km; a demo district is 200 m): a
 * scene value above it is clamped with a warning naming its place (1e30 reached the renderer as
 * a transform beyond the world limit, skipped there without naming the file). */
#define DEMO_SIZE_MAX 10000.0

/* "DemoBuilding" { floors, footprint, style } on a building's root. */
typedef struct demo_building {
    uint32_t floors;
    float footprint[2];
    int32_t style;
} demo_building;

/* "DemoProp" { kind, size }: anything placed in the world that is not a light. */
typedef struct demo_prop {
    int32_t kind;
    float size[3];
} demo_prop;

/* "DemoLight" { color, intensity, range }: a point light. */
typedef struct demo_light {
    float color[4];
    float intensity;
    float range;
} demo_light;

static const rill_enum_item STYLE_ITEMS[] = {
    {"Brick", DEMO_STYLE_BRICK},
    {"Glass", DEMO_STYLE_GLASS},
    {"Concrete", DEMO_STYLE_CONCRETE},
    {"Timber", DEMO_STYLE_TIMBER},
};
static const rill_enum_item KIND_ITEMS[] = {
    {"Bench", DEMO_PROP_BENCH},   {"Lamp", DEMO_PROP_LAMP},     {"Tree", DEMO_PROP_TREE},
    {"Crate", DEMO_PROP_CRATE},   {"Bin", DEMO_PROP_BIN},       {"Hydrant", DEMO_PROP_HYDRANT},
    {"Window", DEMO_PROP_WINDOW}, {"Ground", DEMO_PROP_GROUND}, {"Street", DEMO_PROP_STREET},
    {"Roof", DEMO_PROP_ROOF},
};

void rill_demo_register_components(rill_world *world) {
    static const uint32_t one_floor = 1;
    static const float light_color[4] = {1.0f, 0.9f, 0.75f, 1.0f};
    static const float intensity = 800.0f;
    static const float range = 12.0f;
    rill_field building_fields[] = {
        {.name = "floors",
         .type = RILL_FIELD_U32,
         .offset = offsetof(demo_building, floors),
         .count = 1,
         .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
         .min = 1,
         .max = 200,
         .default_value = &one_floor},
        {.name = "footprint",
         .type = RILL_FIELD_VEC2,
         .offset = offsetof(demo_building, footprint),
         .count = 1,
         .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
         .min = 0,
         .max = DEMO_SIZE_MAX},
        {.name = "style",
         .type = RILL_FIELD_ENUM,
         .offset = offsetof(demo_building, style),
         .count = 1,
         .enum_items = STYLE_ITEMS,
         .enum_count = RILL_COUNTOF(STYLE_ITEMS)},
    };
    rill_field prop_fields[] = {
        {.name = "kind",
         .type = RILL_FIELD_ENUM,
         .offset = offsetof(demo_prop, kind),
         .count = 1,
         .enum_items = KIND_ITEMS,
         .enum_count = RILL_COUNTOF(KIND_ITEMS)},
        {.name = "size",
         .type = RILL_FIELD_VEC3,
         .offset = offsetof(demo_prop, size),
         .count = 1,
         .flags = RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX,
         .min = 0,
         .max = DEMO_SIZE_MAX},
    };
    rill_field light_fields[] = {
        {.name = "color",
         .type = RILL_FIELD_COLOR,
         .offset = offsetof(demo_light, color),
         .count = 1,
         .default_value = light_color},
        {.name = "intensity",
         .type = RILL_FIELD_F32,
         .offset = offsetof(demo_light, intensity),
         .count = 1,
         .flags = RILL_FIELD_HAS_MIN,
         .min = 0,
         .default_value = &intensity},
        {.name = "range",
         .type = RILL_FIELD_F32,
         .offset = offsetof(demo_light, range),
         .count = 1,
         .flags = RILL_FIELD_HAS_MIN,
         .min = 0,
         .default_value = &range},
    };
    rill_world_register_component(world, &(rill_type_desc){.name = "DemoBuilding",
                                                           RILL_TYPE_LAYOUT(demo_building),
                                                           RILL_FIELDS(building_fields),
                                                           .doc = "demo: a building's root"});
    rill_world_register_component(world, &(rill_type_desc){.name = "DemoProp",
                                                           RILL_TYPE_LAYOUT(demo_prop),
                                                           RILL_FIELDS(prop_fields),
                                                           .doc = "demo: a placed object"});
    rill_world_register_component(world, &(rill_type_desc){.name = "DemoLight",
                                                           RILL_TYPE_LAYOUT(demo_light),
                                                           RILL_FIELDS(light_fields),
                                                           .doc = "demo: a point light"});
}

/* >>drawables -------------------------------------------------------------------------------- */

/* Materials of the demo city, by role. */
enum {
    MAT_BRICK,
    MAT_GLASS,
    MAT_CONCRETE,
    MAT_TIMBER,
    MAT_WINDOW,
    MAT_ROOF,
    MAT_GROUND,
    MAT_STREET,
    MAT_TREE,
    MAT_WOOD,
    MAT_METAL,
    MAT_RED,
    MAT_COUNT
};

typedef struct demo_mat_def {
    float color[3];
    float metallic, roughness;
    float emissive[3];
} demo_mat_def;

static const demo_mat_def DEMO_MATS[MAT_COUNT] = {
    [MAT_BRICK] = {{0.50f, 0.22f, 0.15f}, 0.0f, 0.85f, {0, 0, 0}},
    [MAT_GLASS] = {{0.30f, 0.42f, 0.52f}, 0.6f, 0.25f, {0, 0, 0}},
    [MAT_CONCRETE] = {{0.58f, 0.57f, 0.54f}, 0.0f, 0.9f, {0, 0, 0}},
    [MAT_TIMBER] = {{0.55f, 0.42f, 0.28f}, 0.0f, 0.8f, {0, 0, 0}},
    [MAT_WINDOW] = {{0.10f, 0.14f, 0.20f}, 0.2f, 0.15f, {0.25f, 0.20f, 0.10f}},
    [MAT_ROOF] = {{0.22f, 0.22f, 0.24f}, 0.0f, 0.7f, {0, 0, 0}},
    [MAT_GROUND] = {{0.30f, 0.40f, 0.22f}, 0.0f, 1.0f, {0, 0, 0}},
    [MAT_STREET] = {{0.09f, 0.09f, 0.10f}, 0.0f, 0.9f, {0, 0, 0}},
    [MAT_TREE] = {{0.16f, 0.38f, 0.12f}, 0.0f, 0.9f, {0, 0, 0}},
    [MAT_WOOD] = {{0.40f, 0.27f, 0.15f}, 0.0f, 0.8f, {0, 0, 0}},
    [MAT_METAL] = {{0.35f, 0.36f, 0.38f}, 0.8f, 0.4f, {0, 0, 0}},
    [MAT_RED] = {{0.70f, 0.08f, 0.06f}, 0.0f, 0.5f, {0, 0, 0}},
};

/* Demo light intensities are in the generator's own units; this brings them to the renderer's
 * (intensity / d^2 next to a sun of illuminance 3). */
#define DEMO_LIGHT_SCALE 0.02f

typedef struct demo_item {
    rill_entity e;
    union {
        demo_building b;
        demo_prop p;
        demo_light l;
    } u;
} demo_item;

/* Whether e lies inside a building (an ancestor within three levels has DemoBuilding). */
static bool inside_building(rill_world *w, rill_component building, rill_entity e) {
    for (int i = 0; i < 3 && e; i++) {
        e = rill_world_get_parent(w, e);
        if (e && rill_world_has(w, e, building)) {
            return true;
        }
    }
    return false;
}

/* Quaternion (x, y, z, w) of yaw about +Y then pitch about +X, as the viewer's camera. */
static void yaw_pitch_quat(float yaw, float pitch, float q[4]) {
    float sy = sinf(yaw * 0.5f), cy = cosf(yaw * 0.5f), sx = sinf(pitch * 0.5f),
          cx = cosf(pitch * 0.5f);
    q[0] = cy * sx, q[1] = sy * cx, q[2] = -sy * sx, q[3] = cy * cx;
}

int64_t rill_demo_make_drawables(rill_renderer *r, rill_world *w, rill_error *err) {
    rill_demo_register_components(w);
    rill_component cb = rill_world_find_component(w, "DemoBuilding"),
                   cp = rill_world_find_component(w, "DemoProp"),
                   cl = rill_world_find_component(w, "DemoLight");
    rill_render_components rc;
    if (rill_render_register_components(w, &rc, err) != RILL_OK) {
        return -1;
    }
    rill_mesh cube = rill_render_mesh_cube(r, err);
    rill_mesh sphere = cube.id ? rill_render_mesh_sphere(r, 12, err) : (rill_mesh){0};
    if (!sphere.id) {
        return -1;
    }
    rill_material mats[MAT_COUNT];
    for (int i = 0; i < MAT_COUNT; i++) {
        rill_material_desc md;
        memset(&md, 0, sizeof(md));
        memcpy(md.base_color, DEMO_MATS[i].color, sizeof(float) * 3);
        md.base_color[3] = 1.0f;
        md.metallic = DEMO_MATS[i].metallic;
        md.roughness = DEMO_MATS[i].roughness;
        memcpy(md.emissive, DEMO_MATS[i].emissive, sizeof(float) * 3);
        md.label = "demo";
        if (!(mats[i] = rill_render_material_create(r, &md, err)).id) {
            return -1;
        }
    }
    /* Collect first: the world must not change under a running query. */
    RILL_ARRAY(demo_item) items[3] = {{0}};
    rill_component comps[3] = {cb, cp, cl};
    for (int k = 0; k < 3; k++) {
        rill_query_desc qd;
        memset(&qd, 0, sizeof(qd));
        qd.with[0] = comps[k];
        rill_query q = rill_world_query(w, &qd);
        size_t sz = k == 0   ? sizeof(demo_building)
                    : k == 1 ? sizeof(demo_prop)
                             : sizeof(demo_light);
        while (rill_query_next(&q)) {
            demo_item it;
            memset(&it, 0, sizeof(it));
            it.e = q.entity;
            memcpy(&it.u, rill_query_get(&q, 0), sz);
            if (!rill_array_push(&items[k], it)) {
                for (int j = 0; j < 3; j++) {
                    rill_array_free(&items[j]);
                }
                rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "out of memory");
                return -1;
            }
        }
    }
    int64_t drawn = 0;
    /* Buildings: a body box under the root (the root's children are the floors; scaling the root
     * would scale them too). */
    for (uint32_t i = 0; i < items[0].len; i++) {
        const demo_building *b = &items[0].data[i].u.b;
        float h = 3.5f * (float)b->floors;
        rill_entity body = rill_world_spawn(w);
        rill_transform t = rill_transform_identity();
        t.translation[1] = h * 0.5f;
        t.scale[0] = b->footprint[0], t.scale[1] = h, t.scale[2] = b->footprint[1];
        rill_world_set_transform(w, body, &t);
        rill_world_set_parent(w, body, items[0].data[i].e);
        int style = b->style >= 0 && b->style <= DEMO_STYLE_TIMBER ? b->style : 0;
        rill_mesh_instance mi = {cube.id, mats[MAT_BRICK + style].id};
        rill_world_add(w, body, rc.mesh_instance, &mi);
        drawn++;
    }
    /* Props have no children: their own Transform takes the size. Boxes rest on their origin. */
    for (uint32_t i = 0; i < items[1].len; i++) {
        rill_entity e = items[1].data[i].e;
        const demo_prop *p = &items[1].data[i].u.p;
        rill_transform *t = rill_world_transform_mut(w, e);
        if (!t) {
            continue;
        }
        float sx = p->size[0], sy = p->size[1], sz = p->size[2];
        rill_mesh mesh = cube;
        int mat = MAT_CONCRETE;
        float lift = sy * 0.5f;
        switch (p->kind) {
        case DEMO_PROP_WINDOW:
            mat = MAT_WINDOW, lift = 0.0f;
            break;
        case DEMO_PROP_ROOF:
            mat = MAT_ROOF;
            break;
        case DEMO_PROP_GROUND:
            mat = MAT_GROUND, lift = -sy * 0.5f;
            break;
        case DEMO_PROP_STREET:
            mat = MAT_STREET, lift = 0.0f;
            break;
        case DEMO_PROP_TREE:
            mesh = sphere, mat = MAT_TREE, sx *= 0.6f, sz *= 0.6f;
            break;
        case DEMO_PROP_LAMP:
            mat = MAT_METAL, sx = sz = 0.2f, sy *= 3.0f, lift = sy * 0.5f;
            break;
        case DEMO_PROP_BENCH:
            mat = MAT_WOOD, sy *= 0.4f, sz *= 0.4f, lift = sy * 0.5f;
            break;
        case DEMO_PROP_CRATE:
            mat = MAT_TIMBER;
            break;
        case DEMO_PROP_BIN:
            mat = MAT_METAL;
            break;
        case DEMO_PROP_HYDRANT:
            mat = MAT_RED, sx *= 0.4f, sz *= 0.4f;
            break;
        default:
            break;
        }
        t->scale[0] = sx, t->scale[1] = sy, t->scale[2] = sz;
        t->translation[1] += lift;
        rill_mesh_instance mi = {mesh.id, mats[mat].id};
        rill_world_add(w, e, rc.mesh_instance, &mi);
        drawn++;
    }
    /* Lights: the one without a range is the sun; lights inside buildings would light only the
     * inside of a closed box, so they stay out of the renderer's light budget. */
    for (uint32_t i = 0; i < items[2].len; i++) {
        rill_entity e = items[2].data[i].e;
        const demo_light *l = &items[2].data[i].u.l;
        if (l->range <= 0.0f) {
            rill_directional_light dl = {{l->color[0], l->color[1], l->color[2], 1.0f}, 3.0f, true};
            rill_world_add(w, e, rc.directional_light, &dl);
            rill_transform *t = rill_world_transform_mut(w, e);
            if (t) { /* late afternoon: from the south-east, 55 degrees up */
                yaw_pitch_quat(0.67f, -0.96f, t->rotation);
            }
        } else if (!inside_building(w, cb, e)) {
            rill_point_light pl = {{l->color[0], l->color[1], l->color[2], 1.0f},
                                   l->intensity * DEMO_LIGHT_SCALE,
                                   l->range};
            rill_world_add(w, e, rc.point_light, &pl);
        }
    }
    for (int j = 0; j < 3; j++) {
        rill_array_free(&items[j]);
    }
    rill_world_update_transforms(w);
    return drawn;
}
