/* graph.c: the render graph's bookkeeping (see rill/render/graph.h). It never touches the GPU:
 * compiling produces an execution order, the culled set, physical slots for transient images and
 * per-pass barrier lists in terms of rill_rg_usage; src/render/exec.c turns those into commands.
 *
 * Names and labels are interned (rill_intern), so comparing two names is a pointer compare and a
 * graph rebuilt every frame allocates nothing once its arrays have grown.
 */
#include "rill/render/graph.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct rg_res {
    const char *name;
    bool is_image, imported, output;
    rill_rg_image_desc desc; /* resolved at compile */
    void *external;
    rill_rg_usage initial, final;
    int32_t slot;
    int32_t first, last;     /* order indices of first and last use, -1 when unused */
    uint32_t base_w, base_h; /* what a view-relative size is relative to (0: the graph's view) */
} rg_res;

typedef struct rg_pass {
    const char *label;
    rill_rg_exec_fn exec;
    void *user;
    bool side_effect;
    bool culled;
    int32_t order;
} rg_pass;

typedef struct rg_access {
    uint32_t pass;
    int32_t res;
    rill_rg_usage usage;
} rg_access;

typedef struct rg_edge {
    uint32_t from, to;
} rg_edge;

typedef struct rg_slot {
    rill_rg_image_desc desc;
    int32_t last;
} rg_slot;

struct rill_rg {
    uint32_t view_w, view_h;
    /* rill_rg_begin_view's scope: view N's passes and images, sized relative to scope_w x scope_h
     * (in_scope false: none) */
    bool in_scope;
    uint32_t scope_view, scope_w, scope_h;
    rill_error failed; /* the first building error, returned again by every later call */
    RILL_ARRAY(rg_res) res;
    RILL_ARRAY(rg_pass) passes;
    RILL_ARRAY(rg_access) acc;
    RILL_ARRAY(rg_edge) edges;
    /* results */
    bool compiled;
    RILL_ARRAY(uint32_t) order; /* pass indices in execution order (kept passes only) */
    RILL_ARRAY(rill_rg_barrier) barriers;
    RILL_ARRAY(uint32_t) barrier_start; /* per ordered pass, plus one for the final barriers */
    RILL_ARRAY(rg_slot) slots;
    /* scratch, reused between compiles */
    RILL_ARRAY(uint8_t) dep;   /* n x n: dep[a*n+b] = a must run before b */
    RILL_ARRAY(uint8_t) reach; /* n x n explicit-edge reachability */
    RILL_ARRAY(uint32_t) indeg;
    RILL_ARRAY(uint32_t) seq; /* every pass in topological order, culled ones included */
    RILL_ARRAY(uint8_t) flags;
    RILL_ARRAY(rill_rg_usage) state;
};

/* >>names ----------------------------------------------------------------------------------- */

bool rill_rg_usage_is_write(rill_rg_usage usage) {
    switch (usage) {
    case RILL_RG_USAGE_COLOR_WRITE:
    case RILL_RG_USAGE_DEPTH_WRITE:
    case RILL_RG_USAGE_STORAGE_WRITE:
    case RILL_RG_USAGE_STORAGE_FRAGMENT:
    case RILL_RG_USAGE_TRANSFER_DST:
        return true;
    default:
        return false;
    }
}

static bool usage_is_image_only(rill_rg_usage u) {
    return u == RILL_RG_USAGE_COLOR_WRITE || u == RILL_RG_USAGE_DEPTH_WRITE ||
           u == RILL_RG_USAGE_DEPTH_READ || u == RILL_RG_USAGE_SAMPLED_FRAGMENT ||
           u == RILL_RG_USAGE_SAMPLED_COMPUTE || u == RILL_RG_USAGE_PRESENT;
}

static bool usage_is_buffer_only(rill_rg_usage u) {
    return u == RILL_RG_USAGE_SHADER_READ || u == RILL_RG_USAGE_VERTEX_INPUT ||
           u == RILL_RG_USAGE_STORAGE_FRAGMENT;
}

const char *rill_rg_usage_name(rill_rg_usage usage) {
    switch (usage) {
        RILL_RG_USAGE_LIST(RILL_ENUM_NAME_CASE)
    default:
        return "unknown";
    }
}

const char *rill_rg_format_name(rill_rg_format format) {
    switch (format) {
        RILL_RG_FORMAT_LIST(RILL_ENUM_NAME_CASE)
    default:
        return "unknown";
    }
}

/* >>lifetime -------------------------------------------------------------------------------- */

rill_rg *rill_rg_create(void) {
    rill_rg *g = rill_calloc_tagged(1, sizeof(*g), RILL_MEM_RENDER);
    if (g) {
        g->view_w = 1;
        g->view_h = 1;
    }
    return g;
}

/* The arrays a reset empties (what one build and compile made), then the compile scratch, which
 * only destroy frees: one list each, so a new array cannot be forgotten in one of the two. */
