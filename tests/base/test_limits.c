/* test_limits.c: the process-wide limits (defaults, set/get, parsing, the error message) and the
 * hostile-file-system rules of rill_file_open: special files refused without blocking, the size
 * cap checked before reading, symbolic links and '..' kept inside a root. */
#include "rill_test.h"

#include <fcntl.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static long max_rss_kib(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

static void test_limits_defaults_and_set(void **state) {
    (void)state;
    rill_limits_set(NULL);
    rill_limits d = rill_limits_query_defaults();
    assert_true(d.file_bytes == (uint64_t)1 << 30);
    assert_true(d.image_pixels == (uint64_t)1 << 26);
    assert_true(d.scene_depth == 8);
    assert_false(d.links_inside_root);
    rill_limits now;
    rill_limits_get(&now);
    assert_memory_equal(&now, &d, sizeof(d));
    /* A zero field keeps its default; a set field wins. */
    rill_limits l = {0};
    l.image_pixels = 100;
    l.links_inside_root = true;
    rill_limits_set(&l);
    assert_true(rill_limit_get(RILL_LIMIT_IMAGE_PIXELS) == 100);
    assert_true(rill_limit_get(RILL_LIMIT_FILE_BYTES) == d.file_bytes);
    assert_true(rill_limits_links_inside_root());
    rill_limits_set(NULL);
    assert_true(rill_limit_get(RILL_LIMIT_IMAGE_PIXELS) == d.image_pixels);
    assert_false(rill_limits_links_inside_root());
    assert_string_equal(rill_limit_name(RILL_LIMIT_SCENE_ENTITIES), "scene_entities");
    assert_string_equal(rill_limit_name((rill_limit)999), "unknown");
}

static void test_limit_check_message(void **state) {
    (void)state;
    rill_limits_set(NULL);
    rill_error err = {0};
    assert_int_equal(rill_limit_check(RILL_LIMIT_SCENE_DEPTH, 8, "a.rsn", &err), RILL_OK);
    assert_int_equal(rill_limit_check(RILL_LIMIT_SCENE_DEPTH, 9, "a.rsn:3:1", &err),
                     RILL_ERR_LIMIT);
    /* The message names the place, the value, the limit by name and how to raise it. */
    assert_non_null(strstr(err.msg, "a.rsn:3:1: 9 levels exceeds the scene_depth limit of 8"));
    assert_non_null(strstr(err.msg, "RILL_LIMITS=scene_depth=N"));
}

static void test_limits_parse(void **state) {
    (void)state;
    rill_limits l = rill_limits_query_defaults();
    rill_error err = {0};
    assert_int_equal(
        rill_limits_parse("file_bytes=4K,image_pixels=2M,links_inside_root=1", &l, &err), RILL_OK);
    assert_true(l.file_bytes == 4096);
    assert_true(l.image_pixels == 2u << 20);
    assert_true(l.links_inside_root);
    assert_int_equal(rill_limits_parse("", &l, &err), RILL_OK);
    assert_int_equal(rill_limits_parse("nope=1", &l, &err), RILL_ERR_PARSE);
    assert_non_null(strstr(err.msg, "unknown limit 'nope' (see"));
    assert_int_equal(rill_limits_parse("file_bytes=4K,image_pixel=1G", &l, &err), RILL_ERR_PARSE);
    assert_non_null(strstr(err.msg, "unknown limit 'image_pixel'; did you mean 'image_pixels'?"));
    assert_int_equal(rill_limits_parse("file_bytes", &l, &err), RILL_ERR_PARSE);
    assert_int_equal(rill_limits_parse("file_bytes=1X", &l, &err), RILL_ERR_PARSE);
    assert_int_equal(rill_limits_parse("file_bytes=-1", &l, &err), RILL_ERR_PARSE);
    assert_int_equal(rill_limits_parse("file_bytes=99999999999999999999", &l, &err),
                     RILL_ERR_PARSE);
    assert_int_equal(rill_limits_parse("file_bytes=17179869184T", &l, &err), RILL_ERR_PARSE);
    assert_int_equal(rill_limits_parse("links_inside_root=2", &l, &err), RILL_ERR_PARSE);
    /* The environment variable goes through the same parser. */
    setenv("RILL_LIMITS", "scene_depth=3", 1);
    assert_int_equal(rill_limits_from_env(&err), RILL_OK);
    assert_true(rill_limit_get(RILL_LIMIT_SCENE_DEPTH) == 3);
    setenv("RILL_LIMITS", "scene_depth=x", 1);
    assert_int_equal(rill_limits_from_env(&err), RILL_ERR_PARSE);
    assert_non_null(strstr(err.msg, "RILL_LIMITS:"));
    unsetenv("RILL_LIMITS");
    rill_limits_set(NULL);
}

static void test_file_open_refuses_special_files(void **state) {
    (void)state;
    char dir[512], fifo[600];
    rill_test_tmpdir(dir, sizeof(dir), "special");
    rill_test_path(fifo, sizeof(fifo), dir, "pipe.toml");
    assert_int_equal(mkfifo(fifo, 0644), 0);
    rill_error err = {0};
    uint8_t *data = NULL;
    size_t size = 0;
    /* Nobody writes the FIFO: a blocking open would hang here forever. */
    assert_int_equal(rill_file_read_all(fifo, &data, &size, &err), RILL_ERR_IO);
    assert_non_null(strstr(err.msg, "a FIFO"));
    assert_int_equal(rill_file_read_range(fifo, 0, 4, (uint8_t[4]){0}, &err), RILL_ERR_IO);
    long before = max_rss_kib();
    assert_int_equal(rill_file_read_all("/dev/zero", &data, &size, &err), RILL_ERR_IO);
    assert_non_null(strstr(err.msg, "character device"));
    assert_true(max_rss_kib() - before < 8 * 1024); /* nothing was read */
    assert_int_equal(rill_file_read_all(dir, &data, &size, &err), RILL_ERR_IO);
    assert_null(data);
    rill_test_tmpdir_remove(dir);
}

