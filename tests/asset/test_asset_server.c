/* test_asset_server.c: the asset server with a test loader: async loads on workers, the
 * deterministic and worker-less modes, path dedup, sub-asset labels, deferred release, failed
 * loads with messages, stale handles, memory accounting and the debug views. */
#include "rill_test.h"

#include "rill/asset.h"

#include <stdatomic.h>

/* >>the test loader: payload = "<file text>|<label>", bytes = payload length + 1 */

typedef struct loader_stats {
    _Atomic int loads;
    _Atomic int successes;
    _Atomic int unloads;
    char order[64][64]; /* paths in the order the loader saw them (deterministic test only) */
    _Atomic int order_len;
} loader_stats;

static rill_result txt_load(const rill_asset_load_ctx *ctx, void **out_payload, size_t *out_bytes,
                            rill_error *err) {
    loader_stats *st = ctx->loader_user;
    int n = atomic_fetch_add(&st->order_len, 1);
    if (n < 64) {
        snprintf(st->order[n], sizeof(st->order[n]), "%s", ctx->path);
    }
    atomic_fetch_add(&st->loads, 1);
    uint8_t *data = NULL;
    size_t size = 0;
    if (strcmp(ctx->label, "head") == 0) {
        /* A sub-asset that reads only the first 4 bytes, like a mip tail read. */
        data = rill_malloc(5);
        rill_result r = rill_vfs_read_range(ctx->vfs, ctx->path, 0, 4, data, err);
        if (r != RILL_OK) {
            rill_free(data);
            return r;
        }
        data[4] = '\0';
        size = 4;
    } else {
        rill_result r = rill_vfs_read_all(ctx->vfs, ctx->path, &data, &size, err);
        if (r != RILL_OK) {
            return r;
        }
    }
    if (strncmp((const char *)data, "bad", 3) == 0) {
        rill_free(data);
        return rill_error_set(err, RILL_ERR_PARSE, "%s:1:1: the test loader refuses 'bad'",
                              ctx->path);
    }
    size_t cap = size + strlen(ctx->label) + 2;
    char *payload = rill_malloc(cap);
    snprintf(payload, cap, "%s|%s", (const char *)data, ctx->label);
    rill_free(data);
    *out_payload = payload;
    *out_bytes = strlen(payload) + 1;
    atomic_fetch_add(&st->successes, 1);
    return RILL_OK;
}

static void txt_unload(void *payload, size_t bytes, void *user) {
    (void)bytes;
    loader_stats *st = user;
    atomic_fetch_add(&st->unloads, 1);
    rill_free(payload);
}

static rill_asset_loader txt_loader(loader_stats *st) {
    rill_asset_loader l = {.name = "txt",
                           .extensions = {"txt", ".TEXT"},
                           .load = txt_load,
                           .unload = txt_unload,
                           .user = st};
    return l;
}

/* >>fixture */

typedef struct fixture {
    char dir[512];
    rill_vfs *vfs;
    rill_jobs *jobs;
    rill_asset_server *server;
    loader_stats st;
    size_t live_before;
} fixture;

static void write_file(const char *dir, const char *rel, const char *text) {
    char path[1024];
    rill_test_path(path, sizeof(path), dir, rel);
    assert_int_equal(rill_file_write_all(path, text, strlen(text), NULL), RILL_OK);
}

/* Writes n files "<prefix>0.txt".."<prefix>{n-1}.txt" holding text into dir. */
static void write_numbered(const char *dir, const char *prefix, int n, const char *text) {
    for (int i = 0; i < n; ++i) {
        char rel[32];
        snprintf(rel, sizeof(rel), "%s%d.txt", prefix, i);
        write_file(dir, rel, text);
    }
}

/* Requests the files write_numbered wrote, into hs[n] (the zero handle where one is refused). */
static void load_numbered(rill_asset_server *s, const char *prefix, int n, rill_asset *hs) {
    for (int i = 0; i < n; ++i) {
        char rel[32];
        snprintf(rel, sizeof(rel), "%s%d.txt", prefix, i);
        hs[i] = rill_asset_load(s, rel, NULL);
    }
}

