/* test_files.c: path helpers (including hostile inputs) and the file and folder functions. */
#include "rill_test.h"

/* >>paths */

static void expect_norm(const char *in, const char *want) {
    char out[256];
    bool ok = rill_path_normalize(out, sizeof(out), in);
    if (want == NULL) {
        if (ok) {
            fail_msg("normalize(\"%s\") should fail, gave \"%s\"", in, out);
        }
        assert_string_equal(out, "");
    } else {
        if (!ok) {
            fail_msg("normalize(\"%s\") failed, wanted \"%s\"", in, want);
        }
        assert_string_equal(out, want);
    }
}

static void test_path_normalize(void **state) {
    (void)state;
    expect_norm("a/b/c", "a/b/c");
    expect_norm("a\\b\\c.png", "a/b/c.png");
    expect_norm("a//b///c", "a/b/c");
    expect_norm("./a/./b/.", "a/b");
    expect_norm("a/b/../c", "a/c");
    expect_norm("a/b/../../c", "c");
    expect_norm("a/..", "");
    expect_norm(".", "");
    expect_norm("", "");
    expect_norm("a/b/", "a/b");
    expect_norm("a/.../b", "a/.../b"); /* "..." is an ordinary name */
    expect_norm("a/..b/c..", "a/..b/c..");
    expect_norm(".hidden/x", ".hidden/x");
    expect_norm("a/b#label", "a/b#label");
    expect_norm("textures\\..\\meshes\\rock.glb", "meshes/rock.glb");
    /* Hostile: absolute, drive letters, UNC, escaping the root. */
    expect_norm("/etc/passwd", NULL);
    expect_norm("\\etc\\passwd", NULL);
    expect_norm("\\\\server\\share", NULL);
    expect_norm("C:/Windows", NULL);
    expect_norm("c:foo", NULL);
    expect_norm("x/../C:/y", NULL); /* resolves to a drive path */
    expect_norm("x/C:/y", "x/C:/y");
    expect_norm("..", NULL);
    expect_norm("../a", NULL);
    expect_norm("a/../..", NULL);
    expect_norm("a/../../b", NULL);
    expect_norm("./../a", NULL);
    expect_norm("a\\..\\..\\b", NULL);
    expect_norm("a/b/../../../etc", NULL);
    /* Small buffers fail cleanly. */
    char small[4];
    assert_false(rill_path_normalize(small, sizeof(small), "abcd"));
    assert_string_equal(small, "");
    assert_true(rill_path_normalize(small, sizeof(small), "abc"));
    assert_false(rill_path_normalize(small, sizeof(small), "a/bc"));
    assert_true(rill_path_normalize(small, sizeof(small), "abcdef/../x"));
    assert_string_equal(small, "x");
    assert_false(rill_path_normalize(small, 0, "a"));
    assert_false(rill_path_normalize(small, sizeof(small), NULL));
    /* In place. */
    char buf[64] = "a/./b//../c";
    assert_true(rill_path_normalize(buf, sizeof(buf), buf));
    assert_string_equal(buf, "a/c");
    /* A very long path of '..' pairs stays bounded and correct. */
    char longp[4096] = "";
    for (int i = 0; i < 500; ++i) {
        strcat(longp, "ab/../");
    }
    strcat(longp, "z");
    expect_norm(longp, "z");
    /* Input of 4 KiB or more is refused outright. */
    char huge[5000];
    memset(huge, 'a', sizeof(huge) - 1);
    huge[sizeof(huge) - 1] = '\0';
    char out[8];
    assert_false(rill_path_normalize(out, sizeof(out), huge));
}

static void test_path_join(void **state) {
    (void)state;
    char out[32];
    assert_true(rill_path_join(out, sizeof(out), "a/b", "c.png"));
    assert_string_equal(out, "a/b/c.png");
    assert_true(rill_path_join(out, sizeof(out), "a/b/", "c"));
    assert_string_equal(out, "a/b/c");
    assert_true(rill_path_join(out, sizeof(out), "a", "/c"));
    assert_string_equal(out, "a/c");
    assert_true(rill_path_join(out, sizeof(out), "", "c"));
    assert_string_equal(out, "c");
    assert_true(rill_path_join(out, sizeof(out), "a", ""));
    assert_string_equal(out, "a");
    assert_true(rill_path_join(out, sizeof(out), NULL, NULL));
    assert_string_equal(out, "");
    /* Exact fit and one over. */
    assert_true(rill_path_join(out, 6, "ab", "cd"));
    assert_string_equal(out, "ab/cd");
    assert_false(rill_path_join(out, 5, "ab", "cd"));
    assert_string_equal(out, "");
    /* dst may be a. */
    strcpy(out, "root");
    assert_true(rill_path_join(out, sizeof(out), out, "x"));
    assert_string_equal(out, "root/x");
}

