/* snapshot_diff.c: what differs between two extract snapshots (snapshot_diff.h). */
#include "snapshot_diff.h"

#include <stdlib.h>
#include <string.h>

/* A static batch's instance id has this bit set (src/render/batch_build.c). */
#define BATCH_BIT (UINT64_C(1) << 63)

bool snap_copy_set(snap_copy *c, const rill_render_snapshot *s) {
    if (s->instance_count > c->cap) {
        void *p = realloc(c->inst, (size_t)s->instance_count * sizeof(*c->inst));
        if (!p) {
            return false;
        }
        c->inst = p;
        c->cap = s->instance_count;
    }
    if (s->range_count > c->cap_r) {
        void *p = realloc(c->ranges, (size_t)s->range_count * sizeof(*c->ranges));
        if (!p) {
            return false;
        }
        c->ranges = p;
        c->cap_r = s->range_count;
    }
    c->n = s->instance_count;
    c->nr = s->range_count;
    if (c->n) {
        memcpy(c->inst, s->instances, (size_t)c->n * sizeof(*c->inst));
    }
    if (c->nr) {
        memcpy(c->ranges, s->ranges, (size_t)c->nr * sizeof(*c->ranges));
    }
    return true;
}

void snap_copy_free(snap_copy *c) {
    free(c->inst);
    free(c->ranges);
    memset(c, 0, sizeof(*c));
}

rill_render_snapshot snap_copy_view(const snap_copy *c) {
    rill_render_snapshot s;
    memset(&s, 0, sizeof(s));
    s.instances = c->inst;
    s.instance_count = c->n;
    s.ranges = c->ranges;
    s.range_count = c->nr;
    return s;
}

bool snap_same(const rill_render_snapshot *a, const rill_render_snapshot *b) {
    return a->instance_count == b->instance_count && a->range_count == b->range_count &&
           (!a->instance_count || !memcmp(a->instances, b->instances,
                                          (size_t)a->instance_count * sizeof(*a->instances))) &&
           (!a->range_count ||
            !memcmp(a->ranges, b->ranges, (size_t)a->range_count * sizeof(*a->ranges)));
}

/* The ranges instance in points at, or NULL when they lie outside s's. */
static const rill_render_range *ranges_of(const rill_render_snapshot *s,
                                          const rill_render_instance *in) {
    bool inside = in->range_count && in->range_first <= s->range_count &&
                  in->range_count <= s->range_count - in->range_first;
    return inside ? s->ranges + in->range_first : NULL;
}

/* Whether the ranges a and b draw hold the same values (wherever they lie). */
static bool same_range_data(const rill_render_snapshot *sa, const rill_render_instance *a,
                            const rill_render_snapshot *sb, const rill_render_instance *b) {
    const rill_render_range *ra = ranges_of(sa, a), *rb = ranges_of(sb, b);
    if (a->range_count != b->range_count || !ra != !rb) {
        return false;
    }
    return !ra || !memcmp(ra, rb, (size_t)a->range_count * sizeof(*ra));
}

/* Writes the names of the fields in which a and b differ; returns how many. */
static int print_fields(FILE *out, const rill_render_snapshot *sa, const rill_render_instance *a,
                        const rill_render_snapshot *sb, const rill_render_instance *b) {
    const char *names[10];
    int n = 0;
    if (a->id != b->id) {
        names[n++] = "id";
    }
    if (a->mesh.id != b->mesh.id) {
        names[n++] = "mesh";
    }
    if (a->material.id != b->material.id) {
        names[n++] = "material";
    }
    if (memcmp(a->transform, b->transform, sizeof(a->transform))) {
        names[n++] = "transform";
    }
    if (a->mode != b->mode) {
        names[n++] = "mode";
    }
    if (memcmp(&a->ghost_opacity, &b->ghost_opacity, sizeof(float))) {
        names[n++] = "ghost_opacity";
    }
    if (memcmp(&a->lod_fade, &b->lod_fade, sizeof(float))) {
        names[n++] = "lod_fade";
    }
    if (a->range_first != b->range_first) {
        names[n++] = "range_first";
    }
    if (a->range_count != b->range_count) {
        names[n++] = "range_count";
    }
    if (!same_range_data(sa, a, sb, b)) {
        names[n++] = "range_data";
    }
    for (int i = 0; i < n; i++) {
        fprintf(out, "%s\"%s\"", i ? "," : "", names[i]);
    }
    return n;
}

static void print_instance(FILE *out, const rill_render_instance *in) {
    fprintf(out,
            "{\"id\":\"0x%llx\",\"batch\":%s,\"mesh\":%u,\"material\":%u,\"mode\":%u,"
            "\"ghost\":%.3f,\"fade\":%.3f,\"range_first\":%u,\"range_count\":%u,"
            "\"at\":[%.2f,%.2f,%.2f]}",
            (unsigned long long)in->id, (in->id & BATCH_BIT) ? "true" : "false", in->mesh.id,
            in->material.id, (unsigned)in->mode, (double)in->ghost_opacity, (double)in->lod_fade,
            in->range_first, in->range_count, (double)in->transform[12], (double)in->transform[13],
            (double)in->transform[14]);
}

