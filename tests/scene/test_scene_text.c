/* test_scene_text.c: the .rsn reader and writer: errors with file:line:col, every field type,
 * defaults, clamping and its warnings, unknown fields and components (verbatim and lossy), the
 * canonical round trip (byte-identical), shortest float round trip, and hostile input (every
 * truncation, random byte flips). */
#include "scene_test_common.h"

#include <math.h>

/* A canonical file: what the writer produces for it is these exact bytes. */
static const char CANONICAL[] = "rsn 1\n"
                                "\n"
                                "entity 1 \"House \\\"A\\\"\" {\n"
                                "    Alpha {\n"
                                "        x: (1, 2)  # kept verbatim, comment included\n"
                                "        nested: [Foo, &3, @\"a.png\"]\n"
                                "    }\n"
                                "    TestAll {\n"
                                "        flag: true\n"
                                "        i32: -42\n"
                                "        u32: 4000000000\n"
                                "        i64: -9000000000\n"
                                "        u64: 18446744073709551615\n"
                                "        f32: 0.1\n"
                                "        f64: 0.1\n"
                                "        v2: (1, -2)\n"
                                "        v3: (1.5, 2.25, -0.00003)\n"
                                "        v4: (1, 2, 3, 4)\n"
                                "        q: (0, 0.5, 0, 0.5)\n"
                                "        color: (1, 0.5, 0.25, 1)\n"
                                "        str: \"he said \\\"hi\\\"\\n\\ttab \\\\ \\x01\"\n"
                                "        path: @\"models/door.glb\"\n"
                                "        ent: &3\n"
                                "        mode: low\n"
                                "        weights: [1, 2, 3]\n"
                                "        tags: [\"a b\", \"\"]\n"
                                "        modes: [back, high]\n"
                                "        ints: [-1, 7]\n"
                                "        refs: [&2, none]\n"
                                "        unit: 0.75\n"
                                "        small: -5\n"
                                "    }\n"
                                "    Transform {\n"
                                "        translation: (10, 0, -4.5)\n"
                                "        rotation: (0, 0, 0, 1)\n"
                                "        scale: (1, 1, 1)\n"
                                "    }\n"
                                "    Zeta {}\n"
                                "}\n"
                                "\n"
                                "entity 2 parent 1 \"Door\" {\n"
                                "    Transform {\n"
                                "        translation: (1, 0, 0)\n"
                                "        rotation: (0, 0, 0, 1)\n"
                                "        scale: (1, 1, 1)\n"
                                "    }\n"
                                "}\n"
                                "\n"
                                "entity 3 parent 2 {\n"
                                "}\n"
                                "\n"
                                "entity 4 parent 1 \"\" {\n"
                                "    TestAll {\n"
                                "        flag: false\n"
                                "        i32: 0\n"
                                "        u32: 0\n"
                                "        i64: 0\n"
                                "        u64: 0\n"
                                "        f32: inf\n"
                                "        f64: -inf\n"
                                "        v2: (0, 0)\n"
                                "        v3: (1e+30, -0, 1.1754944e-38)\n"
                                "        v4: (0, 0, 0, 0)\n"
                                "        q: (0, 0, 0, 0)\n"
                                "        color: (0, 0, 0, 0)\n"
                                "        str: \"\"\n"
                                "        path: @\"\"\n"
                                "        ent: none\n"
                                "        mode: high\n"
                                "        weights: [0, 0, 0]\n"
                                "        tags: [\"\", \"\"]\n"
                                "        modes: [off, off]\n"
                                "        ints: [0, 0]\n"
                                "        refs: [none, none]\n"
                                "        unit: 0\n"
                                "        small: 5\n"
                                "    }\n"
                                "}\n"
                                "\n"
                                "entity 5 \"Village\" {\n"
                                "    SceneInstance {\n"
                                "        scene: @\"scenes/village.rsn\"\n"
                                "        streamed: true\n"
                                "        load_radius: 150\n"
                                "        unload_radius: 200\n"
                                "        bounds_min: (0, 0, 0)\n"
                                "        bounds_max: (0, 0, 0)\n"
                                "    }\n"
                                "}\n"
                                "\n"
                                "entity 6 {\n"
                                "    Camera {\n"
                                "        active: true\n"
                                "        is_default: false\n"
                                "        role: game\n"
                                "        projection: perspective\n"
                                "        fov_y: 0.8\n"
                                "        near: 0.1\n"
                                "        far: 1000\n"
                                "        ortho_height: 10\n"
                                "        viewport: (0, 0, 1, 1)\n"
                                "        clear_color: (0, 0, 0, 1)\n"
                                "        hdr: true\n"
                                "        order: 0\n"
                                "        passthrough: off\n"
                                "        target: \"\"\n"
                                "        target_width: 512\n"
                                "        target_height: 512\n"
                                "    }\n"
                                "}\n";

