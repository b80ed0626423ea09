/* cmd_demo.c: `rill demo` writes a deterministic demo world as .rsn scene files, loads it
 * asynchronously through the frame loop with the same progress display as `rill scene load`, and
 * renders it: the demo components become drawables (rill_demo_make_drawables) and a few views are
 * written as PNGs headless, then, with --window, the world opens in `rill run`'s viewer.
 *
 * The world is three levels of nested scene instances:
 *   main.rsn                     a camera, a sun, and one SceneInstance per district
 *   districts/district_NNNN.rsn  ground, streets, props, street lights, and building instances
 *   buildings/building_N.rsn     eight building variants: floors with windows and a light each
 * so a few hundred thousand entities come from a few hundred small files. Generation is split
 * into small functions (one per scene kind) so later work (meshes, materials, streaming radii)
 * can extend one level without touching the rest.
 */
#include "cmds.h"

#include <math.h>

#include <cglm/cglm.h>

#include "rill/render.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEMO_BUILDING_VARIANTS 8u
#define DEMO_BUILDINGS_PER_DISTRICT 24u /* a 5 x 5 grid with a plaza in the middle */
#define DEMO_PROPS_PER_DISTRICT 40u
#define DEMO_LIGHTS_PER_DISTRICT 12u
#define DEMO_STREETS_PER_DISTRICT 4u
#define DEMO_DISTRICT_SIZE 200.0f /* metres between district centres */
#define DEMO_DEFAULT_ENTITIES 300000u

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

typedef struct demo_ids {
    rill_component building, prop, light, instance;
} demo_ids;

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
         .flags = RILL_FIELD_HAS_MIN,
         .min = 0},
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
         .flags = RILL_FIELD_HAS_MIN,
         .min = 0},
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
                                                           .fields = building_fields,
                                                           .field_count = 3,
                                                           .doc = "demo: a building's root"});
    rill_world_register_component(world, &(rill_type_desc){.name = "DemoProp",
                                                           RILL_TYPE_LAYOUT(demo_prop),
                                                           .fields = prop_fields,
                                                           .field_count = 2,
                                                           .doc = "demo: a placed object"});
    rill_world_register_component(world, &(rill_type_desc){.name = "DemoLight",
                                                           RILL_TYPE_LAYOUT(demo_light),
                                                           .fields = light_fields,
                                                           .field_count = 3,
                                                           .doc = "demo: a point light"});
}

/* >>generation -------------------------------------------------------------------------------- */