/* mode: 0 = worker threads, 1 = deterministic rill_jobs, 2 = no rill_jobs at all. */
static fixture *fixture_make(int mode) {
    fixture *f = calloc(1, sizeof(*f));
    f->live_before = rill_mem_live_total();
    rill_test_tmpdir(f->dir, sizeof(f->dir), "asset_server");
    for (int i = 0; i < 16; ++i) {
        char rel[32], text[32];
        snprintf(rel, sizeof(rel), "f%02d.txt", i);
        snprintf(text, sizeof(text), "file %02d", i);
        write_file(f->dir, rel, text);
    }
    write_file(f->dir, "bad.txt", "bad content");
    write_file(f->dir, "upper.TEXT", "upper");
    f->vfs = rill_vfs_create(NULL, NULL);
    assert_int_equal(rill_vfs_mount_dir(f->vfs, f->dir, NULL), RILL_OK);
    if (mode == 0) {
        f->jobs = rill_jobs_create(&(rill_jobs_desc){.worker_count = 3}, NULL);
    } else if (mode == 1) {
        f->jobs = rill_jobs_create(&(rill_jobs_desc){.deterministic = true}, NULL);
    }
    /* Default budget: deterministic fixtures check order and states after one update, which a
     * slow run (TSan, a loaded machine) must not change (the server does not read the clock in
     * deterministic mode; with the 2 ms budget it did, and the order test failed at random). */
    f->server =
        rill_asset_server_create(&(rill_asset_server_desc){.vfs = f->vfs, .jobs = f->jobs}, NULL);
    assert_non_null(f->server);
    rill_asset_loader l = txt_loader(&f->st);
    rill_error err = {0};
    assert_int_equal(rill_asset_server_register_loader(f->server, &l, &err), RILL_OK);
    return f;
}

static void fixture_free(fixture *f) {
    rill_asset_server_destroy(f->server);
    rill_jobs_destroy(f->jobs);
    rill_vfs_destroy(f->vfs);
    rill_test_tmpdir_remove(f->dir);
    /* Every payload the loader made was unloaded exactly once. */
    assert_int_equal(atomic_load(&f->st.unloads), atomic_load(&f->st.successes));
    size_t before = f->live_before;
    free(f);
    assert_int_equal(rill_mem_live_total(), before);
}

static void pump_until_done(fixture *f, const rill_asset *hs, uint32_t n) {
    for (int spin = 0; spin < 100000; ++spin) {
        rill_asset_server_update(f->server);
        if (rill_asset_progress(f->server, hs, n) >= 1.0f) {
            return;
        }
        rill_sleep_ns(100000);
    }
    fail_msg("loads did not finish");
}

static const char *payload_str(fixture *f, rill_asset h) {
    return rill_asset_get_payload(f->server, h, NULL);
}

/* >>tests */

static void test_defaults_and_misuse(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    rill_asset_server_desc d = rill_asset_server_query_defaults();
    assert_int_equal(d.capacity, 4096);
    assert_int_equal(d.max_loaders, 32);
    assert_int_equal(d.update_budget_ns, 2000000);
    assert_int_equal(d.update_max_applied, 0);
    assert_null(rill_asset_server_create(NULL, NULL));
    assert_null(rill_asset_server_create(&(rill_asset_server_desc){0}, NULL)); /* vfs required */
    rill_asset_server_destroy(NULL);
    assert_string_equal(rill_asset_state_name(RILL_ASSET_STATE_LOADED), "loaded");
    assert_string_equal(rill_asset_state_name((rill_asset_state)99), "invalid");
    rill_vfs *vfs = rill_vfs_create(NULL, NULL);
    rill_asset_server *s = rill_asset_server_create(&(rill_asset_server_desc){.vfs = vfs}, NULL);
    rill_error err = {0};
    rill_asset_loader l = {.name = "x", .load = txt_load};
    assert_int_equal(rill_asset_server_register_loader(s, &l, &err), RILL_ERR_INVALID_ARGUMENT);
    rill_asset_loader noname = {.extensions = {"x"}, .load = txt_load};
    assert_int_equal(rill_asset_server_register_loader(s, &noname, &err),
                     RILL_ERR_INVALID_ARGUMENT);
    /* No loader for the extension: {0} with a message naming the path. */
    rill_asset h = rill_asset_load(s, "model.unknown", &err);
    assert_int_equal(h.id, 0);
    assert_int_equal(err.code, RILL_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "model.unknown"));
    h = rill_asset_load(s, "../escape.txt", &err);
    assert_int_equal(h.id, 0);
    assert_int_equal(err.code, RILL_ERR_INVALID_ARGUMENT);
    assert_int_equal(rill_asset_server_vfs(s), vfs);
    rill_asset_server_destroy(s);
    rill_vfs_destroy(vfs);
    RILL_TEST_LEAK_END();
}

