/* peer_cgltf.h: the cgltf side of bench_gltf (peer_cgltf.c, built only when cgltf is present). */
#ifndef RILL_BENCH_PEER_CGLTF_H
#define RILL_BENCH_PEER_CGLTF_H

#include <stddef.h>

#include "rill/formats/gltf.h"

/* Parse + load buffers + validate + decode every accessor; returns decoded bytes, 0 on failure. */
size_t peer_cgltf_load(const void *bytes, size_t size);
/* 1 when cgltf's decoded positions, UV0 and indices equal the model's bit for bit. */
int peer_cgltf_compare(const void *bytes, size_t size, const rill_gltf_model *model);

#endif