static void test_path_parts(void **state) {
    (void)state;
    char out[32];
    assert_true(rill_path_dirname(out, sizeof(out), "a/b/c.png"));
    assert_string_equal(out, "a/b");
    assert_true(rill_path_dirname(out, sizeof(out), "c.png"));
    assert_string_equal(out, "");
    assert_true(rill_path_dirname(out, sizeof(out), "a/b/"));
    assert_string_equal(out, "a");
    assert_true(rill_path_dirname(out, sizeof(out), "/x"));
    assert_string_equal(out, "/");
    assert_true(rill_path_dirname(out, sizeof(out), "a//b"));
    assert_string_equal(out, "a");
    assert_false(rill_path_dirname(out, 3, "abc/d"));
    assert_string_equal(out, "");
    assert_false(rill_path_dirname(out, sizeof(out), NULL));

    assert_string_equal(rill_path_basename("a/b/c.png"), "c.png");
    assert_string_equal(rill_path_basename("c.png"), "c.png");
    assert_string_equal(rill_path_basename("a/b/"), "");
    assert_string_equal(rill_path_basename(NULL), "");

    assert_string_equal(rill_path_ext("a/b/c.png"), "png");
    assert_string_equal(rill_path_ext("a.tar.gz"), "gz");
    assert_string_equal(rill_path_ext("a.b/c"), "");
    assert_true(rill_path_ext_is("tex/Rock.PNG", "png"));
    assert_true(rill_path_ext_is("a.tar.gz", "GZ"));
    assert_false(rill_path_ext_is("a.png.bak", "png"));
    assert_false(rill_path_ext_is("a.pn", "png"));
    assert_false(rill_path_ext_is(".png", "png"));
    assert_true(rill_str_ieq("Medium", "mEDIUM"));
    assert_false(rill_str_ieq("Med", "Medium"));
    assert_string_equal(rill_path_ext("noext"), "");
    assert_string_equal(rill_path_ext(".gitignore"), "");
    assert_string_equal(rill_path_ext("dir/.hidden"), "");
    assert_string_equal(rill_path_ext("a."), "");
    const char *p = "x/rock.rmip";
    assert_ptr_equal(rill_path_ext(p), p + 7); /* a pointer into the argument */
}

static void test_path_split_label(void **state) {
    (void)state;
    char out[32];
    const char *label = NULL;
    const char *in = "a/b.rmip#low";
    assert_true(rill_path_split_label(in, out, sizeof(out), &label));
    assert_string_equal(out, "a/b.rmip");
    assert_string_equal(label, "low");
    assert_ptr_equal(label, in + 9);
    assert_true(rill_path_split_label("chair.glb", out, sizeof(out), &label));
    assert_string_equal(out, "chair.glb");
    assert_string_equal(label, "");
    assert_true(rill_path_split_label("chair.glb#", out, sizeof(out), &label));
    assert_string_equal(out, "chair.glb");
    assert_string_equal(label, "");
    assert_true(rill_path_split_label("#mesh0", out, sizeof(out), &label));
    assert_string_equal(out, "");
    assert_string_equal(label, "mesh0");
    assert_true(rill_path_split_label("a.glb#b#c", out, sizeof(out), NULL));
    assert_string_equal(out, "a.glb");
    assert_false(rill_path_split_label("abcdef#x", out, 4, &label));
    assert_string_equal(out, "");
    assert_false(rill_path_split_label(NULL, out, sizeof(out), &label));
    assert_string_equal(label, "");
}

/* >>files */

static rill_result count_files(const char *rel, void *user) {
    (void)rel;
    (*(int *)user)++;
    return RILL_OK;
}

