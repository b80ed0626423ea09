/* frame3d.c: the 3D frame. From a snapshot it computes the camera and shadow cascade matrices,
 * culls instances against the view frustum (and shadow casters against the shadow volume), sorts
 * draws (opaque by pipeline/material/mesh so equal neighbours become one instanced draw,
 * transparent back to front), fills the per-frame buffers, builds the frame graph with the
 * engine's passes and anchors, lets the user add passes, compiles and executes it. */
#include "render_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cglm/cglm.h>
#include <cglm/clipspace/ortho_rh_zo.h>
#include <cglm/clipspace/persp_rh_zo.h>

#include "render_shaders.h"

#define MAX_LIGHTS 1024u

/* Must match `Frame` in shaders/common.glsl (std140). */
typedef struct gpu_frame {
    float view[16], proj[16], view_proj[16], prev_view_proj[16];
    float cascade_vp[4][16];
    float cascade_far[4];
    float cascade_texel[4];
    float camera_pos[4];
    float sun_dir[4];
    float sun_color[4];
    float ambient[4];
    float shadow_params[4];
    uint32_t counts[4];
    float cluster_params[4];
} gpu_frame;

typedef struct gpu_instance {
    float model[16];
    float prev_model[16];
} gpu_instance;

typedef struct gpu_light {
    float pos_range[4];
    float color[4];
    float dir_kind[4];
    float cone[4];
} gpu_light;

/* >>pipelines ------------------------------------------------------------------------------- */

static const rill__set_layout frame_set_full = {
    {RILL__BIND_UNIFORM, RILL__BIND_STORAGE, RILL__BIND_STORAGE, RILL__BIND_TEXTURE,
     RILL__BIND_STORAGE, RILL__BIND_STORAGE, RILL__BIND_TEXTURE}};
static const rill__set_layout frame_set_min = {{RILL__BIND_UNIFORM, RILL__BIND_STORAGE}};
static const rill__set_layout material_set = {{RILL__BIND_UNIFORM, RILL__BIND_TEXTURE,
                                               RILL__BIND_TEXTURE, RILL__BIND_TEXTURE,
                                               RILL__BIND_TEXTURE, RILL__BIND_TEXTURE}};

rill_result rill__frame3d_create_pipelines(rill_renderer *r, rill_error *err) {
    for (int ds = 0; ds < 2; ds++) {
        rill__pipe_desc d;
        memset(&d, 0, sizeof(d));
        d.vs = rill__spv_mesh_vert;
        d.vs_size = rill__spv_mesh_vert_size;
        d.mesh_vertex_input = true;
        d.cull = ds ? RILL__CULL_NONE : RILL__CULL_BACK;
        d.set_count = 2;
        d.sets[1] = material_set;

        d.label = ds ? "prepass (double-sided)" : "prepass";
        d.fs = rill__spv_prepass_frag;
        d.fs_size = rill__spv_prepass_frag_size;
        d.color_formats[0] = RILL_RG_FORMAT_RGBA16F;
        d.color_formats[1] = RILL_RG_FORMAT_RG16F;
        d.color_count = 2;
        d.depth_format = RILL_RG_FORMAT_D32F;
        d.depth_test = d.depth_write = true;
        d.depth_cmp = RILL__CMP_LESS;
        d.sets[0] = frame_set_min;
        if (!(r->prepass_pipe[ds] = rill__pipe_create(r->gpu, &d, err)))
            return err ? err->code : RILL_ERR_VULKAN;

        d.label = ds ? "opaque (double-sided)" : "opaque";
        d.fs = rill__spv_pbr_frag;
        d.fs_size = rill__spv_pbr_frag_size;
        d.color_formats[0] = RILL_RG_FORMAT_RGBA16F;
        d.color_count = 1;
        d.depth_write = false;
        d.depth_cmp = RILL__CMP_LESS_EQUAL;
        d.sets[0] = frame_set_full;
        if (!(r->opaque_pipe[ds] = rill__pipe_create(r->gpu, &d, err)))
            return err ? err->code : RILL_ERR_VULKAN;

        d.label = ds ? "transparent (double-sided)" : "transparent";
        d.blend = RILL__BLEND_ALPHA;
        if (!(r->transparent_pipe[ds] = rill__pipe_create(r->gpu, &d, err)))
            return err ? err->code : RILL_ERR_VULKAN;
    }
    if (rill__gpu_get_caps(r->gpu)->fill_mode_non_solid) {
        rill__pipe_desc w;
        memset(&w, 0, sizeof(w));
        w.label = "wireframe";
        w.vs = rill__spv_mesh_vert;
        w.vs_size = rill__spv_mesh_vert_size;
        w.fs = rill__spv_wire_frag;
        w.fs_size = rill__spv_wire_frag_size;
        w.mesh_vertex_input = true;
        w.wireframe = true;
        w.cull = RILL__CULL_NONE;
        w.blend = RILL__BLEND_ALPHA;
        w.color_formats[0] = RILL_RG_FORMAT_RGBA16F;
        w.color_count = 1;
        w.depth_format = RILL_RG_FORMAT_D32F;
        w.depth_test = true;
        w.depth_cmp = RILL__CMP_LESS_EQUAL;
        w.set_count = 1;
        w.sets[0] = frame_set_min;
        w.push_size = 32;
        if (!(r->wire_pipe = rill__pipe_create(r->gpu, &w, err)))
            return err ? err->code : RILL_ERR_VULKAN;
    }
    rill__pipe_desc s;
    memset(&s, 0, sizeof(s));
    s.label = "shadow";
    s.vs = rill__spv_shadow_vert;
    s.vs_size = rill__spv_shadow_vert_size;
    s.mesh_vertex_input = true;
    s.cull = RILL__CULL_NONE; /* thin and open meshes cast shadows from both sides */
    s.depth_format = RILL_RG_FORMAT_D32F;
    s.depth_test = s.depth_write = true;
    s.depth_cmp = RILL__CMP_LESS;
    s.depth_bias = true;
    s.set_count = 1;
    s.sets[0] = frame_set_min;
    s.push_size = 16;
    if (!(r->shadow_pipe = rill__pipe_create(r->gpu, &s, err)))
        return err ? err->code : RILL_ERR_VULKAN;
    s.label = "shadow (alpha mask)";
    s.fs = rill__spv_shadow_mask_frag;
    s.fs_size = rill__spv_shadow_mask_frag_size;
    s.set_count = 2;
    s.sets[1] = material_set;
    if (!(r->shadow_mask_pipe = rill__pipe_create(r->gpu, &s, err)))
        return err ? err->code : RILL_ERR_VULKAN;
    rill__pipe_desc a;
    memset(&a, 0, sizeof(a));
    a.label = "ssao";
    a.cs = rill__spv_ssao_comp;
    a.cs_size = rill__spv_ssao_comp_size;
    a.set_count = 1;
    a.sets[0].bindings[0] = RILL__BIND_UNIFORM;
    a.sets[0].bindings[1] = RILL__BIND_TEXTURE;
    a.sets[0].bindings[2] = RILL__BIND_TEXTURE;
    a.sets[0].bindings[3] = RILL__BIND_STORAGE_IMAGE;
    a.push_size = 24;
    if (!(r->ssao_pipe = rill__pipe_create(r->gpu, &a, err)))
        return err ? err->code : RILL_ERR_VULKAN;
    a.label = "ssao blur";
    a.cs = rill__spv_ssao_blur_comp;
    a.cs_size = rill__spv_ssao_blur_comp_size;
    a.sets[0].bindings[0] = RILL__BIND_TEXTURE;
    a.sets[0].bindings[1] = RILL__BIND_TEXTURE;
    a.sets[0].bindings[2] = RILL__BIND_STORAGE_IMAGE;
    a.sets[0].bindings[3] = RILL__BIND_NONE;
    a.push_size = 8;
    if (!(r->ssao_blur_pipe = rill__pipe_create(r->gpu, &a, err)))
        return err ? err->code : RILL_ERR_VULKAN;
    rill__pipe_desc bl;
    memset(&bl, 0, sizeof(bl));
    bl.label = "bloom down";
    bl.cs = rill__spv_bloom_down_comp;
    bl.cs_size = rill__spv_bloom_down_comp_size;
    bl.set_count = 1;
    bl.sets[0].bindings[0] = RILL__BIND_TEXTURE;
    bl.sets[0].bindings[1] = RILL__BIND_STORAGE_IMAGE;
    bl.push_size = 16;
    if (!(r->bloom_down_pipe = rill__pipe_create(r->gpu, &bl, err)))
        return err ? err->code : RILL_ERR_VULKAN;
    bl.label = "bloom up";
    bl.cs = rill__spv_bloom_up_comp;
    bl.cs_size = rill__spv_bloom_up_comp_size;
    bl.sets[0].bindings[1] = RILL__BIND_TEXTURE;
    bl.sets[0].bindings[2] = RILL__BIND_STORAGE_IMAGE;
    bl.push_size = 8;
    if (!(r->bloom_up_pipe = rill__pipe_create(r->gpu, &bl, err)))
        return err ? err->code : RILL_ERR_VULKAN;
    rill__pipe_desc ae;
    memset(&ae, 0, sizeof(ae));
    ae.label = "auto exposure";
    ae.cs = rill__spv_auto_exposure_comp;
    ae.cs_size = rill__spv_auto_exposure_comp_size;
    ae.set_count = 1;
    ae.sets[0].bindings[0] = RILL__BIND_TEXTURE;
    ae.sets[0].bindings[1] = RILL__BIND_STORAGE;
    ae.push_size = 16;
    if (!(r->auto_exposure_pipe = rill__pipe_create(r->gpu, &ae, err)))
        return err ? err->code : RILL_ERR_VULKAN;
    static const float zero_state[4] = {0, 0, 0, 0};
    r->exposure_buf = rill__buf_create(r->gpu, sizeof(zero_state), RILL__BUF_STORAGE, false,
                                       "auto exposure state", err);
    if (!r->exposure_buf || rill__buf_upload(r->gpu, r->exposure_buf, 0, zero_state,
                                             sizeof(zero_state), err) != RILL_OK)
        return err ? err->code : RILL_ERR_VULKAN;
    rill__pipe_desc t;
    memset(&t, 0, sizeof(t));
    t.label = "tonemapping";
    t.cs = rill__spv_tonemap_comp;
    t.cs_size = rill__spv_tonemap_comp_size;
    t.set_count = 1;
    t.sets[0].bindings[0] = RILL__BIND_TEXTURE;
    t.sets[0].bindings[1] = RILL__BIND_STORAGE_IMAGE;
    t.sets[0].bindings[2] = RILL__BIND_TEXTURE;
    t.sets[0].bindings[3] = RILL__BIND_TEXTURE;
    t.sets[0].bindings[4] = RILL__BIND_TEXTURE;
    t.sets[0].bindings[5] = RILL__BIND_STORAGE;
    t.push_size = 52;
    if (!(r->tonemap_pipe = rill__pipe_create(r->gpu, &t, err)))
        return err ? err->code : RILL_ERR_VULKAN;
    return RILL_OK;
}

void rill__frame3d_destroy_pipelines(rill_renderer *r) {
    for (int i = 0; i < 2; i++) {
        rill__pipe_destroy(r->gpu, r->prepass_pipe[i]);
        rill__pipe_destroy(r->gpu, r->opaque_pipe[i]);
        rill__pipe_destroy(r->gpu, r->transparent_pipe[i]);
    }
    rill__pipe_destroy(r->gpu, r->shadow_pipe);
    rill__pipe_destroy(r->gpu, r->shadow_mask_pipe);
    rill__pipe_destroy(r->gpu, r->ssao_pipe);
    rill__pipe_destroy(r->gpu, r->ssao_blur_pipe);
    rill__pipe_destroy(r->gpu, r->bloom_down_pipe);
    rill__pipe_destroy(r->gpu, r->bloom_up_pipe);
    rill__pipe_destroy(r->gpu, r->auto_exposure_pipe);
    rill__buf_destroy(r->gpu, r->exposure_buf);
    rill__pipe_destroy(r->gpu, r->wire_pipe);
    rill__pipe_destroy(r->gpu, r->tonemap_pipe);
    for (uint32_t i = 0; i < RILL_RENDER_MAX_VIEWS; i++) {
        rill_array_free(&r->views[i].opaque);
        rill_array_free(&r->views[i].transparent);
        rill_array_free(&r->views[i].casters);
        rill_array_free(&r->views[i].wires);
    }
}

/* >>math ------------------------------------------------------------------------------------ */

typedef struct sphere {
    vec3 c;
    float r;
} sphere;

