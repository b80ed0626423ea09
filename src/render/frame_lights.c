/* frame_lights.c: one view's lights. The snapshot's point and spot lights go into the light
 * buffer (all of them when they fit in RILL_RENDER_MAX_LIGHTS, else the nearest to the view's
 * camera: the renderer alone decides which lights a view shades), and (clustered shading) are
 * binned into a froxel grid of CLUSTER_X x CLUSTER_Y tiles and CLUSTER_Z logarithmic depth slices,
 * so a pixel shades only the lights whose range reaches its cluster. */
#include "frame.h"

#include <math.h>
#include <string.h>

#include <cglm/cglm.h>

#define CLUSTER_X 16u
#define CLUSTER_Y 9u
#define CLUSTER_Z 24u
#define CLUSTER_COUNT (CLUSTER_X * CLUSTER_Y * CLUSTER_Z)
#define CLUSTER_MAX_REFS (1u << 20)

/* Must match `Light` in shaders/common.glsl (std430). */
typedef struct gpu_light {
    float pos_range[4];
    float color[4];
    float dir_kind[4];
    float cone[4];
} gpu_light;

typedef struct cluster_range {
    uint32_t x0, x1, y0, y1, z0, z1; /* inclusive; x0 > x1 = light touches nothing */
} cluster_range;

/* A light's range with its default (0: 20 m). */
static float light_range(const rill_render_light *L) {
    return L->range > 0.0f ? L->range : 20.0f;
}

static uint32_t slice_of(float z, float log_near, float scale) {
    float s = (logf(fmaxf(z, 1e-4f)) - log_near) * scale;
    return (uint32_t)RILL_CLAMP(s, 0.0f, (float)(CLUSTER_Z - 1));
}

/* Whether a view-space sphere lies wholly outside one of the frustum's four side planes (rows
 * w + x, w - x, w + y, w - y of the projection, normalized). No far plane: depths beyond the
 * grid's last slice are binned into it. */
static bool outside_sides(mat4 proj, const vec3 cv, float radius) {
    for (int k = 0; k < 4; k++) {
        int row = k / 2;
        float sign = (k & 1) ? -1.0f : 1.0f;
        float n[4];
        for (int col = 0; col < 4; col++) {
            n[col] = proj[col][3] + sign * proj[col][row];
        }
        float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (len > 0.0f && (n[0] * cv[0] + n[1] * cv[1] + n[2] * cv[2] + n[3]) < -radius * len) {
            return true;
        }
    }
    return false;
}

/* Conservative cluster bounds of a light's range sphere: depth slices from its view-space depth
 * interval, tiles from the screen rectangle of its view-space bounding box (the whole screen when
 * the box reaches the near plane). A sphere beside the frustum touches nothing: without that test
 * a light level with the camera but far to one side reached the near plane's depth and took every
 * tile of its slices (a capture face looking down from the demo's lobby binned its thousand
 * street lights that way: over a million references, the lights past them dropped). */
