/* render_test.h: what the GPU tests share: a renderer under validation, its teardown that hands
 * back the validation message count, and a marker effect for composition-registry tests.
 * Header-only (static functions); include after rill_test.h. */
#ifndef RILL_TEST_RENDER_TEST_H
#define RILL_TEST_RENDER_TEST_H

#include "rill/render.h"
#include "rill/render/effects.h"
#include "rill/render/graph.h"

/* A renderer for d (validation forced on), or NULL after printing why (no Vulkan driver). */
static inline rill_renderer *render_test_renderer(rill_renderer_desc d) {
    d.validation = 1;
    rill_error err = {0};
    rill_renderer *r = rill_renderer_create(&d, &err);
    if (!r) {
        print_error("no Vulkan renderer (install mesa-vulkan-drivers for lavapipe): %s\n", err.msg);
    }
    return r;
}

/* Destroys r and returns the validation messages it saw (a clean run has 0). */
static inline uint32_t render_test_destroy(rill_renderer *r) {
    rill_render_stats st;
    rill_renderer_stats(r, &st);
    rill_renderer_destroy(r);
    return st.validation_messages;
}

static inline void render_test_noop_exec(rill_rg_ctx *ctx, void *user) {
    (void)ctx;
    (void)user;
}

/* An effect's add: one empty pass (a side effect, so culling keeps it) named by the effect's id,
 * reading the phase's colour. */
static inline rill_result render_test_add_marker(rill_render_effect_ctx *ctx, rill_error *err) {
    rill_rg_pass_desc d = {ctx->id, render_test_noop_exec, NULL, true};
    rill_result r = rill_rg_add_pass(ctx->graph, &d, err);
    if (r == RILL_OK) {
        r = rill_rg_access(ctx->graph, ctx->id, ctx->color, RILL_RG_USAGE_SAMPLED_COMPUTE, err);
    }
    return r;
}

#endif
