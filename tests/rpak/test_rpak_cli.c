/* test_rpak_cli.c: the `rill pack` subcommand (tools/cmd_pack.c, compiled into this test so it
 * runs without the dispatcher): create, ls, cat, verify, append, and a non-zero exit code that
 * names the entry when a pack is damaged. */
#include "rill_test.h"

#include "rill/formats/rpak.h"

int rill_cmd_pack(int argc, char **argv);

/* Runs `rill pack ...` with stdout and stderr sent to files; returns the exit code. */
static int run_pack(const char *dir, char *out_text, size_t out_cap, char *err_text, size_t err_cap,
                    int argc, ...) {
    char *argv[16];
    va_list ap;
    va_start(ap, argc);
    for (int i = 0; i < argc && i < 16; ++i) {
        argv[i] = va_arg(ap, char *);
    }
    va_end(ap);
    return rill_test_run_captured(dir, rill_cmd_pack, argc, argv, out_text, out_cap, err_text,
                                  err_cap);
}

static void put(const char *dir, const char *rel, const char *text) {
    char path[1024], folder[1024];
    rill_test_path(path, sizeof(path), dir, rel);
    rill_path_dirname(folder, sizeof(folder), path);
    rill_dir_create_all(folder, NULL);
    assert_int_equal(rill_file_write_all(path, text, strlen(text), NULL), RILL_OK);
}

static void test_cli(void **state) {
    (void)state;
    char dir[512], src[1024], pak[1024], exe[1024];
    static char out[65536], err[8192];
    rill_test_tmpdir(dir, sizeof(dir), "rpak_cli");
    rill_test_path(src, sizeof(src), dir, "assets");
    rill_test_path(pak, sizeof(pak), dir, "game.rpak");
    rill_test_path(exe, sizeof(exe), dir, "game");
    put(src, "scenes/main.rsn", "entity 1 { }\n");
    put(src, "textures/rock.png", "not really a png, stored raw");
    char big[5000];
    memset(big, 'z', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    put(src, "text/big.txt", big);

    assert_int_equal(run_pack(dir, out, sizeof(out), err, sizeof(err), 1, "pack"), 2);
    assert_int_equal(run_pack(dir, out, sizeof(out), err, sizeof(err), 3, "pack", "create", src),
                     2); /* --out missing */
    assert_int_equal(
        run_pack(dir, out, sizeof(out), err, sizeof(err), 5, "pack", "create", src, "--out", pak),
        0);
    assert_non_null(strstr(out, "3 entries"));

    assert_int_equal(run_pack(dir, out, sizeof(out), err, sizeof(err), 3, "pack", "ls", pak), 0);
    assert_non_null(strstr(out, "scenes/main.rsn"));
    assert_non_null(strstr(out, "textures/rock.png"));
    assert_non_null(strstr(out, "zstd")); /* big.txt compresses */

    assert_int_equal(
        run_pack(dir, out, sizeof(out), err, sizeof(err), 4, "pack", "cat", pak, "scenes/main.rsn"),
        0);
    assert_string_equal(out, "entity 1 { }\n");
    assert_int_equal(
        run_pack(dir, out, sizeof(out), err, sizeof(err), 4, "pack", "cat", pak, "text/big.txt"),
        0);
    assert_string_equal(out, big);
    assert_int_equal(
        run_pack(dir, out, sizeof(out), err, sizeof(err), 4, "pack", "cat", pak, "nope.txt"), 1);
    assert_non_null(strstr(err, "nope.txt"));

    assert_int_equal(run_pack(dir, out, sizeof(out), err, sizeof(err), 3, "pack", "verify", pak),
                     0);
    assert_non_null(strstr(out, "3 entries OK"));

    /* Append to a fake executable; the pack is found through its trailer. */
    assert_int_equal(rill_file_write_all(exe,
                                         "\x7f"
                                         "ELF fake",
                                         9, NULL),
                     RILL_OK);
    assert_int_equal(
        run_pack(dir, out, sizeof(out), err, sizeof(err), 4, "pack", "append", exe, pak), 0);
    assert_int_equal(run_pack(dir, out, sizeof(out), err, sizeof(err), 3, "pack", "verify", exe),
                     0);

    /* Damage the raw .png entry: verify fails and names it. */
    rill_rpak *p = NULL;
    assert_int_equal(rill_rpak_open_file(pak, &p, NULL), RILL_OK);
    rill_rpak_entry_info info;
    rill_rpak_entry_info_get(p, (uint32_t)rill_rpak_find(p, "textures/rock.png"), &info);
    rill_rpak_close(p);
    uint8_t *bytes = NULL;
    size_t size = 0;
    assert_int_equal(rill_file_read_all(pak, &bytes, &size, NULL), RILL_OK);
    bytes[info.offset + 3] ^= 0x10;
    assert_int_equal(rill_file_write_all(pak, bytes, size, NULL), RILL_OK);
    rill_free(bytes);
    assert_int_equal(run_pack(dir, out, sizeof(out), err, sizeof(err), 3, "pack", "verify", pak),
                     1);
    assert_non_null(strstr(err, "textures/rock.png"));
    assert_non_null(strstr(err, "checksum"));
    assert_int_equal(run_pack(dir, out, sizeof(out), err, sizeof(err), 4, "pack", "cat", pak,
                              "textures/rock.png"),
                     1);
    assert_non_null(strstr(err, "textures/rock.png"));

    /* Not a pack at all. */
    char junk[1100];
    rill_test_path(junk, sizeof(junk), src, "scenes/main.rsn");
    assert_int_equal(run_pack(dir, out, sizeof(out), err, sizeof(err), 3, "pack", "ls", junk), 1);
    assert_non_null(strstr(err, "main.rsn"));
    rill_test_tmpdir_remove(dir);
}

/* A pack written into the folder it packs leaves itself out, so running the same command again
 * gives the same pack instead of one that holds the previous one. */
static void test_create_into_own_folder(void **state) {
    (void)state;
    char dir[512], src[1024], pak[1024];
    static char out[8192], err[8192];
    rill_test_tmpdir(dir, sizeof(dir), "rpak_cli_self");
    rill_test_path(src, sizeof(src), dir, "assets");
    rill_test_path(pak, sizeof(pak), src, "game.rpak");
    put(src, "a.txt", "alpha");
    put(src, "sub/b.txt", "beta");
    for (int run = 0; run < 2; ++run) {
        assert_int_equal(run_pack(dir, out, sizeof(out), err, sizeof(err), 5, "pack", "create", src,
                                  "--out", pak),
                         0);
        assert_non_null(strstr(out, "2 entries"));
    }
    rill_rpak *p = NULL;
    assert_int_equal(rill_rpak_open_file(pak, &p, NULL), RILL_OK);
    assert_int_equal(rill_rpak_entry_count(p), 2);
    assert_true(rill_rpak_find(p, "game.rpak") < 0);
    rill_rpak_close(p);
    /* A missing folder is an error that names it. */
    char missing[1100];
    rill_test_path(missing, sizeof(missing), dir, "nope");
    assert_int_equal(run_pack(dir, out, sizeof(out), err, sizeof(err), 5, "pack", "create", missing,
                              "--out", pak),
                     1);
    assert_non_null(strstr(err, "nope"));
    rill_test_tmpdir_remove(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cli),
        cmocka_unit_test(test_create_into_own_folder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