static void test_async_workers(void **state) {
    (void)state;
    fixture *f = fixture_make(0);
    rill_asset hs[16];
    for (int i = 0; i < 16; ++i) {
        char path[32];
        snprintf(path, sizeof(path), "f%02d.txt", i);
        hs[i] = rill_asset_load(f->server, path, NULL);
        assert_int_not_equal(hs[i].id, 0);
        rill_asset_state st = rill_asset_get_state(f->server, hs[i]);
        assert_true(st == RILL_ASSET_STATE_QUEUED || st == RILL_ASSET_STATE_LOADING ||
                    st == RILL_ASSET_STATE_LOADED);
    }
    pump_until_done(f, hs, 16);
    size_t total = 0;
    for (int i = 0; i < 16; ++i) {
        char want[32];
        snprintf(want, sizeof(want), "file %02d|", i);
        assert_int_equal(rill_asset_get_state(f->server, hs[i]), RILL_ASSET_STATE_LOADED);
        size_t bytes = 0;
        assert_string_equal(rill_asset_get_payload(f->server, hs[i], &bytes), want);
        assert_int_equal(bytes, strlen(want) + 1);
        assert_string_equal(rill_asset_get_payload_as(f->server, hs[i], "txt"), want);
        assert_null(rill_asset_get_payload_as(f->server, hs[i], "png"));
        total += bytes;
    }
    rill_asset_server_stats st;
    rill_asset_server_get_stats(f->server, &st);
    assert_int_equal(st.live, 16);
    assert_int_equal(st.by_state[RILL_ASSET_STATE_LOADED], 16);
    assert_int_equal(st.loaded_bytes, total);
    assert_int_equal(st.loads_completed, 16);
    assert_int_equal(rill_asset_server_pending(f->server), 0);
    for (int i = 0; i < 16; ++i) {
        rill_asset_release(f->server, hs[i]);
    }
    rill_asset_server_update(f->server);
    rill_asset_server_get_stats(f->server, &st);
    assert_int_equal(st.live, 0);
    assert_int_equal(st.loaded_bytes, 0);
    assert_int_equal(st.peak_loaded_bytes, total);
    assert_int_equal(atomic_load(&f->st.unloads), 16);
    fixture_free(f);
}

static void test_dedup_and_labels(void **state) {
    (void)state;
    fixture *f = fixture_make(2);
    rill_asset a1 = rill_asset_load(f->server, "f01.txt", NULL);
    rill_asset a2 = rill_asset_load(f->server, "./f01.txt", NULL);
    rill_asset low = rill_asset_load(f->server, "f01.txt#head", NULL);
    rill_asset low2 = rill_asset_load(f->server, "sub/../f01.txt#head", NULL);
    assert_int_equal(a1.id, a2.id);
    assert_int_equal(low.id, low2.id);
    assert_int_not_equal(a1.id, low.id);
    assert_int_equal(rill_asset_refcount(f->server, a1), 2);
    assert_int_equal(rill_asset_find(f->server, "f01.txt").id, a1.id);
    assert_int_equal(rill_asset_find(f->server, "f01.txt#head").id, low.id);
    assert_int_equal(rill_asset_find(f->server, "f02.txt").id, 0);
    rill_asset hs[2] = {a1, low};
    assert_true(rill_asset_progress(f->server, hs, 2) < 1.0f);
    pump_until_done(f, hs, 2);
    assert_string_equal(payload_str(f, a1), "file 01|");
    assert_string_equal(payload_str(f, low), "file|head"); /* the loader got the label */
    assert_int_equal(atomic_load(&f->st.loads), 2);        /* one load per distinct asset */
    rill_asset_info info;
    assert_true(rill_asset_get_info(f->server, low, &info));
    assert_string_equal(info.key, "f01.txt#head");
    assert_string_equal(info.path, "f01.txt");
    assert_string_equal(info.label, "head");
    assert_string_equal(info.loader, "txt");
    assert_int_equal(info.refcount, 2);
    /* Extensions match case-insensitively, and ".TEXT" was registered without its dot. */
    rill_asset up = rill_asset_load_sync(f->server, "upper.TEXT", NULL);
    assert_string_equal(payload_str(f, up), "upper|");
    rill_asset_release(f->server, up);
    rill_asset_release(f->server, a1);
    rill_asset_release(f->server, a2);
    rill_asset_release(f->server, low);
    rill_asset_release(f->server, low2);
    rill_asset_server_update(f->server);
    fixture_free(f);
}