/* splitmix64: tiny, fast and the same on every platform, so the demo is identical everywhere. */
static uint64_t rng_next(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static float rng_float(uint64_t *s, float lo, float hi) {
    return lo + (hi - lo) * (float)((rng_next(s) >> 40) * (1.0 / 16777216.0));
}

static uint32_t rng_u32(uint64_t *s, uint32_t n) {
    return (uint32_t)(rng_next(s) % n);
}

typedef struct gen {
    rill_world *w;
    demo_ids ids;
    const char *out;
    uint64_t bytes_written;
    uint32_t files_written;
} gen;

static rill_entity put(gen *g, rill_entity parent, const char *name, float x, float y, float z,
                       float yaw) {
    rill_entity e = rill_world_spawn(g->w);
    rill_transform t = rill_transform_identity();
    t.translation[0] = x;
    t.translation[1] = y;
    t.translation[2] = z;
    t.rotation[1] = sinf(yaw * 0.5f);
    t.rotation[3] = cosf(yaw * 0.5f);
    rill_world_set_transform(g->w, e, &t);
    if (name) {
        rill_world_set_name(g->w, e, name);
    }
    if (parent) {
        rill_world_set_parent(g->w, e, parent);
    }
    return e;
}

static void add_prop(gen *g, rill_entity e, demo_prop_kind kind, float sx, float sy, float sz) {
    demo_prop p = {.kind = kind, .size = {sx, sy, sz}};
    rill_world_add(g->w, e, g->ids.prop, &p);
}

static void add_light(gen *g, rill_entity e, float r, float gr, float b, float intensity,
                      float range) {
    demo_light l = {.color = {r, gr, b, 1.0f}, .intensity = intensity, .range = range};
    rill_world_add(g->w, e, g->ids.light, &l);
}

static void add_instance(gen *g, rill_entity e, const char *scene) {
    rill_scene_instance si = {.scene = rill_intern(scene),
                              .streamed = false,
                              .load_radius = 150.0f,
                              .unload_radius = 200.0f};
    rill_world_add(g->w, e, g->ids.instance, &si);
}

/* Writes "out/rel" into path. A path that does not fit is an error, never a silently cut one: a
 * cut "OUT/districts" can name OUT itself or a folder above it, which generate then empties. */
static rill_result out_path(char *path, size_t cap, const char *out, const char *rel,
                            rill_error *err) {
    int n = snprintf(path, cap, "%s/%s", out, rel);
    if (n < 0 || (size_t)n >= cap) {
        /* The reason goes first: the path itself may not fit the message. */
        return rill_error_set(err, RILL_ERR_LIMIT, "path too long (%zu bytes): %s/%s",
                              strlen(out) + 1u + strlen(rel), out, rel);
    }
    return RILL_OK;
}

/* Writes every root entity of the scratch world into out/rel, then empties the world. */
static rill_result save_roots(gen *g, const char *rel, rill_error *err) {
    RILL_ARRAY(rill_entity) roots = {0};
    rill_entity e;
    for (uint32_t it = 0; rill_world_entity_next(g->w, &it, &e);) {
        if (!rill_world_get_parent(g->w, e) && !rill_array_push(&roots, e)) {
            rill_array_free(&roots);
            return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "out of memory");
        }
    }
    char path[1024];
    rill_strbuf text = {0};
    rill_result r = out_path(path, sizeof(path), g->out, rel, err);
    if (r == RILL_OK) {
        r = rill_scene_write(g->w, roots.data, roots.len, NULL, &text, err);
    }
    if (r == RILL_OK) {
        r = rill_file_write_all(path, text.data, text.len, err);
        g->bytes_written += text.len;
        g->files_written++;
    }
    rill_strbuf_free(&text);
    rill_array_free(&roots);
    rill_world_clear(g->w);
    return r;
}

/* One building variant: the floor count (and so the size) depends on the variant. Returns the
 * number of entities the file holds. */
static uint32_t gen_building(gen *g, uint32_t variant, rill_error *err, rill_result *res) {
    uint64_t s = 0xB1D0000ull + variant;
    uint32_t floors = 3u + (variant % 5u) * 2u;
    float w = rng_float(&s, 10.0f, 18.0f), d = rng_float(&s, 10.0f, 18.0f);
    rill_entity root = put(g, 0, "Building", 0, 0, 0, 0);
    demo_building b = {.floors = floors, .footprint = {w, d}, .style = (int32_t)(variant % 4u)};
    rill_world_add(g->w, root, g->ids.building, &b);
    uint32_t count = 1;
    char name[32];
    for (uint32_t f = 0; f < floors; f++) {
        snprintf(name, sizeof(name), "Floor %u", f);
        rill_entity floor = put(g, root, name, 0, 3.5f * (float)f, 0, 0);
        count++;
        for (uint32_t side = 0; side < 4; side++) {
            float yaw = 1.5707963f * (float)side;
            float off = (side % 2u) ? w * 0.5f : d * 0.5f;
            rill_entity win = put(g, floor, NULL, sinf(yaw) * off, 1.5f, cosf(yaw) * off, yaw);
            add_prop(g, win, DEMO_PROP_WINDOW, 1.2f, 1.6f, 0.1f);
            count++;
        }
        rill_entity lamp = put(g, floor, NULL, 0, 3.0f, 0, 0);
        add_light(g, lamp, 1.0f, 0.85f, 0.6f, rng_float(&s, 200.0f, 600.0f), 8.0f);
        count++;
    }
    rill_entity roof = put(g, root, "Roof", 0, 3.5f * (float)floors, 0, 0);
    add_prop(g, roof, DEMO_PROP_ROOF, w, 0.4f, d);
    count++;
    char rel[64];
    snprintf(rel, sizeof(rel), "buildings/building_%u.rsn", variant);
    *res = save_roots(g, rel, err);
    return count;
}