static cluster_range light_clusters(mat4 view, mat4 proj, const float pos[3], float radius,
                                    float znear, float log_near, float scale) {
    cluster_range c = {1, 0, 0, 0, 0, 0};
    vec3 cv;
    glm_mat4_mulv3(view, (float *)pos, 1.0f, cv);
    float zc = -cv[2];
    if (zc + radius < znear || outside_sides(proj, cv, radius)) {
        return c; /* entirely behind the camera, or beside the frustum */
    }
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
        if (nx0 > 1 || nx1 < -1 || ny0 > 1 || ny1 < -1) {
            return c; /* off screen */
        }
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

/* Counts each cluster's lights into counts[0, CLUSTER_COUNT) and keeps each light's range;
 * returns the number of references. */
static uint64_t count_clusters(rill_renderer *r, const rill_render_light *lights, uint32_t nlights,
                               mat4 view, mat4 proj, float znear, float log_near, float scale) {
    uint32_t *counts = r->cluster_counts.data;
    memset(counts, 0, CLUSTER_COUNT * sizeof(uint32_t));
    uint64_t total = 0;
    for (uint32_t i = 0; i < nlights; i++) {
        const rill_render_light *L = &lights[i];
        cluster_range c =
            light_clusters(view, proj, L->position, light_range(L), znear, log_near, scale);
        r->light_ranges.data[i] = c;
        if (c.x0 > c.x1) {
            continue;
        }
        for (uint32_t z = c.z0; z <= c.z1; z++) {
            for (uint32_t y = c.y0; y <= c.y1; y++) {
                for (uint32_t x = c.x0; x <= c.x1; x++) {
                    counts[(z * CLUSTER_Y + y) * CLUSTER_X + x]++;
                    total++;
                }
            }
        }
    }
    return total;
}

/* Bins the lights into the cluster grid (two passes: count, then fill) and uploads grid and index
 * list into the frame's scratch memory. */
static rill_result build_clusters(rill_renderer *r, rill__cmd *cmd, rill__view *vs,
                                  const rill_render_light *lights, uint32_t nlights, mat4 view,
                                  mat4 proj, float *out_params, rill_error *err) {
    float znear = vs->set.znear, zfar = vs->set.zfar;
    float cfar = fmaxf(fminf(zfar, 1000.0f), znear * 2.0f);
    float log_near = logf(znear), scale = (float)CLUSTER_Z / logf(cfar / znear);
    out_params[0] = scale;
    out_params[1] = log_near;
    if (!rill_array_reserve(&r->light_ranges, nlights ? nlights : 1) ||
        !rill_array_reserve(&r->cluster_counts, 3 * CLUSTER_COUNT)) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY,
                              "render: out of memory for light clusters");
    }
    uint64_t total = count_clusters(r, lights, nlights, view, proj, znear, log_near, scale);
    if (total > CLUSTER_MAX_REFS) {
        RILL_LOG_WARN("render", "%llu light-cluster references; lights beyond %u are dropped",
                      (unsigned long long)total, CLUSTER_MAX_REFS);
    }
    uint32_t refs = (uint32_t)RILL_MIN(total, (uint64_t)CLUSTER_MAX_REFS);
    r->light_cluster_refs = refs;
    vs->cluster_size = CLUSTER_COUNT * 2 * sizeof(uint32_t);
    vs->cluster_idx_size = (uint64_t)RILL_MAX(refs, 1u) * sizeof(uint32_t);
    uint32_t *grid =
        rill__frame_alloc(cmd, vs->cluster_size, 256, &vs->cluster_buf, &vs->cluster_off);
    uint32_t *idx = rill__frame_alloc(cmd, vs->cluster_idx_size, 256, &vs->cluster_idx_buf,
                                      &vs->cluster_idx_off);
    if (!grid || !idx) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY,
                              "render: frame scratch allocation failed");
    }
    /* Offsets; counts become the room left in each cell. The write cursors live in ordinary
     * memory: the grid is mapped GPU memory, often write-combined, where reads are very slow. */
    uint32_t *counts = r->cluster_counts.data;
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
        if (c.x0 > c.x1) {
            continue;
        }
        for (uint32_t z = c.z0; z <= c.z1; z++) {
            for (uint32_t y = c.y0; y <= c.y1; y++) {
                for (uint32_t x = c.x0; x <= c.x1; x++) {
                    uint32_t cell = (z * CLUSTER_Y + y) * CLUSTER_X + x;
                    if (counts[cell]) {
                        counts[cell]--;
                        idx[cursor[cell]++] = i;
                    }
                }
            }
        }
    }
    for (uint32_t c = 0; c < CLUSTER_COUNT; c++) {
        grid[2 * c + 1] = cursor[c] - start[c];
    }
    return RILL_OK;
}

static void write_light(gpu_light *g, const rill_render_light *L) {
    memcpy(g->pos_range, L->position, sizeof(float) * 3);
    g->pos_range[3] = light_range(L);
    for (int c = 0; c < 3; c++) {
        g->color[c] = L->color[c] * L->intensity;
    }
    vec3 dir;
    glm_vec3_copy((float *)L->direction, dir);
    if (glm_vec3_norm(dir) < 1e-6f) {
        glm_vec3_copy((vec3){0.0f, -1.0f, 0.0f}, dir);
    }
    glm_vec3_normalize(dir);
    memcpy(g->dir_kind, dir, sizeof(float) * 3);
    g->dir_kind[3] = L->kind == RILL_LIGHT_SPOT ? 1.0f : 0.0f;
    float outer = L->outer_angle > 0.0f ? L->outer_angle : 0.785398f;
    float inner = RILL_MIN(L->inner_angle, outer * 0.999f);
    g->cone[0] = cosf(inner);
    g->cone[1] = cosf(outer);
}