static void test_deferred_release(void **state) {
    (void)state;
    fixture *f = fixture_make(1);
    rill_asset h = rill_asset_load_sync(f->server, "f03.txt", NULL);
    assert_int_equal(rill_asset_get_state(f->server, h), RILL_ASSET_STATE_LOADED);
    rill_asset_retain(f->server, h);
    rill_asset_release(f->server, h);
    rill_asset_release(f->server, h);
    /* Refcount is 0 but the asset lives until the next update: the pointer is still good. */
    assert_int_equal(rill_asset_refcount(f->server, h), 0);
    assert_int_equal(rill_asset_get_state(f->server, h), RILL_ASSET_STATE_LOADED);
    assert_string_equal(payload_str(f, h), "file 03|");
    rill_asset_server_stats st;
    rill_asset_server_get_stats(f->server, &st);
    assert_int_equal(st.pending_release, 1);
    assert_int_equal(atomic_load(&f->st.unloads), 0);
    rill_asset_server_update(f->server);
    assert_int_equal(atomic_load(&f->st.unloads), 1);
    assert_int_equal(rill_asset_get_state(f->server, h), RILL_ASSET_STATE_INVALID);
    assert_null(payload_str(f, h));

    /* Revived before the update: a new load of the same path keeps it. */
    rill_asset g = rill_asset_load_sync(f->server, "f04.txt", NULL);
    rill_asset_release(f->server, g);
    rill_asset g2 = rill_asset_load(f->server, "f04.txt", NULL);
    assert_int_equal(g2.id, g.id);
    rill_asset_server_update(f->server);
    assert_int_equal(rill_asset_get_state(f->server, g2), RILL_ASSET_STATE_LOADED);
    assert_int_equal(atomic_load(&f->st.loads), 2);
    /* Released and freed, then requested again: a fresh handle and a fresh load. */
    rill_asset_release(f->server, g2);
    rill_asset_server_update(f->server);
    rill_asset g3 = rill_asset_load_sync(f->server, "f04.txt", NULL);
    assert_int_not_equal(g3.id, g2.id);
    assert_int_equal(atomic_load(&f->st.loads), 3);
    rill_asset_release(f->server, g3);

    /* Released while still queued: the load never runs and nothing leaks. */
    rill_asset q = rill_asset_load(f->server, "f05.txt", NULL);
    assert_int_equal(rill_asset_get_state(f->server, q), RILL_ASSET_STATE_QUEUED);
    rill_asset_release(f->server, q);
    rill_asset_server_update(f->server);
    rill_asset_server_update(f->server);
    assert_int_equal(rill_asset_get_state(f->server, q), RILL_ASSET_STATE_INVALID);
    assert_int_equal(atomic_load(&f->st.loads), 3);
    fixture_free(f);
}

static void test_failures(void **state) {
    (void)state;
    fixture *f = fixture_make(0);
    rill_asset missing = rill_asset_load(f->server, "missing.txt", NULL);
    rill_asset bad = rill_asset_load(f->server, "bad.txt", NULL);
    rill_asset hs[2] = {missing, bad};
    pump_until_done(f, hs, 2);
    assert_int_equal(rill_asset_get_state(f->server, missing), RILL_ASSET_STATE_FAILED);
    assert_int_equal(rill_asset_get_state(f->server, bad), RILL_ASSET_STATE_FAILED);
    assert_null(payload_str(f, missing));
    assert_null(payload_str(f, bad));
    assert_non_null(strstr(rill_asset_error(f->server, missing), "missing.txt"));
    assert_non_null(strstr(rill_asset_error(f->server, bad), "bad.txt:1:1"));
    assert_string_equal(rill_asset_error(f->server, (rill_asset){0}), "");
    /* A failed asset stays deduplicated: asking again returns it (no retry storm). */
    rill_asset again = rill_asset_load(f->server, "bad.txt", NULL);
    assert_int_equal(again.id, bad.id);
    assert_int_equal(rill_asset_get_state(f->server, again), RILL_ASSET_STATE_FAILED);
    /* The sync helper reports the loader's code and message. */
    rill_error err = {0};
    rill_asset s = rill_asset_load_sync(f->server, "missing2.txt", &err);
    assert_int_not_equal(s.id, 0);
    assert_int_equal(err.code, RILL_ERR_NOT_FOUND);
    assert_non_null(strstr(err.msg, "missing2.txt"));
    rill_asset_server_stats st;
    rill_asset_server_get_stats(f->server, &st);
    assert_int_equal(st.loads_failed, 3);
    assert_int_equal(st.by_state[RILL_ASSET_STATE_FAILED], 3);
    rill_asset_release(f->server, missing);
    rill_asset_release(f->server, bad);
    rill_asset_release(f->server, again);
    rill_asset_release(f->server, s);
    rill_asset_server_update(f->server);
    rill_asset_server_get_stats(f->server, &st);
    assert_int_equal(st.live, 0);
    fixture_free(f);
}