/* One district with `buildings` building instances. Returns the entities it brings in total,
 * building contents included. */
static uint32_t gen_district(gen *g, uint32_t index, uint32_t buildings,
                             const uint32_t *variant_sizes, rill_error *err, rill_result *res) {
    uint64_t s = 0xD157000ull + index * 7919ull;
    uint32_t count = 0;
    const float half = DEMO_DISTRICT_SIZE * 0.5f;
    rill_entity ground = put(g, 0, "Ground", 0, 0, 0, 0);
    add_prop(g, ground, DEMO_PROP_GROUND, DEMO_DISTRICT_SIZE, 0.2f, DEMO_DISTRICT_SIZE);
    count++;
    for (uint32_t i = 0; i < DEMO_STREETS_PER_DISTRICT; i++) {
        float yaw = 1.5707963f * (float)(i % 2u);
        float off = (i < 2u) ? -half * 0.5f : half * 0.5f;
        rill_entity st = put(g, 0, "Street", (i % 2u) ? off : 0, 0.05f, (i % 2u) ? 0 : off, yaw);
        add_prop(g, st, DEMO_PROP_STREET, 8.0f, 0.1f, DEMO_DISTRICT_SIZE);
        count++;
    }
    /* Buildings on a 5 x 5 grid, skipping the middle cell (a plaza). */
    char scene[64], name[32];
    uint32_t placed = 0;
    for (uint32_t cell = 0; cell < 25u && placed < buildings; cell++) {
        if (cell == 12u) {
            continue;
        }
        uint32_t v = rng_u32(&s, DEMO_BUILDING_VARIANTS);
        float x = ((float)(cell % 5u) - 2.0f) * 36.0f + rng_float(&s, -4.0f, 4.0f);
        float z = ((float)(cell / 5u) - 2.0f) * 36.0f + rng_float(&s, -4.0f, 4.0f);
        snprintf(name, sizeof(name), "Building %u", placed);
        rill_entity e = put(g, 0, name, x, 0, z, 1.5707963f * (float)rng_u32(&s, 4));
        snprintf(scene, sizeof(scene), "buildings/building_%u.rsn", v);
        add_instance(g, e, scene);
        count += 1u + variant_sizes[v];
        placed++;
    }
    static const demo_prop_kind kinds[] = {DEMO_PROP_BENCH, DEMO_PROP_LAMP, DEMO_PROP_TREE,
                                           DEMO_PROP_CRATE, DEMO_PROP_BIN,  DEMO_PROP_HYDRANT};
    for (uint32_t i = 0; i < DEMO_PROPS_PER_DISTRICT; i++) {
        demo_prop_kind k = kinds[rng_u32(&s, RILL_COUNTOF(kinds))];
        rill_entity e = put(g, 0, NULL, rng_float(&s, -half, half), 0, rng_float(&s, -half, half),
                            rng_float(&s, 0.0f, 6.2831853f));
        float sz = rng_float(&s, 0.5f, k == DEMO_PROP_TREE ? 8.0f : 1.5f);
        add_prop(g, e, k, sz, sz, sz);
        count++;
    }
    for (uint32_t i = 0; i < DEMO_LIGHTS_PER_DISTRICT; i++) {
        float t = ((float)i + 0.5f) / (float)DEMO_LIGHTS_PER_DISTRICT;
        rill_entity e = put(g, 0, "Street light", (t - 0.5f) * DEMO_DISTRICT_SIZE, 6.0f,
                            (i % 2u) ? 6.0f : -6.0f, 0);
        add_light(g, e, 1.0f, 0.8f, 0.55f, 1500.0f, 20.0f);
        count++;
    }
    char rel[64];
    snprintf(rel, sizeof(rel), "districts/district_%04u.rsn", index);
    *res = save_roots(g, rel, err);
    return count;
}