static void test_file_round_trip(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    char dir[512], path[600];
    rill_test_tmpdir(dir, sizeof(dir), "files_round_trip");
    rill_test_path(path, sizeof(path), dir, "a.bin");
    uint8_t data[10000];
    for (size_t i = 0; i < sizeof(data); ++i) {
        data[i] = (uint8_t)(i * 31u);
    }
    rill_error err = {0};
    assert_false(rill_file_exists(path));
    assert_int_equal(rill_file_size(path), -1);
    assert_int_equal(rill_file_mtime_ns(path), 0);
    assert_int_equal(rill_file_write_all(path, data, sizeof(data), &err), RILL_OK);
    assert_true(rill_file_exists(path));
    assert_false(rill_dir_exists(path));
    assert_true(rill_dir_exists(dir));
    assert_int_equal(rill_file_size(path), sizeof(data));
    assert_true(rill_file_mtime_ns(path) > 0);
    uint8_t *back = NULL;
    size_t size = 0;
    assert_int_equal(rill_file_read_all(path, &back, &size, &err), RILL_OK);
    assert_int_equal(size, sizeof(data));
    assert_memory_equal(back, data, sizeof(data));
    assert_int_equal(back[size], 0); /* the trailing NUL */
    rill_free(back);
    /* Overwrite with a shorter file: atomic replace, no temp files left over. */
    assert_int_equal(rill_file_write_all(path, "hi", 2, &err), RILL_OK);
    assert_int_equal(rill_file_read_all(path, &back, &size, &err), RILL_OK);
    assert_int_equal(size, 2);
    assert_string_equal((char *)back, "hi");
    rill_free(back);
    /* A file past RILL_BULK_MIN (read into a block of its own) comes back whole, NUL after it. */
    size_t big_size = RILL_BULK_MIN + 4097u;
    uint8_t *big = rill_malloc(big_size);
    assert_non_null(big);
    for (size_t i = 0; i < big_size; i++) {
        big[i] = (uint8_t)(i * 131u + (i >> 12));
    }
    assert_int_equal(rill_file_write_all(path, big, big_size, &err), RILL_OK);
    assert_int_equal(rill_file_read_all(path, &back, &size, &err), RILL_OK);
    assert_int_equal(size, big_size);
    assert_memory_equal(back, big, big_size);
    assert_int_equal(back[size], 0);
    rill_free(back);
    rill_free(big);
    /* Empty file. */
    assert_int_equal(rill_file_write_all(path, NULL, 0, &err), RILL_OK);
    assert_int_equal(rill_file_read_all(path, &back, &size, &err), RILL_OK);
    assert_int_equal(size, 0);
    assert_non_null(back);
    assert_int_equal(back[0], 0);
    rill_free(back);
    /* The temporary files of the writes are all gone. */
    int files = 0;
    assert_int_equal(rill_dir_walk(dir, count_files, &files, &err), RILL_OK);
    assert_int_equal(files, 1);
    rill_test_tmpdir_remove(dir);
    assert_false(rill_dir_exists(dir));
    RILL_TEST_LEAK_END();
}

static void test_file_errors(void **state) {
    (void)state;
    char dir[512], path[600];
    rill_test_tmpdir(dir, sizeof(dir), "files_errors");
    rill_error err = {0};
    uint8_t *data = (uint8_t *)"junk";
    size_t size = 5;
    rill_test_path(path, sizeof(path), dir, "missing.txt");
    assert_int_equal(rill_file_read_all(path, &data, &size, &err), RILL_ERR_NOT_FOUND);
    assert_null(data);
    assert_int_equal(size, 0);
    assert_non_null(strstr(err.msg, "missing.txt"));
    assert_int_equal(rill_file_read_all(dir, &data, &size, &err), RILL_ERR_IO); /* a folder */
    assert_int_equal(rill_file_read_all("", &data, &size, &err), RILL_ERR_INVALID_ARGUMENT);
    assert_int_equal(rill_file_read_all(NULL, &data, &size, &err), RILL_ERR_INVALID_ARGUMENT);
    assert_int_equal(rill_file_read_all(path, NULL, &size, NULL), RILL_ERR_INVALID_ARGUMENT);
    /* Writing into a folder that does not exist fails and leaves nothing behind. */
    rill_test_path(path, sizeof(path), dir, "nope/x.bin");
    assert_int_equal(rill_file_write_all(path, "x", 1, &err), RILL_ERR_NOT_FOUND);
    assert_int_equal(rill_file_write_all(path, NULL, 1, &err), RILL_ERR_INVALID_ARGUMENT);
    rill_test_tmpdir_remove(dir);
}