/* fmaxf without the library call: a NaN argument loses to a number, as in fmaxf. */
static inline float max_num(float a, float b) {
    return (a > b || b != b) ? a : b;
}

static sphere world_sphere(const float m[16], const mesh_slot *ms) {
    sphere s;
    for (int k = 0; k < 3; k++)
        s.c[k] =
            m[k] * ms->center[0] + m[4 + k] * ms->center[1] + m[8 + k] * ms->center[2] + m[12 + k];
    /* sqrtf is correctly rounded and monotonic, so the root of the largest squared axis length
     * equals the largest of the three roots: one square root instead of three, same bits. */
    float sx = m[0] * m[0] + m[1] * m[1] + m[2] * m[2];
    float sy = m[4] * m[4] + m[5] * m[5] + m[6] * m[6];
    float sz = m[8] * m[8] + m[9] * m[9] + m[10] * m[10];
    s.r = ms->radius * sqrtf(max_num(sx, max_num(sy, sz)));
    return s;
}

/* Frustum planes (a, b, c, d with ax + by + cz + d >= 0 inside) of a zero-to-one clip space. */
static void frustum_planes(mat4 vp, vec4 out[6]) {
    for (int i = 0; i < 4; i++) {
        float r0 = vp[i][0], r1 = vp[i][1], r2 = vp[i][2], r3 = vp[i][3];
        out[0][i] = r3 + r0;
        out[1][i] = r3 - r0;
        out[2][i] = r3 + r1;
        out[3][i] = r3 - r1;
        out[4][i] = r2;
        out[5][i] = r3 - r2;
    }
    for (int p = 0; p < 6; p++) {
        float len = sqrtf(out[p][0] * out[p][0] + out[p][1] * out[p][1] + out[p][2] * out[p][2]);
        if (len > 0.0f)
            glm_vec4_scale(out[p], 1.0f / len, out[p]);
    }
}

/* Bits of the keys that are not the same in every key, gathered into a dense number: a key
 * keeps its order among the others when the bits that every key shares are dropped. Contiguous
 * runs of varying bits move as one shift and mask. */
typedef struct key_pack {
    uint32_t count, bits;
    uint8_t shift[64], dest[64];
    uint64_t mask[64];
} key_pack;

static void key_pack_init(key_pack *kp, uint64_t varying) {
    kp->count = kp->bits = 0;
    while (varying) {
        uint32_t shift = (uint32_t)__builtin_ctzll(varying);
        uint64_t rest = varying >> shift;
        uint32_t len = rest == ~0ull ? 64u - shift : (uint32_t)__builtin_ctzll(~rest);
        uint64_t mask = len >= 64 ? ~0ull : (1ull << len) - 1ull;
        kp->shift[kp->count] = (uint8_t)shift;
        kp->dest[kp->count] = (uint8_t)kp->bits;
        kp->mask[kp->count] = mask;
        kp->count++;
        kp->bits += len;
        varying &= ~(mask << shift);
    }
}

static inline uint64_t key_pack_apply(const key_pack *kp, uint64_t key) {
    /* Draw keys have a few runs (mesh, material, double-sided): unrolled for up to three. */
    switch (kp->count) {
    case 1:
        return (key >> kp->shift[0]) & kp->mask[0];
    case 2:
        return ((key >> kp->shift[0]) & kp->mask[0]) |
               (((key >> kp->shift[1]) & kp->mask[1]) << kp->dest[1]);
    case 3:
        return ((key >> kp->shift[0]) & kp->mask[0]) |
               (((key >> kp->shift[1]) & kp->mask[1]) << kp->dest[1]) |
               (((key >> kp->shift[2]) & kp->mask[2]) << kp->dest[2]);
    default:
        break;
    }
    uint64_t out = 0;
    for (uint32_t k = 0; k < kp->count; k++)
        out |= ((key >> kp->shift[k]) & kp->mask[k]) << kp->dest[k];
    return out;
}

/* One chunk of instances being culled: world bounding spheres as flat arrays, the results of the
 * tests, and what the draw lists need of each instance. */
#define CULL_CHUNK 256u

typedef struct cull_chunk {
    float x[CULL_CHUNK], y[CULL_CHUNK], z[CULL_CHUNK], r[CULL_CHUNK];
    uint32_t visible[CULL_CHUNK];
    uint32_t shadow_near[CULL_CHUNK]; /* not beyond the shadow volume, away from the light */
    float shadow_q[CULL_CHUNK];       /* squared distance from the light axis */
    uint32_t inst[CULL_CHUNK], prev[CULL_CHUNK];
    uint16_t mesh[CULL_CHUNK], mat[CULL_CHUNK];
} cull_chunk;

/* The frustum test of a chunk of spheres: outside when the centre lies further than the radius
 * behind any plane. No early exits, so it vectorizes. */
static void cull_frustum(cull_chunk *restrict ch, uint32_t n, vec4 planes[6]) {
    float p[6][4];
    memcpy(p, planes, sizeof(p));
    for (uint32_t j = 0; j < n; j++) {
        float x = ch->x[j], y = ch->y[j], z = ch->z[j], nr = -ch->r[j];
        uint32_t v = 1;
        for (int k = 0; k < 6; k++)
            v &= !(p[k][0] * x + p[k][1] * y + p[k][2] * z + p[k][3] < nr);
        ch->visible[j] = v;
    }
}

/* The first half of the shadow caster test (see is_caster): the sphere must not lie beyond the
 * cascades' bounding sphere (centre wc, radius wr) away from the light, and its squared distance
 * from the cylinder's axis is kept for the second half. Same expressions as the cglm calls they
 * replace, in the same order. The square root waits for is_caster so that this loop vectorizes
 * (sqrtf may set errno, which keeps compilers from vectorizing it). */
static void cull_shadow(cull_chunk *restrict ch, uint32_t n, const float wc[3], float wr,
                        const float sun[3]) {
    float c0 = wc[0], c1 = wc[1], c2 = wc[2], s0 = sun[0], s1 = sun[1], s2 = sun[2];
    for (uint32_t j = 0; j < n; j++) {
        float d0 = ch->x[j] - c0, d1 = ch->y[j] - c1, d2 = ch->z[j] - c2;
        float along = d0 * s0 + d1 * s1 + d2 * s2;
        float p0 = d0 - s0 * along, p1 = d1 - s1 * along, p2 = d2 - s2 * along;
        float q = p0 * p0 + p1 * p1 + p2 * p2;
        ch->shadow_near[j] = along < wr + ch->r[j];
        ch->shadow_q[j] = q;
    }
}

/* Whether chunk entry j can cast a shadow into the view: inside the infinite cylinder around the
 * cascades' bounding sphere along the light, and not beyond it (cull_shadow). A NaN fails both. */
static inline bool is_caster(const cull_chunk *ch, uint32_t j, float wr) {
    return ch->shadow_near[j] && sqrtf(ch->shadow_q[j]) < wr + ch->r[j];
}

/* Stable LSD radix sort on the low key_bits of the keys, 11 bits a pass. Items are pushed in
 * instance order, so equal keys stay in instance order and the result is deterministic. Only the
 * bits that differ between keys are sorted on: the keys are first rewritten to those bits alone
 * (see key_pack; order and equality between keys stay as they were, which is all draw_list needs
 * of them), so a scene whose meshes and materials occupy a few pool slots sorts its opaque list in
 * one pass, whatever key_bits says. Returns the buffer holding the result: items or tmp. */
static draw_item *radix_sort(draw_item *items, draw_item *tmp, uint32_t n, uint32_t key_bits) {
    if (n < 2)
        return items;
    uint64_t all_or = 0, all_and = ~0ull;
    for (uint32_t i = 0; i < n; i++) {
        all_or |= items[i].key;
        all_and &= items[i].key;
    }
    uint64_t used = key_bits >= 64 ? ~0ull : (1ull << key_bits) - 1ull;
    key_pack kp;
    key_pack_init(&kp, (all_or ^ all_and) & used);
    bool repack = kp.count > 1 || (kp.count == 1 && kp.shift[0] != 0) || (all_and & used) != 0;
    uint32_t count[2048];
    draw_item *src = items, *dst = tmp;
    for (uint32_t shift = 0; shift < kp.bits; shift += 11) {
        uint32_t buckets = 1u << RILL_MIN(kp.bits - shift, 11u);
        memset(count, 0, buckets * sizeof(uint32_t));
        if (shift == 0 && repack) {
            /* The first pass rewrites the keys while it counts. */
            for (uint32_t i = 0; i < n; i++) {
                uint64_t k = key_pack_apply(&kp, src[i].key);
                src[i].key = k;
                count[k & (buckets - 1)]++;
            }
        } else {
            for (uint32_t i = 0; i < n; i++)
                count[(src[i].key >> shift) & (buckets - 1)]++;
        }
        uint32_t sum = 0;
        for (uint32_t b = 0; b < buckets; b++) {
            uint32_t c = count[b];
            count[b] = sum;
            sum += c;
        }
        for (uint32_t i = 0; i < n; i++)
            dst[count[(src[i].key >> shift) & (buckets - 1)]++] = src[i];
        draw_item *t = src;
        src = dst;
        dst = t;
    }
    return src; /* the caller swaps buffers instead of copying back */
}

/* The bounding sphere of the view frustum between view distances a and b. */
static sphere slice_sphere(mat4 world_from_view, float tan_y, float aspect, float a, float b,
                           bool ortho, float half_h) {
    vec3 corners[8];
    int k = 0;
    for (int zi = 0; zi < 2; zi++) {
        float z = zi ? b : a;
        float hy = ortho ? half_h : z * tan_y, hx = hy * aspect;
        for (int yi = -1; yi <= 1; yi += 2)
            for (int xi = -1; xi <= 1; xi += 2) {
                vec3 v = {hx * (float)xi, hy * (float)yi, -z};
                glm_mat4_mulv3(world_from_view, v, 1.0f, corners[k++]);
            }
    }
    sphere s;
    glm_vec3_zero(s.c);
    for (int i = 0; i < 8; i++)
        glm_vec3_add(s.c, corners[i], s.c);
    glm_vec3_scale(s.c, 1.0f / 8.0f, s.c);
    float r = 0.0f;
    for (int i = 0; i < 8; i++)
        r = fmaxf(r, glm_vec3_distance(s.c, corners[i]));
    s.r = ceilf(r * 16.0f) / 16.0f; /* quantized so the cascade size does not shimmer */
    return s;
}

static void light_matrices(const sphere *s, vec3 dir, float map_size, mat4 out_vp, mat4 out_view,
                           float *out_far) {
    float back = 4.0f * s->r + 10.0f; /* room for casters between the light and the slice */
    vec3 eye, up = {0.0f, 1.0f, 0.0f};
    if (fabsf(dir[1]) > 0.99f)
        glm_vec3_copy((vec3){0.0f, 0.0f, 1.0f}, up);
    glm_vec3_scale(dir, -(s->r + back), eye);
    glm_vec3_add(eye, (float *)s->c, eye);
    glm_lookat(eye, (float *)s->c, up, out_view);
    float far = 2.0f * s->r + back;
    mat4 proj;
    glm_ortho_rh_zo(-s->r, s->r, -s->r, s->r, 0.0f, far, proj);
    glm_mat4_mul(proj, out_view, out_vp);
    /* Snap the projection to whole texels so a moving camera does not make shadow edges crawl. */
    vec4 origin = {0, 0, 0, 1}, o;
    glm_mat4_mulv(out_vp, origin, o);
    float half = map_size * 0.5f;
    float ox = o[0] * half, oy = o[1] * half;
    proj[3][0] += (roundf(ox) - ox) / half;
    proj[3][1] += (roundf(oy) - oy) / half;
    glm_mat4_mul(proj, out_view, out_vp);
    *out_far = far;
}

/* >>passes ---------------------------------------------------------------------------------- */

static void bind_frame_set(rill_renderer *r, rill__cmd *cmd, bool full, rill__img *shadow) {
    rill__binding b[7];
    memset(b, 0, sizeof(b));
    b[0].buf = r->frame_buf;
    b[0].offset = r->frame_off;
    b[0].range = sizeof(gpu_frame);
    b[1].buf = r->inst_buf;
    b[1].offset = r->inst_off;
    b[1].range = r->inst_size;
    b[2].buf = r->light_buf;
    b[2].offset = r->light_off;
    b[2].range = r->light_size;
    b[3].img = shadow;
    b[3].layer = -1;
    b[3].sampler = RILL__SAMPLER_SHADOW;
    b[4].buf = r->cluster_buf;
    b[4].offset = r->cluster_off;
    b[4].range = r->cluster_size;
    b[5].buf = r->cluster_idx_buf;
    b[5].offset = r->cluster_idx_off;
    b[5].range = r->cluster_idx_size;
    b[6].img = r->frame_ao ? r->frame_ao : r->white;
    b[6].layer = -1;
    b[6].sampler = RILL__SAMPLER_NEAREST_CLAMP;
    rill__cmd_bind_transient_set(cmd, 0, b, full ? 7 : 2);
}