typedef struct fixture {
    rill_world *world;
    rill_vfs *vfs;
    rill_scene_loader *loader;
    char dir[512];
    test_ids ids;
} fixture;

static void fx_init(fixture *fx, bool lossy) {
    memset(fx, 0, sizeof *fx);
    fx->world = rill_world_create(NULL, NULL);
    assert_non_null(fx->world);
    fx->ids = test_register(fx->world, NULL);
    rill_test_tmpdir(fx->dir, sizeof fx->dir, "scene_text");
    fx->vfs = rill_vfs_create(NULL, NULL);
    rill_error err = {0};
    assert_int_equal(rill_vfs_mount_dir(fx->vfs, fx->dir, &err), RILL_OK);
    rill_scene_loader_desc d = {.world = fx->world, .vfs = fx->vfs, .read.lossy = lossy};
    fx->loader = rill_scene_loader_create(&d, NULL);
    assert_non_null(fx->loader);
}

static void fx_done(fixture *fx) {
    rill_scene_loader_destroy(fx->loader);
    rill_vfs_destroy(fx->vfs);
    rill_world_destroy(fx->world);
    rill_test_tmpdir_remove(fx->dir);
}

/* Writes the current main scene back to text. */
static void write_main(fixture *fx, rill_strbuf *out) {
    rill_entity roots[64];
    uint32_t n = rill_scene_loader_main_roots(fx->loader, roots, 64);
    assert_true(n <= 64);
    rill_error err = {0};
    assert_int_equal(rill_scene_write(fx->world, roots, n, NULL, out, &err), RILL_OK);
}

static void print_diff(const char *a, const char *b) {
    size_t i = 0;
    while (a[i] && a[i] == b[i]) {
        i++;
    }
    fprintf(stderr, "first difference at byte %zu:\n--- expected\n%.200s\n--- got\n%.200s\n", i,
            a + (i > 40 ? i - 40 : 0), b + (i > 40 ? i - 40 : 0));
}

