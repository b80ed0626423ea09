/* test_channels.c: scene channels (rill/channels.h). Defaults are assigned by world add observers
 * on every creation path: code (MeshInstance-like and ModelMesh adds, names before or after),
 * rill_scene_model_spawn trees (primitives follow the NM_ Model entity above them) and .rsn scene
 * loads (the path streamed scene instances take too). After each path, check_all_assigned proves
 * that no renderable entity is left without channels, so no fallback is needed at draw time. Then
 * explicit values (and their inheritance), rename refresh, mode precedence and parsing. */
#include "rill_test.h"

#include "model_gen.h"
#include "rill/asset.h"
#include "rill/channels.h"
#include "rill/scene.h"

#define WRITE(dir, rel, text) rill_test_write_file(dir, rel, text, strlen(text))
#define BOTH (RILL_CHANNEL_SELECTABLE | RILL_CHANNEL_PRESERVE_IDENTITY)

typedef struct fx {
    rill_world *world;
    rill_model_components mc;
    rill_component sc;
} fx;

static void fx_init(fx *f) {
    f->world = rill_world_create(NULL, NULL);
    assert_non_null(f->world);
    rill_error err = {0};
    assert_int_equal(rill_channels_attach(f->world, &err), RILL_OK);
    assert_int_equal(rill_scene_model_register(f->world, &f->mc, &err), RILL_OK);
    f->sc = rill_channels_component(f->world);
    assert_true(f->sc.id != 0);
}

/* Every entity with a renderable component carries SceneChannels: nothing needs a fallback. */
static uint32_t check_all_assigned(fx *f) {
    rill_component comps[2] = {f->mc.model_mesh, f->mc.model};
    uint32_t seen = 0;
    for (int c = 0; c < 2; c++) {
        rill_query_desc qd = {0};
        qd.with[0] = comps[c];
        rill_query q = rill_world_query(f->world, &qd);
        while (rill_query_next(&q)) {
            const rill_scene_channels *s = rill_world_get(f->world, q.entity, f->sc);
            assert_non_null(s);
            assert_true(s->mask != 0);
            seen++;
        }
    }
    /* the census (what `rill render --stats` prints) agrees: none missing, none stale */
    rill_channels_census cs;
    rill_channels_take_census(f->world, &cs);
    assert_true(cs.renderable >= seen);
    assert_int_equal(cs.unassigned, 0);
    assert_int_equal(cs.stale, 0);
    return seen;
}

static const rill_scene_channels *get(fx *f, rill_entity e) {
    return rill_world_get(f->world, e, f->sc);
}

static void test_defaults_code(void **state) {
    (void)state;
    fx f;
    fx_init(&f);
    rill_model_mesh mm = {1, 0, 0};
    rill_entity plain = rill_world_spawn(f.world);
    rill_world_add(f.world, plain, f.mc.model_mesh, &mm);
    assert_int_equal(rill_channels_get(f.world, plain), RILL_CHANNEL_CONTEXT);
    assert_true(get(&f, plain)->from_defaults);

    rill_entity lamp = rill_world_spawn(f.world); /* named first */
    rill_world_set_name(f.world, lamp, "NM_Lamp");
    rill_world_add(f.world, lamp, f.mc.model_mesh, &mm);
    assert_int_equal(rill_channels_get(f.world, lamp), BOTH);

    rill_entity late = rill_world_spawn(f.world); /* named after */
    rill_world_add(f.world, late, f.mc.model_mesh, &mm);
    rill_world_set_name(f.world, late, "NM_Door");
    assert_int_equal(rill_channels_get(f.world, late), BOTH);

    rill_entity info = rill_world_spawn(f.world); /* not renderable: none */
    rill_world_set_name(f.world, info, "NM_Marker");
    assert_null(get(&f, info));
    assert_int_equal(rill_channels_get(f.world, info), 0);

    /* spawn_bulk (the scene loader's path) runs the observers too */
    rill_model_mesh mms[50];
    for (int i = 0; i < 50; i++) {
        mms[i] = mm;
    }
    rill_spawn_desc sd = {.count = 50};
    sd.components[0] = f.mc.model_mesh;
    sd.data[0] = mms;
    rill_entity out[50];
    assert_int_equal(rill_world_spawn_bulk(f.world, &sd, out), 50);
    for (int i = 0; i < 50; i++) {
        assert_int_equal(rill_channels_get(f.world, out[i]), RILL_CHANNEL_CONTEXT);
    }
    assert_int_equal(check_all_assigned(&f), 53);
    rill_world_destroy(f.world);
}