static void test_stale_handles(void **state) {
    (void)state;
    fixture *f = fixture_make(2);
    rill_asset h = rill_asset_load_sync(f->server, "f06.txt", NULL);
    rill_asset_release(f->server, h);
    rill_asset_server_update(f->server);
    rill_asset zero = {0};
    rill_asset junk = {0xFFFFFFFFu};
    rill_asset cases[3] = {h, zero, junk};
    for (int i = 0; i < 3; ++i) {
        rill_asset c = cases[i];
        assert_int_equal(rill_asset_get_state(f->server, c), RILL_ASSET_STATE_INVALID);
        assert_false(rill_asset_retain(f->server, c));
        rill_asset_release(f->server, c); /* no-op */
        size_t bytes = 7;
        assert_null(rill_asset_get_payload(f->server, c, &bytes));
        assert_int_equal(bytes, 0);
        assert_int_equal(rill_asset_refcount(f->server, c), 0);
        rill_asset_info info;
        assert_false(rill_asset_get_info(f->server, c, &info));
        assert_int_equal(rill_asset_wait(f->server, c), RILL_ASSET_STATE_INVALID);
    }
    /* The slot is reused with a new generation; the old handle still does not reach it. */
    rill_asset n = rill_asset_load_sync(f->server, "f07.txt", NULL);
    assert_int_not_equal(n.id, h.id);
    assert_int_equal(rill_asset_get_state(f->server, h), RILL_ASSET_STATE_INVALID);
    rill_asset_release(f->server, h);
    assert_int_equal(rill_asset_refcount(f->server, n), 1);
    rill_asset_release(f->server, n);
    rill_asset_server_update(f->server);
    fixture_free(f);
}

static void test_deterministic_order(void **state) {
    (void)state;
    fixture *f = fixture_make(1);
    rill_asset hs[8];
    for (int i = 0; i < 8; ++i) {
        char path[32];
        snprintf(path, sizeof(path), "f%02d.txt", 7 - i);
        hs[i] = rill_asset_load(f->server, path, NULL);
        /* Nothing runs before the update in deterministic mode. */
        assert_int_equal(rill_asset_get_state(f->server, hs[i]), RILL_ASSET_STATE_QUEUED);
        assert_null(payload_str(f, hs[i]));
    }
    assert_int_equal(rill_asset_server_pending(f->server), 8);
    assert_true(rill_asset_progress(f->server, hs, 8) == 0.0f);
    rill_asset_server_update(f->server);
    for (int i = 0; i < 8; ++i) {
        char path[32];
        snprintf(path, sizeof(path), "f%02d.txt", 7 - i);
        assert_string_equal(f->st.order[i], path); /* request order */
        assert_int_equal(rill_asset_get_state(f->server, hs[i]), RILL_ASSET_STATE_LOADED);
        rill_asset_release(f->server, hs[i]);
    }
    fixture_free(f);
}

/* Released while workers are still loading: every payload a loader produced is unloaded exactly
 * once, whatever the timing (fixture_free checks unloads == successful loads). */
static void test_release_while_loading(void **state) {
    (void)state;
    for (int round = 0; round < 20; ++round) {
        fixture *f = fixture_make(0);
        rill_asset hs[16];
        for (int i = 0; i < 16; ++i) {
            char path[32];
            snprintf(path, sizeof(path), "f%02d.txt", i);
            hs[i] = rill_asset_load(f->server, path, NULL);
        }
        for (int i = 0; i < 16; ++i) {
            rill_asset_release(f->server, hs[i]);
        }
        rill_asset_server_update(f->server); /* frees the slots, loads may still run */
        if (round % 2 == 0) {
            rill_asset_server_update(f->server);
        }
        rill_asset_server_stats st;
        rill_asset_server_get_stats(f->server, &st);
        assert_int_equal(st.live, 0);
        fixture_free(f); /* destroy waits for the workers and drops what they produced */
    }
}