/* >>nearest lights ---------------------------------------------------------------------------- */

static void swap_f(float *v, uint32_t a, uint32_t b) {
    float t = v[a];
    v[a] = v[b];
    v[b] = t;
}

/* The k-th smallest (0-based) of v[0, n) with n > k, reordering v: quickselect with a middle
 * pivot and a three-way partition (many equal values stay linear). */
static float kth_smallest(float *v, uint32_t n, uint32_t k) {
    uint32_t lo = 0, hi = n; /* k lies in [lo, hi) */
    while (hi - lo > 1) {
        float pivot = v[lo + (hi - lo) / 2];
        uint32_t lt = lo, i = lo, gt = hi; /* [lo,lt) < pivot, [lt,gt) == pivot, [gt,hi) > */
        while (i < gt) {
            if (v[i] < pivot) {
                swap_f(v, lt++, i++);
            } else if (v[i] > pivot) {
                swap_f(v, i, --gt);
            } else {
                i++;
            }
        }
        if (k < lt) {
            hi = lt;
        } else if (k >= gt) {
            lo = gt;
        } else {
            return pivot;
        }
    }
    return v[lo];
}

/* The lights a view shades: the snapshot's when they fit in RILL_RENDER_MAX_LIGHTS, else the
 * RILL_RENDER_MAX_LIGHTS nearest eye (squared distance; a light at a NaN position counts as the
 * farthest; ties go to the earlier light), copied in snapshot order into r->view_lights. NULL
 * when out of memory. */
static const rill_render_light *view_light_set(rill_renderer *r, const rill_render_snapshot *snap,
                                               const float eye[3], uint32_t *out_n) {
    uint32_t n = snap->light_count, keep = RILL_RENDER_MAX_LIGHTS;
    *out_n = RILL_MIN(n, keep);
    if (n <= keep) {
        return snap->lights;
    }
    r->light_d2.len = r->view_lights.len = 0;
    float *d2 = rill_array_push_n(&r->light_d2, 2u * n);
    if (!d2 || !rill_array_reserve(&r->view_lights, keep)) {
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++) {
        const float *p = snap->lights[i].position;
        float dx = p[0] - eye[0], dy = p[1] - eye[1], dz = p[2] - eye[2];
        float d = dx * dx + dy * dy + dz * dz;
        d2[i] = d2[n + i] = d == d ? d : INFINITY;
    }
    float bound = kth_smallest(d2 + n, n, keep - 1);
    uint32_t below = 0;
    for (uint32_t i = 0; i < n; i++) {
        below += d2[i] < bound;
    }
    uint32_t ties = keep - below; /* lights at exactly the bound distance that still fit */
    for (uint32_t i = 0; i < n && r->view_lights.len < keep; i++) {
        if (d2[i] < bound || (d2[i] == bound && ties && ties--)) {
            r->view_lights.data[r->view_lights.len++] = snap->lights[i];
        }
    }
    return r->view_lights.data;
}

rill_result rill__view_lights(rill_renderer *r, rill__cmd *cmd, rill__view *vs, mat4 view,
                              mat4 proj, bool clustered, rill__gpu_frame *fr, rill_error *err) {
    const float *wfv = vs->set.world_from_view;
    uint32_t nlights = 0;
    const rill_render_light *lights = view_light_set(r, vs->snap, &wfv[12], &nlights);
    vs->light_size = (uint64_t)RILL_MAX(nlights, 1u) * sizeof(gpu_light);
    gpu_light *gl = rill__frame_alloc(cmd, vs->light_size, 256, &vs->light_buf, &vs->light_off);
    if (!gl || (nlights && !lights)) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY,
                              "render: frame scratch allocation failed");
    }
    memset(gl, 0, vs->light_size);
    for (uint32_t i = 0; i < nlights; i++) {
        write_light(&gl[i], &lights[i]);
    }
    float cp[2] = {0, 0};
    rill_result res =
        build_clusters(r, cmd, vs, lights, clustered ? nlights : 0, view, proj, cp, err);
    fr->counts[0] = nlights;
    fr->counts[1] = clustered ? 1u : 0u;
    fr->cluster_params[0] = cp[0];
    fr->cluster_params[1] = cp[1];
    return res;
}
