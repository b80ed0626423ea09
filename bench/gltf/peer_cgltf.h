/* peer_cgltf.h: the cgltf side of bench_gltf (peer_cgltf.c, built only when cgltf is present). */
#ifndef RILL_BENCH_PEER_CGLTF_H
#define RILL_BENCH_PEER_CGLTF_H

#include <stddef.h>

#include "rill/formats/gltf.h"

/* What a cgltf user does to get every vertex and index of a file into memory: cgltf_parse_file
 * (or cgltf_parse on bytes already in memory), load buffers (relative to the file), validate,
 * decode every accessor. The decoded arrays are kept, as a user keeps them (and as Rill's model
 * keeps its own), until peer_cgltf_release. NULL on failure. */
typedef struct peer_cgltf_loaded peer_cgltf_loaded;
peer_cgltf_loaded *peer_cgltf_load_file(const char *path);
peer_cgltf_loaded *peer_cgltf_load(const void *bytes, size_t size);
void peer_cgltf_release(peer_cgltf_loaded *loaded);
/* 1 when cgltf's decoded positions, UV0 and indices equal the model's bit for bit. */
int peer_cgltf_compare(const void *bytes, size_t size, const rill_gltf_model *model);

#endif
