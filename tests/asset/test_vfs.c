/* test_vfs.c: the virtual file system: lookup order (generic mounts before loose roots, each in
 * mount order), path normalization and rejection of escapes, whole and range reads, listing,
 * error messages that name the path, and concurrent reads from workers. */
#include "rill_test.h"

#include "rill/asset.h"

#include <stdatomic.h>

static void write_file(const char *dir, const char *rel, const char *text) {
    char path[1024];
    char folder[1024];
    rill_test_path(path, sizeof(path), dir, rel);
    assert_true(rill_path_dirname(folder, sizeof(folder), path));
    rill_error err = {0};
    assert_int_equal(rill_dir_create_all(folder, &err), RILL_OK);
    assert_int_equal(rill_file_write_all(path, text, strlen(text), &err), RILL_OK);
}

/* >>a tiny in-memory generic mount */

typedef struct mem_file {
    const char *path;
    const char *text;
} mem_file;

typedef struct mem_mount {
    const mem_file *files;
    int count;
    int closed;
    _Atomic int range_reads;
} mem_mount;

static const mem_file *mem_find(mem_mount *m, const char *path) {
    for (int i = 0; i < m->count; ++i) {
        if (strcmp(m->files[i].path, path) == 0) {
            return &m->files[i];
        }
    }
    return NULL;
}

static bool mem_stat(void *user, const char *path, uint64_t *out_size) {
    const mem_file *f = mem_find(user, path);
    if (f) {
        *out_size = strlen(f->text);
    }
    return f != NULL;
}

static rill_result mem_read_all(void *user, const char *path, uint8_t **out_data, size_t *out_size,
                                rill_error *err) {
    const mem_file *f = mem_find(user, path);
    if (!f) {
        return rill_error_set(err, RILL_ERR_NOT_FOUND, "%s: not here", path);
    }
    *out_data = (uint8_t *)rill_strdup(f->text);
    *out_size = strlen(f->text);
    return RILL_OK;
}

static rill_result mem_read_range(void *user, const char *path, uint64_t offset, size_t size,
                                  void *dst, rill_error *err) {
    mem_mount *m = user;
    const mem_file *f = mem_find(m, path);
    if (!f) {
        return rill_error_set(err, RILL_ERR_NOT_FOUND, "%s: not here", path);
    }
    atomic_fetch_add(&m->range_reads, 1);
    memcpy(dst, f->text + offset, size);
    return RILL_OK;
}

static void mem_list(void *user, const char *prefix, rill_vfs_list_fn fn, void *fn_user) {
    mem_mount *m = user;
    for (int i = 0; i < m->count; ++i) {
        if (strncmp(m->files[i].path, prefix, strlen(prefix)) == 0 &&
            !fn(m->files[i].path, strlen(m->files[i].text), fn_user)) {
            return;
        }
    }
}

static void mem_close(void *user) {
    ((mem_mount *)user)->closed++;
}

static rill_vfs_mount_ops mem_ops(mem_mount *m, const char *name) {
    rill_vfs_mount_ops ops = {.name = name,
                              .stat = mem_stat,
                              .read_all = mem_read_all,
                              .read_range = mem_read_range,
                              .list = mem_list,
                              .close = mem_close,
                              .user = m};
    return ops;
}

static char *read_text(rill_vfs *vfs, const char *path) {
    uint8_t *data = NULL;
    size_t size = 0;
    rill_error err = {0};
    rill_result r = rill_vfs_read_all(vfs, path, &data, &size, &err);
    if (r != RILL_OK) {
        fail_msg("read %s: %s", path, err.msg);
    }
    assert_int_equal(data[size], '\0');
    return (char *)data;
}

static void expect_text(rill_vfs *vfs, const char *path, const char *want) {
    char *got = read_text(vfs, path);
    assert_string_equal(got, want);
    rill_free(got);
}

/* >>tests */

static void test_defaults(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    assert_int_equal(rill_vfs_query_defaults().max_mounts, 32);
    rill_vfs *vfs = rill_vfs_create(NULL, NULL);
    assert_non_null(vfs);
    assert_false(rill_vfs_exists(vfs, "a.txt"));
    assert_int_equal(rill_vfs_size(vfs, "a.txt"), -1);
    rill_error err = {0};
    uint8_t *data = NULL;
    assert_int_equal(rill_vfs_read_all(vfs, "a.txt", &data, NULL, &err), RILL_ERR_NOT_FOUND);
    assert_null(data);
    assert_non_null(strstr(err.msg, "a.txt"));
    rill_vfs_destroy(vfs);
    rill_vfs_destroy(NULL);
    RILL_TEST_LEAK_END();
}