/* Length of the run of items equal in key to items[i], in a list sorted by key. Every batched
 * list's key says exactly what batches (opaque: double-sided, material, mesh; alpha-masked
 * casters: material, mesh; plain casters and wireframes: mesh; pool slots of live handles are
 * unique within a frame), so runs are found on the sorted keys by galloping and then bisecting
 * instead of visiting every instance: the cost is per draw, not per instance. */
static uint32_t key_run(const draw_item *items, uint32_t i, uint32_t n) {
    uint64_t key = items[i].key;
    /* Equal keys are contiguous: items[k].key == key holds for k in [i, end) and fails after.
     * Invariant: it holds at lo - 1, and fails at hi unless hi == n. */
    uint32_t lo = i + 1, hi = n, step = 1;
    while (lo < hi) {
        uint32_t probe = step - 1 < hi - lo ? lo + step - 1 : hi - 1;
        if (items[probe].key != key) {
            hi = probe;
            break;
        }
        lo = probe + 1;
        step *= 2;
    }
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (items[mid].key == key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - i;
}

/* Draws items[0..n) whose instance data starts at `first` in the instance buffer. Neighbours with
 * the same mesh and material become one instanced draw. pipes[ds] chooses by double-sidedness;
 * when pipes is NULL the bound pipeline is used and materials are not bound (shadows). */
static void draw_list(rill_renderer *r, rill__cmd *cmd, const draw_item *items, uint32_t n,
                      uint32_t first, rill__pipe *const *pipes, bool full_set, rill__img *shadow,
                      bool batch, const void *push, uint32_t push_size) {
    const rill_render_instance *inst = r->snap->instances;
    rill__pipe *bound = NULL;
    uint32_t cur_mesh = 0, cur_mat = 0;
    for (uint32_t i = 0; i < n;) {
        const rill_render_instance *a = &inst[items[i].inst];
        const mesh_slot *ms = rill__mesh_get(r, a->mesh);
        const mat_slot *mt = rill__material_get(r, a->material);
        uint32_t run = 1;
        if (batch)
            run = key_run(items, i, n);
        if (pipes) {
            rill__pipe *p = pipes[mt->double_sided ? 1 : 0];
            if (p != bound) {
                rill__cmd_bind_pipe(cmd, p);
                bind_frame_set(r, cmd, full_set, shadow);
                if (push_size)
                    rill__cmd_push(cmd, push, push_size);
                bound = p;
                cur_mat = 0;
            }
            if (a->material.id != cur_mat) {
                rill__cmd_bind_set(cmd, 1, mt->set);
                cur_mat = a->material.id;
            }
        }
        if (a->mesh.id != cur_mesh) {
            rill__cmd_bind_mesh(cmd, ms->vb, ms->ib);
            cur_mesh = a->mesh.id;
        }
        rill__cmd_draw_indexed(cmd, ms->index_count, run, 0, first + i);
        r->draw_calls++;
        r->triangles += (uint64_t)(ms->index_count / 3u) * run;
        i += run;
    }
}

/* The pass or image name of a view: base for the first, "base.N" for view N. */
static void view_name(char dst[32], const char *base, uint32_t view) {
    if (view == 0)
        snprintf(dst, 32, "%s", base);
    else
        snprintf(dst, 32, "%s.%u", base, view);
}

/* An image of the view whose pass is recording: depth, normals, motion and shadow maps are per
 * view (the graph orders a resource's readers after all its writers, so views cannot share them);
 * hdr is shared. */
static rill__img *view_image(rill_rg_ctx *ctx, const char *base) {
    char name[32];
    view_name(name, base, ctx->r->view_index);
    return rill__ctx_image(ctx, name);
}

static void exec_shadows_view(rill_rg_ctx *ctx) {
    rill_renderer *r = ctx->r;
    rill__img *map = view_image(ctx, "shadow_map");
    const rill__img_desc *d = rill__img_get_desc(map);
    uint32_t first = r->opaque.len + r->transparent.len;
    for (uint32_t c = 0; c < d->layers; c++) {
        rill__attachment depth = {map, (int32_t)c, true, false, {1.0f, 0, 0, 0}};
        rill__cmd_begin_rendering(ctx->cmd, NULL, 0, &depth, d->width, d->height);
        if (c < r->cascades && r->casters.len) {
            rill__cmd_bind_pipe(ctx->cmd, r->shadow_pipe);
            bind_frame_set(r, ctx->cmd, false, NULL);
            uint32_t push[4] = {c, 0, 0, 0};
            rill__cmd_push(ctx->cmd, push, sizeof(push));
            rill__cmd_depth_bias(ctx->cmd, 1.25f, 1.75f);
            /* Opaque casters first (sorted ahead), then alpha-masked ones with their material. */
            uint32_t plain = r->casters_plain;
            draw_list(r, ctx->cmd, r->casters.data, plain, first, NULL, false, NULL, true, NULL, 0);
            if (plain < r->casters.len) {
                rill__pipe *mask[2] = {r->shadow_mask_pipe, r->shadow_mask_pipe};
                draw_list(r, ctx->cmd, r->casters.data + plain, r->casters.len - plain,
                          first + plain, mask, false, NULL, true, push, sizeof(push));
            }
        }
        rill__cmd_end_rendering(ctx->cmd);
    }
}

static void exec_prepass_view(rill_rg_ctx *ctx) {
    rill_renderer *r = ctx->r;
    rill__attachment col[2] = {{view_image(ctx, "normal"), -1, true, false, {0, 0, 0, 0}},
                               {view_image(ctx, "motion"), -1, true, false, {0, 0, 0, 0}}};
    rill__attachment depth = {view_image(ctx, "depth"), -1, true, false, {1.0f, 0, 0, 0}};
    const rill__img_desc *dd = rill__img_get_desc(depth.img);
    rill__cmd_begin_rendering(ctx->cmd, col, 2, &depth, dd->width, dd->height);
    draw_list(r, ctx->cmd, r->opaque.data, r->opaque.len, 0, r->prepass_pipe, false, NULL, true,
              NULL, 0);
    rill__cmd_end_rendering(ctx->cmd);
}

static void exec_opaque_view(rill_rg_ctx *ctx) {
    rill_renderer *r = ctx->r;
    r->frame_ao = rill__ctx_image(ctx, "ao"); /* NULL when SSAO is off */
    const float *cc = r->view->clear_color;
    rill__attachment col = {
        rill__ctx_image(ctx, "hdr"), -1, true, false, {cc[0], cc[1], cc[2], 1.0f}};
    rill__attachment depth = {view_image(ctx, "depth"), -1, false, true, {1.0f, 0, 0, 0}};
    const rill__img_desc *dd = rill__img_get_desc(depth.img);
    rill__cmd_begin_rendering(ctx->cmd, &col, 1, &depth, dd->width, dd->height);
    draw_list(r, ctx->cmd, r->opaque.data, r->opaque.len, 0, r->opaque_pipe, true,
              view_image(ctx, "shadow_map"), true, NULL, 0);
    rill__cmd_end_rendering(ctx->cmd);
}

static void exec_transparent_view(rill_rg_ctx *ctx) {
    rill_renderer *r = ctx->r;
    r->frame_ao = rill__ctx_image(ctx, "ao");
    rill__attachment col = {rill__ctx_image(ctx, "hdr"), -1, false, false, {0, 0, 0, 0}};
    rill__attachment depth = {view_image(ctx, "depth"), -1, false, true, {1.0f, 0, 0, 0}};
    const rill__img_desc *dd = rill__img_get_desc(depth.img);
    rill__cmd_begin_rendering(ctx->cmd, &col, 1, &depth, dd->width, dd->height);
    draw_list(r, ctx->cmd, r->transparent.data, r->transparent.len, r->opaque.len,
              r->transparent_pipe, true, view_image(ctx, "shadow_map"), false, NULL, 0);
    rill__cmd_end_rendering(ctx->cmd);
}

static void exec_wireframe_view(rill_rg_ctx *ctx) {
    rill_renderer *r = ctx->r;
    rill__attachment col = {rill__ctx_image(ctx, "hdr"), -1, false, false, {0, 0, 0, 0}};
    rill__attachment depth = {view_image(ctx, "depth"), -1, false, true, {1.0f, 0, 0, 0}};
    const rill__img_desc *dd = rill__img_get_desc(depth.img);
    rill__cmd_begin_rendering(ctx->cmd, &col, 1, &depth, dd->width, dd->height);
    if (r->wire_pipe && r->wires.len) {
        rill__cmd_bind_pipe(ctx->cmd, r->wire_pipe);
        bind_frame_set(r, ctx->cmd, false, NULL);
        float push[8];
        memcpy(push, r->wire_color, sizeof(float) * 4);
        memcpy(push + 4, r->wire_fade, sizeof(float) * 4);
        rill__cmd_push(ctx->cmd, push, sizeof(push));
        uint32_t first = r->opaque.len + r->transparent.len + r->casters.len;
        draw_list(r, ctx->cmd, r->wires.data, r->wires.len, first, NULL, false, NULL, true, NULL,
                  0);
    }
    rill__cmd_end_rendering(ctx->cmd);
}

#define SWAPT(T, a, b)                                                                             \
    do {                                                                                           \
        T t_ = (a);                                                                                \
        (a) = (b);                                                                                 \
        (b) = t_;                                                                                  \
    } while (0)
#define SWAP_LIST(a, b)                                                                            \
    do {                                                                                           \
        SWAPT(draw_item *, (a).data, (b).data);                                                    \
        SWAPT(uint32_t, (a).len, (b).len);                                                         \
        SWAPT(uint32_t, (a).cap, (b).cap);                                                         \
    } while (0)

/* Exchanges what one view's passes read (draw lists, frame constants, instance, light and cluster
 * buffers, cascades) between the renderer and a view slot. Calling it twice restores both. */
static void swap_view(rill_renderer *r, rill__view_slot *vs) {
    SWAPT(const rill_render_view *, r->view, vs->view);
    SWAP_LIST(r->opaque, vs->opaque);
    SWAP_LIST(r->transparent, vs->transparent);
    SWAP_LIST(r->casters, vs->casters);
    SWAP_LIST(r->wires, vs->wires);
    SWAPT(uint32_t, r->casters_plain, vs->casters_plain);
    SWAPT(rill__buf *, r->frame_buf, vs->frame_buf);
    SWAPT(rill__buf *, r->inst_buf, vs->inst_buf);
    SWAPT(rill__buf *, r->light_buf, vs->light_buf);
    SWAPT(rill__buf *, r->cluster_buf, vs->cluster_buf);
    SWAPT(rill__buf *, r->cluster_idx_buf, vs->cluster_idx_buf);
    SWAPT(uint64_t, r->frame_off, vs->frame_off);
    SWAPT(uint64_t, r->inst_off, vs->inst_off);
    SWAPT(uint64_t, r->inst_size, vs->inst_size);
    SWAPT(uint64_t, r->light_off, vs->light_off);
    SWAPT(uint64_t, r->light_size, vs->light_size);
    SWAPT(uint64_t, r->cluster_off, vs->cluster_off);
    SWAPT(uint64_t, r->cluster_size, vs->cluster_size);
    SWAPT(uint64_t, r->cluster_idx_off, vs->cluster_idx_off);
    SWAPT(uint64_t, r->cluster_idx_size, vs->cluster_idx_size);
    SWAPT(uint32_t, r->cascades, vs->cascades);
    float tmp[RILL__MAX_CASCADES][16];
    memcpy(tmp, r->cascade_vp, sizeof(tmp));
    memcpy(r->cascade_vp, vs->cascade_vp, sizeof(tmp));
    memcpy(vs->cascade_vp, tmp, sizeof(tmp));
}

/* The per-view passes: user is the view slot (NULL for a single whole-output view). The slot is
 * swapped in while the pass records; raster passes keep to the view's rectangle (shadow maps do
 * not). */
#define VIEW_PASS(name, in_rect)                                                                   \
    static void name(rill_rg_ctx *ctx, void *user) {                                               \
        rill__view_slot *vs = user;                                                                \
        if (vs) {                                                                                  \
            ctx->r->view_index = (uint32_t)(vs - ctx->r->views);                                   \
            swap_view(ctx->r, vs);                                                                 \
            rill__cmd_set_render_rect(ctx->cmd, (in_rect) ? vs->rect : NULL);                      \
        }                                                                                          \
        name##_view(ctx);                                                                          \
        if (vs) {                                                                                  \
            rill__cmd_set_render_rect(ctx->cmd, NULL);                                             \
            swap_view(ctx->r, vs);                                                                 \
            ctx->r->view_index = 0;                                                                \
        }                                                                                          \
    }
VIEW_PASS(exec_shadows, false)
VIEW_PASS(exec_prepass, true)
VIEW_PASS(exec_opaque, true)
VIEW_PASS(exec_transparent, true)
VIEW_PASS(exec_wireframe, true)

static void exec_ssao(rill_rg_ctx *ctx, void *user) {
    (void)user;
    rill_renderer *r = ctx->r;
    rill__img *ao = rill__ctx_image(ctx, "ao_raw");
    const rill__img_desc *d = rill__img_get_desc(ao);
    rill__cmd_bind_pipe(ctx->cmd, r->ssao_pipe);
    rill__binding b[4];
    memset(b, 0, sizeof(b));
    b[0].buf = r->frame_buf;
    b[0].offset = r->frame_off;
    b[0].range = sizeof(gpu_frame);
    b[1].img = rill__ctx_image(ctx, "depth");
    b[1].layer = -1;
    b[1].sampler = RILL__SAMPLER_NEAREST_CLAMP;
    b[2].img = rill__ctx_image(ctx, "normal");
    b[2].layer = -1;
    b[2].sampler = RILL__SAMPLER_NEAREST_CLAMP;
    b[3].img = ao;
    b[3].layer = -1;
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 4);
    uint32_t slices, per_side;
    float thickness;
    rill_render_ssao_resolve(&r->view->ssao, &slices, &per_side, &thickness);
    float radius = r->view->ssao.radius > 0.0f ? r->view->ssao.radius : 0.5f;
    struct {
        uint32_t w, h, slices, per_side;
        float thickness, radius;
    } push = {d->width, d->height, slices, per_side, thickness, radius};
    rill__cmd_push(ctx->cmd, &push, sizeof(push));
    rill__cmd_dispatch(ctx->cmd, (d->width + 7) / 8, (d->height + 7) / 8, 1);
}