static void test_file_size_cap_before_reading(void **state) {
    (void)state;
    char dir[512], big[600];
    rill_test_tmpdir(dir, sizeof(dir), "sizecap");
    rill_test_path(big, sizeof(big), dir, "project.toml");
    /* A sparse 2 GiB file: costs no disk, and reading it would take 2 GiB of memory. */
    int fd = open(big, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)2 << 30), 0);
    close(fd);
    rill_error err = {0};
    uint8_t *data = NULL;
    size_t size = 0;
    long before = max_rss_kib();
    assert_int_equal(rill_file_read_all(big, &data, &size, &err), RILL_ERR_LIMIT);
    assert_non_null(strstr(err.msg, "project.toml: 2147483648 bytes exceeds the file_bytes"));
    assert_int_equal(rill_file_read_all_in(NULL, big, 1000, &data, &size, &err), RILL_ERR_LIMIT);
    assert_non_null(strstr(err.msg, "limit of 1000 bytes"));
    assert_true(max_rss_kib() - before < 8 * 1024);
    /* A lowered file_bytes limit applies to every read. */
    rill_limits l = {0};
    l.file_bytes = 3;
    rill_limits_set(&l);
    rill_test_write_file(dir, "small.txt", "abcd", 4);
    char small[600];
    rill_test_path(small, sizeof(small), dir, "small.txt");
    assert_int_equal(rill_file_read_all(small, &data, &size, &err), RILL_ERR_LIMIT);
    rill_limits_set(NULL);
    assert_int_equal(rill_file_read_all(small, &data, &size, &err), RILL_OK);
    assert_int_equal(size, 4);
    rill_free(data);
    rill_test_tmpdir_remove(dir);
}

static void test_file_open_confined(void **state) {
    (void)state;
    char dir[512], root[600], p[700], outside[600];
    rill_test_tmpdir(dir, sizeof(dir), "confine");
    rill_test_write_file(dir, "root/assets/a.txt", "inside", 6);
    rill_test_write_file(dir, "secret.txt", "SECRET-BYTES", 12);
    rill_test_path(root, sizeof(root), dir, "root");
    rill_test_path(outside, sizeof(outside), dir, "secret.txt");
    /* Links: to a file outside, to a folder outside, to a file inside. */
    rill_test_path(p, sizeof(p), root, "assets/out.txt");
    assert_int_equal(symlink(outside, p), 0);
    rill_test_path(p, sizeof(p), root, "linkdir");
    assert_int_equal(symlink(dir, p), 0);
    rill_test_path(p, sizeof(p), root, "assets/in.txt");
    assert_int_equal(symlink("a.txt", p), 0);
    rill_error err = {0};
    uint8_t *data = NULL;
    size_t size = 0;
    rill_test_path(p, sizeof(p), root, "assets/a.txt");
    assert_int_equal(rill_file_read_all_in(root, p, 0, &data, &size, &err), RILL_OK);
    assert_int_equal(size, 6);
    rill_free(data);
    const char *refused[] = {"assets/out.txt", "linkdir/secret.txt", "assets/in.txt",
                             "assets/../../secret.txt"};
    for (int pass = 0; pass < 2; ++pass) {
        for (size_t i = 0; i < RILL_COUNTOF(refused); ++i) {
            rill_test_path(p, sizeof(p), root, refused[i]);
            rill_result r = rill_file_read_all_in(root, p, 0, &data, &size, &err);
            bool inside_link = pass == 1 && strcmp(refused[i], "assets/in.txt") == 0;
            if (inside_link) {
                assert_int_equal(r, RILL_OK); /* allowed by links_inside_root */
                assert_memory_equal(data, "inside", 6);
                rill_free(data);
                continue;
            }
            assert_int_equal(r, RILL_ERR_LIMIT);
            assert_null(data);
            assert_null(strstr(err.msg, "SECRET")); /* no file bytes in messages */
            assert_int_equal(rill_file_read_range_in(root, p, 0, 1, (uint8_t[1]){0}, &err),
                             RILL_ERR_LIMIT);
        }
        rill_limits l = {0};
        l.links_inside_root = true;
        rill_limits_set(&l);
    }
    rill_limits_set(NULL);
    /* A path that does not start with the root is refused outright. */
    assert_int_equal(rill_file_read_all_in(root, outside, 0, &data, &size, &err), RILL_ERR_LIMIT);
    assert_non_null(strstr(err.msg, "lies outside"));
    /* Without a root the user's own path is trusted, links included. */
    rill_test_path(p, sizeof(p), root, "assets/out.txt");
    assert_int_equal(rill_file_read_all(p, &data, &size, &err), RILL_OK);
    rill_free(data);
    rill_test_tmpdir_remove(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_limits_defaults_and_set),
        cmocka_unit_test(test_limit_check_message),
        cmocka_unit_test(test_limits_parse),
        cmocka_unit_test(test_file_open_refuses_special_files),
        cmocka_unit_test(test_file_size_cap_before_reading),
        cmocka_unit_test(test_file_open_confined),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