static void test_canonical_round_trip(void **state) {
    (void)state;
    fixture fx;
    fx_init(&fx, false);
    test_write_file(fx.dir, "scenes/canon.rsn", CANONICAL);
    test_logbuf lb;
    test_log_begin(&lb);
    rill_error err = {0};
    assert_int_equal(rill_scene_load_sync(fx.loader, "scenes/canon.rsn", NULL, &err), RILL_OK);
    /* The only warnings: the two asset paths that do not exist in the VFS and the two unknown
     * components (kept, and named with their place). */
    assert_true(
        test_log_has(&lb, "canon.rsn:22:15: TestAll.path: asset \"models/door.glb\" is missing"));
    assert_true(test_log_has(
        &lb, "canon.rsn:82:16: SceneInstance.scene: asset \"scenes/village.rsn\" is missing"));
    assert_true(test_log_has(&lb, "canon.rsn:4:5: unknown component 'Alpha' kept as written"));
    if (lb.warns != 4) {
        fprintf(stderr, "%s", lb.text.data);
    }
    assert_int_equal(lb.warns, 4);
    test_log_end(&lb);
    assert_int_equal(rill_world_entity_count(fx.world), 6);

    /* Values landed in the component as typed. */
    rill_entity house = rill_world_find_by_name(fx.world, "House \"A\"");
    assert_true(house != RILL_ENTITY_NULL);
    const every_field *a = rill_world_get(fx.world, house, fx.ids.all);
    assert_non_null(a);
    assert_true(a->flag);
    assert_int_equal(a->i32, -42);
    assert_int_equal(a->u32, 4000000000u);
    assert_true(a->i64 == -9000000000ll);
    assert_true(a->u64 == UINT64_MAX);
    assert_true(a->f32 == 0.1f && a->f64 == 0.1);
    assert_true(a->v3[2] == -3e-05f);
    assert_true(a->v3[0] == 1.5f && a->v2[1] == -2.0f && a->color[2] == 0.25f);
    assert_string_equal(a->str, "he said \"hi\"\n\ttab \\ \x01");
    assert_string_equal(a->path, "models/door.glb");
    assert_int_equal(a->mode, EVERY_MODE_LOW);
    assert_true(a->weights[2] == 3.0f && a->ints[0] == -1 && a->ints[1] == 7);
    /* The entity reference was remapped to the world entity of file id 3 (the door's child). */
    rill_entity door = rill_world_find_by_name(fx.world, "Door");
    assert_true(rill_world_get_parent(fx.world, door) == house);
    assert_true(a->ent == rill_world_first_child(fx.world, door));
    assert_true(rill_world_is_alive(fx.world, a->ent));
    assert_true(a->refs[0] == door && a->refs[1] == RILL_ENTITY_NULL);
    assert_true(a->modes[0] == EVERY_MODE_BACK && a->modes[1] == EVERY_MODE_HIGH);
    assert_string_equal(a->tags[0], "a b");

    rill_strbuf out = {0};
    write_main(&fx, &out);
    if (strcmp(out.data, CANONICAL) != 0) {
        print_diff(CANONICAL, out.data);
    }
    assert_string_equal(out.data, CANONICAL);

    /* And the writer's output, read again, gives the same bytes again. */
    test_write_file(fx.dir, "scenes/again.rsn", out.data);
    assert_int_equal(rill_scene_load_sync(fx.loader, "scenes/again.rsn", NULL, &err), RILL_OK);
    assert_int_equal(rill_world_entity_count(fx.world), 6); /* the old main scene went */
    rill_strbuf out2 = {0};
    write_main(&fx, &out2);
    assert_string_equal(out2.data, CANONICAL);
    rill_strbuf_free(&out);
    rill_strbuf_free(&out2);
    fx_done(&fx);
}

static void test_defaults_and_noncanonical(void **state) {
    (void)state;
    fixture fx;
    fx_init(&fx, false);
    /* Missing fields take defaults; comments, odd spacing, one-line blocks and trailing commas
     * are fine; a parent written after its child is fine. */
    test_write_file(fx.dir, "a.rsn",
                    "# a comment\nrsn 1 entity 7 parent 9 { TestAll { i32: 0x10 v2: (1,2,) } }\n"
                    "entity 9 \"P\" {Transform{translation:(1,2,3)}}\n");
    rill_error err = {0};
    assert_int_equal(rill_scene_load_sync(fx.loader, "a.rsn", NULL, &err), RILL_OK);
    rill_entity p = rill_world_find_by_name(fx.world, "P");
    rill_entity c = rill_world_first_child(fx.world, p);
    assert_true(c != RILL_ENTITY_NULL);
    const every_field *a = rill_world_get(fx.world, c, fx.ids.all);
    assert_int_equal(a->i32, 16);
    assert_true(a->f32 == 0.5f);                 /* field default */
    assert_true(a->v3[0] == 1 && a->v3[2] == 3); /* field default */
    assert_string_equal(a->str, "default");
    const rill_transform *t = rill_world_get(fx.world, p, RILL_COMPONENT_TRANSFORM);
    assert_true(t->scale[0] == 1.0f && t->rotation[3] == 1.0f && t->translation[1] == 2.0f);
    rill_entity roots[4];
    assert_int_equal(rill_scene_loader_main_roots(fx.loader, roots, 4), 1);
    assert_true(roots[0] == p);
    fx_done(&fx);
}

