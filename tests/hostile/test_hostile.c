/* test_hostile.c: the `rill` CLI against one small hostile input per class (docs/limits.md).
 * Each case writes its input, runs `rill` as a child process with a wall-time cap and an
 * address-space cap, and checks that the command ends with a non-zero exit and a clear error,
 * that its peak resident memory (wait4's ru_maxrss) stays under HOSTILE_RSS_MIB, and that
 * nothing from outside the project root comes back out.
 *
 * Usage: test_hostile RILL_BINARY (CTest passes the built `rill`). */
#include "rill_test.h"

#include "hostile_files.h"

/* A command that handles its input correctly needs a few MiB; decoding any of these inputs
 * would need hundreds of MiB to many GiB. */
#define HOSTILE_RSS_MIB 96
/* A hang detector, not a speed target: the fixed commands finish in milliseconds. */
#define HOSTILE_TIME_CAP_S 20.0
/* A regression hits this address-space cap instead of the machine's memory. */
#define HOSTILE_AS_MIB 3072

static const char *rill_bin;
static char tmp[512];

static void path_in(char *dst, size_t cap, const char *rel) {
    rill_test_path(dst, cap, tmp, rel);
}

/* Runs rill with args (NULL-terminated, at most 14) under the time and memory caps. */
static hostile_run run_rill(const char *const *args) {
    char *argv[16];
    int n = 0;
    argv[n++] = (char *)rill_bin;
    for (; args[n - 1] && n < 15; ++n) {
        argv[n] = (char *)args[n - 1];
    }
    argv[n] = NULL;
    hostile_run r;
    assert_true(hostile_exec(argv, HOSTILE_TIME_CAP_S, HOSTILE_AS_MIB, &r));
    return r;
}

/* Runs rill with args (NULL-terminated), expects failure and every needle in stderr. */
static hostile_run expect_refused(const char *const *args, const char *needle, const char *other) {
    hostile_run r = run_rill(args);
    if (r.timed_out || r.exit_code <= 0 || !strstr(r.err, needle) ||
        (other && !strstr(r.err, other)) || r.max_rss_kib > HOSTILE_RSS_MIB * 1024L) {
        fail_msg("rill %s %s: exit %d%s, %.2f s, peak %ld KiB; stderr: %s", args[0],
                 args[1] ? args[1] : "", r.exit_code, r.timed_out ? " (timed out)" : "", r.wall_s,
                 r.max_rss_kib, r.err);
    }
    print_message("  rill %s %s: %.3f s, peak %ld KiB\n", args[0], args[1] ? args[1] : "", r.wall_s,
                  r.max_rss_kib);
    return r;
}

/* The 16384² PNG is refused from its header, before stb allocates. */
static void test_png_pixels(void **state) {
    (void)state;
    char proj[600], png[700], out[700];
    path_in(proj, sizeof(proj), "png_proj");
    assert_int_equal(rill_dir_create_all(proj, NULL), RILL_OK);
    rill_test_path(png, sizeof(png), proj, "big.png");
    assert_true(hostile_write_png(png, 16384));
    assert_true(rill_file_size(png) < 400 * 1024);
    path_in(out, sizeof(out), "png_out.rpak");
    const char *args[] = {"export", proj, "--out", out, "--no-cache", "--quiet", NULL};
    expect_refused(args, "big.png", "image_pixels limit");
}

/* Links that lead out of the project: pack create and export refuse them, and the secret never
 * lands in a pack. */
static void test_links_out_of_project(void **state) {
    (void)state;
    char proj[600], secret[700], lnk[700], out[700];
    path_in(proj, sizeof(proj), "link_proj");
    rill_test_write_file(proj, "assets/ok.txt", "fine", 4);
    path_in(secret, sizeof(secret), "secret.txt");
    assert_true(hostile_write(secret, "SECRET-OUTSIDE", 14));
    rill_test_path(lnk, sizeof(lnk), proj, "assets/passwd");
    assert_int_equal(symlink("/etc/passwd", lnk), 0);
    rill_test_path(lnk, sizeof(lnk), proj, "assets/secret.txt");
    assert_int_equal(symlink(secret, lnk), 0);
    path_in(out, sizeof(out), "link_out.rpak");
    const char *create[] = {"pack", "create", proj, "--out", out, NULL};
    hostile_run r = expect_refused(create, "symbolic link", NULL);
    assert_null(strstr(r.err, "SECRET"));
    assert_null(strstr(r.err, "root:"));
    assert_false(rill_file_exists(out));
    const char *exp[] = {"export", proj, "--out", out, "--no-cache", "--quiet", NULL};
    r = expect_refused(exp, "symbolic link", NULL);
    assert_null(strstr(r.err, "SECRET"));
    assert_false(rill_file_exists(out));
}