#define RG_BUILT_ARRAYS(X)                                                                         \
    X(res) X(passes) X(acc) X(edges) X(order) X(barriers) X(barrier_start) X(slots)
#define RG_SCRATCH_ARRAYS(X) X(dep) X(reach) X(indeg) X(seq) X(flags) X(state)
#define RG_FREE(a) rill_array_free(&g->a);
#define RG_CLEAR(a) rill_array_clear(&g->a);

void rill_rg_destroy(rill_rg *g) {
    if (!g) {
        return;
    }
    RG_BUILT_ARRAYS(RG_FREE)
    RG_SCRATCH_ARRAYS(RG_FREE)
    rill_free(g);
}

void rill_rg_reset(rill_rg *g) {
    if (!g) {
        return;
    }
    RG_BUILT_ARRAYS(RG_CLEAR)
    rill_error_clear(&g->failed);
    g->compiled = false;
    g->in_scope = false;
}

void rill_rg_set_view_size(rill_rg *g, uint32_t width, uint32_t height) {
    if (!g) {
        return;
    }
    g->view_w = width ? width : 1;
    g->view_h = height ? height : 1;
    g->compiled = false;
}

void rill_rg_begin_view(rill_rg *g, uint32_t view, uint32_t width, uint32_t height) {
    if (!g) {
        return;
    }
    g->in_scope = true;
    g->scope_view = view;
    g->scope_w = width ? width : 1;
    g->scope_h = height ? height : 1;
}

void rill_rg_end_view(rill_rg *g) {
    if (g) {
        g->in_scope = false;
    }
}

/* >>building -------------------------------------------------------------------------------- */

/* Records the first building error (later calls return it again) and copies it to err. */
static rill_result fail(rill_rg *g, rill_error *err, rill_result code, const char *fmt, ...)
    RILL_PRINTF(4, 5);
static rill_result fail(rill_rg *g, rill_error *err, rill_result code, const char *fmt, ...) {
    if (g->failed.code == RILL_OK) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(g->failed.msg, sizeof(g->failed.msg), fmt, ap);
        va_end(ap);
        g->failed.code = code;
    }
    if (err) {
        *err = g->failed;
    }
    return g->failed.code;
}

/* The sticky error, when an earlier call failed: copied to err and returned. */
static rill_result failed(const rill_rg *g, rill_error *err) {
    if (g->failed.code != RILL_OK && err) {
        *err = g->failed;
    }
    return g->failed.code;
}

static int32_t find_pass(const rill_rg *g, const char *interned) {
    for (uint32_t i = 0; i < g->passes.len; i++) {
        if (g->passes.data[i].label == interned) {
            return (int32_t)i;
        }
    }
    return -1;
}

static int32_t find_res(const rill_rg *g, const char *interned) {
    for (uint32_t i = 0; i < g->res.len; i++) {
        if (g->res.data[i].name == interned) {
            return (int32_t)i;
        }
    }
    return -1;
}

/* The resource index behind a handle id of the given kind, or -1. */
static int32_t res_of(const rill_rg *g, uint32_t id, bool is_image) {
    return g && id && id <= g->res.len && g->res.data[id - 1].is_image == is_image ? (int32_t)id - 1
                                                                                   : -1;
}

/* base for view 0, "base.N" for view N, interned; NULL when out of memory. */
static const char *view_name(const char *base, uint32_t view) {
    if (view == 0) {
        return rill_intern(base);
    }
    char buf[128];
    snprintf(buf, sizeof(buf), "%s.%u", base, view);
    return rill_intern(buf);
}

/* Adds a resource; its handle id (index + 1), or 0 with the error recorded. scoped: inside a
 * view scope the name is the view's ("name.N") and a view-relative size is the scope's. */
static uint32_t add_res_in(rill_rg *g, const char *name, bool scoped, bool is_image, bool imported,
                           const rill_rg_image_desc *desc, void *external, rill_rg_usage initial,
                           rill_rg_usage final, rill_error *err) {
    if (!g) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render graph: NULL");
        return 0;
    }
    if (failed(g, err) != RILL_OK) {
        return 0;
    }
    if (!name || !name[0]) {
        fail(g, err, RILL_ERR_INVALID_ARGUMENT, "render graph: resource needs a name");
        return 0;
    }
    scoped = scoped && g->in_scope;
    const char *n = scoped ? view_name(name, g->scope_view) : rill_intern(name);
    if (!n) {
        fail(g, err, RILL_ERR_OUT_OF_MEMORY, "render graph: out of memory");
        return 0;
    }
    if (find_res(g, n) >= 0) {
        fail(g, err, RILL_ERR_ALREADY_EXISTS, "render graph: resource '%s' declared twice", name);
        return 0;
    }
    rg_res r;
    memset(&r, 0, sizeof(r));
    r.name = n;
    r.is_image = is_image;
    r.imported = imported;
    if (desc) {
        r.desc = *desc;
    }
    r.external = external;
    r.initial = initial;
    r.final = final;
    r.slot = -1;
    if (scoped) {
        r.base_w = g->scope_w;
        r.base_h = g->scope_h;
    }
    if (!rill_array_push(&g->res, r)) {
        fail(g, err, RILL_ERR_OUT_OF_MEMORY, "render graph: out of memory");
        return 0;
    }
    g->compiled = false;
    return g->res.len;
}