static void test_clamps_and_unknown_fields_warn(void **state) {
    (void)state;
    fixture fx;
    fx_init(&fx, false);
    test_logbuf lb;
    test_log_begin(&lb);
    static const char text[] = "rsn 1\n"
                               "entity 1 {\n"
                               "    TestAll {\n"
                               "        unit: 1.5\n"
                               "        small: -100\n"
                               "        i32: 99999999999\n"
                               "        u32: -3\n"
                               "        bogus: 1\n"
                               "    }\n"
                               "}\n";
    rill_scene_check_info info;
    rill_error err = {0};
    assert_int_equal(
        rill_scene_check_text(fx.world, "w.rsn", text, strlen(text), NULL, &info, &err), RILL_OK);
    assert_int_equal(info.warnings, 5);
    assert_true(
        test_log_has(&lb, "w.rsn:4:15: TestAll.unit: value 1.5 out of range, clamped to 1"));
    assert_true(
        test_log_has(&lb, "w.rsn:5:16: TestAll.small: value -100 out of range, clamped to -5"));
    assert_true(test_log_has(&lb, "w.rsn:6:14: TestAll.i32: value 99999999999 out of range"));
    assert_true(test_log_has(&lb, "w.rsn:7:14: TestAll.u32: value -3 out of range, clamped to 0"));
    assert_true(test_log_has(&lb, "w.rsn:8:9: component 'TestAll' has no field 'bogus'"));
    test_log_end(&lb);

    /* The clamped values are what lands in the world. */
    test_write_file(fx.dir, "w.rsn", text);
    assert_int_equal(rill_scene_load_sync(fx.loader, "w.rsn", NULL, &err), RILL_OK);
    rill_entity roots[1];
    assert_int_equal(rill_scene_loader_main_roots(fx.loader, roots, 1), 1);
    const every_field *a = rill_world_get(fx.world, roots[0], fx.ids.all);
    assert_true(a->unit == 1.0f && a->small == -5 && a->i32 == INT32_MAX && a->u32 == 0);
    fx_done(&fx);
}

static void test_unknown_components(void **state) {
    (void)state;
    static const char text[] = "rsn 1\n"
                               "\n"
                               "entity 1 \"A\" {\n"
                               "    Mystery {\n"
                               "        power: 9000\n"
                               "        tags: [\"x\", \"y\"]\n"
                               "    }\n"
                               "    Transform {\n"
                               "        translation: (0, 0, 0)\n"
                               "        rotation: (0, 0, 0, 1)\n"
                               "        scale: (1, 1, 1)\n"
                               "    }\n"
                               "    Unheard {}\n"
                               "}\n";
    /* Default: kept verbatim and written back byte for byte, each named with its place. */
    fixture fx;
    fx_init(&fx, false);
    test_write_file(fx.dir, "u.rsn", text);
    rill_error err = {0};
    rill_scene_load h;
    test_logbuf lb0;
    test_log_begin(&lb0);
    assert_int_equal(rill_scene_load_sync(fx.loader, "u.rsn", &h, &err), RILL_OK);
    assert_int_equal(rill_scene_load_warnings(fx.loader, h), 2);
    assert_true(test_log_has(&lb0, "u.rsn:4:5: unknown component 'Mystery' kept as written"));
    test_log_end(&lb0);
    rill_strbuf out = {0};
    write_main(&fx, &out);
    assert_string_equal(out.data, text);
    rill_strbuf_free(&out);
    fx_done(&fx);

    /* Lossy: skipped, one warning each, and gone from the output. */
    fx_init(&fx, true);
    test_write_file(fx.dir, "u.rsn", text);
    test_logbuf lb;
    test_log_begin(&lb);
    assert_int_equal(rill_scene_load_sync(fx.loader, "u.rsn", &h, &err), RILL_OK);
    assert_int_equal(rill_scene_load_warnings(fx.loader, h), 2);
    assert_int_equal(lb.warns, 2);
    assert_true(test_log_has(&lb, "u.rsn:4:5: unknown component 'Mystery' skipped"));
    assert_true(test_log_has(&lb, "u.rsn:13:5: unknown component 'Unheard' skipped"));
    test_log_end(&lb);
    write_main(&fx, &out);
    assert_null(strstr(out.data, "Mystery"));
    assert_non_null(strstr(out.data, "Transform {"));
    rill_strbuf_free(&out);
    fx_done(&fx);
}

/* A misspelt component or field gets the registered name closest to it; strict makes unknown
 * components and missing assets errors (loads and checks alike); a check given a VFS checks
 * asset paths. */