/* Loads b0.txt..b4.txt on a new server with the given jobs and limits; the caller checks what
 * each update applies, then calls budget_end. */
typedef struct budget_run {
    loader_stats st;
    char dir[512];
    rill_vfs *vfs;
    rill_asset_server *s;
    rill_asset hs[5];
} budget_run;

static void budget_begin(budget_run *b, rill_jobs *jobs, uint64_t budget_ns, uint32_t max_applied) {
    memset(b, 0, sizeof(*b));
    rill_test_tmpdir(b->dir, sizeof(b->dir), "asset_budget");
    write_numbered(b->dir, "b", 5, "budget");
    b->vfs = rill_vfs_create(NULL, NULL);
    rill_vfs_mount_dir(b->vfs, b->dir, NULL);
    b->s = rill_asset_server_create(&(rill_asset_server_desc){.vfs = b->vfs,
                                                              .jobs = jobs,
                                                              .update_budget_ns = budget_ns,
                                                              .update_max_applied = max_applied},
                                    NULL);
    assert_non_null(b->s);
    rill_asset_loader l = txt_loader(&b->st);
    rill_asset_server_register_loader(b->s, &l, NULL);
    load_numbered(b->s, "b", 5, b->hs);
}

/* After an update that applied `loaded` of the 5 in total: the rest ran already and wait in the
 * completion list, still LOADING. */
static void budget_expect(budget_run *b, uint32_t loaded) {
    rill_asset_server_stats stats;
    rill_asset_server_get_stats(b->s, &stats);
    assert_int_equal(stats.by_state[RILL_ASSET_STATE_LOADED], loaded);
    assert_int_equal(stats.by_state[RILL_ASSET_STATE_LOADING], 5 - loaded);
}

static void budget_end(budget_run *b) {
    assert_int_equal(rill_asset_server_update(b->s), 0);
    for (int i = 0; i < 5; ++i) {
        rill_asset_release(b->s, b->hs[i]);
    }
    rill_asset_server_destroy(b->s);
    rill_vfs_destroy(b->vfs);
    assert_int_equal(atomic_load(&b->st.unloads), 5);
    rill_test_tmpdir_remove(b->dir);
}

/* Without workers, a tiny time budget publishes exactly one finished load per update (at least
 * one always goes). */
static void test_update_budget(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    budget_run b;
    budget_begin(&b, NULL, 1, 0);
    for (uint32_t u = 1; u <= 5; ++u) {
        assert_int_equal(rill_asset_server_update(b.s), 1);
        budget_expect(&b, u);
    }
    budget_end(&b);
    RILL_TEST_LEAK_END();
}

/* Deterministic mode never reads the clock: a budget of 1 ns (spent by every machine after the
 * first load) still applies every finished load, and only update_max_applied spreads them, so
 * the states after each update are the same on any machine. */
static void test_update_deterministic(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    rill_jobs *jobs = rill_jobs_create(&(rill_jobs_desc){.deterministic = true}, NULL);
    budget_run b;
    budget_begin(&b, jobs, 1, 0);
    assert_int_equal(rill_asset_server_update(b.s), 5);
    budget_expect(&b, 5);
    budget_end(&b);
    budget_begin(&b, jobs, 1, 2);
    const uint32_t want[3] = {2, 2, 1};
    for (uint32_t u = 0, total = 0; u < 3; ++u) {
        assert_int_equal(rill_asset_server_update(b.s), want[u]);
        budget_expect(&b, total += want[u]);
    }
    budget_end(&b);
    rill_jobs_destroy(jobs);
    RILL_TEST_LEAK_END();
}

/* The wrong shutdown order (the server destroyed before what holds its assets: render assets,
 * texture uploads that borrow a payload) is safe: the server frees what nobody holds, fails the
 * loads still on their way, keeps the held payloads valid and refuses new loads; the last release
 * frees it, with every payload unloaded once and nothing leaked. */