static void exec_ssao_blur(rill_rg_ctx *ctx, void *user) {
    (void)user;
    rill_renderer *r = ctx->r;
    rill__img *ao = rill__ctx_image(ctx, "ao");
    const rill__img_desc *d = rill__img_get_desc(ao);
    rill__cmd_bind_pipe(ctx->cmd, r->ssao_blur_pipe);
    rill__binding b[3];
    memset(b, 0, sizeof(b));
    b[0].img = rill__ctx_image(ctx, "ao_raw");
    b[0].layer = -1;
    b[0].sampler = RILL__SAMPLER_NEAREST_CLAMP;
    b[1].img = rill__ctx_image(ctx, "depth");
    b[1].layer = -1;
    b[1].sampler = RILL__SAMPLER_NEAREST_CLAMP;
    b[2].img = ao;
    b[2].layer = -1;
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 3);
    uint32_t push[2] = {d->width, d->height};
    rill__cmd_push(ctx->cmd, push, sizeof(push));
    rill__cmd_dispatch(ctx->cmd, (d->width + 7) / 8, (d->height + 7) / 8, 1);
}

void rill_render_ssao_resolve(const rill_render_ssao *s, uint32_t *out_slices,
                              uint32_t *out_per_side, float *out_thickness) {
    static const uint32_t preset[RILL_SSAO_QUALITY_NUM][2] = {
        {3, 3}, {1, 2}, {2, 2}, {9, 3}, {0, 0}};
    rill_ssao_quality q =
        s && (unsigned)s->quality < RILL_SSAO_QUALITY_NUM ? s->quality : RILL_SSAO_HIGH;
    uint32_t slices = preset[q][0], per_side = preset[q][1];
    if (q == RILL_SSAO_CUSTOM) {
        slices = s->slice_count;
        per_side = s->samples_per_slice_side;
    }
    *out_slices = RILL_CLAMP(slices, 1u, 16u);
    *out_per_side = RILL_CLAMP(per_side, 1u, 8u);
    float t = s && (s->thickness != 0.0f || s->thickness_set) ? s->thickness : 0.25f;
    *out_thickness = t >= 0.0f ? t : 0.0f; /* NaN fails the test and becomes 0 too */
}

/* One tonemapping dispatch over rect of the output (clamped to it) with view's tonemapper and
 * exposure; view NULL fills the rectangle with black. */
static void tonemap_dispatch(rill_renderer *r, rill__cmd *cmd, const rill_render_view *view,
                             const uint32_t rect[4], const rill__img_desc *src, rill__img *bloom) {
    uint32_t x = RILL_MIN(rect[0], r->width), y = RILL_MIN(rect[1], r->height);
    uint32_t w = RILL_MIN(rect[2], r->width - x), h = RILL_MIN(rect[3], r->height - y);
    if (!w || !h)
        return;
    rill_tonemapper op = view ? view->tonemapper : RILL_TONEMAP_DEFAULT;
    if (op == RILL_TONEMAP_DEFAULT || (unsigned)op >= RILL_TONEMAP_NUM)
        op = RILL_TONEMAP_ACES;
    float exposure = view ? exp2f(RILL_CLAMP(view->exposure_ev, -20.0f, 20.0f)) : 1.0f;
    struct {
        uint32_t w, h;
        float exposure;
        uint32_t op;
        uint32_t src_w, src_h;
        uint32_t view;
        float bloom;
        uint32_t auto_exposure;
        uint32_t off_x, off_y, ext_w, ext_h;
    } push = {r->width,
              r->height,
              exposure,
              view ? (uint32_t)op : 0u,
              src->width,
              src->height,
              (r->desc.debug_flags & RILL_RENDER_DEBUG_VIEW_NORMALS)  ? 1u
              : (r->desc.debug_flags & RILL_RENDER_DEBUG_VIEW_MOTION) ? 2u
                                                                      : 0u,
              bloom && view ? (view->bloom.intensity > 0.0f ? view->bloom.intensity : 0.15f) : 0.0f,
              r->auto_exposure_on ? 1u : 0u,
              x,
              y,
              w,
              h};
    rill__cmd_push(cmd, &push, sizeof(push));
    rill__cmd_dispatch(cmd, (w + 7) / 8, (h + 7) / 8, 1);
}

static void exec_tonemap(rill_rg_ctx *ctx, void *user) {
    (void)user;
    rill_renderer *r = ctx->r;
    rill__cmd_bind_pipe(ctx->cmd, r->tonemap_pipe);
    rill__binding b[6];
    memset(b, 0, sizeof(b));
    b[0].img = rill__ctx_image(ctx, "hdr");
    b[0].layer = -1;
    b[0].sampler = RILL__SAMPLER_LINEAR_CLAMP; /* upscales when render_scale < 1 */
    b[1].img = rill__ctx_image(ctx, "ldr");
    b[1].layer = -1;
    b[2].img = rill__ctx_image(ctx, "normal");
    b[2].layer = -1;
    b[2].sampler = RILL__SAMPLER_NEAREST_CLAMP;
    b[3].img = rill__ctx_image(ctx, "motion");
    b[3].layer = -1;
    b[3].sampler = RILL__SAMPLER_NEAREST_CLAMP;
    rill__img *bloom = r->bloom_on ? rill__ctx_image(ctx, "bloom_u0") : NULL;
    b[4].img = bloom ? bloom : r->white;
    b[4].layer = -1;
    b[4].sampler = RILL__SAMPLER_LINEAR_CLAMP;
    b[5].buf = r->exposure_buf;
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 6);
    const rill__img_desc *src = rill__img_get_desc(b[0].img);
    if (!r->view_count) {
        static const uint32_t whole[4] = {0, 0, UINT32_MAX, UINT32_MAX};
        tonemap_dispatch(r, ctx->cmd, r->no_view ? NULL : r->view, whole, src, bloom);
        return;
    }
    /* Several views: black where none lands, then each view's rectangle in drawing order with
     * its own tonemapper (a barrier between dispatches, as rectangles may overlap). */
    static const uint32_t whole[4] = {0, 0, UINT32_MAX, UINT32_MAX};
    tonemap_dispatch(r, ctx->cmd, NULL, whole, src, NULL);
    for (uint32_t i = 0; i < r->view_count; i++) {
        rill__cmd_compute_barrier(ctx->cmd);
        tonemap_dispatch(r, ctx->cmd, r->views[i].view, r->views[i].out_rect, src, NULL);
    }
}

static void exec_readback(rill_rg_ctx *ctx, void *user) {
    (void)user;
    rill_renderer *r = ctx->r;
    uint32_t slot = rill__gpu_frame_slot(r->gpu);
    rill__cmd_copy_image_to_buffer(ctx->cmd, rill__ctx_image(ctx, "ldr"), r->readback[slot]);
    rill__cmd_host_read_barrier(ctx->cmd);
    r->readback_slot = slot;
}

static void exec_present(rill_rg_ctx *ctx, void *user) {
    (void)user;
    rill__cmd_blit(ctx->cmd, rill__ctx_image(ctx, "ldr"), rill__ctx_image(ctx, "swapchain"));
}

/* >>graph ----------------------------------------------------------------------------------- */

#define TRY(x)                                                                                     \
    do {                                                                                           \
        rill_result try_r_ = (x);                                                                  \
        if (try_r_ != RILL_OK)                                                                     \
            return try_r_;                                                                         \
    } while (0)

static rill_result pass(rill_rg *g, const char *label, rill_rg_exec_fn fn, bool side,
                        rill_error *err) {
    rill_rg_pass_desc d = {label, fn, NULL, side};
    return rill_rg_add_pass(g, &d, err);
}

static void exec_auto_exposure(rill_rg_ctx *ctx, void *user) {
    (void)user;
    rill_renderer *r = ctx->r;
    rill__cmd_bind_pipe(ctx->cmd, r->auto_exposure_pipe);
    rill__binding b[2];
    memset(b, 0, sizeof(b));
    b[0].img = rill__ctx_image(ctx, "hdr");
    b[0].layer = -1;
    b[0].sampler = RILL__SAMPLER_LINEAR_CLAMP;
    b[1].buf = r->exposure_buf;
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 2);
    const rill_render_auto_exposure *a = &r->view->auto_exposure;
    float push[4] = {a->rate > 0.0f ? RILL_MIN(a->rate, 1.0f) : 0.05f,
                     a->min_ev != 0.0f ? a->min_ev : -10.0f, a->max_ev != 0.0f ? a->max_ev : 10.0f,
                     0};
    rill__cmd_push(ctx->cmd, push, sizeof(push));
    rill__cmd_dispatch(ctx->cmd, 1, 1, 1);
}

#define BLOOM_LEVELS 5

static void bloom_name(char *dst, size_t cap, char kind, uint32_t level) {
    snprintf(dst, cap, "bloom_%c%u", kind, level);
}

static void exec_bloom_down(rill_rg_ctx *ctx, void *user) {
    rill_renderer *r = ctx->r;
    uint32_t level = (uint32_t)(uintptr_t)user;
    char src[32], dst[32];
    if (level == 0)
        snprintf(src, sizeof(src), "hdr");
    else
        bloom_name(src, sizeof(src), 'd', level - 1);
    bloom_name(dst, sizeof(dst), 'd', level);
    rill__img *out = rill__ctx_image(ctx, dst);
    const rill__img_desc *d = rill__img_get_desc(out);
    rill__cmd_bind_pipe(ctx->cmd, r->bloom_down_pipe);
    rill__binding b[2];
    memset(b, 0, sizeof(b));
    b[0].img = rill__ctx_image(ctx, src);
    b[0].layer = -1;
    b[0].sampler = RILL__SAMPLER_LINEAR_CLAMP;
    b[1].img = out;
    b[1].layer = -1;
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 2);
    const rill_render_bloom *bs = &r->view->bloom;
    float threshold =
        bs->threshold != 0.0f || bs->threshold_set ? RILL_MAX(bs->threshold, 0.0f) : 1.0f;
    struct {
        uint32_t w, h;
        float threshold;
        uint32_t first;
    } push = {d->width, d->height, threshold, level == 0};
    rill__cmd_push(ctx->cmd, &push, sizeof(push));
    rill__cmd_dispatch(ctx->cmd, (d->width + 7) / 8, (d->height + 7) / 8, 1);
}