static void test_order(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    char a[512], b[512];
    rill_test_tmpdir(a, sizeof(a), "vfs_a");
    rill_test_tmpdir(b, sizeof(b), "vfs_b");
    write_file(a, "shared.txt", "from a");
    write_file(b, "shared.txt", "from b");
    write_file(b, "only_b.txt", "b only");
    write_file(a, "sub/deep.txt", "deep a");
    write_file(a, "both_pack.txt", "loose");

    mem_file p1_files[] = {{"both_pack.txt", "pack one"}, {"p1.txt", "p1"}};
    mem_file p2_files[] = {{"both_pack.txt", "pack two"}, {"shared.txt", "pack two shared"}};
    mem_mount p1 = {p1_files, 2, 0, 0};
    mem_mount p2 = {p2_files, 2, 0, 0};

    rill_vfs *vfs = rill_vfs_create(&(rill_vfs_desc){0}, NULL);
    rill_error err = {0};
    /* Mount loose roots first on purpose: packs must still win over them. */
    assert_int_equal(rill_vfs_mount_dir(vfs, a, &err), RILL_OK);
    assert_int_equal(rill_vfs_mount_dir(vfs, b, &err), RILL_OK);
    expect_text(vfs, "shared.txt", "from a"); /* loose roots: mount order */
    expect_text(vfs, "only_b.txt", "b only");
    rill_vfs_mount_ops o1 = mem_ops(&p1, "one.rpak");
    rill_vfs_mount_ops o2 = mem_ops(&p2, "two.rpak");
    assert_int_equal(rill_vfs_mount(vfs, &o1, &err), RILL_OK);
    assert_int_equal(rill_vfs_mount(vfs, &o2, &err), RILL_OK);
    expect_text(vfs, "both_pack.txt", "pack one");     /* packs: mount order */
    expect_text(vfs, "shared.txt", "pack two shared"); /* any pack before any loose root */
    expect_text(vfs, "sub/deep.txt", "deep a");
    assert_string_equal(rill_vfs_which(vfs, "both_pack.txt"), "one.rpak");
    assert_string_equal(rill_vfs_which(vfs, "shared.txt"), "two.rpak");
    assert_string_equal(rill_vfs_which(vfs, "only_b.txt"), b);
    assert_null(rill_vfs_which(vfs, "missing.txt"));
    assert_int_equal(rill_vfs_size(vfs, "p1.txt"), 2);
    assert_int_equal(rill_vfs_size(vfs, "only_b.txt"), 6);
    /* A folder is not a file. */
    assert_false(rill_vfs_exists(vfs, "sub"));

    rill_vfs_stats st;
    rill_vfs_get_stats(vfs, &st);
    assert_int_equal(st.mount_count, 4);
    assert_true(st.read_calls >= 5);

    rill_vfs_destroy(vfs);
    assert_int_equal(p1.closed, 1);
    assert_int_equal(p2.closed, 1);
    rill_test_tmpdir_remove(a);
    rill_test_tmpdir_remove(b);
    RILL_TEST_LEAK_END();
}

static void test_normalization(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    char a[512];
    rill_test_tmpdir(a, sizeof(a), "vfs_norm");
    write_file(a, "textures/rock.png", "rock");
    /* A file beside the root that an escaping path would reach. */
    char outside[1024];
    rill_test_path(outside, sizeof(outside), a, "../vfs_secret.txt");
    rill_error err = {0};
    assert_int_equal(rill_file_write_all(outside, "secret", 6, &err), RILL_OK);

    rill_vfs *vfs = rill_vfs_create(NULL, NULL);
    char root_slash[600];
    snprintf(root_slash, sizeof(root_slash), "%s/", a);
    assert_int_equal(rill_vfs_mount_dir(vfs, root_slash, &err), RILL_OK);
    expect_text(vfs, "textures/rock.png", "rock");
    expect_text(vfs, "./textures//rock.png", "rock");
    expect_text(vfs, "textures/../textures/./rock.png", "rock");
    expect_text(vfs, "textures\\rock.png", "rock");

    const char *bad[] = {
        "../vfs_secret.txt", "/etc/passwd", "textures/../../vfs_secret.txt", "", ".", "C:/x"};
    for (size_t i = 0; i < RILL_COUNTOF(bad); ++i) {
        uint8_t *data = NULL;
        rill_error_clear(&err);
        assert_int_equal(rill_vfs_read_all(vfs, bad[i], &data, NULL, &err),
                         RILL_ERR_INVALID_ARGUMENT);
        assert_null(data);
        assert_non_null(strstr(err.msg, bad[i]));
        assert_false(rill_vfs_exists(vfs, bad[i]));
        char buf[4];
        assert_int_equal(rill_vfs_read_range(vfs, bad[i], 0, 1, buf, &err),
                         RILL_ERR_INVALID_ARGUMENT);
    }
    /* Mounting a folder that does not exist names it. */
    assert_int_equal(rill_vfs_mount_dir(vfs, "/nonexistent/rill/folder", &err), RILL_ERR_NOT_FOUND);
    assert_non_null(strstr(err.msg, "/nonexistent/rill/folder"));
    rill_vfs_destroy(vfs);
    remove(outside);
    rill_test_tmpdir_remove(a);
    RILL_TEST_LEAK_END();
}