/* The main scene: a default game camera, a sun, and the district instances on a square grid. */
static uint32_t gen_main(gen *g, uint32_t districts, rill_error *err, rill_result *res) {
    uint32_t count = 0;
    rill_entity cam = put(g, 0, "Camera", 0, 2.0f, 0, 0);
    rill_camera c;
    rill_type_apply_defaults(rill_world_component_type(g->w, rill_world_builtin(g->w)->camera), &c);
    c.is_default = true;
    rill_world_add(g->w, cam, rill_world_builtin(g->w)->camera, &c);
    count++;
    rill_entity sun = put(g, 0, "Sun", 0, 500.0f, 0, 0);
    add_light(g, sun, 1.0f, 0.97f, 0.9f, 100000.0f, 0.0f);
    count++;
    uint32_t side = (uint32_t)ceil(sqrt((double)districts));
    char name[32], scene[64];
    for (uint32_t i = 0; i < districts; i++) {
        float x = ((float)(i % side) - (float)(side - 1u) * 0.5f) * DEMO_DISTRICT_SIZE;
        float z = ((float)(i / side) - (float)(side - 1u) * 0.5f) * DEMO_DISTRICT_SIZE;
        snprintf(name, sizeof(name), "District %u", i);
        rill_entity e = put(g, 0, name, x, 0, z, 0);
        snprintf(scene, sizeof(scene), "districts/district_%04u.rsn", i);
        add_instance(g, e, scene);
        count++;
    }
    *res = save_roots(g, "main.rsn", err);
    return count;
}

static const char PROJECT_TOML[] = "# The demo world written by `rill demo`.\n"
                                   "[project]\n"
                                   "name = \"Rill demo\"\n"
                                   "main_scene = \"main.rsn\"\n"
                                   "\n"
                                   "[scene]\n"
                                   "load_budget_ms = 3\n";