static void test_unknown_suggest_and_strict(void **state) {
    (void)state;
    static const char text[] = "rsn 1\n"
                               "entity 1 \"A\" {\n"
                               "    Transfrom {\n"
                               "        translation: (1, 2, 3)\n"
                               "    }\n"
                               "    Transform {\n"
                               "        translaton: (1, 2, 3)\n"
                               "    }\n"
                               "    Zebra {}\n"
                               "}\n";
    fixture fx;
    fx_init(&fx, false);
    test_logbuf lb;
    test_log_begin(&lb);
    rill_scene_check_info info;
    rill_error err = {0};
    assert_int_equal(
        rill_scene_check_text(fx.world, "s.rsn", text, sizeof text - 1, NULL, &info, &err),
        RILL_OK);
    assert_int_equal(info.unknown_components, 2);
    assert_int_equal(info.warnings, 3);
    assert_true(test_log_has(&lb, "s.rsn:3:5: unknown component 'Transfrom' kept as written, not "
                                  "used; did you mean 'Transform'?"));
    assert_true(test_log_has(&lb, "translaton'; ignored (did you mean 'translation'?)"));
    assert_true(
        test_log_has(&lb, "s.rsn:9:5: unknown component 'Zebra' kept as written, not used"));
    assert_false(test_log_has(&lb, "'Zebra' kept as written, not used; did you mean"));
    test_log_end(&lb);
    rill_scene_read_desc strict = {.strict = true};
    assert_int_equal(
        rill_scene_check_text(fx.world, "s.rsn", text, sizeof text - 1, &strict, &info, &err),
        RILL_ERR_PARSE);
    assert_non_null(strstr(err.msg, "s.rsn:3:5: unknown component 'Transfrom' (an error with "
                                    "--strict); did you mean 'Transform'?"));
    /* Missing assets: a warning against the VFS, an error when strict, in a load too. */
    static const char model[] = "rsn 1\nentity 1 {\n    TestAll {\n        path: \"m/x.glb\"\n"
                                "    }\n}\n";
    rill_scene_read_desc assets = {.assets = fx.vfs};
    test_log_begin(&lb);
    assert_int_equal(
        rill_scene_check_text(fx.world, "m.rsn", model, sizeof model - 1, &assets, &info, &err),
        RILL_OK);
    assert_int_equal(info.warnings, 1);
    assert_true(test_log_has(&lb, "m.rsn:4:15: TestAll.path: asset \"m/x.glb\" is missing"));
    test_log_end(&lb);
    assets.strict = true;
    assert_int_equal(
        rill_scene_check_text(fx.world, "m.rsn", model, sizeof model - 1, &assets, &info, &err),
        RILL_ERR_PARSE);
    assert_non_null(strstr(err.msg, "asset \"m/x.glb\" is missing (an error with --strict)"));
    test_write_file(fx.dir, "m.rsn", model);
    rill_scene_loader_set_strict(fx.loader, true);
    assert_int_not_equal(rill_scene_load_sync(fx.loader, "m.rsn", NULL, &err), RILL_OK);
    assert_non_null(strstr(err.msg, "is missing (an error with --strict)"));
    rill_scene_loader_set_strict(fx.loader, false);
    assert_int_equal(rill_scene_load_sync(fx.loader, "m.rsn", NULL, &err), RILL_OK);
    fx_done(&fx);
}