/* Load the generated model through the asset server and spawn it under `parent`. */
static rill_entity spawn_model(fx *f, rill_asset_server *as, rill_asset a, rill_entity parent) {
    const rill_gltf_model *gm = rill_asset_get_payload_as(as, a, RILL_GLTF_ASSET_LOADER);
    assert_non_null(gm);
    rill_entity root = RILL_ENTITY_NULL;
    rill_error err = {0};
    assert_int_equal(rill_scene_model_spawn(f->world, &f->mc, a, gm, parent, &root, &err), RILL_OK);
    return root;
}

static uint32_t count_masks(fx *f, rill_entity root, uint64_t mask) {
    uint32_t n = 0;
    RILL_ARRAY(rill_entity) st = {0};
    rill_array_push(&st, root);
    while (st.len) {
        rill_entity e = st.data[--st.len];
        if (rill_world_has(f->world, e, f->mc.model_mesh)) {
            assert_int_equal(rill_channels_get(f->world, e), mask);
            n++;
        }
        for (rill_entity c = rill_world_first_child(f->world, e); c;
             c = rill_world_next_sibling(f->world, c)) {
            rill_array_push(&st, c);
        }
    }
    rill_array_free(&st);
    return n;
}

static void test_defaults_model_spawn_and_rename(void **state) {
    (void)state;
    fx f;
    fx_init(&f);
    char dir[512];
    rill_test_tmpdir(dir, sizeof dir, "channels_spawn");
    uint8_t *glb = NULL;
    size_t n = 0;
    rill_error err = {0};
    assert_int_equal(model_gen_glb(&glb, &n, &err), RILL_OK);
    char path[700];
    snprintf(path, sizeof path, "%s/m.glb", dir);
    assert_int_equal(rill_file_write_all(path, glb, n, NULL), RILL_OK);
    rill_free(glb);
    rill_vfs *vfs = rill_vfs_create(NULL, NULL);
    assert_int_equal(rill_vfs_mount_dir(vfs, dir, &err), RILL_OK);
    rill_asset_server *as = rill_asset_server_create(&(rill_asset_server_desc){.vfs = vfs}, NULL);
    assert_int_equal(rill_gltf_register_asset_loader(as, &err), RILL_OK);
    rill_asset a = rill_asset_load_sync(as, "m.glb", &err);
    assert_int_equal(rill_asset_get_state(as, a), RILL_ASSET_STATE_LOADED);

    rill_entity tower = rill_world_spawn(f.world);
    rill_world_set_name(f.world, tower, "NM_Tower");
    rill_entity facade = rill_world_spawn(f.world);
    rill_world_set_name(f.world, facade, "Facade");
    spawn_model(&f, as, a, tower);
    spawn_model(&f, as, a, facade);
    uint32_t prims = count_masks(&f, tower, BOTH);
    assert_true(prims > 0);
    assert_int_equal(count_masks(&f, facade, RILL_CHANNEL_CONTEXT), prims);
    assert_int_equal(check_all_assigned(&f), 2 * prims);

    /* rename refreshes defaults only: one primitive below the facade is set explicitly first */
    rill_entity frot = rill_world_first_child(f.world, facade);
    rill_entity explicit_e = RILL_ENTITY_NULL;
    RILL_ARRAY(rill_entity) st = {0};
    rill_array_push(&st, frot);
    while (st.len && !explicit_e) {
        rill_entity e = st.data[--st.len];
        if (rill_world_has(f.world, e, f.mc.model_mesh)) {
            explicit_e = e;
        }
        for (rill_entity c = rill_world_first_child(f.world, e); c;
             c = rill_world_next_sibling(f.world, c)) {
            rill_array_push(&st, c);
        }
    }
    rill_array_free(&st);
    assert_true(rill_channels_set(f.world, explicit_e, UINT64_C(1) << 40));
    assert_false(get(&f, explicit_e)->from_defaults);
    rill_world_set_name(f.world, facade, "NM_Facade");
    assert_int_equal(rill_channels_get(f.world, explicit_e), UINT64_C(1) << 40);
    uint32_t both = 0, total = 0;
    rill_array_push(&st, facade);
    while (st.len) {
        rill_entity e = st.data[--st.len];
        if (rill_world_has(f.world, e, f.mc.model_mesh)) {
            total++;
            both += rill_channels_get(f.world, e) == BOTH;
        }
        for (rill_entity c = rill_world_first_child(f.world, e); c;
             c = rill_world_next_sibling(f.world, c)) {
            rill_array_push(&st, c);
        }
    }
    rill_array_free(&st);
    assert_int_equal(total, prims);
    assert_int_equal(both, prims - 1);

    /* an explicit value on the Model entity is inherited by the defaulted primitives */
    assert_true(rill_channels_set(f.world, tower, RILL_CHANNEL_GHOST | RILL_CHANNEL_CONTEXT));
    assert_int_equal(count_masks(&f, tower, RILL_CHANNEL_GHOST | RILL_CHANNEL_CONTEXT), prims);
    rill_world_set_name(f.world, tower, "NM_Renamed"); /* explicit stays */
    assert_int_equal(rill_channels_get(f.world, tower), RILL_CHANNEL_GHOST | RILL_CHANNEL_CONTEXT);
    rill_channels_refresh(f.world, tower, true); /* back to defaults: NM_ */
    assert_int_equal(count_masks(&f, tower, BOTH), prims);

    rill_world_destroy(f.world);
    rill_asset_release(as, a);
    rill_asset_server_destroy(as);
    rill_vfs_destroy(vfs);
}