/* Writes the whole demo under `out`, aiming at `target` entities in total. */
static rill_result generate(const char *out, uint32_t target, uint32_t *out_expected,
                            uint32_t *out_districts, gen *g, rill_error *err) {
    char path[1024];
    rill_result r;
    if ((r = out_path(path, sizeof(path), out, "districts", err)) != RILL_OK) {
        return r;
    }
    rill_dir_remove_all(path, NULL);
    if ((r = rill_dir_create_all(path, err)) != RILL_OK) {
        return r;
    }
    if ((r = out_path(path, sizeof(path), out, "buildings", err)) != RILL_OK) {
        return r;
    }
    rill_dir_remove_all(path, NULL);
    if ((r = rill_dir_create_all(path, err)) != RILL_OK) {
        return r;
    }
    if ((r = out_path(path, sizeof(path), out, "project.toml", err)) != RILL_OK ||
        (r = rill_file_write_all(path, PROJECT_TOML, strlen(PROJECT_TOML), err)) != RILL_OK) {
        return r;
    }
    uint32_t sizes[DEMO_BUILDING_VARIANTS];
    for (uint32_t v = 0; v < DEMO_BUILDING_VARIANTS; v++) {
        sizes[v] = gen_building(g, v, err, &r);
        if (r != RILL_OK) {
            return r;
        }
    }
    /* Districts are filled until the running total reaches the target; the main scene's own
     * entities (camera, sun, one instance per district) are counted as they are added. */
    uint32_t total = 2;
    uint32_t districts = 0;
    const uint32_t district_own =
        1u + DEMO_STREETS_PER_DISTRICT + DEMO_PROPS_PER_DISTRICT + DEMO_LIGHTS_PER_DISTRICT;
    while (total < target || districts == 0) {
        /* How many buildings this district needs: all of them unless the target is close. */
        uint32_t base = total + 1u + district_own;
        uint32_t buildings = DEMO_BUILDINGS_PER_DISTRICT;
        uint64_t avg = 0;
        for (uint32_t v = 0; v < DEMO_BUILDING_VARIANTS; v++) {
            avg += sizes[v] + 1u;
        }
        avg /= DEMO_BUILDING_VARIANTS;
        if (base >= target) {
            buildings = 1;
        } else if ((uint64_t)(target - base) < avg * DEMO_BUILDINGS_PER_DISTRICT) {
            buildings = (uint32_t)((target - base + avg - 1u) / avg);
        }
        total += 1u + gen_district(g, districts, buildings, sizes, err, &r);
        if (r != RILL_OK) {
            return r;
        }
        districts++;
        if (districts >= 100000u) {
            break;
        }
    }
    gen_main(g, districts, err, &r);
    *out_expected = total;
    *out_districts = districts;
    return r;
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
        if (e && rill_world_has(w, e, building))
            return true;
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
    if (rill_render_register_components(w, &rc, err) != RILL_OK)
        return -1;
    rill_mesh cube = rill_render_mesh_cube(r, err);
    rill_mesh sphere = cube.id ? rill_render_mesh_sphere(r, 12, err) : (rill_mesh){0};
    if (!sphere.id)
        return -1;
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
        if (!(mats[i] = rill_render_material_create(r, &md, err)).id)
            return -1;
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
                for (int j = 0; j < 3; j++)
                    rill_array_free(&items[j]);
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
        if (!t)
            continue;
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
            if (t) /* late afternoon: from the south-east, 55 degrees up */
                yaw_pitch_quat(0.67f, -0.96f, t->rotation);
        } else if (!inside_building(w, cb, e)) {
            rill_point_light pl = {{l->color[0], l->color[1], l->color[2], 1.0f},
                                   l->intensity * DEMO_LIGHT_SCALE,
                                   l->range};
            rill_world_add(w, e, rc.point_light, &pl);
        }
    }
    for (int j = 0; j < 3; j++)
        rill_array_free(&items[j]);
    rill_world_update_transforms(w);
    return drawn;
}

/* >>views ------------------------------------------------------------------------------------- */

typedef struct demo_render_opts {
    const char *out;
    uint32_t width, height;
    bool render, window;
    uint64_t frames; /* --window: quit after this many frames (0 = when closed) */
} demo_render_opts;

/* The city's size and a district near its middle, from the district instances of main.rsn (laid
 * out on a square grid as gen_main does). */
static float demo_layout(rill_world *w, float center[2]) {
    rill_component inst = rill_world_find_component(w, "SceneInstance");
    uint32_t districts = 0;
    rill_entity e;
    for (uint32_t it = 0; rill_world_entity_next(w, &it, &e);)
        if (!rill_world_get_parent(w, e) && rill_world_has(w, e, inst))
            districts++;
    uint32_t side = (uint32_t)ceil(sqrt((double)RILL_MAX(districts, 1u)));
    uint32_t mid = (side / 2u) * side + side / 2u;
    if (mid >= districts)
        mid = 0;
    center[0] = ((float)(mid % side) - (float)(side - 1u) * 0.5f) * DEMO_DISTRICT_SIZE;
    center[1] = ((float)(mid / side) - (float)(side - 1u) * 0.5f) * DEMO_DISTRICT_SIZE;
    return (float)side * DEMO_DISTRICT_SIZE;
}

typedef struct demo_view {
    const char *name;
    float eye[3], target[3];
    float fov_y;
} demo_view;

static void demo_views(rill_world *w, demo_view out[2]) {
    float c[2];
    float extent = demo_layout(w, c);
    /* Aerial: over the middle district, far enough back to see a few of its neighbours. */
    float d = RILL_CLAMP(extent * 0.8f, 260.0f, 520.0f);
    out[0] = (demo_view){
        "overview", {c[0] - 0.45f * d, 0.62f * d, c[1] + 0.64f * d}, {c[0], 0, c[1]}, 0.8f};
    /* Street level: down the open lane between two rows of buildings of the middle district
     * (rows stand at z = 0 and z = -36 from its centre, each building at most 13 m from its
     * row). */
    out[1] = (demo_view){
        "street", {c[0] - 96.0f, 1.8f, c[1] - 18.0f}, {c[0] + 60.0f, 14.0f, c[1] - 18.0f}, 1.1f};
}