static uint32_t add_res(rill_rg *g, const char *name, bool is_image, bool imported,
                        const rill_rg_image_desc *desc, void *external, rill_rg_usage initial,
                        rill_rg_usage final, rill_error *err) {
    return add_res_in(g, name, true, is_image, imported, desc, external, initial, final, err);
}

rill_rg_image rill_rg_create_image(rill_rg *g, const char *name, const rill_rg_image_desc *desc,
                                   rill_error *err) {
    rill_rg_image h = {
        add_res(g, name, true, false, desc, NULL, RILL_RG_USAGE_NONE, RILL_RG_USAGE_NONE, err)};
    return h;
}

/* The handle's resource for a building call; -1 with the error recorded when it is none or
 * stale. */
static int32_t image_arg(rill_rg *g, rill_rg_image image, const char *what, rill_error *err) {
    int32_t i = res_of(g, image.id, true);
    if (i < 0 && failed(g, err) == RILL_OK) {
        fail(g, err, RILL_ERR_INVALID_ARGUMENT, "render graph: %s: no such image (handle %u)", what,
             image.id);
    }
    return i;
}

rill_rg_image rill_rg_create_image_like(rill_rg *g, const char *name, rill_rg_image like,
                                        rill_error *err) {
    rill_rg_image none = {0};
    if (!g) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render graph: NULL");
        return none;
    }
    int32_t i = image_arg(g, like, name ? name : "create_image_like", err);
    if (i < 0) {
        return none;
    }
    rill_rg_image_desc d = g->res.data[i].desc;
    return rill_rg_create_image(g, name, &d, err);
}

rill_rg_image rill_rg_create_view_image(rill_rg *g, rill_rg_image base, uint32_t view,
                                        rill_error *err) {
    rill_rg_image none = {0};
    if (!g) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render graph: NULL");
        return none;
    }
    int32_t i = image_arg(g, base, "create_view_image", err);
    if (i < 0) {
        return none;
    }
    const char *n = view_name(g->res.data[i].name, view);
    rill_rg_image_desc d = g->res.data[i].desc;
    uint32_t bw = g->res.data[i].base_w, bh = g->res.data[i].base_h;
    rill_rg_image h = {add_res_in(g, n, false, true, false, &d, NULL, RILL_RG_USAGE_NONE,
                                  RILL_RG_USAGE_NONE, err)};
    if (h.id) {
        g->res.data[h.id - 1].base_w = bw;
        g->res.data[h.id - 1].base_h = bh;
    }
    return h;
}

rill_rg_image rill_rg_import_image(rill_rg *g, const char *name, const rill_rg_image_desc *desc,
                                   void *external, rill_rg_usage initial, rill_rg_usage final,
                                   rill_error *err) {
    rill_rg_image h = {add_res(g, name, true, true, desc, external, initial, final, err)};
    return h;
}

rill_rg_buffer rill_rg_import_buffer(rill_rg *g, const char *name, void *external,
                                     rill_rg_usage initial, rill_rg_usage final, rill_error *err) {
    rill_rg_buffer h = {add_res(g, name, false, true, NULL, external, initial, final, err)};
    return h;
}

rill_rg_pass rill_rg_add_pass(rill_rg *g, const rill_rg_pass_desc *desc, rill_error *err) {
    rill_rg_pass none = {0};
    if (!g) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render graph: NULL");
        return none;
    }
    if (failed(g, err) != RILL_OK) {
        return none;
    }
    if (!desc || !desc->label || !desc->label[0]) {
        fail(g, err, RILL_ERR_INVALID_ARGUMENT, "render graph: pass needs a label");
        return none;
    }
    uint32_t view = desc->view ? desc->view : (g->in_scope ? g->scope_view : 0u);
    const char *label = view_name(desc->label, view);
    if (!label) {
        fail(g, err, RILL_ERR_OUT_OF_MEMORY, "render graph: out of memory");
        return none;
    }
    if (find_pass(g, label) >= 0) {
        fail(g, err, RILL_ERR_ALREADY_EXISTS, "render graph: pass '%s' added twice", label);
        return none;
    }
    rg_pass p;
    memset(&p, 0, sizeof(p));
    p.label = label;
    p.exec = desc->exec;
    p.user = desc->user;
    p.side_effect = desc->side_effect;
    p.order = -1;
    if (!rill_array_push(&g->passes, p)) {
        fail(g, err, RILL_ERR_OUT_OF_MEMORY, "render graph: out of memory");
        return none;
    }
    g->compiled = false;
    rill_rg_pass h = {g->passes.len};
    return h;
}