static void test_defaults_scene_load(void **state) {
    (void)state;
    fx f;
    fx_init(&f);
    char dir[512];
    rill_test_tmpdir(dir, sizeof dir, "channels_scene");
    WRITE(dir, "main.rsn",
          "rsn 1\n"
          "entity 1 \"NM_Statue\" { Model { path: @\"m.glb\" } }\n"
          "entity 2 \"block\" { Model { path: @\"m.glb\" } }\n"
          "entity 3 \"group\" { }\n"
          "entity 4 \"street\" { SceneInstance { scene: @\"sub.rsn\" } }\n"
          "entity 5 \"wall\" { Model { path: @\"m.glb\" } ChannelMask { mask: 9 } }\n"
          "entity 6 \"NM_Glass\" { ChannelMask { mask: 8 } Model { path: @\"m.glb\" } }\n");
    WRITE(dir, "sub.rsn",
          "rsn 1\nentity 1 \"NM_Kiosk\" { Model { path: @\"m.glb\" } }\n"
          "entity 2 { Model { path: @\"m.glb\" } }\n"
          "entity 3 \"facade\" { Model { path: @\"m.glb\" } ChannelMask { mask: 9 } }\n");
    WRITE(dir, "m.glb", "not read: the loader only names it");
    rill_vfs *vfs = rill_vfs_create(NULL, NULL);
    rill_error err = {0};
    assert_int_equal(rill_vfs_mount_dir(vfs, dir, &err), RILL_OK);
    rill_scene_loader_desc d = rill_scene_loader_query_defaults();
    d.world = f.world;
    d.vfs = vfs;
    rill_scene_loader *ld = rill_scene_loader_create(&d, NULL);
    assert_non_null(ld);
    assert_int_equal(rill_scene_load_sync(ld, "main.rsn", NULL, &err), RILL_OK);
    for (int i = 0; i < 8; i++) {
        rill_scene_loader_update(ld);
    }
    assert_int_equal(rill_channels_get(f.world, rill_world_find_by_name(f.world, "NM_Statue")),
                     BOTH);
    assert_int_equal(rill_channels_get(f.world, rill_world_find_by_name(f.world, "block")),
                     RILL_CHANNEL_CONTEXT);
    assert_int_equal(rill_channels_get(f.world, rill_world_find_by_name(f.world, "group")), 0);
    rill_entity kiosk = rill_world_find_by_name(f.world, "NM_Kiosk");
    assert_true(kiosk != RILL_ENTITY_NULL); /* the instance spawned */
    assert_int_equal(rill_channels_get(f.world, kiosk), BOTH);
    /* ChannelMask in a scene (either order of components, streamed instances too) is an explicit
     * set: it wins over the NM_ default and survives a rename. */
    rill_entity wall = rill_world_find_by_name(f.world, "wall");
    rill_entity glass = rill_world_find_by_name(f.world, "NM_Glass");
    rill_entity facade = rill_world_find_by_name(f.world, "facade");
    uint64_t ghost_ctx = RILL_CHANNEL_GHOST | RILL_CHANNEL_CONTEXT;
    assert_int_equal(rill_channels_get(f.world, wall), ghost_ctx);
    assert_int_equal(rill_channels_get(f.world, glass), RILL_CHANNEL_GHOST);
    assert_int_equal(rill_channels_get(f.world, facade), ghost_ctx);
    assert_false(get(&f, wall)->from_defaults);
    rill_world_set_name(f.world, wall, "NM_Wall");
    assert_int_equal(rill_channels_get(f.world, wall), ghost_ctx);
    /* Its primitives (model spawns below it) inherit it. */
    rill_model_mesh mm = {1, 0, 0};
    rill_entity prim = rill_world_spawn(f.world);
    rill_world_set_parent(f.world, prim, wall);
    rill_world_add(f.world, prim, f.mc.model_mesh, &mm);
    assert_int_equal(rill_channels_get(f.world, prim), ghost_ctx);
    assert_true(get(&f, prim)->from_defaults);
    assert_int_equal(check_all_assigned(&f), 8);
    rill_scene_loader_destroy(ld);
    rill_world_destroy(f.world);
    rill_vfs_destroy(vfs);
}