static void exec_bloom_up(rill_rg_ctx *ctx, void *user) {
    rill_renderer *r = ctx->r;
    uint32_t level = (uint32_t)(uintptr_t)user;
    char lower[32], cur[32], dst[32];
    bloom_name(lower, sizeof(lower), level + 1 == BLOOM_LEVELS - 1 ? 'd' : 'u', level + 1);
    bloom_name(cur, sizeof(cur), 'd', level);
    bloom_name(dst, sizeof(dst), 'u', level);
    rill__img *out = rill__ctx_image(ctx, dst);
    const rill__img_desc *d = rill__img_get_desc(out);
    rill__cmd_bind_pipe(ctx->cmd, r->bloom_up_pipe);
    rill__binding b[3];
    memset(b, 0, sizeof(b));
    b[0].img = rill__ctx_image(ctx, lower);
    b[0].layer = -1;
    b[0].sampler = RILL__SAMPLER_LINEAR_CLAMP;
    b[1].img = rill__ctx_image(ctx, cur);
    b[1].layer = -1;
    b[1].sampler = RILL__SAMPLER_LINEAR_CLAMP;
    b[2].img = out;
    b[2].layer = -1;
    rill__cmd_bind_transient_set(ctx->cmd, 0, b, 3);
    uint32_t push[2] = {d->width, d->height};
    rill__cmd_push(ctx->cmd, push, sizeof(push));
    rill__cmd_dispatch(ctx->cmd, (d->width + 7) / 8, (d->height + 7) / 8, 1);
}

/* Adds the bloom pyramid: BLOOM_LEVELS downsampling passes from "hdr", then upsampling passes
 * accumulating back to bloom_u0, which tonemapping adds. Every level is its own image (the graph
 * aliases their memory): a read-then-write of one image would order its reader after itself. */
static rill_result add_bloom(rill_renderer *r, rill_rg *g, rill_error *err) {
    char name[32], label[32], prev[32];
    float scale = r->render_scale;
    for (uint32_t i = 0; i < BLOOM_LEVELS; i++) {
        scale *= 0.5f;
        rill_rg_image_desc d;
        memset(&d, 0, sizeof(d));
        d.format = RILL_RG_FORMAT_RGBA16F;
        d.scale = scale;
        bloom_name(name, sizeof(name), 'd', i);
        TRY(rill_rg_declare_image(g, name, &d, err));
        if (i + 1 < BLOOM_LEVELS) {
            bloom_name(label, sizeof(label), 'u', i);
            TRY(rill_rg_declare_image(g, label, &d, err));
        }
        snprintf(label, sizeof(label), "bloom_down%u", i);
        rill_rg_pass_desc pd = {label, exec_bloom_down, (void *)(uintptr_t)i, false};
        TRY(rill_rg_add_pass(g, &pd, err));
        if (i == 0)
            snprintf(prev, sizeof(prev), "hdr");
        else
            bloom_name(prev, sizeof(prev), 'd', i - 1);
        TRY(rill_rg_access(g, label, prev, RILL_RG_USAGE_SAMPLED_COMPUTE, err));
        TRY(rill_rg_access(g, label, name, RILL_RG_USAGE_STORAGE_WRITE, err));
    }
    for (int i = BLOOM_LEVELS - 2; i >= 0; i--) {
        snprintf(label, sizeof(label), "bloom_up%d", i);
        rill_rg_pass_desc pd = {label, exec_bloom_up, (void *)(uintptr_t)i, false};
        TRY(rill_rg_add_pass(g, &pd, err));
        bloom_name(prev, sizeof(prev), i + 1 == BLOOM_LEVELS - 1 ? 'd' : 'u', (uint32_t)i + 1);
        TRY(rill_rg_access(g, label, prev, RILL_RG_USAGE_SAMPLED_COMPUTE, err));
        bloom_name(name, sizeof(name), 'd', (uint32_t)i);
        TRY(rill_rg_access(g, label, name, RILL_RG_USAGE_SAMPLED_COMPUTE, err));
        bloom_name(name, sizeof(name), 'u', (uint32_t)i);
        TRY(rill_rg_access(g, label, name, RILL_RG_USAGE_STORAGE_WRITE, err));
    }
    return rill_rg_add_edge(g, RILL_RG_END_MAIN_PASS, "bloom_down0", err);
}

/* A view pass: label, recording function and the view slot it draws (NULL: the single view). */
static rill_result view_pass(rill_rg *g, const char *label, rill_rg_exec_fn fn, void *user,
                             rill_error *err) {
    rill_rg_pass_desc d = {label, fn, user, false};
    return rill_rg_add_pass(g, &d, err);
}

static rill_result build_graph(rill_renderer *r, bool shadows, rill_error *err) {
    rill_rg *g = r->graph;
    rill_rg_reset(g);
    rill_rg_set_view_size(g, r->width, r->height);
    rill_rg_image_desc d;
    memset(&d, 0, sizeof(d));
    /* The 3D images follow render_scale; the tonemapped output is always at full size. */
    d.scale = r->render_scale;
    d.format = RILL_RG_FORMAT_D32F;
    TRY(rill_rg_declare_image(g, "depth", &d, err));
    d.format = RILL_RG_FORMAT_RGBA16F;
    TRY(rill_rg_declare_image(g, "normal", &d, err));
    TRY(rill_rg_declare_image(g, "hdr", &d, err));
    d.format = RILL_RG_FORMAT_RG16F;
    TRY(rill_rg_declare_image(g, "motion", &d, err));
    d.scale = 1.0f;
    d.format = RILL_RG_FORMAT_RGBA8_UNORM;
    TRY(rill_rg_declare_image(g, "ldr", &d, err));
    d.format = RILL_RG_FORMAT_D32F;
    d.size_mode = RILL_RG_SIZE_ABSOLUTE;
    d.width = d.height = shadows ? r->desc.shadow_map_size : 1;
    d.layers = shadows ? r->cascades : 1;
    d.array_view = true;
    TRY(rill_rg_declare_image(g, "shadow_map", &d, err));

    /* The per-view passes: once for a single view (the names the anchors and user passes know),
     * else once per view in drawing order, later views' names suffixed ".N". */
    uint32_t nviews = r->view_count ? r->view_count : 1u;
    char prev_wf[32] = "";
    for (uint32_t vi = 0; vi < nviews; vi++) {
        void *user = r->view_count ? &r->views[vi] : NULL;
        char sh[32], pp[32], op[32], tr[32], wf[32];
        view_name(sh, "shadows", vi);
        view_name(pp, "prepass", vi);
        view_name(op, "opaque", vi);
        view_name(tr, "transparent", vi);
        view_name(wf, "wireframe", vi);
        char dn[32], nn[32], mn[32], smn[32];
        view_name(dn, "depth", vi);
        view_name(nn, "normal", vi);
        view_name(mn, "motion", vi);
        view_name(smn, "shadow_map", vi);
        if (vi > 0) {
            rill_rg_image_desc vd;
            rill_rg_resource_image_desc(g, (uint32_t)rill_rg_resource_find(g, "depth"), &vd);
            TRY(rill_rg_declare_image(g, dn, &vd, err));
            rill_rg_resource_image_desc(g, (uint32_t)rill_rg_resource_find(g, "normal"), &vd);
            TRY(rill_rg_declare_image(g, nn, &vd, err));
            rill_rg_resource_image_desc(g, (uint32_t)rill_rg_resource_find(g, "motion"), &vd);
            TRY(rill_rg_declare_image(g, mn, &vd, err));
            rill_rg_resource_image_desc(g, (uint32_t)rill_rg_resource_find(g, "shadow_map"), &vd);
            TRY(rill_rg_declare_image(g, smn, &vd, err));
        }
        TRY(view_pass(g, sh, exec_shadows, user, err));
        TRY(rill_rg_access(g, sh, smn, RILL_RG_USAGE_DEPTH_WRITE, err));
        TRY(view_pass(g, pp, exec_prepass, user, err));
        TRY(rill_rg_access(g, pp, dn, RILL_RG_USAGE_DEPTH_WRITE, err));
        TRY(rill_rg_access(g, pp, nn, RILL_RG_USAGE_COLOR_WRITE, err));
        TRY(rill_rg_access(g, pp, mn, RILL_RG_USAGE_COLOR_WRITE, err));
        bool ssao = r->ssao_on;
        if (ssao) {
            rill_rg_image_desc ad;
            memset(&ad, 0, sizeof(ad));
            ad.format = RILL_RG_FORMAT_R32F;
            ad.scale = r->render_scale;
            TRY(rill_rg_declare_image(g, "ao_raw", &ad, err));
            TRY(rill_rg_declare_image(g, "ao", &ad, err));
            TRY(pass(g, "ssao", exec_ssao, false, err));
            TRY(rill_rg_access(g, "ssao", dn, RILL_RG_USAGE_SAMPLED_COMPUTE, err));
            TRY(rill_rg_access(g, "ssao", nn, RILL_RG_USAGE_SAMPLED_COMPUTE, err));
            TRY(rill_rg_access(g, "ssao", "ao_raw", RILL_RG_USAGE_STORAGE_WRITE, err));
            TRY(pass(g, "ssao_blur", exec_ssao_blur, false, err));
            TRY(rill_rg_access(g, "ssao_blur", "ao_raw", RILL_RG_USAGE_SAMPLED_COMPUTE, err));
            TRY(rill_rg_access(g, "ssao_blur", dn, RILL_RG_USAGE_SAMPLED_COMPUTE, err));
            TRY(rill_rg_access(g, "ssao_blur", "ao", RILL_RG_USAGE_STORAGE_WRITE, err));
        }
        TRY(view_pass(g, op, exec_opaque, user, err));
        if (ssao)
            TRY(rill_rg_access(g, op, "ao", RILL_RG_USAGE_SAMPLED_FRAGMENT, err));
        TRY(rill_rg_access(g, op, dn, RILL_RG_USAGE_DEPTH_READ, err));
        TRY(rill_rg_access(g, op, smn, RILL_RG_USAGE_SAMPLED_FRAGMENT, err));
        TRY(rill_rg_access(g, op, "hdr", RILL_RG_USAGE_COLOR_WRITE, err));
        TRY(view_pass(g, tr, exec_transparent, user, err));
        if (ssao)
            TRY(rill_rg_access(g, tr, "ao", RILL_RG_USAGE_SAMPLED_FRAGMENT, err));
        TRY(rill_rg_access(g, tr, dn, RILL_RG_USAGE_DEPTH_READ, err));
        TRY(rill_rg_access(g, tr, smn, RILL_RG_USAGE_SAMPLED_FRAGMENT, err));
        TRY(rill_rg_access(g, tr, "hdr", RILL_RG_USAGE_COLOR_WRITE, err));
        TRY(view_pass(g, wf, exec_wireframe, user, err));
        TRY(rill_rg_access(g, wf, dn, RILL_RG_USAGE_DEPTH_READ, err));
        TRY(rill_rg_access(g, wf, "hdr", RILL_RG_USAGE_COLOR_WRITE, err));
        if (vi > 0) {
            const char *order[] = {prev_wf, sh, pp, op, tr, wf};
            TRY(rill_rg_add_edges(g, order, 6, err));
        }
        memcpy(prev_wf, wf, sizeof(prev_wf));
    }
    TRY(pass(g, RILL_RG_END_MAIN_PASS, NULL, false, err));
    if (nviews > 1)
        TRY(rill_rg_add_edge(g, prev_wf, RILL_RG_END_MAIN_PASS, err));
    TRY(rill_rg_import_buffer(g, "exposure", r->exposure_buf, RILL_RG_USAGE_STORAGE_WRITE,
                              RILL_RG_USAGE_NONE, err));
    if (r->auto_exposure_on) {
        TRY(pass(g, "auto_exposure", exec_auto_exposure, false, err));
        TRY(rill_rg_access(g, "auto_exposure", "hdr", RILL_RG_USAGE_SAMPLED_COMPUTE, err));
        TRY(rill_rg_access(g, "auto_exposure", "exposure", RILL_RG_USAGE_STORAGE_WRITE, err));
        TRY(rill_rg_add_edge(g, RILL_RG_END_MAIN_PASS, "auto_exposure", err));
    }
    if (r->bloom_on)
        TRY(add_bloom(r, g, err));
    TRY(pass(g, RILL_RG_TONEMAPPING, exec_tonemap, false, err));
    if (r->bloom_on)
        TRY(rill_rg_access(g, RILL_RG_TONEMAPPING, "bloom_u0", RILL_RG_USAGE_SAMPLED_COMPUTE, err));
    /* Always read, so the state written by earlier frames is made visible even on frames that
     * do not use it. */
    TRY(rill_rg_access(g, RILL_RG_TONEMAPPING, "exposure", RILL_RG_USAGE_STORAGE_READ, err));
    TRY(rill_rg_access(g, RILL_RG_TONEMAPPING, "hdr", RILL_RG_USAGE_SAMPLED_COMPUTE, err));
    TRY(rill_rg_access(g, RILL_RG_TONEMAPPING, "ldr", RILL_RG_USAGE_STORAGE_WRITE, err));
    TRY(rill_rg_access(g, RILL_RG_TONEMAPPING, "normal", RILL_RG_USAGE_SAMPLED_COMPUTE, err));
    TRY(rill_rg_access(g, RILL_RG_TONEMAPPING, "motion", RILL_RG_USAGE_SAMPLED_COMPUTE, err));
    TRY(pass(g, RILL_RG_END_MAIN_PASS_POST_PROCESSING, NULL, false, err));
    const char *out_pass;
    rill__img *swap = rill__frame_swapchain_image(r->gpu);
    if (r->desc.glfw_window) {
        rill_rg_image_desc sd;
        memset(&sd, 0, sizeof(sd));
        sd.format = swap ? rill__img_get_desc(swap)->format : RILL_RG_FORMAT_BGRA8_UNORM;
        TRY(rill_rg_import_image(g, "swapchain", &sd, swap, RILL_RG_USAGE_NONE,
                                 RILL_RG_USAGE_PRESENT, err));
        out_pass = "present";
        TRY(pass(g, out_pass, exec_present, true, err));
        TRY(rill_rg_access(g, out_pass, "swapchain", RILL_RG_USAGE_TRANSFER_DST, err));
    } else {
        TRY(rill_rg_import_buffer(g, "readback", r->readback[rill__gpu_frame_slot(r->gpu)],
                                  RILL_RG_USAGE_NONE, RILL_RG_USAGE_NONE, err));
        out_pass = "readback";
        TRY(pass(g, out_pass, exec_readback, true, err));
        TRY(rill_rg_access(g, out_pass, "readback", RILL_RG_USAGE_TRANSFER_DST, err));
    }
    TRY(rill_rg_access(g, out_pass, "ldr", RILL_RG_USAGE_TRANSFER_SRC, err));
    const char *chain[] = {"transparent",
                           "wireframe",
                           RILL_RG_END_MAIN_PASS,
                           RILL_RG_TONEMAPPING,
                           RILL_RG_END_MAIN_PASS_POST_PROCESSING,
                           out_pass};
    TRY(rill_rg_add_edges(g, chain, 6, err));
    if (r->desc.setup_graph)
        TRY(r->desc.setup_graph(g, r->desc.setup_graph_user, err));
    TRY(rill__overlay_add_pass(r, g, out_pass, err));
    return rill_rg_compile(g, err);
}

