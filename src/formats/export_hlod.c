/* export_hlod.c: the exporter's far-world proxies (docs/export.md, "Far-world proxies"). Before the
 * jobs run, every .rsn of the project is scanned for streamed SceneInstances: the scenes they name
 * (the districts) get a level-0 proxy baked by their own job (export_work.c), and the scenes that
 * place them keep the placements. When every job is done, each placing scene gets its level-1
 * proxy from the level-0 proxies of its instances (rill__hlod_bake_cells). A proxy that cannot be
 * baked is a warning naming the scene: the export still succeeds, and the runtime streams that
 * district without a proxy. */
#include "export_internal.h"
#include "hlod_internal.h"

#include <string.h>

typedef struct placing {
    char *scene; /* the placing scene (project-relative) */
    rill__rsn_scan scan;
} placing;

typedef struct kept {
    char *scene; /* the district scene the proxy belongs to */
    rill_hlod *proxy;
} kept;

struct rill__export_hlod {
    rill__export_settings *settings;
    rill__hlod_cache *models;
    RILL_ARRAY(placing) placings;
    RILL_ARRAY(kept) proxies;
};

static rill__export_input *find_input(rill__export_input *inputs, uint32_t n, const char *path) {
    for (uint32_t i = 0; i < n; i++) {
        if (strcmp(inputs[i].path, path) == 0) {
            return &inputs[i];
        }
    }
    return NULL;
}

rill__export_hlod *rill__export_hlod_plan(rill__export_input *inputs, uint32_t n,
                                          rill__export_settings *s) {
    if (s->no_hlod) {
        return NULL;
    }
    rill__export_hlod *x = rill_calloc_tagged(1, sizeof *x, RILL_MEM_FORMATS);
    if (!x) {
        return NULL;
    }
    x->settings = s;
    /* Models shared by the district bakes (a NULL cache: each bake reads its own). */
    s->hlod_models = x->models = rill__hlod_cache_create();
    for (uint32_t i = 0; i < n; i++) {
        rill__export_input *in = &inputs[i];
        if (!rill_path_ext_is(in->path, "rsn") || in->status == RILL_EXPORT_STATUS_FAILED) {
            continue;
        }
        uint8_t *data = NULL;
        size_t size = 0;
        if (rill_file_read_all_in(s->project_dir, in->os_path, 0, &data, &size, NULL) != RILL_OK) {
            continue; /* the job reports it */
        }
        placing p = {.scene = rill_strdup(in->path)};
        bool any = false;
        if (p.scene && rill__rsn_scan_text((const char *)data, size, &p.scan)) {
            for (uint32_t k = 0; k < p.scan.count; k++) {
                const rill__rsn_entity *e = &p.scan.ents[k];
                rill__export_input *d;
                if (!e->instance || !e->streamed || !(d = find_input(inputs, n, e->instance))) {
                    continue;
                }
                d->bake_hlod = true;
                any = true;
            }
        }
        rill_free(data);
        if (!any || !rill_array_push(&x->placings, p)) {
            rill__rsn_scan_free(&p.scan);
            rill_free(p.scene);
        }
    }
    return x;
}

void rill__export_hlod_keep(rill__export_hlod *x, const char *scene, const rill__export_output *o) {
    if (!x || !rill_path_ext_is(o->path, "hlod")) {
        return;
    }
    kept k = {.scene = rill_strdup(scene)};
    if (!k.scene || rill_hlod_parse(o->data, o->size, o->path, &k.proxy, NULL) != RILL_OK ||
        !rill_array_push(&x->proxies, k)) {
        rill_hlod_free(k.proxy);
        rill_free(k.scene);
    }
}

static const rill_hlod *proxy_of(const rill__export_hlod *x, const char *scene) {
    for (uint32_t i = 0; i < x->proxies.len; i++) {
        if (strcmp(x->proxies.data[i].scene, scene) == 0) {
            return x->proxies.data[i].proxy;
        }
    }
    return NULL;
}

/* The level-1 proxy of one placing scene into *out (NULL when none of its instances has a
 * level-0 proxy). */