/* The census finds what the defaults missed: a renderable entity without channels, a defaulted
 * value left stale by a reparent, and counts explicit values and the built-in bits. */
static void test_census(void **state) {
    (void)state;
    fx f;
    fx_init(&f);
    rill_channels_census cs;
    rill_channels_take_census(f.world, &cs);
    assert_int_equal(cs.renderable, 0);
    rill_model_mesh mm = {1, 0, 0};
    rill_entity e[4];
    for (int i = 0; i < 4; i++) {
        e[i] = rill_world_spawn(f.world);
        assert_non_null(rill_world_add(f.world, e[i], f.mc.model_mesh, &mm));
    }
    rill_world_set_name(f.world, e[1], "NM_Kiosk");
    assert_true(rill_channels_set(f.world, e[2], RILL_CHANNEL_GHOST | RILL_CHANNEL_CONTEXT));
    rill_entity holder = rill_world_spawn(f.world); /* not renderable: not counted */
    rill_world_set_name(f.world, holder, "NM_Holder");
    rill_channels_take_census(f.world, &cs);
    assert_int_equal(cs.renderable, 4);
    assert_int_equal(cs.unassigned, 0);
    assert_int_equal(cs.stale, 0);
    assert_int_equal(cs.explicit_set, 1);
    assert_int_equal(cs.bits[0], 3); /* context: e0, e2 (explicit), e3 */
    assert_int_equal(cs.bits[1], 1); /* selectable: the kiosk */
    assert_int_equal(cs.bits[2], 1);
    assert_int_equal(cs.bits[3], 1);
    /* Reparenting is not watched: e3 under the NM_ holder keeps context until refreshed. */
    rill_world_set_parent(f.world, e[3], holder);
    rill_channels_take_census(f.world, &cs);
    assert_int_equal(cs.stale, 1);
    rill_channels_refresh(f.world, e[3], false);
    rill_channels_take_census(f.world, &cs);
    assert_int_equal(cs.stale, 0);
    assert_int_equal(cs.bits[1], 2);
    /* A renderable entity without channels is what a missed creation path leaves. */
    rill_world_remove(f.world, e[0], f.sc);
    rill_channels_take_census(f.world, &cs);
    assert_int_equal(cs.renderable, 4);
    assert_int_equal(cs.unassigned, 1);
    rill_world_destroy(f.world);
}