/* >>frame ----------------------------------------------------------------------------------- */

/* A per-frame, direct-mapped cache of handle -> pool slot (-1: stale or not uploaded yet).
 * Snapshots reuse a few meshes and materials across many instances, so nearly every lookup is one
 * compare instead of a pool lookup plus readiness checks in another file. Readiness cannot change
 * while a frame is recorded (uploads are recorded when the frame begins). */
#define HANDLE_CACHE_SIZE 256u

typedef struct handle_cache {
    uint32_t id[HANDLE_CACHE_SIZE];
    int32_t slot[HANDLE_CACHE_SIZE];
} handle_cache;

static void handle_cache_reset(handle_cache *c) {
    /* Id 0 is never a valid handle, and its answer (-1) is the right one for an id of 0. */
    memset(c->id, 0, sizeof(c->id));
    for (uint32_t k = 0; k < HANDLE_CACHE_SIZE; k++)
        c->slot[k] = -1;
}

static inline int32_t cached_mesh_index(const rill_renderer *r, handle_cache *c, uint32_t id) {
    uint32_t k = id & (HANDLE_CACHE_SIZE - 1);
    if (c->id[k] == id)
        return c->slot[k];
    rill_mesh h = {id};
    int32_t slot = rill__mesh_get(r, h) ? rill_pool_index(&r->mesh_pool, id) : -1;
    c->id[k] = id;
    c->slot[k] = slot;
    return slot;
}

static inline int32_t cached_material_index(const rill_renderer *r, handle_cache *c, uint32_t id) {
    uint32_t k = id & (HANDLE_CACHE_SIZE - 1);
    if (c->id[k] == id)
        return c->slot[k];
    rill_material h = {id};
    int32_t slot = rill__material_get(r, h) ? rill_pool_index(&r->mat_pool, id) : -1;
    c->id[k] = id;
    c->slot[k] = slot;
    return slot;
}

/* Records this frame's matrix of instance `pos` and returns the slot holding last frame's, or
 * UINT32_MAX when the instance was not drawn last frame (or has no id). Snapshots usually list
 * instances in the same order every frame, so the slot used at the same position last time is
 * tried first and the hash map is only consulted when the order changed. */
static uint32_t track_instance(rill_renderer *r, const rill_render_instance *in, uint32_t pos) {
    if (!in->id)
        return UINT32_MAX;
    uint64_t idx = UINT64_MAX;
    if (pos < r->pos_slot.len && r->pos_slot.data[pos] < r->prev.len &&
        r->prev.data[r->pos_slot.data[pos]].id == in->id) {
        idx = r->pos_slot.data[pos];
    } else if (!rill_map_get(&r->prev_index, in->id, &idx)) {
        prev_xform px;
        memset(&px, 0, sizeof(px));
        px.id = in->id;
        if (!rill_array_push(&r->prev, px))
            return UINT32_MAX; /* out of memory: this instance just has no motion */
        idx = r->prev.len - 1;
        if (!rill_map_set(&r->prev_index, in->id, idx)) {
            r->prev.len--;
            return UINT32_MAX;
        }
    }
    while (r->pos_slot.len <= pos)
        if (!rill_array_push(&r->pos_slot, UINT32_MAX))
            break;
    if (pos < r->pos_slot.len)
        r->pos_slot.data[pos] = (uint32_t)idx;
    prev_xform *p = &r->prev.data[idx];
    bool had = p->frame + 1 == r->frame_counter;
    memcpy(p->m[r->frame_counter & 1], in->transform, sizeof(float) * 16);
    p->frame = r->frame_counter;
    return had ? (uint32_t)idx : UINT32_MAX;
}

static const float *prev_model(const rill_renderer *r, const rill_render_instance *in,
                               uint32_t prev) {
    if (prev == UINT32_MAX)
        return in->transform;
    return r->prev.data[prev].m[(r->frame_counter - 1) & 1];
}

static rill_result record_frame(rill_renderer *r, rill__cmd *cmd, const rill_render_snapshot *snap,
                                mat4 out_vp, rill_error *err);

/* Adds the time since the previous mark to `phase`. */
static void phase_mark(rill_renderer *r, enum rill__cpu_phase phase) {
    uint64_t now = rill_time_ns();
    r->cpu_phase_ms[phase] += (double)(now - r->phase_t) * 1e-6;
    r->phase_t = now;
}

rill_result rill__frame3d_render(rill_renderer *r, const rill_render_snapshot *snap,
                                 rill_error *err) {
    uint64_t t0 = rill_time_ns();
    /* Begin first: pending uploads are recorded at the start of the frame, so resources created
     * before this call can already be drawn by it. */
    rill__cmd *cmd;
    TRY(rill__frame_begin(r->gpu, &cmd, err));
    uint64_t t_begun = rill_time_ns(); /* frame_begin may wait for the GPU: not recording time */
    memset(r->cpu_phase_ms, 0, sizeof(r->cpu_phase_ms));
    r->phase_t = t_begun;
    mat4 vp;
    glm_mat4_identity(vp);
    rill_result res = record_frame(r, cmd, snap, vp, err);
    /* The frame is submitted even after an error so the command buffer and frame slot stay in a
     * consistent state; the first error is the one reported. */
    rill_result end = rill__frame_end(r->gpu, cmd, res == RILL_OK ? err : NULL);
    phase_mark(r, RILL__CPU_SUBMIT);
    if (res == RILL_OK)
        res = end;
    if (res == RILL_OK && !r->desc.glfw_window)
        r->have_frame = true;
    memcpy(r->prev_view_proj, vp, sizeof(mat4));
    r->have_prev_view_proj = true;
    rill__transients_release_unused(r, false);
    r->snap = NULL;
    r->cpu_wait_ms = (double)(t_begun - t0) * 1e-6;
    r->cpu_record_ms = (double)(rill_time_ns() - t_begun) * 1e-6;
    return res;
}

/* >>clustered lights ------------------------------------------------------------------------ */

#define CLUSTER_X 16u
#define CLUSTER_Y 9u
#define CLUSTER_Z 24u
#define CLUSTER_COUNT (CLUSTER_X * CLUSTER_Y * CLUSTER_Z)
#define CLUSTER_MAX_REFS (1u << 20)

typedef struct cluster_range {
    uint32_t x0, x1, y0, y1, z0, z1; /* inclusive; x0 > x1 = light touches nothing */
} cluster_range;

static uint32_t slice_of(float z, float log_near, float scale) {
    float s = (logf(fmaxf(z, 1e-4f)) - log_near) * scale;
    return (uint32_t)RILL_CLAMP(s, 0.0f, (float)(CLUSTER_Z - 1));
}

/* Conservative cluster bounds of a light's range sphere: depth slices from its view-space depth
 * interval, tiles from the screen rectangle of its view-space bounding box (the whole screen when
 * the box reaches the near plane). */
static cluster_range light_clusters(mat4 view, mat4 proj, const float pos[3], float radius,
                                    float znear, float log_near, float scale) {
    cluster_range c = {1, 0, 0, 0, 0, 0};
    vec3 cv;
    glm_mat4_mulv3(view, (float *)pos, 1.0f, cv);
    float zc = -cv[2];
    if (zc + radius < znear)
        return c; /* entirely behind the camera */
    c.z0 = slice_of(fmaxf(zc - radius, znear), log_near, scale);
    c.z1 = slice_of(zc + radius, log_near, scale);
    float nx0 = -1, nx1 = 1, ny0 = -1, ny1 = 1;
    if (zc - radius > znear) {
        nx0 = ny0 = 1e30f;
        nx1 = ny1 = -1e30f;
        for (int k = 0; k < 8; k++) {
            vec4 p = {cv[0] + ((k & 1) ? radius : -radius), cv[1] + ((k & 2) ? radius : -radius),
                      cv[2] + ((k & 4) ? radius : -radius), 1.0f};
            vec4 q;
            glm_mat4_mulv(proj, p, q);
            float x = q[0] / q[3], y = q[1] / q[3];
            nx0 = fminf(nx0, x), nx1 = fmaxf(nx1, x);
            ny0 = fminf(ny0, y), ny1 = fmaxf(ny1, y);
        }
        if (nx0 > 1 || nx1 < -1 || ny0 > 1 || ny1 < -1)
            return c; /* off screen */
    }
    /* Tiles count from the top-left (viewports are y-flipped: NDC +y is the top row). */
    float fx0 = (RILL_CLAMP(nx0, -1.0f, 1.0f) * 0.5f + 0.5f) * CLUSTER_X;
    float fx1 = (RILL_CLAMP(nx1, -1.0f, 1.0f) * 0.5f + 0.5f) * CLUSTER_X;
    float fy0 = (0.5f - RILL_CLAMP(ny1, -1.0f, 1.0f) * 0.5f) * CLUSTER_Y;
    float fy1 = (0.5f - RILL_CLAMP(ny0, -1.0f, 1.0f) * 0.5f) * CLUSTER_Y;
    c.x0 = (uint32_t)RILL_MIN(fx0, (float)(CLUSTER_X - 1));
    c.x1 = (uint32_t)RILL_MIN(fx1, (float)(CLUSTER_X - 1));
    c.y0 = (uint32_t)RILL_MIN(fy0, (float)(CLUSTER_Y - 1));
    c.y1 = (uint32_t)RILL_MIN(fy1, (float)(CLUSTER_Y - 1));
    return c;
}

/* Bins the lights into the cluster grid (two passes: count, then fill) and uploads grid and index
 * list into the frame's scratch memory. */
