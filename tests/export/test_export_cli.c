/* test_export_cli.c: `rill export` (tools/cmd_export.c, compiled in): usage errors, a first run
 * that rebuilds every converted input, a second that rebuilds none (read from the summary), one
 * edited input rebuilt alone, and a corrupt PNG reported by name with exit code 1 while the
 * rest is packed. stdout is not a terminal here, so progress comes as plain lines. */
#include "export_test_project.h"

#include "rill/formats/rpak.h"

int rill_cmd_export(int argc, char **argv);

static char out_text[65536], err_text[65536];

/* Runs `rill export ARGS...` with stdout/stderr captured into out_text/err_text. */
static int run_cli(const char *dir, int argc, ...) {
    char *argv[24];
    argv[0] = "export";
    va_list ap;
    va_start(ap, argc);
    for (int i = 0; i < argc && i < 23; ++i) {
        argv[i + 1] = va_arg(ap, char *);
    }
    va_end(ap);
    return rill_test_run_captured(dir, rill_cmd_export, argc + 1, argv, out_text, sizeof(out_text),
                                  err_text, sizeof(err_text));
}

/* The number after `key ` in the summary line ("rebuilt 3"), or -1. */
static int summary_value(const char *key) {
    const char *line = strstr(out_text, " outputs: ");
    if (!line) {
        return -1;
    }
    const char *k = strstr(line, key);
    return k ? atoi(k + strlen(key) + 1) : -1;
}

static void test_cli(void **state) {
    (void)state;
    char dir[512], proj[1024], pack[1024], cache[1024];
    rill_test_tmpdir(dir, sizeof(dir), "export_cli");
    rill_test_path(proj, sizeof(proj), dir, "proj");
    rill_test_path(pack, sizeof(pack), dir, "game.rpak");
    rill_test_path(cache, sizeof(cache), dir, "cache");
    ep_make_project(proj);

    /* Usage errors. */
    assert_int_equal(run_cli(dir, 0), 2);
    assert_int_equal(run_cli(dir, 1, proj), 2); /* no output */
    assert_int_equal(run_cli(dir, 4, proj, "--out", pack, "--bogus"), 2);
    assert_int_equal(run_cli(dir, 5, proj, "--out", pack, "--lod-levels", "5"), 2);
    assert_int_equal(run_cli(dir, 5, proj, "--out", pack, "--jobs", "0"), 2);
    assert_int_equal(run_cli(dir, 1, "--help"), 0);
    assert_non_null(strstr(out_text, "--loose-out"));

    /* First run: everything converted. */
    assert_int_equal(run_cli(dir, 7, proj, "--out", pack, "--cache", cache, "--jobs", "2"), 0);
    assert_int_equal(summary_value("rebuilt"), (int)EP_CONVERTED);
    assert_int_equal(summary_value("from cache"), 0);
    assert_int_equal(summary_value("failed"), 0);
    assert_non_null(strstr(out_text, "export: 12 inputs"));
    assert_non_null(strstr(out_text, "game.rpak"));
    assert_string_equal(err_text, "");
    char dflt[1100];
    rill_test_path(dflt, sizeof(dflt), proj, ".rill-cache");
    assert_false(rill_dir_exists(dflt)); /* --cache was used instead */

    /* Second run: nothing rebuilt. */
    assert_int_equal(run_cli(dir, 5, proj, "--out", pack, "--cache", cache), 0);
    assert_int_equal(summary_value("rebuilt"), 0);
    assert_int_equal(summary_value("from cache"), (int)EP_CONVERTED);

    /* One edited input: exactly one rebuilt. */
    ep_write_png(proj, "textures/brick_n.png", 64, 64, 7, true);
    assert_int_equal(run_cli(dir, 5, proj, "--out", pack, "--cache", cache), 0);
    assert_int_equal(summary_value("rebuilt"), 1);

    /* A corrupt PNG: named on stderr, exit 1, the rest packed. */
    const char junk[] = "\x89PNG\r\n\x1a\n truncated";
    rill_test_write_file(proj, "textures/zz_broken.png", junk, sizeof(junk));
    assert_int_equal(run_cli(dir, 6, proj, "--out", pack, "--cache", cache, "--quiet"), 1);
    assert_non_null(strstr(err_text, "error: textures/zz_broken.png: "));
    assert_int_equal(summary_value("failed"), 1);
    rill_rpak *p = NULL;
    rill_error err = {0};
    assert_int_equal(rill_rpak_open_file(pack, &p, &err), RILL_OK);
    assert_true(rill_rpak_find(p, "textures/brick_n.rmip") >= 0);
    assert_true(rill_rpak_find(p, "models/sphere_lod3.glb") >= 0);
    assert_true(rill_rpak_find(p, "textures/zz_broken.rmip") < 0);
    assert_int_equal(rill_rpak_verify(p, NULL, &err), RILL_OK);
    rill_rpak_close(p);

    /* --lod-levels 0: no baked levels; --loose-out without --out. */
    char loose[1100];
    rill_test_path(loose, sizeof(loose), dir, "loose");
    rill_test_tmpdir_remove(proj);
    ep_make_project(proj);
    assert_int_equal(run_cli(dir, 6, proj, "--loose-out", loose, "--lod-levels", "0", "--no-cache"),
                     0);
    char path[1200];
    rill_test_path(path, sizeof(path), loose, "models/sphere.glb");
    assert_true(rill_file_exists(path));
    rill_test_path(path, sizeof(path), loose, "models/sphere_lod1.glb");
    assert_false(rill_file_exists(path));
    rill_test_path(path, sizeof(path), loose, "textures/albedo.rmip");
    assert_true(rill_file_exists(path));
    rill_test_tmpdir_remove(dir);
}

int main(void) {
    rill_log_set_level(RILL_LOG_WARN); /* as `rill` itself sets it */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cli),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