static rill_result bake_placing(const rill__export_hlod *x, const placing *p,
                                rill__export_output *out, rill_error *err) {
    memset(out, 0, sizeof *out);
    RILL_ARRAY(rill__hlod_member) members = {0};
    for (uint32_t k = 0; k < p->scan.count; k++) {
        const rill__rsn_entity *e = &p->scan.ents[k];
        const rill_hlod *proxy = e->instance && e->streamed ? proxy_of(x, e->instance) : NULL;
        if (!proxy || !proxy->part_count) {
            continue;
        }
        rill__hlod_member m = {.proxy = proxy};
        rill__rsn_world_matrix(&p->scan, k, m.matrix);
        bool authored = e->bounds_max[0] > e->bounds_min[0] ||
                        e->bounds_max[1] > e->bounds_min[1] || e->bounds_max[2] > e->bounds_min[2];
        const float *lo = authored ? e->bounds_min : proxy->parts[0].box_min;
        const float *hi = authored ? e->bounds_max : proxy->parts[0].box_max;
        /* The world box of the local box: its 8 corners placed (as the streamer measures). */
        for (int c = 0; c < 3; c++) {
            m.box_min[c] = 1e30f;
            m.box_max[c] = -1e30f;
        }
        for (int corner = 0; corner < 8; corner++) {
            float pt[3] = {corner & 1 ? hi[0] : lo[0], corner & 2 ? hi[1] : lo[1],
                           corner & 4 ? hi[2] : lo[2]};
            for (int c = 0; c < 3; c++) {
                float v = m.matrix[c] * pt[0] + m.matrix[4 + c] * pt[1] + m.matrix[8 + c] * pt[2] +
                          m.matrix[12 + c];
                m.box_min[c] = v < m.box_min[c] ? v : m.box_min[c];
                m.box_max[c] = v > m.box_max[c] ? v : m.box_max[c];
            }
        }
        if (!rill_array_push(&members, m)) {
            rill_array_free(&members);
            return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", p->scene);
        }
    }
    rill_result r = RILL_OK;
    if (members.len) {
        rill_hlod *h = NULL;
        char path[EXPORT_PATH_MAX];
        r = rill__hlod_bake_cells(members.data, members.len, x->settings->hlod_cell,
                                  x->settings->hlod_triangles, &h, err);
        if (r == RILL_OK && !rill_hlod_path(path, sizeof path, p->scene, 1)) {
            r = rill_error_set(err, RILL_ERR_LIMIT, "%s: path too long", p->scene);
        }
        if (r == RILL_OK && (r = rill_hlod_write(h, &out->data, &out->size, err)) == RILL_OK &&
            !(out->path = rill_strdup(path))) {
            rill_free(out->data);
            out->data = NULL;
            r = rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "out of memory");
        }
        rill_hlod_free(h);
    }
    rill_array_free(&members);
    return r;
}

uint32_t rill__export_hlod_cells(rill__export_hlod *x, rill__export_output **out) {
    *out = NULL;
    if (!x || !x->placings.len) {
        return 0;
    }
    rill__export_output *outs = rill_calloc_tagged(x->placings.len, sizeof *outs, RILL_MEM_FORMATS);
    uint32_t n = 0;
    for (uint32_t i = 0; outs && i < x->placings.len; i++) {
        rill_error err = {0};
        if (bake_placing(x, &x->placings.data[i], &outs[n], &err) != RILL_OK) {
            RILL_LOG_WARN("export", "%s: no level-1 far-world proxy: %s", x->placings.data[i].scene,
                          err.msg);
            continue;
        }
        n += outs[n].path != NULL;
    }
    *out = outs;
    return n;
}

void rill__export_hlod_destroy(rill__export_hlod *x) {
    if (!x) {
        return;
    }
    x->settings->hlod_models = NULL;
    rill__hlod_cache_destroy(x->models);
    for (uint32_t i = 0; i < x->placings.len; i++) {
        rill__rsn_scan_free(&x->placings.data[i].scan);
        rill_free(x->placings.data[i].scene);
    }
    for (uint32_t i = 0; i < x->proxies.len; i++) {
        rill_hlod_free(x->proxies.data[i].proxy);
        rill_free(x->proxies.data[i].scene);
    }
    rill_array_free(&x->placings);
    rill_array_free(&x->proxies);
    rill_free(x);
}