static rill_result build_clusters(rill_renderer *r, rill__cmd *cmd,
                                  const rill_render_snapshot *snap, uint32_t nlights, mat4 view,
                                  mat4 proj, float znear, float zfar, float *out_params,
                                  rill_error *err) {
    float cfar = fmaxf(fminf(zfar, 1000.0f), znear * 2.0f);
    float log_near = logf(znear), scale = (float)CLUSTER_Z / logf(cfar / znear);
    out_params[0] = scale;
    out_params[1] = log_near;
    if (!rill_array_reserve(&r->light_ranges, nlights ? nlights : 1) ||
        !rill_array_reserve(&r->cluster_counts, 3 * CLUSTER_COUNT))
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY,
                              "render: out of memory for light clusters");
    uint32_t *counts = r->cluster_counts.data;
    memset(counts, 0, CLUSTER_COUNT * sizeof(uint32_t));
    uint64_t total = 0;
    for (uint32_t i = 0; i < nlights; i++) {
        const rill_render_light *L = &snap->lights[i];
        float range = L->range > 0.0f ? L->range : 20.0f;
        cluster_range c = light_clusters(view, proj, L->position, range, znear, log_near, scale);
        r->light_ranges.data[i] = c;
        if (c.x0 > c.x1)
            continue;
        for (uint32_t z = c.z0; z <= c.z1; z++)
            for (uint32_t y = c.y0; y <= c.y1; y++)
                for (uint32_t x = c.x0; x <= c.x1; x++) {
                    counts[(z * CLUSTER_Y + y) * CLUSTER_X + x]++;
                    total++;
                }
    }
    if (total > CLUSTER_MAX_REFS)
        RILL_LOG_WARN("render", "%llu light-cluster references; lights beyond %u are dropped",
                      (unsigned long long)total, CLUSTER_MAX_REFS);
    uint32_t refs = (uint32_t)RILL_MIN(total, (uint64_t)CLUSTER_MAX_REFS);
    r->light_cluster_refs = refs;
    r->cluster_size = CLUSTER_COUNT * 2 * sizeof(uint32_t);
    r->cluster_idx_size = (uint64_t)RILL_MAX(refs, 1u) * sizeof(uint32_t);
    uint32_t *grid = rill__frame_alloc(cmd, r->cluster_size, 256, &r->cluster_buf, &r->cluster_off);
    uint32_t *idx =
        rill__frame_alloc(cmd, r->cluster_idx_size, 256, &r->cluster_idx_buf, &r->cluster_idx_off);
    if (!grid || !idx)
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY,
                              "render: frame scratch allocation failed");
    /* Offsets; counts become the room left in each cell. The write cursors live in ordinary
     * memory: the grid is mapped GPU memory, often write-combined, where reads are very slow. */
    uint32_t *cursor = counts + CLUSTER_COUNT, *start = counts + 2 * CLUSTER_COUNT;
    uint32_t off = 0;
    for (uint32_t c = 0; c < CLUSTER_COUNT; c++) {
        uint32_t n = RILL_MIN(counts[c], refs - off);
        grid[2 * c] = off;
        cursor[c] = start[c] = off;
        counts[c] = n;
        off += n;
    }
    for (uint32_t i = 0; i < nlights; i++) {
        cluster_range c = r->light_ranges.data[i];
        if (c.x0 > c.x1)
            continue;
        for (uint32_t z = c.z0; z <= c.z1; z++)
            for (uint32_t y = c.y0; y <= c.y1; y++)
                for (uint32_t x = c.x0; x <= c.x1; x++) {
                    uint32_t cell = (z * CLUSTER_Y + y) * CLUSTER_X + x;
                    if (counts[cell]) {
                        counts[cell]--;
                        idx[cursor[cell]++] = i;
                    }
                }
    }
    for (uint32_t c = 0; c < CLUSTER_COUNT; c++)
        grid[2 * c + 1] = cursor[c] - start[c];
    return RILL_OK;
}

/* Records one view: camera matrices, cascades, culling and sorting into the draw lists, the frame
 * constants, instance, light and cluster buffers. rect_w x rect_h (output pixels) gives the
 * aspect ratio; clustered selects the clustered light list (else every light at every pixel);
 * motion uses last frame's view-projection for camera motion. *out_shadows says whether the sun
 * casts shadows. */
static rill_result record_view(rill_renderer *r, rill__cmd *cmd, const rill_render_snapshot *snap,
                               const rill_render_view *v, uint32_t rect_w, uint32_t rect_h,
                               bool clustered, bool motion, mat4 vp, bool *out_shadows,
                               rill_error *err) {
    float fov = v->fov_y > 0.0f ? v->fov_y : 0.8f;
    float znear = v->near_plane > 0.0f ? v->near_plane : 0.1f;
    float zfar = v->far_plane > znear ? v->far_plane : 1000.0f;
    float aspect = (float)rect_w / (float)rect_h;
    float half_h = (v->ortho_height > 0.0f ? v->ortho_height : 10.0f) * 0.5f;
    mat4 world_from_view, view, proj;
    bool ident_zero = true;
    for (int i = 0; i < 16; i++)
        ident_zero &= v->world_from_view[i] == 0.0f;
    if (ident_zero)
        glm_mat4_identity(world_from_view);
    else
        memcpy(world_from_view, v->world_from_view, sizeof(mat4));
    glm_mat4_inv(world_from_view, view);
    if (v->orthographic)
        glm_ortho_rh_zo(-half_h * aspect, half_h * aspect, -half_h, half_h, znear, zfar, proj);
    else
        glm_perspective_rh_zo(fov, aspect, znear, zfar, proj);
    glm_mat4_mul(proj, view, vp);
    vec4 planes[6];
    frustum_planes(vp, planes);

    /* Sun and cascades. */
    bool sun = snap->has_sun;
    bool shadows = sun && snap->sun.shadows;
    *out_shadows = shadows;
    vec3 sun_dir = {0.0f, -1.0f, 0.0f};
    if (sun) {
        glm_vec3_copy((float *)snap->sun.direction, sun_dir);
        if (glm_vec3_norm(sun_dir) < 1e-6f)
            glm_vec3_copy((vec3){0.0f, -1.0f, 0.0f}, sun_dir);
        glm_vec3_normalize(sun_dir);
    }
    r->cascades = shadows ? r->desc.shadow_cascades : 0;
    float dist = fminf(r->desc.shadow_distance, zfar);
    float cascade_far[4] = {0}, cascade_texel[4] = {0};
    sphere whole = {{0, 0, 0}, 0};
    float tan_y = tanf(fov * 0.5f);
    if (shadows) {
        float prev_split = znear;
        for (uint32_t c = 0; c < r->cascades; c++) {
            float t = (float)(c + 1) / (float)r->cascades;
            float lin = znear + (dist - znear) * t, lg = znear * powf(dist / znear, t);
            float split = c + 1 == r->cascades ? dist : 0.75f * lg + 0.25f * lin;
            sphere s = slice_sphere(world_from_view, tan_y, aspect, prev_split, split,
                                    v->orthographic, half_h);
            mat4 lvp, lview;
            float lfar;
            light_matrices(&s, sun_dir, (float)r->desc.shadow_map_size, lvp, lview, &lfar);
            memcpy(r->cascade_vp[c], lvp, sizeof(mat4));
            cascade_far[c] = split;
            cascade_texel[c] = 2.0f * s.r / (float)r->desc.shadow_map_size;
            prev_split = split;
        }
        whole = slice_sphere(world_from_view, tan_y, aspect, znear, dist, v->orthographic, half_h);
    }

    phase_mark(r, RILL__CPU_SETUP);

    /* Cull and sort. */
    rill_array_clear(&r->opaque);
    rill_array_clear(&r->transparent);
    rill_array_clear(&r->casters);
    rill_array_clear(&r->wires);
    r->casters_plain = 0;
    const rill_render_wireframe *wf = &snap->wireframe;
    bool wf_default_color =
        wf->color[0] == 0 && wf->color[1] == 0 && wf->color[2] == 0 && wf->color[3] == 0;
    static const float wf_color[4] = {0.2f, 0.85f, 1.0f, 0.65f};
    memcpy(r->wire_color, wf_default_color ? wf_color : wf->color, sizeof(r->wire_color));
    r->wire_fade[0] = wf->fade_start > 0.0f ? wf->fade_start : 8.0f;
    r->wire_fade[1] =
        wf->fade_end > r->wire_fade[0] ? wf->fade_end : RILL_MAX(40.0f, r->wire_fade[0] + 1.0f);
    r->wire_fade[2] = wf->min_alpha > 0.0f ? wf->min_alpha : 0.08f;
    r->wire_fade[3] = wf->fade ? 1.0f : 0.0f;
    r->instances_submitted = snap->instance_count;
    vec3 cam_pos = {world_from_view[3][0], world_from_view[3][1], world_from_view[3][2]};
    vec3 cam_fwd = {-world_from_view[2][0], -world_from_view[2][1], -world_from_view[2][2]};
    /* Every list holds at most one item per instance: reserve once so the loop below writes
     * items without a capacity check (the arrays keep their memory across frames). */
    uint32_t ninst_in = snap->instance_count;
    if (!rill_array_reserve(&r->opaque, ninst_in ? ninst_in : 1) ||
        !rill_array_reserve(&r->transparent, ninst_in ? ninst_in : 1) ||
        !rill_array_reserve(&r->casters, ninst_in ? ninst_in : 1) ||
        !rill_array_reserve(&r->wires, ninst_in ? ninst_in : 1))
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory for draw lists");
    draw_item *opaque = r->opaque.data, *transparent = r->transparent.data,
              *casters = r->casters.data, *wires = r->wires.data;
    uint32_t n_opaque = 0, n_transparent = 0, n_casters = 0, n_wires = 0, n_plain = 0;
    handle_cache mesh_cache, mat_cache;
    handle_cache_reset(&mesh_cache);
    handle_cache_reset(&mat_cache);
    /* Instances go through in chunks: a scalar loop resolves handles, records motion history and
     * writes world bounding spheres into flat arrays; branch-free loops over those arrays test
     * the view frustum and the shadow volume (the compiler vectorizes them); a last loop sorts
     * the results into the draw lists. */
    cull_chunk ch;
    for (uint32_t base = 0; base < snap->instance_count;) {
        uint32_t m = 0;
        for (; base < snap->instance_count && m < CULL_CHUNK; base++) {
            const rill_render_instance *in = &snap->instances[base];
            if (in->mode == RILL_RENDER_MODE_HIDDEN)
                continue; /* hidden: no pass sees it */
            int32_t mi = cached_mesh_index(r, &mesh_cache, in->mesh.id);
            int32_t ti = cached_material_index(r, &mat_cache, in->material.id);
            if (mi < 0 || ti < 0)
                continue; /* not uploaded yet, or stale: draws nothing */
            sphere s = world_sphere(in->transform, &r->meshes[mi]);
            ch.x[m] = s.c[0];
            ch.y[m] = s.c[1];
            ch.z[m] = s.c[2];
            ch.r[m] = s.r;
            ch.inst[m] = base;
            ch.prev[m] = track_instance(r, in, base);
            ch.mesh[m] = (uint16_t)mi;
            ch.mat[m] = (uint16_t)ti;
            m++;
        }
        cull_frustum(&ch, m, planes);
        if (shadows)
            cull_shadow(&ch, m, whole.c, whole.r, sun_dir);
        for (uint32_t j = 0; j < m; j++) {
            uint32_t i = ch.inst[j], prev = ch.prev[j], mi = ch.mesh[j], ti = ch.mat[j];
            const rill_render_instance *in = &snap->instances[i];
            const mat_slot *mt = &r->materials[ti];
            if (in->mode == RILL_RENDER_MODE_WIREFRAME) {
                /* Wireframes skip prepass, opaque and shadows; with fade on, beyond fade_end
                 * nothing. */
                vec3 c = {ch.x[j], ch.y[j], ch.z[j]};
                bool too_far =
                    wf->fade && glm_vec3_distance(c, cam_pos) - ch.r[j] > r->wire_fade[1];
                if (r->wire_pipe && !too_far && ch.visible[j])
                    wires[n_wires++] = (draw_item){(uint64_t)mi, i, prev};
                continue;
            }
            if (ch.visible[j]) {
                if (mt->alpha_mode == RILL_ALPHA_BLEND) {
                    vec3 c = {ch.x[j], ch.y[j], ch.z[j]}, d;
                    glm_vec3_sub(c, cam_pos, d);
                    float depth = fmaxf(glm_vec3_dot(d, cam_fwd), 0.0f);
                    uint32_t bits;
                    memcpy(&bits, &depth, sizeof(bits));
                    transparent[n_transparent++] =
                        (draw_item){(uint64_t)(UINT32_MAX - bits), i, prev};
                } else {
                    /* Pool slots are below 65536, so 16 bits each keep the (double-sided,
                     * material, mesh) order and the key fits in 33 bits. */
                    uint64_t key =
                        ((uint64_t)mt->double_sided << 32) | ((uint64_t)ti << 16) | (uint64_t)mi;
                    opaque[n_opaque++] = (draw_item){key, i, prev};
                }
            }
            if (shadows && mt->alpha_mode != RILL_ALPHA_BLEND && is_caster(&ch, j, whole.r)) {
                /* Masked casters sort after opaque ones and by material, which they bind. */
                uint64_t key = mt->alpha_mode == RILL_ALPHA_MASK
                                   ? (1ull << 32) | ((uint64_t)ti << 16) | (uint64_t)mi
                                   : (uint64_t)mi;
                casters[n_casters++] = (draw_item){key, i, prev};
                n_plain += mt->alpha_mode != RILL_ALPHA_MASK;
            }
        }
    }
    r->opaque.len = n_opaque;
    r->transparent.len = n_transparent;
    r->casters.len = n_casters;
    r->wires.len = n_wires;
    r->casters_plain = n_plain;
    phase_mark(r, RILL__CPU_CULL);
    /* The same capacity as the lists, so swapping buffers with them below never makes the next
     * frame's reserve grow an array. */
    if (!rill_array_reserve(&r->sort_tmp, ninst_in ? ninst_in : 1))
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: out of memory for draw lists");
#define SORT_LIST(list, bits)                                                                      \
    do {                                                                                           \
        if (radix_sort(r->list.data, r->sort_tmp.data, r->list.len, (bits)) != r->list.data) {     \
            draw_item *d_ = r->list.data;                                                          \
            uint32_t c_ = r->list.cap;                                                             \
            r->list.data = r->sort_tmp.data;                                                       \
            r->list.cap = r->sort_tmp.cap;                                                         \
            r->sort_tmp.data = d_;                                                                 \
            r->sort_tmp.cap = c_;                                                                  \
        }                                                                                          \
    } while (0)
    SORT_LIST(opaque, 33);
    SORT_LIST(transparent, 32);
    SORT_LIST(casters, 33);
    SORT_LIST(wires, 16);
#undef SORT_LIST
    r->instances_visible += r->opaque.len + r->transparent.len + r->wires.len;

    rill_result res = RILL_OK;

    phase_mark(r, RILL__CPU_SORT);

    /* Per-frame buffers. */
    gpu_frame *fr = rill__frame_alloc(cmd, sizeof(gpu_frame), 256, &r->frame_buf, &r->frame_off);
    uint32_t ninst = r->opaque.len + r->transparent.len + r->casters.len + r->wires.len;
    r->inst_size = (uint64_t)RILL_MAX(ninst, 1u) * sizeof(gpu_instance);
    gpu_instance *gi = rill__frame_alloc(cmd, r->inst_size, 256, &r->inst_buf, &r->inst_off);
    uint32_t nlights = RILL_MIN(snap->light_count, MAX_LIGHTS);
    r->light_size = (uint64_t)RILL_MAX(nlights, 1u) * sizeof(gpu_light);
    gpu_light *gl = rill__frame_alloc(cmd, r->light_size, 256, &r->light_buf, &r->light_off);
    if (!fr || !gi || !gl) {
        res =
            rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render: frame scratch allocation failed");
    } else {
        memset(fr, 0, sizeof(*fr));
        memcpy(fr->view, view, sizeof(mat4));
        memcpy(fr->proj, proj, sizeof(mat4));
        memcpy(fr->view_proj, vp, sizeof(mat4));
        memcpy(fr->prev_view_proj,
               r->have_prev_view_proj && motion ? r->prev_view_proj : (float *)vp, sizeof(mat4));
        for (uint32_t c = 0; c < r->cascades; c++)
            memcpy(fr->cascade_vp[c], r->cascade_vp[c], sizeof(mat4));
        memcpy(fr->cascade_far, cascade_far, sizeof(cascade_far));
        memcpy(fr->cascade_texel, cascade_texel, sizeof(cascade_texel));
        glm_vec3_copy(cam_pos, fr->camera_pos);
        fr->sun_dir[0] = -sun_dir[0], fr->sun_dir[1] = -sun_dir[1], fr->sun_dir[2] = -sun_dir[2];
        fr->sun_dir[3] = shadows ? 1.0f : 0.0f;
        if (sun)
            for (int k = 0; k < 3; k++)
                fr->sun_color[k] = snap->sun.color[k] * snap->sun.illuminance;
        fr->sun_color[3] = sun ? 1.0f : 0.0f;
        for (int k = 0; k < 3; k++)
            fr->ambient[k] = snap->ambient[k];
        fr->shadow_params[0] = 1.0f / (float)r->desc.shadow_map_size;
        fr->shadow_params[2] = (float)r->cascades;
        fr->counts[0] = nlights;
        const draw_item *lists[4] = {r->opaque.data, r->transparent.data, r->casters.data,
                                     r->wires.data};
        uint32_t lens[4] = {r->opaque.len, r->transparent.len, r->casters.len, r->wires.len};
        uint32_t k = 0;
        for (int l = 0; l < 4; l++) {
            const draw_item *items = lists[l];
            /* The shadow vertex shader reads only the model matrix, so casters skip the previous
             * one: a quarter less to write into (possibly write-combined) GPU memory. */
            bool with_prev = l != 2;
            for (uint32_t i = 0; i < lens[l]; i++, k++) {
                const rill_render_instance *in = &snap->instances[items[i].inst];
                memcpy(gi[k].model, in->transform, sizeof(float) * 16);
                if (with_prev)
                    memcpy(gi[k].prev_model, prev_model(r, in, items[i].prev), sizeof(float) * 16);
            }
        }
        memset(gl, 0, r->light_size);
        for (uint32_t i = 0; i < nlights; i++) {
            const rill_render_light *L = &snap->lights[i];
            float range = L->range > 0.0f ? L->range : 20.0f;
            memcpy(gl[i].pos_range, L->position, sizeof(float) * 3);
            gl[i].pos_range[3] = range;
            for (int c = 0; c < 3; c++)
                gl[i].color[c] = L->color[c] * L->intensity;
            vec3 dir;
            glm_vec3_copy((float *)L->direction, dir);
            if (glm_vec3_norm(dir) < 1e-6f)
                glm_vec3_copy((vec3){0.0f, -1.0f, 0.0f}, dir);
            glm_vec3_normalize(dir);
            memcpy(gl[i].dir_kind, dir, sizeof(float) * 3);
            gl[i].dir_kind[3] = L->kind == RILL_LIGHT_SPOT ? 1.0f : 0.0f;
            float outer = L->outer_angle > 0.0f ? L->outer_angle : 0.785398f;
            float inner = RILL_MIN(L->inner_angle, outer * 0.999f);
            gl[i].cone[0] = cosf(inner);
            gl[i].cone[1] = cosf(outer);
        }
        float cp[2] = {0, 0};
        res =
            build_clusters(r, cmd, snap, clustered ? nlights : 0, view, proj, znear, zfar, cp, err);
        fr->counts[1] = clustered ? 1u : 0u;
        fr->counts[2] = r->ssao_on ? 1u : 0u;
        fr->cluster_params[0] = cp[0];
        fr->cluster_params[1] = cp[1];
        fr->cluster_params[2] = (float)(uint32_t)((float)r->width * r->render_scale + 0.5f);
        fr->cluster_params[3] = (float)(uint32_t)((float)r->height * r->render_scale + 0.5f);
        phase_mark(r, RILL__CPU_UPLOAD);
    }
    return res;
}