static void test_file_read_range(void **state) {
    (void)state;
    char dir[512], path[600];
    rill_test_tmpdir(dir, sizeof(dir), "files_range");
    rill_test_path(path, sizeof(path), dir, "r.bin");
    uint8_t data[256];
    for (int i = 0; i < 256; ++i) {
        data[i] = (uint8_t)i;
    }
    rill_error err = {0};
    assert_int_equal(rill_file_write_all(path, data, sizeof(data), &err), RILL_OK);
    uint8_t buf[64];
    assert_int_equal(rill_file_read_range(path, 100, 50, buf, &err), RILL_OK);
    assert_memory_equal(buf, data + 100, 50);
    assert_int_equal(rill_file_read_range(path, 0, 0, NULL, &err), RILL_OK);
    assert_int_equal(rill_file_read_range(path, 192, 64, buf, &err), RILL_OK); /* exact end */
    assert_memory_equal(buf, data + 192, 64);
    /* Past the end: truncated, with the offset in the message. */
    rill_error_clear(&err);
    assert_int_equal(rill_file_read_range(path, 200, 64, buf, &err), RILL_ERR_TRUNCATED);
    assert_int_equal(err.code, RILL_ERR_TRUNCATED);
    assert_non_null(strstr(err.msg, "offset 200"));
    assert_int_equal(rill_file_read_range(path, 1000, 1, buf, &err), RILL_ERR_TRUNCATED);
    /* Offsets that overflow are refused before any read. */
    assert_int_equal(rill_file_read_range(path, UINT64_MAX - 2, 10, buf, &err),
                     RILL_ERR_INVALID_ARGUMENT);
    assert_int_equal(rill_file_read_range(path, 0, 10, NULL, &err), RILL_ERR_INVALID_ARGUMENT);
    rill_test_path(path, sizeof(path), dir, "missing");
    assert_int_equal(rill_file_read_range(path, 0, 1, buf, &err), RILL_ERR_NOT_FOUND);
    rill_test_tmpdir_remove(dir);
}

typedef struct walk_log {
    char names[32][128];
    int count;
    int stop_after; /* 0 = never */
} walk_log;

static rill_result walk_record(const char *rel, void *user) {
    walk_log *w = user;
    if (w->count < 32) {
        snprintf(w->names[w->count], sizeof(w->names[0]), "%s", rel);
    }
    w->count++;
    if (w->stop_after != 0 && w->count >= w->stop_after) {
        return RILL_ERR_CANCELLED;
    }
    return RILL_OK;
}

#include <unistd.h>