/* Runs rill with args and expects success. */
static void expect_ok(const char *const *args) {
    hostile_run r = run_rill(args);
    if (r.exit_code != 0) {
        fail_msg("rill %s %s: exit %d; stderr: %s", args[0], args[1] ? args[1] : "", r.exit_code,
                 r.err);
    }
}

/* links_inside_root=1 follows a link that stays in the folder being packed; one that leaves it
 * is still refused. */
static void test_links_inside_root_allowed(void **state) {
    (void)state;
    char proj[600], lnk[700], out[700];
    path_in(proj, sizeof(proj), "inside_proj");
    rill_test_write_file(proj, "real/a.txt", "inside", 6);
    rill_test_path(lnk, sizeof(lnk), proj, "alias.txt");
    assert_int_equal(symlink("real/a.txt", lnk), 0);
    path_in(out, sizeof(out), "inside.rpak");
    const char *strict[] = {"pack", "create", proj, "--out", out, NULL};
    expect_refused(strict, "alias.txt", "is a symbolic link");
    const char *allowed[] = {"--limit", "links_inside_root=1", "pack", "create", proj, "--out", out,
                             NULL};
    expect_ok(allowed);
    assert_true(rill_file_exists(out));
    rill_test_path(lnk, sizeof(lnk), proj, "escape.txt");
    assert_int_equal(symlink("/etc/passwd", lnk), 0);
    expect_refused(allowed, "escape.txt", "leads outside");
}

/* A scene inside a pack is checked against file_bytes from the pack index, before the entry is
 * read or decompressed. */
static void test_pack_scene_size_before_decompression(void **state) {
    (void)state;
    char src[600], pack[600], root[600];
    path_in(src, sizeof(src), "pack_scene_src");
    char text[400] = "rsn 1\n";
    for (int i = 1; i <= 12; i++) {
        char line[40];
        snprintf(line, sizeof(line), "entity %d { Transform {} }\n", i);
        strcat(text, line);
    }
    rill_test_write_file(src, "main.rsn", text, strlen(text));
    path_in(pack, sizeof(pack), "pack_scene.rpak");
    const char *create[] = {"pack", "create", src, "--out", pack, NULL};
    expect_ok(create);
    path_in(root, sizeof(root), "pack_scene_root");
    assert_int_equal(rill_dir_create_all(root, NULL), RILL_OK);
    char want[80];
    snprintf(want, sizeof(want), "main.rsn: %zu bytes exceeds the file_bytes limit of 100",
             strlen(text));
    const char *load[] = {"--limit", "file_bytes=100", "scene", "load", "main.rsn", "--root",
                          root,      "--pack",         pack,    NULL};
    expect_refused(load, want, NULL);
    const char *fine[] = {"scene", "load", "main.rsn", "--root", root, "--pack", pack, NULL};
    expect_ok(fine);
}

/* The count before expansion is exact: 3 levels of 4 instances load 4 + 16 + 64 = 84 entities,
 * so scene_entities=84 loads and 83 is refused before anything expands. */
static void test_scene_count_is_exact(void **state) {
    (void)state;
    char dir[600];
    path_in(dir, sizeof(dir), "scene_exact");
    assert_int_equal(rill_dir_create_all(dir, NULL), RILL_OK);
    assert_true(hostile_write_scene_bomb(dir, 3, 4));
    const char *ok[] = {"--limit", "scene_entities=84", "scene", "load", "l0.rsn", "--root", dir,
                        NULL};
    expect_ok(ok);
    const char *over[] = {"--limit", "scene_entities=83", "scene", "load", "l0.rsn", "--root", dir,
                          NULL};
    expect_refused(over, "more than 83 entities", "scene_entities limit");
}

/* A scene given as a link out of the project root is refused by the VFS (loose root). */
static void test_scene_link_out_of_root(void **state) {
    (void)state;
    char root[600], outside[700], lnk[700];
    path_in(root, sizeof(root), "scene_root");
    assert_int_equal(rill_dir_create_all(root, NULL), RILL_OK);
    path_in(outside, sizeof(outside), "outside.rsn");
    const char *text = "rsn 1\nentity 1 \"SECRET\" {}\n";
    assert_true(hostile_write(outside, text, strlen(text)));
    rill_test_path(lnk, sizeof(lnk), root, "main.rsn");
    assert_int_equal(symlink(outside, lnk), 0);
    const char *args[] = {"scene", "load", "main.rsn", "--root", root, NULL};
    hostile_run r = expect_refused(args, "symbolic link", NULL);
    assert_null(strstr(r.err, "SECRET"));
}