/* The pass index behind a handle, or -1 with the error recorded. */
static int32_t pass_arg(rill_rg *g, rill_rg_pass pass, rill_error *err) {
    if (pass.id && pass.id <= g->passes.len) {
        return (int32_t)pass.id - 1;
    }
    if (failed(g, err) == RILL_OK) {
        fail(g, err, RILL_ERR_INVALID_ARGUMENT, "render graph: no such pass (handle %u)", pass.id);
    }
    return -1;
}

static rill_result use(rill_rg *g, rill_rg_pass pass, uint32_t id, bool is_image,
                       rill_rg_usage usage, rill_error *err) {
    if (!g) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render graph: NULL");
    }
    if (failed(g, err) != RILL_OK) {
        return g->failed.code;
    }
    int32_t p = pass_arg(g, pass, err);
    int32_t r = res_of(g, id, is_image);
    if (p < 0) {
        return g->failed.code;
    }
    const char *pl = g->passes.data[p].label;
    if (r < 0) {
        return fail(g, err, RILL_ERR_INVALID_ARGUMENT, "render graph: pass '%s' uses no such %s",
                    pl, is_image ? "image" : "buffer");
    }
    const char *rn = g->res.data[r].name;
    if (usage == RILL_RG_USAGE_NONE || (unsigned)usage >= RILL_RG_USAGE_NUM ||
        (is_image && usage_is_buffer_only(usage)) || (!is_image && usage_is_image_only(usage))) {
        return fail(g, err, RILL_ERR_INVALID_ARGUMENT, "render graph: pass '%s' uses %s '%s' as %s",
                    pl, is_image ? "image" : "buffer", rn, rill_rg_usage_name(usage));
    }
    for (uint32_t i = 0; i < g->acc.len; i++) {
        if (g->acc.data[i].pass == (uint32_t)p && g->acc.data[i].res == r) {
            return fail(g, err, RILL_ERR_ALREADY_EXISTS,
                        "render graph: pass '%s' accesses '%s' twice", pl, rn);
        }
    }
    rg_access a = {(uint32_t)p, r, usage};
    if (!rill_array_push(&g->acc, a)) {
        return fail(g, err, RILL_ERR_OUT_OF_MEMORY, "render graph: out of memory");
    }
    g->compiled = false;
    return RILL_OK;
}

rill_result rill_rg_use_image(rill_rg *g, rill_rg_pass pass, rill_rg_image image,
                              rill_rg_usage usage, rill_error *err) {
    return use(g, pass, image.id, true, usage, err);
}

rill_result rill_rg_use_buffer(rill_rg *g, rill_rg_pass pass, rill_rg_buffer buffer,
                               rill_rg_usage usage, rill_error *err) {
    return use(g, pass, buffer.id, false, usage, err);
}

rill_result rill_rg_add_edge(rill_rg *g, rill_rg_pass from, rill_rg_pass to, rill_error *err) {
    if (!g) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render graph: NULL");
    }
    if (failed(g, err) != RILL_OK) {
        return g->failed.code;
    }
    int32_t a = pass_arg(g, from, err);
    int32_t b = a < 0 ? -1 : pass_arg(g, to, err);
    if (b < 0) {
        return g->failed.code;
    }
    if (a == b) {
        return fail(g, err, RILL_ERR_INVALID_ARGUMENT, "render graph: edge from '%s' to itself",
                    g->passes.data[a].label);
    }
    rg_edge e = {(uint32_t)a, (uint32_t)b};
    if (!rill_array_push(&g->edges, e)) {
        return fail(g, err, RILL_ERR_OUT_OF_MEMORY, "render graph: out of memory");
    }
    g->compiled = false;
    return RILL_OK;
}

rill_result rill_rg_add_edges(rill_rg *g, const rill_rg_pass *passes, uint32_t count,
                              rill_error *err) {
    for (uint32_t i = 0; i + 1 < count; i++) {
        RILL_TRY(rill_rg_add_edge(g, passes[i], passes[i + 1], err));
    }
    return RILL_OK;
}

rill_result rill_rg_mark_output(rill_rg *g, rill_rg_image image, rill_error *err) {
    if (!g) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render graph: NULL");
    }
    if (failed(g, err) != RILL_OK) {
        return g->failed.code;
    }
    int32_t r = image_arg(g, image, "mark_output", err);
    if (r < 0) {
        return g->failed.code;
    }
    g->res.data[r].output = true;
    g->compiled = false;
    return RILL_OK;
}

/* >>compile: validate ------------------------------------------------------------------------ */

static void resolve_desc(const rill_rg *g, const rg_res *res, rill_rg_image_desc *d) {
    if (d->format == RILL_RG_FORMAT_NONE) {
        d->format = RILL_RG_FORMAT_RGBA16F;
    }
    if (d->layers == 0) {
        d->layers = 1;
    }
    if (d->mips == 0) {
        d->mips = 1;
    }
    if (d->samples == 0) {
        d->samples = 1;
    }
    if (d->size_mode == RILL_RG_SIZE_VIEW_RELATIVE) {
        float s = d->scale > 0.0f ? d->scale : 1.0f;
        uint32_t bw = res->base_w ? res->base_w : g->view_w;
        uint32_t bh = res->base_h ? res->base_h : g->view_h;
        uint32_t w = (uint32_t)((float)bw * s + 0.5f);
        uint32_t h = (uint32_t)((float)bh * s + 0.5f);
        d->scale = s;
        d->width = w ? w : 1;
        d->height = h ? h : 1;
    } else {
        if (d->width == 0) {
            d->width = 1;
        }
        if (d->height == 0) {
            d->height = 1;
        }
    }
}