static void test_destroy_before_holders(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    budget_run b;
    budget_begin(&b, NULL, 0, 0);
    assert_int_equal(rill_asset_wait(b.s, b.hs[0]), RILL_ASSET_STATE_LOADED); /* runs all five */
    rill_asset late = rill_asset_load(b.s, "late.txt", NULL); /* queued, never run */
    for (int i = 1; i < 5; ++i) {
        rill_asset_release(b.s, b.hs[i]);
    }
    const char *payload = rill_asset_get_payload(b.s, b.hs[0], NULL);
    assert_non_null(payload);
    rill_asset_server_destroy(b.s);
    assert_int_equal(atomic_load(&b.st.unloads), 4); /* nobody held those */
    rill_vfs_destroy(b.vfs);                         /* the retired server no longer reads it */
    assert_int_equal(rill_asset_get_state(b.s, b.hs[0]), RILL_ASSET_STATE_LOADED);
    assert_ptr_equal(rill_asset_get_payload(b.s, b.hs[0], NULL), payload);
    assert_string_equal(payload, "budget|"); /* the test loader appends "|label" */
    assert_int_equal(rill_asset_wait(b.s, late), RILL_ASSET_STATE_FAILED); /* no spinning */
    assert_non_null(strstr(rill_asset_error(b.s, late), "destroyed"));
    rill_error err = {0};
    assert_int_equal(rill_asset_load(b.s, "b1.txt", &err).id, 0);
    assert_non_null(strstr(err.msg, "destroyed"));
    assert_int_equal(rill_asset_server_update(b.s), 0);
    rill_asset_server_destroy(b.s); /* again: nothing */
    rill_asset_release(b.s, b.hs[0]);
    assert_int_equal(atomic_load(&b.st.unloads), 5);
    rill_asset_release(b.s, late); /* the last reference: the server is freed */
    assert_int_equal(atomic_load(&b.st.successes), 5);
    rill_test_tmpdir_remove(b.dir);
    RILL_TEST_LEAK_END();
}

typedef struct each_acc {
    int count;
    int loaded;
} each_acc;

static bool each_cb(const rill_asset_info *info, void *user) {
    each_acc *acc = user;
    acc->count++;
    acc->loaded += info->state == RILL_ASSET_STATE_LOADED;
    return true;
}

static void test_each_and_pool_limit(void **state) {
    (void)state;
    RILL_TEST_LEAK_BEGIN();
    loader_stats st;
    memset(&st, 0, sizeof(st));
    char dir[512];
    rill_test_tmpdir(dir, sizeof(dir), "asset_pool");
    write_numbered(dir, "p", 4, "x");
    rill_vfs *vfs = rill_vfs_create(NULL, NULL);
    rill_vfs_mount_dir(vfs, dir, NULL);
    rill_asset_server *s =
        rill_asset_server_create(&(rill_asset_server_desc){.vfs = vfs, .capacity = 3}, NULL);
    rill_asset_loader l = txt_loader(&st);
    rill_asset_server_register_loader(s, &l, NULL);
    rill_asset hs[3];
    load_numbered(s, "p", 3, hs);
    for (int i = 0; i < 3; ++i) {
        assert_int_not_equal(hs[i].id, 0);
    }
    rill_error err = {0};
    rill_asset over = rill_asset_load(s, "p3.txt", &err);
    assert_int_equal(over.id, 0);
    assert_int_equal(err.code, RILL_ERR_POOL_EXHAUSTED);
    each_acc acc = {0};
    rill_asset_server_each(s, each_cb, &acc);
    assert_int_equal(acc.count, 3);
    assert_int_equal(acc.loaded, 0);
    rill_asset_server_update(s); /* no jobs: loads run here */
    acc = (each_acc){0};
    rill_asset_server_each(s, each_cb, &acc);
    assert_int_equal(acc.loaded, 3);
    /* Destroy with live references keeps them valid; the last release frees the server. */
    rill_asset_server_destroy(s);
    assert_int_equal(atomic_load(&st.unloads), 0);
    for (int i = 0; i < 3; ++i) {
        rill_asset_release(s, hs[i]);
    }
    assert_int_equal(atomic_load(&st.unloads), 3);
    rill_vfs_destroy(vfs);
    rill_test_tmpdir_remove(dir);
    RILL_TEST_LEAK_END();
}

/* Loads requested from several threads while the main thread pumps updates. */
typedef struct requester {
    fixture *f;
    rill_asset got[16];
} requester;