/* Each bad text and the place its error must name. */
static void test_errors_name_the_place(void **state) {
    (void)state;
    static const struct {
        const char *text;
        const char *where;
    } cases[] = {
        {"", "e.rsn:1:1: expected the version line"},
        {"rsn 2\n", "e.rsn:1:1: format version 2 is not supported"},
        {"rsn 1\nentity 0 {}\n", "e.rsn:2:8: an entity id must be"},
        {"rsn 1\nentity 1 {\n  T {\n", "e.rsn:4:1: expected a field name or '}'"},
        {"rsn 1\nentity 1 { TestAll { i32: \"x\" } }",
         "e.rsn:2:27: TestAll.i32: expected an integer"},
        {"rsn 1\nentity 1 { TestAll { v3: (1, 2) } }",
         "e.rsn:2:26: TestAll.v3: expected a tuple of 3"},
        {"rsn 1\nentity 1 { TestAll { mode: Down } }",
         "e.rsn:2:28: TestAll.mode: 'Down' is not a value"},
        {"rsn 1\nentity 1 { TestAll { weights: [1, 2, 3, 4] } }",
         "e.rsn:2:31: TestAll.weights: array has 4 values"},
        {"rsn 1\nentity 1 { TestAll { f32: 1.2.3 } }",
         "e.rsn:2:27: TestAll.f32: '1.2.3' is not a number"},
        {"rsn 1\nentity 1 { TestAll { str: \"abc } }", "e.rsn:2:27: unterminated string"},
        {"rsn 1\nentity 1 { TestAll { str: \"a\\q\" } }", "e.rsn:2:29: invalid escape"},
        {"rsn 1\nentity 1 {}\nentity 1 {}\n", "e.rsn:3:1: duplicate entity id 1 (first at line 2)"},
        {"rsn 1\nentity 1 parent 5 {}\n", "e.rsn:2:1: parent 5 of entity 1 is not in the file"},
        {"rsn 1\nentity 1 parent 2 {}\nentity 2 parent 1 {}\n", "its own ancestor"},
        {"rsn 1\nentity 1 { T { x: } }", "e.rsn:2:19: expected a value, found '}'"},
        {"rsn 1\nentity 1 { T { x: 1 } } $", "e.rsn:2:25: unexpected character '$'"},
        {"rsn 1\nentity 1 { TestAll { ent: 3 } }", "e.rsn:2:27: TestAll.ent: expected &id or none"},
        /* A finite decimal that overflows is an error, never a silent infinity. */
        {"rsn 1\nentity 1 { TestAll { f32: 1e999 } }",
         "e.rsn:2:27: TestAll.f32: number too large for a 32-bit float"},
        {"rsn 1\nentity 1 { TestAll { f32: -1e39 } }",
         "e.rsn:2:27: TestAll.f32: number too large for a 32-bit float"},
        {"rsn 1\nentity 1 { TestAll { weights: [1, 1e999, 3] } }",
         "e.rsn:2:35: TestAll.weights: number too large"},
        /* A byte-order mark is skipped at the start only (columns count after it). */
        {"\xEF\xBB\xBFrsn 1\nentity 1 {}\n\xEF\xBB\xBF"
         "entity 2 {}\n",
         "e.rsn:3:1: a byte-order mark (EF BB BF) is only allowed at the start of the file"},
        {"\xEF\xBB\xBF\xEF\xBB\xBFrsn 1\n", "e.rsn:1:1: a byte-order mark"},
        {"\xEF\xBB\xBFrsn 1\nentity 1 { T { x: } }", "e.rsn:2:19: expected a value, found '}'"},
        {"\xEF\xBB\xBFrsn 1 $", "e.rsn:1:7: unexpected character '$'"},
        {"rsn 1\xEF\xBB", "e.rsn:1:6: unexpected byte 0xef"},
        {"\xFF\xFEr", "e.rsn:1:1: the file is UTF-16 (it starts with FF FE or FE FF); save it as "
                      "UTF-8"},
    };
    rill_world *w = rill_world_create(NULL, NULL);
    test_register(w, NULL);
    for (size_t i = 0; i < RILL_COUNTOF(cases); i++) {
        rill_error err = {0};
        rill_result r = rill_scene_check_text(w, "e.rsn", cases[i].text, strlen(cases[i].text),
                                              NULL, NULL, &err);
        if (getenv("SCENE_TEST_PRINT")) {
            fprintf(stderr, "%zu: %s\n", i, err.msg);
        }
        if (r == RILL_OK || !strstr(err.msg, cases[i].where)) {
            if (!getenv("SCENE_TEST_PRINT")) {
                fail_msg("case %zu: wanted \"%s\", got %s \"%s\"", i, cases[i].where,
                         rill_result_name(r), err.msg);
            }
        }
    }
    rill_world_destroy(w);
}

/* A file a Windows editor saved with a UTF-8 byte-order mark loads like the same file without
 * (a mark inside a string is text). */
static void test_byte_order_mark(void **state) {
    (void)state;
    fixture fx;
    fx_init(&fx, false);
    test_write_file(fx.dir, "bom.rsn",
                    "\xEF\xBB\xBFrsn 1\r\n"
                    "entity 1 \"Bom\" {\r\n"
                    "    TestAll { i32: 7 str: \"\xEF\xBB\xBFtext\" }\r\n"
                    "}\r\n");
    rill_error err = {0};
    assert_int_equal(rill_scene_load_sync(fx.loader, "bom.rsn", NULL, &err), RILL_OK);
    rill_entity e = rill_world_find_by_name(fx.world, "Bom");
    assert_true(e != RILL_ENTITY_NULL);
    const every_field *a = rill_world_get(fx.world, e, fx.ids.all);
    assert_int_equal(a->i32, 7);
    assert_string_equal(a->str, "\xEF\xBB\xBFtext");
    fx_done(&fx);
}