static uint32_t batches_in(const rill_render_snapshot *s) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->instance_count; i++) {
        n += (s->instances[i].id & BATCH_BIT) != 0;
    }
    return n;
}

/* The first max indexes (of those both have) whose instances or ranges differ; returns the first
 * such index, or -1. */
static long print_index_diffs(FILE *out, const rill_render_snapshot *ref,
                              const rill_render_snapshot *got, uint32_t max) {
    uint32_t n =
        ref->instance_count < got->instance_count ? ref->instance_count : got->instance_count;
    long first = -1;
    uint32_t shown = 0;
    fprintf(out, ",\"diffs\":[");
    for (uint32_t i = 0; i < n && shown < max; i++) {
        const rill_render_instance *a = &ref->instances[i], *b = &got->instances[i];
        if (!memcmp(a, b, sizeof(*a)) && same_range_data(ref, a, got, b)) {
            continue;
        }
        first = first < 0 ? (long)i : first;
        fprintf(out, "%s{\"index\":%u,\"fields\":[", shown++ ? "," : "", i);
        print_fields(out, ref, a, got, b);
        fprintf(out, "],\"ref\":");
        print_instance(out, a);
        fprintf(out, ",\"got\":");
        print_instance(out, b);
        fprintf(out, "}");
    }
    fprintf(out, "]");
    if (first < 0 && ref->instance_count != got->instance_count) {
        first = (long)n; /* one is a prefix of the other */
    }
    return first;
}

/* Instance indexes sorted by id. */
static const rill_render_instance *g_sort_inst;
static int cmp_by_id(const void *pa, const void *pb) {
    uint64_t a = g_sort_inst[*(const uint32_t *)pa].id, b = g_sort_inst[*(const uint32_t *)pb].id;
    return (a > b) - (a < b);
}

static uint32_t *by_id(const rill_render_snapshot *s) {
    uint32_t *idx = malloc(((size_t)s->instance_count + 1u) * sizeof(*idx));
    if (!idx) {
        return NULL;
    }
    for (uint32_t i = 0; i < s->instance_count; i++) {
        idx[i] = i;
    }
    g_sort_inst = s->instances;
    qsort(idx, s->instance_count, sizeof(*idx), cmp_by_id);
    return idx;
}

/* Ids of a (sorted by ia) that b (sorted by ib) lacks: how many, the first max printed under key.
 */
static uint32_t print_only(FILE *out, const char *key, const rill_render_snapshot *a,
                           const uint32_t *ia, const rill_render_snapshot *b, const uint32_t *ib,
                           uint32_t max) {
    uint32_t count = 0, j = 0;
    fprintf(out, ",\"%s\":[", key);
    for (uint32_t i = 0; i < a->instance_count; i++) {
        uint64_t id = a->instances[ia[i]].id;
        while (j < b->instance_count && b->instances[ib[j]].id < id) {
            j++;
        }
        if (j < b->instance_count && b->instances[ib[j]].id == id) {
            continue;
        }
        if (count++ < max) {
            fprintf(out, "%s", count > 1 ? "," : "");
            print_instance(out, &a->instances[ia[i]]);
        }
    }
    fprintf(out, "]");
    return count;
}

static uint32_t dup_ids(const rill_render_snapshot *s, const uint32_t *idx) {
    uint32_t n = 0;
    for (uint32_t i = 1; i < s->instance_count; i++) {
        n += s->instances[idx[i]].id == s->instances[idx[i - 1]].id;
    }
    return n;
}

bool snap_diff_json(FILE *out, const rill_render_snapshot *ref, const rill_render_snapshot *got,
                    uint32_t max) {
    uint32_t *ir = by_id(ref), *ig = by_id(got);
    if (!ir || !ig) {
        free(ir);
        free(ig);
        return false;
    }
    fprintf(out,
            ",\"ref_instances\":%u,\"instances\":%u,\"ref_ranges\":%u,\"ranges\":%u,"
            "\"ref_batches\":%u,\"batches\":%u",
            ref->instance_count, got->instance_count, ref->range_count, got->range_count,
            batches_in(ref), batches_in(got));
    long first = print_index_diffs(out, ref, got, max);
    fprintf(out, ",\"first_index\":%ld", first);
    uint32_t only_ref = print_only(out, "only_ref_first", ref, ir, got, ig, max);
    uint32_t only_got = print_only(out, "only_got_first", got, ig, ref, ir, max);
    fprintf(out, ",\"only_ref\":%u,\"only_got\":%u,\"dup_ids\":%u", only_ref, only_got,
            dup_ids(got, ig));
    free(ir);
    free(ig);
    return true;
}