static void test_ranges(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    char a[512];
    rill_test_tmpdir(a, sizeof(a), "vfs_range");
    write_file(a, "loose.bin", "0123456789");
    mem_file files[] = {{"packed.bin", "abcdefghij"}};
    mem_mount m = {files, 1, 0, 0};
    rill_vfs *vfs = rill_vfs_create(NULL, NULL);
    rill_error err = {0};
    rill_vfs_mount_ops ops = mem_ops(&m, "mem");
    assert_int_equal(rill_vfs_mount(vfs, &ops, &err), RILL_OK);
    assert_int_equal(rill_vfs_mount_dir(vfs, a, &err), RILL_OK);
    char buf[16] = {0};
    assert_int_equal(rill_vfs_read_range(vfs, "loose.bin", 3, 4, buf, &err), RILL_OK);
    assert_memory_equal(buf, "3456", 4);
    assert_int_equal(rill_vfs_read_range(vfs, "packed.bin", 6, 4, buf, &err), RILL_OK);
    assert_memory_equal(buf, "ghij", 4);
    assert_int_equal(atomic_load(&m.range_reads), 1);
    /* Past the end: an error naming the file, and the mount is never asked. */
    assert_int_equal(rill_vfs_read_range(vfs, "packed.bin", 8, 3, buf, &err), RILL_ERR_TRUNCATED);
    assert_non_null(strstr(err.msg, "packed.bin"));
    assert_int_equal(rill_vfs_read_range(vfs, "loose.bin", UINT64_MAX, 1, buf, &err),
                     RILL_ERR_TRUNCATED);
    assert_int_equal(atomic_load(&m.range_reads), 1);
    assert_int_equal(rill_vfs_read_range(vfs, "packed.bin", 10, 0, buf, &err), RILL_OK);
    assert_int_equal(rill_vfs_read_range(vfs, "nope.bin", 0, 1, buf, &err), RILL_ERR_NOT_FOUND);
    assert_non_null(strstr(err.msg, "nope.bin"));
    rill_vfs_destroy(vfs);
    rill_test_tmpdir_remove(a);
    RILL_TEST_LEAK_END();
}

typedef struct list_acc {
    char seen[16][64];
    int count;
    int stop_after;
} list_acc;

static bool list_cb(const char *path, uint64_t size, void *user) {
    (void)size;
    list_acc *acc = user;
    snprintf(acc->seen[acc->count], sizeof(acc->seen[0]), "%s", path);
    acc->count++;
    return acc->stop_after == 0 || acc->count < acc->stop_after;
}

static bool list_has(const list_acc *acc, const char *path) {
    for (int i = 0; i < acc->count; ++i) {
        if (strcmp(acc->seen[i], path) == 0) {
            return true;
        }
    }
    return false;
}

static void test_list(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    char a[512];
    rill_test_tmpdir(a, sizeof(a), "vfs_list");
    write_file(a, "tex/a.png", "a");
    write_file(a, "tex/sub/b.png", "b");
    write_file(a, "texx/no.png", "no");
    write_file(a, "other.txt", "o");
    mem_file files[] = {{"tex/a.png", "packed a"}, {"tex/p.png", "p"}, {"top.txt", "t"}};
    mem_mount m = {files, 3, 0, 0};
    rill_vfs *vfs = rill_vfs_create(NULL, NULL);
    rill_error err = {0};
    rill_vfs_mount_ops ops = mem_ops(&m, "mem");
    assert_int_equal(rill_vfs_mount(vfs, &ops, &err), RILL_OK);
    assert_int_equal(rill_vfs_mount_dir(vfs, a, &err), RILL_OK);

    list_acc acc = {0};
    assert_int_equal(rill_vfs_list(vfs, "tex", list_cb, &acc), 3);
    assert_int_equal(acc.count, 3);
    assert_true(list_has(&acc, "tex/a.png")); /* once, though two mounts hold it */
    assert_true(list_has(&acc, "tex/p.png"));
    assert_true(list_has(&acc, "tex/sub/b.png"));
    assert_false(list_has(&acc, "texx/no.png"));

    memset(&acc, 0, sizeof(acc));
    assert_int_equal(rill_vfs_list(vfs, "", list_cb, &acc), 6);
    assert_true(list_has(&acc, "other.txt"));
    assert_true(list_has(&acc, "top.txt"));

    memset(&acc, 0, sizeof(acc));
    acc.stop_after = 2;
    rill_vfs_list(vfs, "", list_cb, &acc);
    assert_int_equal(acc.count, 2);
    rill_vfs_destroy(vfs);
    rill_test_tmpdir_remove(a);
    RILL_TEST_LEAK_END();
}

