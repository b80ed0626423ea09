/* test_shutdown_order.c: the wrong shutdown order between the asset server and a renderer that
 * borrows one of its payloads (texture streaming hands a loaded .rmip's levels to
 * rill_render_texture_replace_many_borrowed and releases the asset when the upload is recorded).
 * The server is destroyed first; it must keep the payload valid until the renderer is done with it
 * and be freed by that last release, whether the upload is recorded by a later frame or dropped
 * when the renderer is destroyed. Under AddressSanitizer a read of the freed payload or a release
 * on a freed server is a failure; in any build the counts below are. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "render_test.h"
#include "rill/asset.h"
#include "rill/formats/rmip.h"
#include "rill_test.h"

#include <stdatomic.h>
#include <stdio.h>

/* A 4 x 4 RGBA8 chain (4, 2, 1) in one block, levels pointing into it. */
typedef struct chain {
    rill_tex_data tex;
    uint8_t bytes[(16 + 4 + 1) * 4];
} chain;

static void chain_fill(chain *c, uint8_t value) {
    memset(c, 0, sizeof(*c));
    memset(c->bytes, value, sizeof(c->bytes));
    c->tex.format = RILL_TEX_FORMAT_RGBA8;
    c->tex.width = c->tex.height = c->tex.full_width = c->tex.full_height = 4;
    c->tex.level_count = 3;
    size_t at = 0;
    for (uint32_t i = 0; i < 3; i++) {
        uint32_t s = 4u >> i;
        c->tex.levels[i] = (rill_tex_level){s, s, c->bytes + at, (size_t)s * s * 4};
        at += (size_t)s * s * 4;
    }
}

static _Atomic int unloads;

/* "x.lvl": a chain whose texels are the file's first byte. */
static rill_result lvl_load(const rill_asset_load_ctx *ctx, void **out_payload, size_t *out_bytes,
                            rill_error *err) {
    uint8_t *data = NULL;
    size_t size = 0;
    rill_result r = rill_vfs_read_all(ctx->vfs, ctx->path, &data, &size, err);
    if (r != RILL_OK) {
        return r;
    }
    chain *c = rill_malloc(sizeof(chain));
    chain_fill(c, size ? data[0] : 0);
    rill_free(data);
    *out_payload = c;
    *out_bytes = sizeof(chain);
    return RILL_OK;
}

static void lvl_unload(void *payload, size_t bytes, void *user) {
    (void)bytes;
    (void)user;
    atomic_fetch_add(&unloads, 1);
    rill_free(payload);
}

/* What the renderer's release runs: the asset goes back to the server (as texture streaming's
 * hold does). */
typedef struct hold {
    rill_asset_server *server;
    rill_asset asset;
    int released;
} hold;

static void release_hold(void *user) {
    hold *h = user;
    h->released++;
    rill_asset_release(h->server, h->asset);
}

/* One run: load, hand the payload over borrowed, destroy the server (wrong order), then either
 * render a frame (the upload is recorded and released) or destroy the renderer at once (the
 * pending upload is dropped and released). */
static void run_order(bool frame_first) {
    char dir[512];
    rill_test_tmpdir(dir, sizeof(dir), "shutdown_order");
    char path[600];
    snprintf(path, sizeof(path), "%s/a.lvl", dir);
    assert_int_equal(rill_file_write_all(path, "\x80", 1, NULL), RILL_OK);
    rill_renderer_desc d;
    memset(&d, 0, sizeof(d));
    d.width = d.height = 16, d.quality = RILL_RENDER_QUALITY_LOW;
    d.backend = RILL_RENDER_BACKEND_NULL; /* lifetimes only: no pixels needed */
    rill_renderer *r = render_test_renderer(d);
    assert_non_null(r);
    rill_vfs *vfs = rill_vfs_create(NULL, NULL);
    assert_int_equal(rill_vfs_mount_dir(vfs, dir, NULL), RILL_OK);
    rill_asset_server *s = rill_asset_server_create(&(rill_asset_server_desc){.vfs = vfs}, NULL);
    rill_asset_loader l = {
        .name = "lvl", .extensions = {"lvl"}, .load = lvl_load, .unload = lvl_unload};
    assert_int_equal(rill_asset_server_register_loader(s, &l, NULL), RILL_OK);
    atomic_store(&unloads, 0);

    chain base;
    chain_fill(&base, 0x20);
    rill_error err = {0};
    rill_texture t = rill_render_texture_create_data(r, &base.tex, "streamed", &err);
    assert_true(t.id != 0);
    hold h = {s, rill_asset_load_sync(s, "a.lvl", &err), 0};
    assert_true(h.asset.id != 0);
    const chain *c = rill_asset_get_payload(s, h.asset, NULL);
    const rill_tex_data *data[1] = {&c->tex};
    void *users[1] = {&h};
    assert_int_equal(
        rill_render_texture_replace_many_borrowed(r, 1, &t, data, release_hold, users, &err),
        RILL_OK);

    rill_asset_server_destroy(s); /* the renderer still borrows the payload */
    rill_vfs_destroy(vfs);
    assert_int_equal(atomic_load(&unloads), 0);
    assert_int_equal(h.released, 0);
    if (frame_first) {
        rill_render_snapshot snap;
        memset(&snap, 0, sizeof(snap));
        snap.view.orthographic = true;
        snap.view.world_from_view[0] = snap.view.world_from_view[5] = 1.0f;
        snap.view.world_from_view[10] = snap.view.world_from_view[15] = 1.0f;
        assert_int_equal(rill_renderer_render(r, &snap, &err), RILL_OK);
        assert_int_equal(h.released, 1); /* recorded: the bytes were read, then released */
        assert_int_equal(atomic_load(&unloads), 1);
        rill_render_texture_destroy(r, t);
    }
    render_test_destroy_clean(r, false);
    assert_int_equal(h.released, 1);
    assert_int_equal(atomic_load(&unloads), 1);
    assert_int_equal(rill_mem_live_bytes(RILL_MEM_ASSET), 0); /* the server went with it */
    rill_test_tmpdir_remove(dir);
}

static void test_server_destroyed_before_a_frame_records(void **state) {
    (void)state;
    run_order(true);
}

static void test_server_destroyed_before_the_renderer(void **state) {
    (void)state;
    run_order(false);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_server_destroyed_before_a_frame_records),
        cmocka_unit_test(test_server_destroyed_before_the_renderer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