static void look_at_matrix(const float eye[3], const float target[3], float out[16]) {
    mat4 view, inv;
    glm_lookat((float *)eye, (float *)target, (vec3){0, 1, 0}, view);
    glm_mat4_inv(view, inv);
    memcpy(out, inv, sizeof(mat4));
}

/* The world's set-up (drawables, models, defaults, the daylight look) is rill_content's, as in
 * `rill render` and `rill run`; only the two camera placements are the demo's own. */
static int demo_render_headless(rill_app *app, const demo_render_opts *o) {
    rill_world *w = rill_app_world(app);
    rill_renderer_desc d;
    memset(&d, 0, sizeof(d));
    d.width = o->width, d.height = o->height;
    d.shadow_distance = 700.0f; /* the aerial view reaches a few hundred metres */
    rill_renderer *r = NULL;
    rill_error err = {0};
    uint64_t t0 = rill_time_ns();
    rill_content_desc cd = {.app = app};
    rill_cli_content_hooks(&cd);
    cd.on_world = NULL; /* the components were registered before the load */
    rill_content *c = rill_content_open(&cd, &err);
    if (!c || rill_renderer_create(&d, &r, &err) != RILL_OK) {
        fprintf(stderr, "error: rill demo: %s\n", err.msg);
        rill_content_destroy(c);
        return 1;
    }
    int rc = 1;
    if (rill_content_load(c, r, &err) != RILL_OK) {
        fprintf(stderr, "error: rill demo: %s\n", err.msg);
        goto done;
    }
    printf("set up for drawing in %.2f s\n", (double)(rill_time_ns() - t0) * 1e-9);
    demo_view views[2];
    demo_views(w, views);
    for (int v = 0; v < 2; v++) {
        uint64_t v0 = rill_time_ns();
        rill_render_snapshot snap;
        if (rill_content_snapshot(c, views[v].eye, &snap, &err) != RILL_OK) {
            fprintf(stderr, "error: rill demo: %s\n", err.msg);
            goto done;
        }
        snap.views = NULL; /* the demo's own camera replaces the world's views */
        snap.view_count = 0;
        look_at_matrix(views[v].eye, views[v].target, snap.view.world_from_view);
        snap.view.fov_y = views[v].fov_y;
        snap.view.near_plane = 0.5f;
        snap.view.far_plane = 6000.0f;
        snap.view.orthographic = false;
        char path[1024];
        if (out_path(path, sizeof(path), o->out, views[v].name, &err) != RILL_OK ||
            strlen(path) + 5 > sizeof(path)) {
            fprintf(stderr, "error: rill demo: path too long\n");
            goto done;
        }
        strcat(path, ".png");
        /* Meshes and materials become drawable a frame or two after they are created: tiny
         * first frames get them resident without paying for full-size renders. */
        if (v == 0) {
            rill_result wr = rill_renderer_resize(r, 32, 18, &err);
            for (int f = 0; f < 8 && wr == RILL_OK; f++) {
                rill_render_stats ws;
                if ((wr = rill_renderer_render(r, &snap, &err)) != RILL_OK ||
                    (wr = rill_renderer_wait_idle(r, &err)) != RILL_OK)
                    break;
                rill_renderer_stats(r, &ws);
                if (ws.instances_visible)
                    break;
            }
            if (wr != RILL_OK || rill_renderer_resize(r, o->width, o->height, &err) != RILL_OK) {
                fprintf(stderr, "error: rill demo: %s\n", err.msg);
                goto done;
            }
        }
        if (rill_renderer_render(r, &snap, &err) != RILL_OK ||
            rill_renderer_write_png(r, path, &err) != RILL_OK) {
            fprintf(stderr, "error: rill demo: %s\n", err.msg);
            goto done;
        }
        rill_render_stats st;
        rill_renderer_stats(r, &st);
        printf("wrote %s (%ux%u): %u/%u instances visible, %u draws, %llu triangles, %u lights, "
               "%.2f s\n",
               path, o->width, o->height, st.instances_visible, st.instances_submitted,
               st.draw_calls, (unsigned long long)st.triangles, snap.light_count,
               (double)(rill_time_ns() - v0) * 1e-9);
        printf("  gpu ms:");
        for (uint32_t i = 0; i < st.pass_count; i++)
            printf(" %s %.1f", st.pass_names[i], st.pass_gpu_ms[i]);
        printf("\n");
        if (st.validation_messages) {
            fprintf(stderr, "error: rill demo: %u validation messages\n", st.validation_messages);
            goto done;
        }
    }
    rc = 0;
done:
    rill_content_release(c);
    rill_renderer_destroy(r);
    rill_content_destroy(c);
    return rc;
}