/* Pixel span [a, a + len) of a normalized span [x, x + w) over size pixels (rounded, clamped). */
static void pixel_span(float x, float w, uint32_t size, uint32_t *a, uint32_t *len) {
    float x0 = RILL_CLAMP(x, 0.0f, 1.0f), x1 = RILL_CLAMP(x + w, x0, 1.0f);
    uint32_t p0 = (uint32_t)(x0 * (float)size + 0.5f), p1 = (uint32_t)(x1 * (float)size + 0.5f);
    *a = RILL_MIN(p0, size);
    *len = RILL_MIN(p1, size) - *a;
}

/* Whether a view covers the whole output (an all-zero viewport means it does). */
static bool view_whole(const rill_render_view *v) {
    const float *vr = v->viewport;
    if (vr[0] == 0.0f && vr[1] == 0.0f && vr[2] == 0.0f && vr[3] == 0.0f)
        return true;
    return vr[0] <= 0.0f && vr[1] <= 0.0f && vr[2] >= 1.0f && vr[3] >= 1.0f;
}

static rill_result record_frame(rill_renderer *r, rill__cmd *cmd, const rill_render_snapshot *snap,
                                mat4 vp, rill_error *err) {
    r->snap = snap;
    r->frame_counter++;
    r->draw_calls = 0;
    r->triangles = 0;
    r->instances_visible = 0;
    if (r->desc.glfw_window)
        rill__gpu_surface_size(r->gpu, &r->width, &r->height);
    /* The views: the snapshot's list when it has one, else its single view. One view over the
     * whole output records exactly as before; anything else goes view by view. */
    const rill_render_view *list = snap->views && snap->view_count ? snap->views : &snap->view;
    uint32_t count = snap->views && snap->view_count
                         ? RILL_MIN(snap->view_count, (uint32_t)RILL_RENDER_MAX_VIEWS)
                         : 1u;
    bool multi = count > 1 || !view_whole(&list[0]);
    const rill_render_view *primary = multi ? &list[0] : &snap->view;
    /* Quality tiers only ever switch effects off: SSAO runs at High. SSAO, bloom and auto
     * exposure work on the whole image, so they run for a single whole-output view only. */
    r->ssao_on = !multi && primary->ssao.enabled && r->desc.quality == RILL_RENDER_QUALITY_HIGH;
    r->bloom_on = !multi && primary->bloom.enabled && r->desc.quality != RILL_RENDER_QUALITY_LOW;
    r->auto_exposure_on =
        !multi && primary->auto_exposure.enabled && r->desc.quality != RILL_RENDER_QUALITY_LOW;
    bool clustered = !(r->desc.debug_flags & RILL_RENDER_DEBUG_FLAT_LIGHT_LIST);
    bool shadows = false;
    rill_result res = RILL_OK;
    r->view_count = 0;
    r->no_view = false;
    if (!multi) {
        r->view = primary;
        res = record_view(r, cmd, snap, primary, r->width, r->height, clustered, true, vp, &shadows,
                          err);
    } else {
        /* The light clusters tile the whole output, so views in rectangles take every light at
         * every pixel. */
        uint32_t w3 = (uint32_t)((float)r->width * r->render_scale + 0.5f);
        uint32_t h3 = (uint32_t)((float)r->height * r->render_scale + 0.5f);
        for (uint32_t i = 0; i < count && res == RILL_OK; i++) {
            const rill_render_view *v = &list[i];
            rill__view_slot *vs = &r->views[r->view_count];
            bool whole = view_whole(v);
            float vx = whole ? 0.0f : v->viewport[0], vy = whole ? 0.0f : v->viewport[1];
            float vw = whole ? 1.0f : v->viewport[2], vh = whole ? 1.0f : v->viewport[3];
            pixel_span(vx, vw, r->width, &vs->out_rect[0], &vs->out_rect[2]);
            pixel_span(vy, vh, r->height, &vs->out_rect[1], &vs->out_rect[3]);
            pixel_span(vx, vw, w3, &vs->rect[0], &vs->rect[2]);
            pixel_span(vy, vh, h3, &vs->rect[1], &vs->rect[3]);
            if (!vs->out_rect[2] || !vs->out_rect[3] || !vs->rect[2] || !vs->rect[3])
                continue; /* zero area: nothing to draw */
            vs->view = v;
            mat4 vvp;
            bool sh = false;
            swap_view(r, vs);
            res = record_view(r, cmd, snap, v, vs->out_rect[2], vs->out_rect[3], false,
                              r->view_count == 0, vvp, &sh, err);
            swap_view(r, vs);
            if (r->view_count == 0)
                glm_mat4_copy(vvp, vp);
            shadows |= sh;
            r->view_count++;
        }
        r->view = primary;
        /* The shadow map holds one view's cascades at a time; every view has the same count. */
        r->cascades = shadows ? r->desc.shadow_cascades : 0;
        if (res == RILL_OK && r->view_count == 0) {
            /* Nothing to draw: the passes still need valid state, so the first view records
             * as usual and tonemapping writes black. */
            res = record_view(r, cmd, snap, primary, r->width, r->height, false, true, vp, &shadows,
                              err);
            r->instances_visible = 0;
            r->no_view = true;
        }
    }
    if (res == RILL_OK)
        res = build_graph(r, shadows, err);
    phase_mark(r, RILL__CPU_GRAPH);
    if (res == RILL_OK)
        res = rill__graph_execute(r, cmd, err);
    phase_mark(r, RILL__CPU_COMMANDS);
    return res;
}