/* Unknown names and wrong kinds cannot happen with handles (building refuses them); what is left
 * to check is a transient read but never written. */
static rill_result phase_validate(rill_rg *g, rill_error *err) {
    for (uint32_t i = 0; i < g->res.len; i++) {
        rg_res *r = &g->res.data[i];
        if (r->is_image) {
            resolve_desc(g, r, &r->desc);
        }
        r->slot = -1;
        r->first = r->last = -1;
    }
    /* A transient that some pass reads must be written by some pass. */
    for (uint32_t i = 0; i < g->acc.len; i++) {
        const rg_access *a = &g->acc.data[i];
        const rg_res *r = &g->res.data[a->res];
        if (r->imported || rill_rg_usage_is_write(a->usage)) {
            continue;
        }
        bool written = false;
        for (uint32_t j = 0; j < g->acc.len && !written; j++) {
            written = g->acc.data[j].res == a->res && rill_rg_usage_is_write(g->acc.data[j].usage);
        }
        if (!written) {
            return rill_error_set(
                err, RILL_ERR_INVALID_ARGUMENT,
                "render graph: pass '%s' reads transient '%s' that no pass writes",
                g->passes.data[a->pass].label, r->name);
        }
    }
    return RILL_OK;
}

/* >>compile: cull --------------------------------------------------------------------------- */

static bool pass_writes_anything(const rill_rg *g, uint32_t p) {
    for (uint32_t i = 0; i < g->acc.len; i++) {
        if (g->acc.data[i].pass == p && rill_rg_usage_is_write(g->acc.data[i].usage)) {
            return true;
        }
    }
    return false;
}

static rill_result phase_cull(rill_rg *g, rill_error *err) {
    uint32_t np = g->passes.len, nr = g->res.len;
    /* flags: [0, np) pass needed, [np, np + nr) resource needed. */
    if (!rill_array_reserve(&g->flags, np + nr)) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render graph: out of memory");
    }
    uint8_t *need_pass = g->flags.data, *need_res = g->flags.data + np;
    memset(g->flags.data, 0, np + nr);
    for (uint32_t r = 0; r < nr; r++) {
        const rg_res *res = &g->res.data[r];
        need_res[r] = res->output || (res->imported && res->final != RILL_RG_USAGE_NONE);
    }
    for (uint32_t p = 0; p < np; p++) {
        need_pass[p] = g->passes.data[p].side_effect || !pass_writes_anything(g, p);
    }
    /* Fixed point: a needed pass needs what it reads; a needed resource needs its writers. */
    bool changed = true;
    while (changed) {
        changed = false;
        for (uint32_t i = 0; i < g->acc.len; i++) {
            const rg_access *a = &g->acc.data[i];
            bool w = rill_rg_usage_is_write(a->usage);
            if (need_pass[a->pass] && !w && !need_res[a->res]) {
                need_res[a->res] = 1;
                changed = true;
            }
            if (w && need_res[a->res] && !need_pass[a->pass]) {
                need_pass[a->pass] = 1;
                changed = true;
            }
        }
    }
    for (uint32_t p = 0; p < np; p++) {
        g->passes.data[p].culled = !need_pass[p];
    }
    return RILL_OK;
}

/* >>compile: order -------------------------------------------------------------------------- */