/* 17 zstd entries of 256 MiB in about 140 KB: refused when the pack opens. */
static void test_zstd_bomb(void **state) {
    (void)state;
    char pack[600];
    path_in(pack, sizeof(pack), "bomb.rpak");
    assert_true(hostile_write_zstd_bomb_pack(pack, 17, (uint64_t)256 << 20));
    assert_true(rill_file_size(pack) < 200 * 1024);
    const char *verify[] = {"pack", "verify", pack, NULL};
    expect_refused(verify, "bomb/00.bin", "compression_ratio limit");
    const char *ls[] = {"pack", "ls", pack, NULL};
    expect_refused(ls, "compression_ratio limit", NULL);
}

/* 9 files of 16 nested instances: 16^8 entities, refused from the declared counts. */
static void test_scene_bomb(void **state) {
    (void)state;
    char dir[600];
    path_in(dir, sizeof(dir), "scene_bomb");
    assert_int_equal(rill_dir_create_all(dir, NULL), RILL_OK);
    assert_true(hostile_write_scene_bomb(dir, 9, 16));
    const char *args[] = {"scene", "load", "l0.rsn", "--root", dir, NULL};
    expect_refused(args, "l0.rsn", "scene_entities limit");
}

/* FIFOs never block a command; devices are never read. */
static void test_special_files(void **state) {
    (void)state;
    char fifo[600], fifo_rsn[600];
    path_in(fifo, sizeof(fifo), "fifo.rpak");
    path_in(fifo_rsn, sizeof(fifo_rsn), "fifo.rsn");
    assert_int_equal(mkfifo(fifo, 0644), 0);
    assert_int_equal(mkfifo(fifo_rsn, 0644), 0);
    const char *ls[] = {"pack", "ls", fifo, NULL};
    expect_refused(ls, "fifo.rpak", "a FIFO");
    const char *verify[] = {"pack", "verify", fifo, NULL};
    expect_refused(verify, "a FIFO", NULL);
    const char *check[] = {"scene", "check", fifo_rsn, NULL};
    expect_refused(check, "a FIFO", NULL);
    const char *zero[] = {"scene", "check", "/dev/zero", NULL};
    expect_refused(zero, "/dev/zero", "character device");
    const char *zero_pack[] = {"pack", "ls", "/dev/zero", NULL};
    expect_refused(zero_pack, "character device", NULL);
}

/* A 2 GiB project.toml (sparse) is refused from its size, without being read. */
static void test_huge_project_toml(void **state) {
    (void)state;
    char dir[600], toml[700];
    path_in(dir, sizeof(dir), "huge_toml");
    rill_test_write_file(dir, "main.rsn", "rsn 1\n", 6);
    rill_test_path(toml, sizeof(toml), dir, "project.toml");
    assert_true(hostile_write_sparse(toml, (uint64_t)2 << 30));
    const char *args[] = {"scene", "load", "main.rsn", "--root", dir, NULL};
    expect_refused(args, "project.toml: 2147483648 bytes exceeds the limit of 67108864", NULL);
}

/* A limit lowered on the command line or in RILL_LIMITS applies, and bad values are refused. */
static void test_limit_options(void **state) {
    (void)state;
    char dir[600];
    path_in(dir, sizeof(dir), "limit_opts");
    rill_test_write_file(dir, "a.rsn", "rsn 1\nentity 1 {}\nentity 2 {}\n", 30);
    char file[700];
    rill_test_path(file, sizeof(file), dir, "a.rsn");
    const char *low[] = {"--limit", "file_bytes=10", "scene", "check", file, NULL};
    expect_refused(low, "a.rsn: 30 bytes exceeds the file_bytes limit of 10", NULL);
    const char *bad[] = {"--limit", "file_bytes=ten", "scene", "check", file, NULL};
    expect_refused(bad, "--limit", "count with optional K/M/G/T");
    setenv("RILL_LIMITS", "nonsense=1", 1);
    const char *env[] = {"scene", "check", file, NULL};
    expect_refused(env, "RILL_LIMITS", "unknown limit 'nonsense'");
    unsetenv("RILL_LIMITS");
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: test_hostile RILL_BINARY\n");
        return 2;
    }
    rill_bin = argv[1];
    rill_test_tmpdir(tmp, sizeof(tmp), "hostile");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_png_pixels),
        cmocka_unit_test(test_links_out_of_project),
        cmocka_unit_test(test_scene_link_out_of_root),
        cmocka_unit_test(test_zstd_bomb),
        cmocka_unit_test(test_scene_bomb),
        cmocka_unit_test(test_special_files),
        cmocka_unit_test(test_huge_project_toml),
        cmocka_unit_test(test_limit_options),
        cmocka_unit_test(test_links_inside_root_allowed),
        cmocka_unit_test(test_pack_scene_size_before_decompression),
        cmocka_unit_test(test_scene_count_is_exact),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    if (failed == 0) {
        rill_test_tmpdir_remove(tmp);
    }
    return failed;
}
