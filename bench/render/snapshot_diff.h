/* snapshot_diff.h: what differs between two extract snapshots, for benches that compare a snapshot
 * with a reference (bench_extract). A copy keeps a snapshot's instances and ranges past the next
 * extract into the same buffer; the diff names the first instances that differ, field by field,
 * and the ids one snapshot has and the other lacks, as JSON. */
#ifndef RILL_BENCH_SNAPSHOT_DIFF_H
#define RILL_BENCH_SNAPSHOT_DIFF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rill/render.h"

/* Instances and ranges of a snapshot, owned (snap_copy_free releases them). */
typedef struct snap_copy {
    rill_render_instance *inst;
    rill_render_range *ranges;
    uint32_t n, nr, cap, cap_r;
} snap_copy;

/* Copies s's instances and ranges into c (grown when needed); false when out of memory. */
bool snap_copy_set(snap_copy *c, const rill_render_snapshot *s);
void snap_copy_free(snap_copy *c);
/* The copy as a snapshot (instances and ranges only), valid while c is not changed. */
rill_render_snapshot snap_copy_view(const snap_copy *c);

/* True when a and b have the same instances and ranges, byte for byte. */
bool snap_same(const rill_render_snapshot *a, const rill_render_snapshot *b);

/* Writes the differences of got from ref as JSON object members (no braces, leading comma):
 * ,"ref_instances":..,"instances":..,"ref_ranges":..,"ranges":..,"ref_batches":..,"batches":..,
 *  "diffs":[{"index":i,"fields":[..],"ref":{..},"got":{..}}, ...] (the first max indexes whose
 *  instances differ, or whose ranges do; fields named as in rill_render_instance, "range_data" when
 *  the ranges they point at hold other values), "first_index":i (the first of them, or the
 *  shorter count when one is a prefix of the other, -1 none),
 *  "only_ref_first":[{..}],"only_got_first":[{..}],"only_ref":N,"only_got":M (instances by id:
 *  those whose id the other lacks, the first max of each in id order, and how many),
 *  "dup_ids":K (ids present twice in got). An instance is
 * {"id":"0x..","batch":bool,"mesh":..,"material":..,"mode":..,
 *  "ghost":..,"fade":..,"range_first":..,"range_count":..,"at":[x,y,z]} (batch: the id has bit 63
 *  set, a static batch's instance). False when out of memory (nothing partial is written then). */
bool snap_diff_json(FILE *out, const rill_render_snapshot *ref, const rill_render_snapshot *got,
                    uint32_t max);

#endif