static void test_mount_limit(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    char a[512];
    rill_test_tmpdir(a, sizeof(a), "vfs_limit");
    rill_vfs *vfs = rill_vfs_create(&(rill_vfs_desc){.max_mounts = 2}, NULL);
    rill_error err = {0};
    mem_mount m = {NULL, 0, 0, 0};
    rill_vfs_mount_ops ops = mem_ops(&m, "mem");
    assert_int_equal(rill_vfs_mount_dir(vfs, a, &err), RILL_OK);
    assert_int_equal(rill_vfs_mount(vfs, &ops, &err), RILL_OK);
    assert_int_equal(rill_vfs_mount_dir(vfs, a, &err), RILL_ERR_LIMIT);
    assert_int_equal(rill_vfs_mount(vfs, &ops, &err), RILL_ERR_LIMIT);
    rill_vfs_mount_ops bad = {0};
    assert_int_equal(rill_vfs_mount(vfs, &bad, &err), RILL_ERR_INVALID_ARGUMENT);
    rill_vfs_destroy(vfs);
    assert_int_equal(m.closed, 1); /* only the mount that succeeded is closed */
    rill_test_tmpdir_remove(a);
    RILL_TEST_LEAK_END();
}

/* Many workers read through one VFS at once; each read must see exactly its file. */
typedef struct reader_arg {
    rill_vfs *vfs;
    int index;
    _Atomic int *failures;
} reader_arg;

static void reader_job(void *p) {
    reader_arg *a = p;
    char path[64], want[64];
    snprintf(path, sizeof(path), "f%d.txt", a->index % 8);
    snprintf(want, sizeof(want), "content %d", a->index % 8);
    for (int k = 0; k < 50; ++k) {
        uint8_t *data = NULL;
        size_t size = 0;
        if (rill_vfs_read_all(a->vfs, path, &data, &size, NULL) != RILL_OK ||
            strcmp((char *)data, want) != 0) {
            atomic_fetch_add(a->failures, 1);
        }
        rill_free(data);
        char buf[7];
        if (rill_vfs_read_range(a->vfs, path, 0, 7, buf, NULL) != RILL_OK ||
            memcmp(buf, "content", 7) != 0) {
            atomic_fetch_add(a->failures, 1);
        }
    }
}

static void test_threads(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    char a[512];
    rill_test_tmpdir(a, sizeof(a), "vfs_threads");
    for (int i = 0; i < 8; ++i) {
        char rel[32], text[32];
        snprintf(rel, sizeof(rel), "f%d.txt", i);
        snprintf(text, sizeof(text), "content %d", i);
        write_file(a, rel, text);
    }
    rill_vfs *vfs = rill_vfs_create(NULL, NULL);
    assert_int_equal(rill_vfs_mount_dir(vfs, a, NULL), RILL_OK);
    rill_jobs *jobs = rill_jobs_create(&(rill_jobs_desc){.worker_count = 4}, NULL);
    _Atomic int failures = 0;
    reader_arg args[32];
    rill_counter c = {0};
    for (int i = 0; i < 32; ++i) {
        args[i] = (reader_arg){vfs, i, &failures};
        rill_jobs_run(jobs, reader_job, &args[i], &c);
    }
    rill_jobs_wait(jobs, &c);
    assert_int_equal(atomic_load(&failures), 0);
    rill_vfs_stats st;
    rill_vfs_get_stats(vfs, &st);
    assert_int_equal(st.read_calls, 32u * 50u * 2u);
    rill_jobs_destroy(jobs);
    rill_vfs_destroy(vfs);
    rill_test_tmpdir_remove(a);
    RILL_TEST_LEAK_END();
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),      cmocka_unit_test(test_order),
        cmocka_unit_test(test_normalization), cmocka_unit_test(test_ranges),
        cmocka_unit_test(test_list),          cmocka_unit_test(test_mount_limit),
        cmocka_unit_test(test_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