static void test_dir_walk(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    char dir[512], path[600];
    rill_test_tmpdir(dir, sizeof(dir), "files_walk");
    rill_error err = {0};
    const char *files[] = {"b.txt", "a/z.bin", "a/c/d.txt", "a/b.txt", "c", "a/c/e/f/g.txt"};
    for (size_t i = 0; i < RILL_COUNTOF(files); ++i) {
        char parent[600];
        rill_test_path(path, sizeof(path), dir, files[i]);
        assert_true(rill_path_dirname(parent, sizeof(parent), path));
        assert_int_equal(rill_dir_create_all(parent, &err), RILL_OK);
        assert_int_equal(rill_file_write_all(path, files[i], strlen(files[i]), &err), RILL_OK);
    }
    rill_test_path(path, sizeof(path), dir, "empty/dir");
    assert_int_equal(rill_dir_create_all(path, &err), RILL_OK);
    assert_int_equal(rill_dir_create_all(path, &err), RILL_OK); /* again: fine */
    /* A link to a parent folder must not loop the walk. */
    rill_test_path(path, sizeof(path), dir, "a/loop");
    assert_int_equal(symlink("..", path), 0);
    walk_log w = {0};
    assert_int_equal(rill_dir_walk(dir, walk_record, &w, &err), RILL_OK);
    const char *want[] = {"a/b.txt", "a/c/d.txt", "a/c/e/f/g.txt", "a/z.bin", "b.txt", "c"};
    assert_int_equal(w.count, RILL_COUNTOF(want));
    for (size_t i = 0; i < RILL_COUNTOF(want); ++i) {
        assert_string_equal(w.names[i], want[i]);
    }
    /* A trailing '/' on the root changes nothing. */
    char root_slash[600];
    snprintf(root_slash, sizeof(root_slash), "%s/", dir);
    walk_log w2 = {0};
    assert_int_equal(rill_dir_walk(root_slash, walk_record, &w2, &err), RILL_OK);
    assert_int_equal(w2.count, w.count);
    assert_string_equal(w2.names[0], "a/b.txt");
    /* The first non-OK result of the visitor stops the walk and is returned. */
    walk_log w3 = {.stop_after = 2};
    assert_int_equal(rill_dir_walk(dir, walk_record, &w3, &err), RILL_ERR_CANCELLED);
    assert_int_equal(w3.count, 2);
    rill_test_path(path, sizeof(path), dir, "nope");
    assert_int_equal(rill_dir_walk(path, walk_record, &w3, &err), RILL_ERR_NOT_FOUND);
    assert_int_equal(rill_dir_walk(dir, NULL, NULL, &err), RILL_ERR_INVALID_ARGUMENT);
    /* dir_create_all over a file fails. */
    rill_test_path(path, sizeof(path), dir, "b.txt");
    assert_int_not_equal(rill_dir_create_all(path, &err), RILL_OK);
    assert_int_equal(rill_dir_remove_all(path, &err), RILL_ERR_INVALID_ARGUMENT);
    /* remove_all removes links without following them: the tree outside stays. */
    rill_test_tmpdir_remove(dir);
    assert_false(rill_dir_exists(dir));
    assert_int_equal(rill_dir_remove_all(dir, &err), RILL_OK); /* already gone: fine */
    RILL_TEST_LEAK_END();
}

static void test_read_all_unknown_size(void **state) {
    (void)state;
    /* /proc files report size 0: read_all must read to the end anyway. */
    uint8_t *data = NULL;
    size_t size = 0;
    rill_error err = {0};
    assert_int_equal(rill_file_read_all("/proc/self/status", &data, &size, &err), RILL_OK);
    assert_true(size > 0);
    assert_int_equal(data[size], 0);
    assert_int_equal(strlen((char *)data), size);
    assert_non_null(strstr((char *)data, "Name:"));
    rill_free(data);
}

static void test_exe_path(void **state) {
    (void)state;
    char buf[1024];
    assert_true(rill_exe_path(buf, sizeof(buf)));
    assert_true(rill_file_exists(buf));
    assert_string_equal(rill_path_basename(buf), "test_base_files");
    assert_false(rill_exe_path(buf, 2));
    assert_false(rill_exe_path(NULL, 0));
}

static void test_tmpdir_helper(void **state) {
    (void)state;
    char a[512], b[512];
    rill_test_tmpdir(a, sizeof(a), "same");
    rill_test_tmpdir(b, sizeof(b), "same");
    assert_string_not_equal(a, b); /* unique per call */
    assert_true(rill_dir_exists(a) && rill_dir_exists(b));
    rill_test_tmpdir_remove(a);
    rill_test_tmpdir_remove(b);
    rill_test_tmpdir(a, sizeof(a), "write_helper");
    rill_test_write_file(a, "deep/er/f.txt", "abc", 3);
    rill_test_path(b, sizeof(b), a, "deep/er/f.txt");
    assert_int_equal(rill_file_size(b), 3);
    rill_test_tmpdir_remove(a);
    char d[512];
    rill_test_data_path(d, sizeof(d), "x.bin");
    assert_string_equal(rill_path_basename(d), "x.bin");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_path_normalize),
        cmocka_unit_test(test_path_join),
        cmocka_unit_test(test_path_parts),
        cmocka_unit_test(test_path_split_label),
        cmocka_unit_test(test_file_round_trip),
        cmocka_unit_test(test_file_errors),
        cmocka_unit_test(test_file_read_range),
        cmocka_unit_test(test_dir_walk),
        cmocka_unit_test(test_exe_path),
        cmocka_unit_test(test_tmpdir_helper),
        cmocka_unit_test(test_read_all_unknown_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