/* The viewer starts over the middle district, as the overview picture does. */
static int demo_window(rill_app *app, const demo_render_opts *o) {
    demo_view views[2];
    demo_views(rill_app_world(app), views);
    rill_cli_viewer_opts vo = {.title = "rill demo",
                               .vsync = 1,
                               .frames = o->frames,
                               .shadow_distance = 700.0f,
                               .has_start = true,
                               .near_plane = 0.5f,
                               .far_plane = 6000.0f,
                               .speed = 40.0f};
    memcpy(vo.eye, views[0].eye, sizeof(vo.eye));
    memcpy(vo.target, views[0].target, sizeof(vo.target));
    rill_error err = {0};
    rill_content_desc cd = {.app = app};
    rill_cli_content_hooks(&cd);
    cd.on_world = NULL;
    rill_content *c = rill_content_open(&cd, &err);
    if (!c) {
        fprintf(stderr, "error: rill demo: %s\n", err.msg);
        return 1;
    }
    int rc = rill_cli_viewer_run(&vo, c);
    rill_content_destroy(c);
    return rc;
}

/* The PNGs come first (unless --no-render), then, with --window, the viewer: `make demo` on a
 * desktop writes the pictures and opens the world. */
static int demo_on_loaded(rill_app *app, void *user) {
    const demo_render_opts *o = user;
    if (o->render) {
        int rc = demo_render_headless(app, o);
        if (rc != 0 || !o->window) {
            return rc;
        }
    }
    if (o->window)
        return demo_window(app, o);
    return 0;
}

static void demo_usage(FILE *f) {
    fprintf(f,
            "usage: rill demo [--out DIR] [--entities N] [--budget-ms N] [--no-load]\n"
            "                 [--size WxH] [--no-render] [--window [--frames N]]\n"
            "\n"
            "Writes the demo world (main.rsn, districts/, buildings/, project.toml) into DIR\n"
            "(default: rill-demo), with about N entities in total (default %u) spread over\n"
            "nested scene instances, then loads it asynchronously and prints the summary.\n"
            "Then it renders the world headless to DIR/overview.png and DIR/street.png\n"
            "(--size, default 1280x720; --no-render skips this); with --window it then opens\n"
            "the world in the `rill run` viewer (needs a display; --frames N quits after N\n"
            "frames).\n",
            DEMO_DEFAULT_ENTITIES);
}