/* True when text[0..len) ends, after trailing whitespace, right after an entity's closing brace
 * at the start of a line: such a prefix is a complete, valid smaller file. */
static bool ends_at_entity_boundary(const char *text, size_t len) {
    while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' ')) {
        len--;
    }
    if (len == 5 && memcmp(text, "rsn 1", 5) == 0) {
        return true; /* a scene with no entity */
    }
    return len >= 2 && text[len - 1] == '}' && text[len - 2] == '\n';
}

static void test_every_truncation(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    test_register(w, NULL);
    rill_scene_register(w);
    rill_log_set_level(RILL_LOG_ERROR); /* the full file warns once per truncation otherwise */
    size_t n = strlen(CANONICAL);
    uint32_t errors = 0, valid = 0;
    for (size_t len = 0; len < n; len++) {
        /* A heap copy of exactly len bytes, so ASan catches any read past the end. */
        char *copy = malloc(len ? len : 1);
        memcpy(copy, CANONICAL, len);
        rill_error err = {0};
        rill_scene_check_info info;
        rill_result r = rill_scene_check_text(w, "t.rsn", copy, len, NULL, &info, &err);
        free(copy);
        if (r == RILL_OK) {
            /* Only a cut right after a whole entity block is a valid (shorter) file. */
            if (!ends_at_entity_boundary(CANONICAL, len)) {
                fail_msg("truncation at %zu parsed without error", len);
            }
            assert_true(info.entities <= 6);
            valid++;
        } else {
            assert_true(strncmp(err.msg, "t.rsn:", 6) == 0);
            errors++;
        }
    }
    assert_true(valid <= 3 * 7); /* "}", "}\n", "}\n\n" after the header and each entity */
    assert_true(errors + valid == n);
    rill_log_set_level(RILL_LOG_INFO);
    rill_world_destroy(w);
}

static uint32_t rng_next(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (uint32_t)(*s >> 11);
}

static void test_random_byte_flips(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    test_register(w, NULL);
    rill_scene_register(w);
    rill_log_set_level(RILL_LOG_NONE);
    size_t n = strlen(CANONICAL);
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    uint32_t ok = 0, bad = 0;
    for (int iter = 0; iter < 3000; iter++) {
        char *copy = malloc(n);
        memcpy(copy, CANONICAL, n);
        int flips = 1 + (int)(rng_next(&seed) % 4);
        for (int k = 0; k < flips; k++) {
            copy[rng_next(&seed) % n] ^= (char)(1u << (rng_next(&seed) % 8));
        }
        rill_error err = {0};
        rill_result r = rill_scene_check_text(w, "f.rsn", copy, n, NULL, NULL, &err);
        if (r == RILL_OK) {
            ok++;
        } else {
            assert_true(strncmp(err.msg, "f.rsn", 5) == 0);
            bad++;
        }
        free(copy);
    }
    /* Most flips break the file; some (inside strings or numbers) do not. Both must be handled. */
    assert_true(bad > 1000);
    rill_log_set_level(RILL_LOG_INFO);
    rill_world_destroy(w);
}