static rill_result phase_order(rill_rg *g, rill_error *err) {
    uint32_t n = g->passes.len;
    size_t nn = (size_t)n * n;
    if (nn > UINT32_MAX) {
        return rill_error_set(err, RILL_ERR_LIMIT, "render graph: too many passes");
    }
    if (!rill_array_reserve(&g->dep, (uint32_t)nn) ||
        !rill_array_reserve(&g->reach, (uint32_t)nn) || !rill_array_reserve(&g->indeg, n) ||
        !rill_array_reserve(&g->order, n)) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render graph: out of memory");
    }
    uint8_t *dep = g->dep.data, *reach = g->reach.data;
    memset(dep, 0, nn);
    memset(reach, 0, nn);
    for (uint32_t i = 0; i < g->edges.len; i++) {
        dep[g->edges.data[i].from * n + g->edges.data[i].to] = 1;
        reach[g->edges.data[i].from * n + g->edges.data[i].to] = 1;
    }
    /* Transitive closure of the explicit edges, so implicit writer order never fights them. */
    for (uint32_t k = 0; k < n; k++) {
        for (uint32_t i = 0; i < n; i++) {
            if (reach[i * n + k]) {
                for (uint32_t j = 0; j < n; j++) {
                    if (reach[k * n + j]) {
                        reach[i * n + j] = 1;
                    }
                }
            }
        }
    }
    for (uint32_t i = 0; i < g->acc.len; i++) {
        const rg_access *a = &g->acc.data[i];
        if (!rill_rg_usage_is_write(a->usage)) {
            continue;
        }
        for (uint32_t j = 0; j < g->acc.len; j++) {
            const rg_access *b = &g->acc.data[j];
            if (b->res != a->res || b->pass == a->pass) {
                continue;
            }
            if (!rill_rg_usage_is_write(b->usage)) {
                dep[a->pass * n + b->pass] = 1; /* readers wait for every writer */
            } else if (a->pass < b->pass && !reach[b->pass * n + a->pass]) {
                dep[a->pass * n + b->pass] = 1; /* writers in the order they were added */
            }
        }
    }
    uint32_t *indeg = g->indeg.data;
    for (uint32_t j = 0; j < n; j++) {
        indeg[j] = 0;
        for (uint32_t i = 0; i < n; i++) {
            indeg[j] += dep[i * n + j];
        }
    }
    /* Kahn's algorithm, always taking the earliest-added ready pass: stable. */
    uint32_t done = 0;
    uint32_t *full = g->indeg.data; /* a taken pass is marked UINT32_MAX */
    rill_array_clear(&g->order);
    rill_array_clear(&g->seq);
    if (!rill_array_reserve(&g->seq, n ? n : 1)) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render graph: out of memory");
    }
    while (done < n) {
        uint32_t pick = UINT32_MAX;
        for (uint32_t i = 0; i < n; i++) {
            if (full[i] == 0) {
                pick = i;
                break;
            }
        }
        if (pick == UINT32_MAX) {
            break;
        }
        full[pick] = UINT32_MAX;
        g->seq.data[g->seq.len++] = pick;
        done++;
        for (uint32_t j = 0; j < n; j++) {
            if (dep[pick * n + j] && full[j] != UINT32_MAX) {
                full[j]--;
            }
        }
    }
    if (done < n) {
        char names[256] = "";
        size_t used = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (full[i] == UINT32_MAX) {
                continue;
            }
            int w = snprintf(names + used, sizeof(names) - used, "%s%s", used ? ", " : "",
                             g->passes.data[i].label);
            if (w < 0 || (size_t)w >= sizeof(names) - used) {
                break;
            }
            used += (size_t)w;
        }
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                              "render graph: cycle among passes: %s", names);
    }
    for (uint32_t i = 0; i < g->seq.len; i++) {
        rg_pass *p = &g->passes.data[g->seq.data[i]];
        if (p->culled) {
            continue;
        }
        p->order = (int32_t)g->order.len;
        g->order.data[g->order.len++] = g->seq.data[i];
    }
    return RILL_OK;
}

/* >>compile: allocate ----------------------------------------------------------------------- */

static bool desc_equal(const rill_rg_image_desc *a, const rill_rg_image_desc *b) {
    return a->format == b->format && a->width == b->width && a->height == b->height &&
           a->layers == b->layers && a->mips == b->mips && a->array_view == b->array_view &&
           a->samples == b->samples;
}

static rill_result phase_allocate(rill_rg *g, rill_error *err) {
    for (uint32_t i = 0; i < g->acc.len; i++) {
        const rg_access *a = &g->acc.data[i];
        int32_t o = g->passes.data[a->pass].order;
        if (o < 0) {
            continue;
        }
        rg_res *r = &g->res.data[a->res];
        if (r->first < 0 || o < r->first) {
            r->first = o;
        }
        if (o > r->last) {
            r->last = o;
        }
    }
    rill_array_clear(&g->slots);
    /* Greedy in order of first use: reuse a slot with the same description whose previous user is
     * finished; transients never overlap in time inside one slot. */
    for (int32_t o = 0; o < (int32_t)g->order.len; o++) {
        for (uint32_t i = 0; i < g->res.len; i++) {
            rg_res *r = &g->res.data[i];
            if (r->imported || !r->is_image || r->first != o) {
                continue;
            }
            int32_t pick = -1;
            for (uint32_t s = 0; s < g->slots.len; s++) {
                if (g->slots.data[s].last < o && desc_equal(&g->slots.data[s].desc, &r->desc)) {
                    pick = (int32_t)s;
                    break;
                }
            }
            if (pick < 0) {
                rg_slot s = {r->desc, -1};
                if (!rill_array_push(&g->slots, s)) {
                    return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY,
                                          "render graph: out of memory");
                }
                pick = (int32_t)g->slots.len - 1;
            }
            g->slots.data[pick].last = r->last;
            r->slot = pick;
        }
    }
    return RILL_OK;
}

/* >>compile: barriers ----------------------------------------------------------------------- */