int rill_cmd_demo(int argc, char **argv) {
    const char *out = "rill-demo";
    uint32_t target = DEMO_DEFAULT_ENTITIES;
    double budget_ms = 0.0;
    bool load = true;
    demo_render_opts ro = {.width = 1280, .height = 720, .render = true};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            out = argv[++i];
        } else if (strcmp(argv[i], "--entities") == 0 && i + 1 < argc) {
            char *end = NULL;
            unsigned long long n = strtoull(argv[++i], &end, 10);
            if (!end || *end || n < 1 || n > 10000000ull) {
                fprintf(stderr, "rill demo: --entities needs a count in [1, 10000000]\n");
                return 2;
            }
            target = (uint32_t)n;
        } else if (strcmp(argv[i], "--budget-ms") == 0 && i + 1 < argc) {
            char *end = NULL;
            budget_ms = strtod(argv[++i], &end);
            if (!end || *end || !(budget_ms > 0.0) || budget_ms > 10000.0) {
                fprintf(stderr, "rill demo: --budget-ms needs a number in (0, 10000]\n");
                return 2;
            }
        } else if (strcmp(argv[i], "--no-load") == 0) {
            load = false;
        } else if (strcmp(argv[i], "--no-render") == 0) {
            ro.render = false;
        } else if (strcmp(argv[i], "--window") == 0) {
            ro.window = true;
        } else if (strcmp(argv[i], "--frames") == 0 && i + 1 < argc) {
            char *end = NULL;
            const char *val = argv[++i];
            ro.frames = strtoull(val, &end, 10);
            /* strtoull takes "-1" (as ULLONG_MAX) and saturates on overflow: refused, not run
             * forever. */
            if (!end || *end || val[0] < '0' || val[0] > '9' || !ro.frames ||
                ro.frames > 1000000000ull) {
                fprintf(stderr, "rill demo: --frames needs a count in [1, 1000000000]\n");
                return 2;
            }
        } else if (strcmp(argv[i], "--size") == 0 && i + 1 < argc) {
            if (sscanf(argv[++i], "%ux%u", &ro.width, &ro.height) != 2 || !ro.width || !ro.height ||
                ro.width > 16384 || ro.height > 16384) {
                fprintf(stderr, "rill demo: bad --size '%s' (want WxH)\n", argv[i]);
                return 2;
            }
        } else if (strcmp(argv[i], "--help") == 0) {
            demo_usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "rill demo: unexpected argument '%s'\n", argv[i]);
            demo_usage(stderr);
            return 2;
        }
    }
    rill_error err = {0};
    if (rill_dir_create_all(out, &err) != RILL_OK) {
        fprintf(stderr, "error: %s\n", err.msg);
        return 1;
    }
    gen g = {.out = out};
    g.w = rill_world_create(NULL);
    if (!g.w) {
        fprintf(stderr, "error: out of memory\n");
        return 1;
    }
    rill_scene_components sc = rill_scene_register(g.w);
    rill_demo_register_components(g.w);
    g.ids.instance = sc.instance;
    g.ids.building = rill_world_find_component(g.w, "DemoBuilding");
    g.ids.prop = rill_world_find_component(g.w, "DemoProp");
    g.ids.light = rill_world_find_component(g.w, "DemoLight");
    uint64_t t0 = rill_time_ns();
    uint32_t expected = 0, districts = 0;
    rill_result r = generate(out, target, &expected, &districts, &g, &err);
    rill_world_destroy(g.w);
    if (r != RILL_OK) {
        fprintf(stderr, "error: writing the demo: %s\n", err.msg);
        return 1;
    }
    printf("generated %s: %u entities in %u districts, %u files, %.1f MB, %.2f s\n", out, expected,
           districts, g.files_written, (double)g.bytes_written / 1e6,
           (double)(rill_time_ns() - t0) * 1e-9);
    if (!load) {
        return 0;
    }
    ro.out = out;
    rill_cli_load_opts opts = {.root = out,
                               .scene = "main.rsn",
                               .budget_ms = budget_ms,
                               .progress = isatty(STDOUT_FILENO) != 0,
                               .on_loaded = (ro.render || ro.window) ? demo_on_loaded : NULL,
                               .on_loaded_user = &ro};
    rill_cli_load_result res;
    int rc = rill_cli_load_scene(&opts, &res);
    if (rc == 0 && res.entities != expected) {
        fprintf(stderr, "error: the demo loaded %u entities, expected %u\n", res.entities,
                expected);
        rc = 1;
    }
    return rc;
}