static void request_job(void *p) {
    requester *r = p;
    for (int i = 0; i < 16; ++i) {
        char path[32];
        snprintf(path, sizeof(path), "f%02d.txt", i);
        r->got[i] = rill_asset_load(r->f->server, path, NULL);
    }
}

static void test_concurrent_requests(void **state) {
    (void)state;
    fixture *f = fixture_make(0);
    requester reqs[4];
    rill_counter c = {0};
    for (int i = 0; i < 4; ++i) {
        reqs[i].f = f;
        rill_jobs_run(f->jobs, request_job, &reqs[i], &c);
    }
    rill_jobs_wait(f->jobs, &c);
    for (int i = 0; i < 4; ++i) {
        pump_until_done(f, reqs[i].got, 16);
        for (int k = 0; k < 16; ++k) {
            assert_int_equal(reqs[i].got[k].id, reqs[0].got[k].id);
        }
    }
    assert_int_equal(atomic_load(&f->st.loads), 16);
    assert_int_equal(rill_asset_refcount(f->server, reqs[0].got[5]), 4);
    for (int i = 0; i < 4; ++i) {
        for (int k = 0; k < 16; ++k) {
            rill_asset_release(f->server, reqs[i].got[k]);
        }
    }
    rill_asset_server_update(f->server);
    assert_int_equal(atomic_load(&f->st.unloads), 16);
    fixture_free(f);
}

/* Loads and releases from two threads while a third worker runs the loaders and the main thread
 * keeps updating, so releases, re-requests of assets about to be freed and completions for freed
 * slots interleave. A payload read under a reference must stay intact, every slot must be freed
 * in the end, and every payload unloaded exactly once (fixture_free checks that). */
typedef struct churner {
    fixture *f;
    uint32_t seed;
    _Atomic int *bad;
} churner;

static void churn_job(void *p) {
    churner *c = p;
    for (int i = 0; i < 300; ++i) {
        c->seed = c->seed * 1664525u + 1013904223u;
        char path[32];
        snprintf(path, sizeof(path), "f%02u.txt", (unsigned)((c->seed >> 16) % 6u));
        rill_asset h = rill_asset_load(c->f->server, path, NULL);
        const char *text = rill_asset_get_payload(c->f->server, h, NULL);
        /* "f03.txt" holds "file 03"; the payload is "file 03|". */
        if (h.id == 0 || (text != NULL && (strncmp(text, "file ", 5) != 0 ||
                                           strncmp(text + 5, path + 1, 2) != 0))) {
            atomic_fetch_add(c->bad, 1);
        }
        rill_asset_release(c->f->server, h);
    }
}

static void test_churn_from_threads(void **state) {
    (void)state;
    fixture *f = fixture_make(0);
    _Atomic int bad = 0;
    churner cs[2];
    rill_counter c = {0};
    for (uint32_t i = 0; i < 2; ++i) {
        cs[i] = (churner){f, 77u + i, &bad};
        rill_jobs_run(f->jobs, churn_job, &cs[i], &c);
    }
    while (!rill_counter_done(&c)) {
        rill_asset_server_update(f->server);
    }
    rill_jobs_wait(f->jobs, &c);
    rill_asset_server_stats st = {0};
    for (int spin = 0; spin < 100000; ++spin) {
        rill_asset_server_update(f->server);
        rill_asset_server_get_stats(f->server, &st);
        if (st.live == 0) {
            break;
        }
        rill_sleep_ns(100000);
    }
    assert_int_equal(st.live, 0);
    assert_int_equal(atomic_load(&bad), 0);
    assert_true(atomic_load(&f->st.loads) > 0);
    fixture_free(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_and_misuse),
        cmocka_unit_test(test_async_workers),
        cmocka_unit_test(test_dedup_and_labels),
        cmocka_unit_test(test_deferred_release),
        cmocka_unit_test(test_failures),
        cmocka_unit_test(test_stale_handles),
        cmocka_unit_test(test_deterministic_order),
        cmocka_unit_test(test_each_and_pool_limit),
        cmocka_unit_test(test_concurrent_requests),
        cmocka_unit_test(test_update_budget),
        cmocka_unit_test(test_update_deterministic),
        cmocka_unit_test(test_destroy_before_holders),
        cmocka_unit_test(test_release_while_loading),
        cmocka_unit_test(test_churn_from_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