static rill_result phase_barriers(rill_rg *g, rill_error *err) {
    if (!rill_array_reserve(&g->state, g->res.len ? g->res.len : 1) ||
        !rill_array_reserve(&g->barrier_start, g->order.len + 2)) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render graph: out of memory");
    }
    for (uint32_t r = 0; r < g->res.len; r++) {
        g->state.data[r] = g->res.data[r].imported ? g->res.data[r].initial : RILL_RG_USAGE_NONE;
    }
    rill_array_clear(&g->barriers);
    rill_array_clear(&g->barrier_start);
    for (uint32_t o = 0; o < g->order.len; o++) {
        g->barrier_start.data[g->barrier_start.len++] = g->barriers.len;
        uint32_t p = g->order.data[o];
        for (uint32_t i = 0; i < g->acc.len; i++) {
            const rg_access *a = &g->acc.data[i];
            if (a->pass != p) {
                continue;
            }
            const rg_res *r = &g->res.data[a->res];
            rill_rg_usage prev = g->state.data[a->res];
            bool need = prev != a->usage || rill_rg_usage_is_write(a->usage);
            if (!r->is_image && prev == RILL_RG_USAGE_NONE) {
                need = false; /* host writes are made visible by the queue submission */
            }
            if (need) {
                rill_rg_barrier b = {(uint32_t)a->res, r->is_image, prev, a->usage};
                if (!rill_array_push(&g->barriers, b)) {
                    return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY,
                                          "render graph: out of memory");
                }
            }
            g->state.data[a->res] = a->usage;
        }
    }
    g->barrier_start.data[g->barrier_start.len++] = g->barriers.len;
    for (uint32_t r = 0; r < g->res.len; r++) {
        const rg_res *res = &g->res.data[r];
        if (res->imported && res->final != RILL_RG_USAGE_NONE && g->state.data[r] != res->final) {
            rill_rg_barrier b = {r, res->is_image, g->state.data[r], res->final};
            if (!rill_array_push(&g->barriers, b)) {
                return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "render graph: out of memory");
            }
        }
    }
    g->barrier_start.data[g->barrier_start.len++] = g->barriers.len;
    return RILL_OK;
}

rill_result rill_rg_compile(rill_rg *g, rill_error *err) {
    if (!g) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "render graph: NULL graph");
    }
    g->compiled = false;
    if (failed(g, err) != RILL_OK) {
        return g->failed.code;
    }
    for (uint32_t p = 0; p < g->passes.len; p++) {
        g->passes.data[p].order = -1;
        g->passes.data[p].culled = false;
    }
    rill_result r = phase_validate(g, err);
    if (r == RILL_OK) {
        r = phase_cull(g, err);
    }
    if (r == RILL_OK) {
        r = phase_order(g, err);
    }
    if (r == RILL_OK) {
        r = phase_allocate(g, err);
    }
    if (r == RILL_OK) {
        r = phase_barriers(g, err);
    }
    g->compiled = r == RILL_OK;
    return r;
}

/* >>results --------------------------------------------------------------------------------- */

uint32_t rill_rg_pass_count(const rill_rg *g) {
    return g ? g->passes.len : 0;
}
uint32_t rill_rg_ordered_count(const rill_rg *g) {
    return g && g->compiled ? g->order.len : 0;
}

const char *rill_rg_pass_label(const rill_rg *g, uint32_t i) {
    return g && i < g->passes.len ? g->passes.data[i].label : NULL;
}

const char *rill_rg_ordered_label(const rill_rg *g, uint32_t i) {
    if (!g || !g->compiled || i >= g->order.len) {
        return NULL;
    }
    return g->passes.data[g->order.data[i]].label;
}

int32_t rill_rg_pass_order(const rill_rg *g, rill_rg_pass pass) {
    if (!g || !g->compiled || !pass.id || pass.id > g->passes.len) {
        return -1;
    }
    return g->passes.data[pass.id - 1].order;
}

int32_t rill_rg_order_of(const rill_rg *g, const char *label) {
    if (!g || !g->compiled || !label) {
        return -1;
    }
    int32_t p = find_pass(g, rill_intern(label));
    return p < 0 ? -1 : g->passes.data[p].order;
}

bool rill_rg_is_culled(const rill_rg *g, const char *label) {
    if (!g || !g->compiled || !label) {
        return false;
    }
    int32_t p = find_pass(g, rill_intern(label));
    return p >= 0 && g->passes.data[p].culled;
}

const rill_rg_barrier *rill_rg_barriers(const rill_rg *g, uint32_t i, uint32_t *out_count) {
    *out_count = 0;
    if (!g || !g->compiled || i >= g->order.len) {
        return NULL;
    }
    *out_count = g->barrier_start.data[i + 1] - g->barrier_start.data[i];
    return g->barriers.data + g->barrier_start.data[i];
}

const rill_rg_barrier *rill_rg_final_barriers(const rill_rg *g, uint32_t *out_count) {
    *out_count = 0;
    if (!g || !g->compiled) {
        return NULL;
    }
    uint32_t n = g->order.len;
    *out_count = g->barrier_start.data[n + 1] - g->barrier_start.data[n];
    return g->barriers.data + g->barrier_start.data[n];
}