static void test_modes_precedence(void **state) {
    (void)state;
    fx f;
    fx_init(&f);
    const rill_channel_modes *m = rill_channels_modes(f.world);
    float op = 0;
    assert_int_equal(rill_channels_resolve(m, RILL_CHANNEL_CONTEXT, &op), RILL_RENDER_MODE_NORMAL);
    uint64_t app1 = UINT64_C(1) << 33, app2 = UINT64_C(1) << 50;
    rill_channels_set_mode(f.world, RILL_CHANNEL_GHOST, RILL_RENDER_MODE_GHOST, 0.35f);
    rill_channels_set_mode(f.world, app1, RILL_RENDER_MODE_GHOST, 0.6f);
    rill_channels_set_mode(f.world, app2, RILL_RENDER_MODE_GHOST, 0.2f);
    rill_channels_set_mode(f.world, RILL_CHANNEL_CONTEXT, RILL_RENDER_MODE_WIREFRAME, 1);
    rill_channels_set_visible(f.world, RILL_CHANNEL_SELECTABLE, false);
    assert_int_equal(rill_channels_resolve(m, RILL_CHANNEL_GHOST | app1, &op),
                     RILL_RENDER_MODE_GHOST);
    assert_float_equal(op, 0.35f, 1e-6);
    assert_int_equal(rill_channels_resolve(m, RILL_CHANNEL_GHOST | app1 | app2, &op),
                     RILL_RENDER_MODE_GHOST);
    assert_float_equal(op, 0.2f, 1e-6);
    assert_int_equal(rill_channels_resolve(m, RILL_CHANNEL_GHOST | RILL_CHANNEL_CONTEXT, &op),
                     RILL_RENDER_MODE_WIREFRAME);
    assert_int_equal(
        rill_channels_resolve(m, RILL_CHANNEL_SELECTABLE | RILL_CHANNEL_CONTEXT | app1, &op),
        RILL_RENDER_MODE_HIDDEN);
    assert_int_equal(rill_channels_resolve(m, RILL_CHANNEL_PRESERVE_IDENTITY, &op),
                     RILL_RENDER_MODE_NORMAL);
    assert_float_equal(op, 1.0f, 0);
    rill_channels_set_visible(f.world, RILL_CHANNEL_SELECTABLE, true);
    assert_int_equal(rill_channels_resolve(m, RILL_CHANNEL_SELECTABLE, &op),
                     RILL_RENDER_MODE_NORMAL);
    /* join with an entity's own RenderMode */
    assert_int_equal(
        rill_channels_join(RILL_RENDER_MODE_HIDDEN, 1, RILL_RENDER_MODE_GHOST, 0.3f, &op),
        RILL_RENDER_MODE_HIDDEN);
    assert_int_equal(
        rill_channels_join(RILL_RENDER_MODE_GHOST, 0.5f, RILL_RENDER_MODE_GHOST, 0.3f, &op),
        RILL_RENDER_MODE_GHOST);
    assert_float_equal(op, 0.3f, 1e-6);
    assert_int_equal(
        rill_channels_join(RILL_RENDER_MODE_NORMAL, 1, RILL_RENDER_MODE_WIREFRAME, 1, &op),
        RILL_RENDER_MODE_WIREFRAME);
    rill_world_destroy(f.world);
}

static void test_parse(void **state) {
    (void)state;
    uint64_t ch = 0;
    rill_render_mode mode;
    float op;
    rill_error err = {0};
    assert_true(rill_channels_parse_assignment("context=wireframe", &ch, &mode, &op, &err));
    assert_int_equal(ch, RILL_CHANNEL_CONTEXT);
    assert_int_equal(mode, RILL_RENDER_MODE_WIREFRAME);
    assert_true(rill_channels_parse_assignment("ghost=ghost:0.35", &ch, &mode, &op, &err));
    assert_int_equal(ch, RILL_CHANNEL_GHOST);
    assert_int_equal(mode, RILL_RENDER_MODE_GHOST);
    assert_float_equal(op, 0.35f, 1e-6);
    assert_true(rill_channels_parse_assignment("bit40=hidden", &ch, &mode, &op, &err));
    assert_int_equal(ch, UINT64_C(1) << 40);
    assert_true(rill_channels_parse_assignment("preserve-identity=normal", &ch, &mode, &op, &err));
    assert_true(rill_channels_parse_assignment("bit63=ghost:.5", &ch, &mode, &op, &err));
    assert_int_equal(ch, UINT64_C(1) << 63);
    assert_float_equal(op, 0.5f, 1e-6);
    assert_true(rill_channels_parse_assignment("context=ghost:0", &ch, &mode, &op, &err));
    assert_float_equal(op, 0.0f, 0.0);
    /* Only a plain decimal in [0, 1] is an opacity: no sign, space, NaN or infinity; an empty
     * name, an empty mode, a name or mode in other letter case, a bit past 63 or with a leading
     * zero are refused. */
    const char *bad[] = {"context",
                         "walls=hidden",
                         "context=glass",
                         "ghost=ghost:1.5",
                         "ghost=ghost:",
                         "bit64=hidden",
                         "=hidden",
                         "context=ghost:0.3x",
                         "context=ghost:nan",
                         "context=ghost:inf",
                         "context=ghost:-1",
                         "context=ghost:-0",
                         "context=ghost: 0.3",
                         "context=ghost:+0.3",
                         "",
                         "=",
                         "context=",
                         "Context=hidden",
                         "context=HIDDEN",
                         "bit032=hidden",
                         "bit07=hidden",
                         "bit-1=hidden",
                         "context=hidden=x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_false(rill_channels_parse_assignment(bad[i], &ch, &mode, &op, &err));
        assert_int_equal(err.code, RILL_ERR_PARSE);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_code),
        cmocka_unit_test(test_defaults_model_spawn_and_rename),
        cmocka_unit_test(test_defaults_scene_load),
        cmocka_unit_test(test_census),
        cmocka_unit_test(test_modes_precedence),
        cmocka_unit_test(test_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