static void test_float_shortest_round_trip(void **state) {
    (void)state;
    uint64_t seed = 12345;
    char buf[64];
    for (int i = 0; i < 30000; i++) {
        uint32_t bits = rng_next(&seed) ^ (rng_next(&seed) << 21);
        float f;
        memcpy(&f, &bits, 4);
        if (isnan(f)) {
            continue;
        }
        uint32_t n = rill_num_format_f32(f, buf, sizeof buf);
        float back;
        assert_true(rill_num_parse_f32(buf, n, &back));
        if (memcmp(&back, &f, 4) != 0) {
            fail_msg("f32 %08x -> %s -> different bits", bits, buf);
        }
        uint64_t dbits =
            ((uint64_t)rng_next(&seed) << 32) ^ rng_next(&seed) ^ ((uint64_t)rng_next(&seed) << 45);
        double d;
        memcpy(&d, &dbits, 8);
        if (isnan(d)) {
            continue;
        }
        n = rill_num_format_f64(d, buf, sizeof buf);
        double dback;
        assert_true(rill_num_parse_f64(buf, n, &dback));
        if (memcmp(&dback, &d, 8) != 0) {
            fail_msg("f64 -> %s -> different bits", buf);
        }
    }
    /* Short values print short. */
    assert_int_equal(rill_num_format_f32(0.1f, buf, sizeof buf), 3);
    assert_string_equal(buf, "0.1");
    static const struct {
        float v;
        const char *text;
    } forms[] = {{16777216.0f, "16777216"},
                 {10.0f, "10"},
                 {1e15f, "1000000000000000"},
                 {1e16f, "1e+16"},
                 {-3e-05f, "-0.00003"},
                 {1e-06f, "1e-06"},
                 {1.1754944e-38f, "1.1754944e-38"},
                 {123.25f, "123.25"},
                 {-0.0f, "-0"}};
    for (size_t i = 0; i < RILL_COUNTOF(forms); i++) {
        rill_num_format_f32(forms[i].v, buf, sizeof buf);
        assert_string_equal(buf, forms[i].text);
    }
    float x;
    assert_false(rill_num_parse_f32("1e", 2, &x));
    assert_false(rill_num_parse_f32("0x10", 4, &x));
    assert_false(rill_num_parse_f32(".", 1, &x));
}

/* The writer names entities in depth-first order and drops references to entities outside the
 * written set; instance contents are not written by default. */
static void test_writer_from_world(void **state) {
    (void)state;
    rill_world *w = rill_world_create(NULL, NULL);
    test_ids ids = test_register(w, NULL);
    rill_scene_components sc = rill_scene_register(w);
    rill_entity root = rill_world_spawn(w);
    rill_entity a = rill_world_spawn(w), b = rill_world_spawn(w), outside = rill_world_spawn(w);
    rill_world_set_name(w, root, "root");
    rill_world_set_parent(w, a, root);
    rill_world_set_parent(w, b, root);
    every_field *ta = rill_world_add(w, a, ids.all, NULL);
    ta->ent = outside;
    every_field *tb = rill_world_add(w, b, ids.all, NULL);
    tb->ent = a;
    rill_scene_instance *si = rill_world_add(w, b, sc.instance, NULL);
    si->scene = rill_intern("x.rsn");
    rill_entity content = rill_world_spawn(w);
    rill_world_set_parent(w, content, b);
    rill_strbuf out = {0};
    rill_error err = {0};
    assert_int_equal(rill_scene_write(w, &root, 1, NULL, &out, &err), RILL_OK);
    assert_non_null(strstr(out.data, "entity 2 parent 1 {\n    TestAll {"));
    assert_non_null(strstr(out.data, "entity 3 parent 1 {\n    SceneInstance {"));
    assert_null(strstr(out.data, "entity 4"));
    /* a's reference points outside the written set: none; b's points at a: &2. */
    const char *e2 = strstr(out.data, "entity 2");
    const char *e3 = strstr(out.data, "entity 3");
    assert_non_null(strstr(e2, "ent: none"));
    assert_true(strstr(e2, "ent: none") < e3);
    assert_non_null(strstr(e3, "ent: &2"));
    rill_strbuf_free(&out);
    rill_scene_write_desc wd = {.include_instance_content = true};
    assert_int_equal(rill_scene_write(w, &root, 1, &wd, &out, &err), RILL_OK);
    assert_non_null(strstr(out.data, "entity 4 parent 3 {\n}\n"));
    rill_strbuf_free(&out);
    rill_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_canonical_round_trip),
        cmocka_unit_test(test_defaults_and_noncanonical),
        cmocka_unit_test(test_clamps_and_unknown_fields_warn),
        cmocka_unit_test(test_unknown_components),
        cmocka_unit_test(test_unknown_suggest_and_strict),
        cmocka_unit_test(test_errors_name_the_place),
        cmocka_unit_test(test_byte_order_mark),
        cmocka_unit_test(test_every_truncation),
        cmocka_unit_test(test_random_byte_flips),
        cmocka_unit_test(test_float_shortest_round_trip),
        cmocka_unit_test(test_writer_from_world),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