uint32_t rill_rg_resource_count(const rill_rg *g) {
    return g ? g->res.len : 0;
}

const char *rill_rg_resource_name(const rill_rg *g, uint32_t resource) {
    return g && resource < g->res.len ? g->res.data[resource].name : NULL;
}

int32_t rill_rg_image_resource(const rill_rg *g, rill_rg_image image) {
    return res_of(g, image.id, true);
}

int32_t rill_rg_buffer_resource(const rill_rg *g, rill_rg_buffer buffer) {
    return res_of(g, buffer.id, false);
}

int32_t rill_rg_resource_find(const rill_rg *g, const char *name) {
    return g && name ? find_res(g, rill_intern(name)) : -1;
}

int32_t rill_rg_resource_slot(const rill_rg *g, uint32_t resource) {
    return g && resource < g->res.len ? g->res.data[resource].slot : -1;
}

uint32_t rill_rg_slot_count(const rill_rg *g) {
    return g ? g->slots.len : 0;
}

void rill_rg_resource_image_desc(const rill_rg *g, uint32_t resource, rill_rg_image_desc *out) {
    memset(out, 0, sizeof(*out));
    if (g && resource < g->res.len) {
        *out = g->res.data[resource].desc;
    }
}

void *rill_rg_resource_external(const rill_rg *g, uint32_t resource) {
    return g && resource < g->res.len ? g->res.data[resource].external : NULL;
}

void rill_rg_set_resource_external(rill_rg *g, uint32_t resource, void *external) {
    if (g && resource < g->res.len) {
        g->res.data[resource].external = external;
    }
}

rill_rg_exec_fn rill_rg_ordered_exec(const rill_rg *g, uint32_t i, void **out_user) {
    *out_user = NULL;
    if (!g || !g->compiled || i >= g->order.len) {
        return NULL;
    }
    const rg_pass *p = &g->passes.data[g->order.data[i]];
    *out_user = p->user;
    return p->exec;
}

/* >>dump ------------------------------------------------------------------------------------ */

void rill_rg_dump(const rill_rg *g, rill_strbuf *sb) {
    if (!g || !sb) {
        return;
    }
    if (!g->compiled) {
        rill_strbuf_printf(sb, "render graph: not compiled (%u passes)\n", g->passes.len);
        return;
    }
    uint32_t culled = g->passes.len - g->order.len;
    rill_strbuf_printf(sb,
                       "render graph: %u passes (%u culled), %u resources, %u slots, view %ux%u\n",
                       g->order.len, culled, g->res.len, g->slots.len, g->view_w, g->view_h);
    for (uint32_t o = 0; o < g->order.len; o++) {
        uint32_t p = g->order.data[o];
        rill_strbuf_printf(sb, "%2u %s%s\n", o, g->passes.data[p].label,
                           g->passes.data[p].exec ? "" : " (anchor)");
        for (uint32_t b = g->barrier_start.data[o]; b < g->barrier_start.data[o + 1]; b++) {
            const rill_rg_barrier *br = &g->barriers.data[b];
            rill_strbuf_printf(sb, "     barrier %s: %s -> %s\n", g->res.data[br->resource].name,
                               rill_rg_usage_name(br->src), rill_rg_usage_name(br->dst));
        }
        for (uint32_t i = 0; i < g->acc.len; i++) {
            const rg_access *a = &g->acc.data[i];
            if (a->pass != p) {
                continue;
            }
            rill_strbuf_printf(sb, "     %s %s (%s)\n",
                               rill_rg_usage_is_write(a->usage) ? "write" : "read ",
                               g->res.data[a->res].name, rill_rg_usage_name(a->usage));
        }
    }
    uint32_t n = g->order.len;
    for (uint32_t b = g->barrier_start.data[n]; b < g->barrier_start.data[n + 1]; b++) {
        const rill_rg_barrier *br = &g->barriers.data[b];
        rill_strbuf_printf(sb, "final barrier %s: %s -> %s\n", g->res.data[br->resource].name,
                           rill_rg_usage_name(br->src), rill_rg_usage_name(br->dst));
    }
    for (uint32_t p = 0; p < g->passes.len; p++) {
        if (g->passes.data[p].culled) {
            rill_strbuf_printf(sb, "culled %s\n", g->passes.data[p].label);
        }
    }
    for (uint32_t r = 0; r < g->res.len; r++) {
        const rg_res *res = &g->res.data[r];
        if (res->is_image) {
            rill_strbuf_printf(sb, "image %s: %s %s %ux%u x%u, slot %d, passes %d..%d\n", res->name,
                               res->imported ? "imported" : "transient",
                               rill_rg_format_name(res->desc.format), res->desc.width,
                               res->desc.height, res->desc.layers, res->slot, res->first,
                               res->last);
        } else {
            rill_strbuf_printf(sb, "buffer %s: imported, passes %d..%d\n", res->name, res->first,
                               res->last);
        }
    }
}
