/* render_test.h: what the GPU tests share: a renderer under validation, its teardown that hands
 * back the validation message count (or checks it is clean), a cmocka fixture holding it (setup
 * and teardown), the built-in meshes, materials, placed instances, look-at cameras, a marker
 * effect for composition-registry tests, and a capture of what is logged.
 * Header-only (static functions); include after cmocka.h. */
#ifndef RILL_TEST_RENDER_TEST_H
#define RILL_TEST_RENDER_TEST_H

#include <stdio.h>
#include <string.h>

#include <cglm/cglm.h>

#include "rill/render.h"
#include "rill/render/effects.h"
#include "rill/render/graph.h"
#include "rill/world.h"

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

/* Destroys r and fails the test unless the run was clean: no validation message and, when
 * `all_freed`, every byte the renderer allocated back. */
static inline void render_test_destroy_clean(rill_renderer *r, bool all_freed) {
    assert_int_equal(render_test_destroy(r), 0);
    if (all_freed) {
        assert_int_equal(rill_mem_live_bytes(RILL_MEM_RENDER), 0);
    }
}

/* A cmocka setup's fixture, put in *state: `size` zeroed bytes whose first member is the renderer
 * (`rill_renderer *r`), made for d. NULL (nothing left allocated: the setup fails) when there is
 * no renderer. */
static inline void *render_test_fixture(void **state, size_t size, rill_renderer_desc d) {
    rill_renderer **r = rill_calloc(1, size);
    *r = render_test_renderer(d);
    if (!*r) {
        rill_free(r);
        return NULL;
    }
    *state = r;
    return r;
}

/* The teardown of a render_test_fixture holding nothing else to free: its renderer destroyed
 * (render_test_destroy_clean, all_freed as said) and the fixture freed. */
static inline int render_test_fixture_free(void **state, bool all_freed) {
    rill_renderer **r = *state;
    render_test_destroy_clean(*r, all_freed);
    rill_free(r);
    return 0;
}

/* A cmocka teardown: render_test_fixture_free without the allocation check. */
static inline int render_test_teardown(void **state) {
    return render_test_fixture_free(state, false);
}

/* A cmocka teardown: render_test_fixture_free, every byte the renderer allocated back. */
static inline int render_test_teardown_all_freed(void **state) {
    return render_test_fixture_free(state, true);
}

/* Mesh m, failing the test when it was refused (id 0). */
static inline rill_mesh render_test_mesh_made(rill_mesh m) {
    assert_true(m.id != 0);
    return m;
}

/* The built-in meshes (a unit cube, a sphere of `segments`, a unit plane) of r, failing the test
 * when one is refused. */
static inline rill_mesh render_test_cube(rill_renderer *r) {
    return render_test_mesh_made(rill_render_mesh_cube(r, NULL));
}

static inline rill_mesh render_test_sphere(rill_renderer *r, uint32_t segments) {
    return render_test_mesh_made(rill_render_mesh_sphere(r, segments, NULL));
}

static inline rill_mesh render_test_plane(rill_renderer *r) {
    return render_test_mesh_made(rill_render_mesh_plane(r, NULL));
}

/* A material from d, failing the test when it is refused. */
static inline rill_material render_test_material(rill_renderer *r, rill_material_desc d) {
    rill_error err = {0};
    rill_material m = rill_render_material_create(r, &d, &err);
    assert_true(m.id != 0);
    return m;
}

/* Fills *in (zeroed first) as instance `id` of mesh/mat at pos, turned rot_y radians about +Y and
 * scaled by `scale` on every axis. */
static inline void render_test_place(rill_render_instance *in, uint32_t id, rill_mesh mesh,
                                     rill_material mat, const float pos[3], float scale,
                                     float rot_y) {
    memset(in, 0, sizeof(*in));
    in->id = id;
    in->mesh = mesh;
    in->material = mat;
    mat4 m;
    glm_mat4_identity(m);
    glm_translate(m, (vec3){pos[0], pos[1], pos[2]});
    glm_rotate_y(m, rot_y, m);
    glm_scale_uni(m, scale);
    memcpy(in->transform, m, sizeof(mat4));
}

/* The camera-to-world matrix of a camera at eye looking at `at`, +Y up. */
static inline void render_test_look_at(mat4 world_from_view, const float eye[3],
                                       const float at[3]) {
    mat4 view;
    glm_lookat((float *)eye, (float *)at, (vec3){0, 1, 0}, view);
    glm_mat4_inv(view, world_from_view);
}

/* Puts entity e (a camera) at eye looking at `at` through its transform. */
static inline void render_test_entity_look_at(rill_world *w, rill_entity e, const float eye[3],
                                              const float at[3]) {
    mat4 inv;
    render_test_look_at(inv, eye, at);
    rill_transform t = rill_transform_identity();
    memcpy(t.translation, inv[3], sizeof(float) * 3);
    versor q;
    glm_mat4_quat(inv, q);
    memcpy(t.rotation, q, sizeof(float) * 4);
    assert_true(rill_world_set_transform(w, e, &t));
}

/* An active camera entity in w (the Camera defaults otherwise) with a Transform and global
 * transform gt (NULL: the identity): what extract draws from. */
static inline rill_entity render_test_world_camera(rill_world *w, const rill_global_transform *gt) {
    const rill_builtins *b = rill_world_builtin(w);
    rill_entity cam = rill_world_spawn(w);
    rill_camera c;
    rill_type_apply_defaults(rill_world_component_type(w, b->camera), &c);
    c.active = true;
    assert_non_null(rill_world_add(w, cam, b->camera, &c));
    assert_non_null(rill_world_add(w, cam, b->transform, NULL));
    assert_non_null(rill_world_add(w, cam, b->global_transform, gt));
    return cam;
}

static inline void render_test_noop_exec(rill_rg_ctx *ctx, void *user) {
    (void)ctx;
    (void)user;
}

/* An effect's add: one empty pass (a side effect, so culling keeps it) named by the effect's id,
 * reading the phase's colour. */
static inline rill_result render_test_add_marker(rill_render_effect_ctx *ctx, rill_error *err) {
    rill_rg_pass_desc d = {.label = ctx->id, .exec = render_test_noop_exec, .side_effect = true};
    rill_rg_pass p = rill_rg_add_pass(ctx->graph, &d, err);
    return rill_rg_use_image(ctx->graph, p, ctx->color, RILL_RG_USAGE_SAMPLED_COMPUTE, err);
}

/* What is logged while rill_log_set_sink(render_test_log_sink, NULL) is set (clear it first:
 * render_test_logged[0] = 0), one message a line. */
static char render_test_logged[16384];
static inline void render_test_log_sink(rill_log_level level, const char *module, const char *msg,
                                        void *user) {
    (void)level, (void)module, (void)user;
    size_t n = strlen(render_test_logged);
    snprintf(render_test_logged + n, sizeof(render_test_logged) - n, "%s\n", msg);
}

/* Starts capturing (render_test_logged emptied); stops it and prints what was captured. */
static inline void render_test_log_begin(void) {
    render_test_logged[0] = 0;
    rill_log_set_sink(render_test_log_sink, NULL);
}

static inline void render_test_log_end(void) {
    rill_log_set_sink(NULL, NULL);
    printf("%s", render_test_logged);
}

/* How many times needle stands in hay. */
static inline int render_test_count_of(const char *hay, const char *needle) {
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) {
        n++;
    }
    return n;
}

#endif
