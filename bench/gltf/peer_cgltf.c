/* peer_cgltf.c: the cgltf side of bench_gltf, built only when cgltf.h is found outside the
 * repository (see CMakeLists.txt). It does what a cgltf user does to get every vertex and index
 * into memory: parse, load buffers, validate, then decode every accessor (indices with
 * cgltf_accessor_unpack_indices to uint32, everything else with cgltf_accessor_unpack_floats). */
#define CGLTF_IMPLEMENTATION
#include "cgltf.h"

#include <stdlib.h>
#include <string.h>

#include "peer_cgltf.h"

struct peer_cgltf_loaded {
    cgltf_data *data;
    void **arrays; /* one decoded array per accessor */
};

/* Decodes every accessor of a parsed file into malloc'ed arrays; returns the decoded bytes or 0 on
 * failure. When keep is non-NULL the arrays are returned there (one per accessor). */
static size_t decode_all(cgltf_data *data, void **keep) {
    size_t total = 0;
    char *is_index = calloc(data->accessors_count + 1, 1);
    for (cgltf_size m = 0; m < data->meshes_count; m++) {
        for (cgltf_size p = 0; p < data->meshes[m].primitives_count; p++) {
            const cgltf_accessor *a = data->meshes[m].primitives[p].indices;
            if (a) {
                is_index[a - data->accessors] = 1;
            }
        }
    }
    for (cgltf_size i = 0; i < data->accessors_count; i++) {
        const cgltf_accessor *a = &data->accessors[i];
        void *out;
        if (is_index[i]) {
            out = malloc(a->count * sizeof(uint32_t) + 1);
            if (cgltf_accessor_unpack_indices(a, out, sizeof(uint32_t), a->count) != a->count) {
                free(out);
                total = 0;
                break;
            }
            total += a->count * sizeof(uint32_t);
        } else {
            cgltf_size n = cgltf_accessor_unpack_floats(a, NULL, 0);
            out = malloc(n * sizeof(float) + 1);
            if (cgltf_accessor_unpack_floats(a, out, n) != n) {
                free(out);
                total = 0;
                break;
            }
            total += n * sizeof(float);
        }
        if (keep) {
            keep[i] = out;
        } else {
            free(out);
        }
    }
    free(is_index);
    return total;
}

/* Load buffers (relative to path, NULL for a .glb in memory), validate, decode every accessor
 * into arrays kept with the data; NULL on failure (data is then freed). */
static peer_cgltf_loaded *finish(cgltf_options *opt, cgltf_data *data, const char *path) {
    peer_cgltf_loaded *l = calloc(1, sizeof(*l));
    l->data = data;
    l->arrays = calloc(data->accessors_count + 1, sizeof(void *));
    if (cgltf_load_buffers(opt, data, path) != cgltf_result_success ||
        cgltf_validate(data) != cgltf_result_success || decode_all(data, l->arrays) == 0) {
        peer_cgltf_release(l);
        return NULL;
    }
    return l;
}

peer_cgltf_loaded *peer_cgltf_load(const void *bytes, size_t size) {
    cgltf_options opt;
    memset(&opt, 0, sizeof(opt));
    cgltf_data *data = NULL;
    if (cgltf_parse(&opt, bytes, size, &data) != cgltf_result_success) {
        return NULL;
    }
    return finish(&opt, data, NULL);
}

peer_cgltf_loaded *peer_cgltf_load_file(const char *path) {
    cgltf_options opt;
    memset(&opt, 0, sizeof(opt));
    cgltf_data *data = NULL;
    if (cgltf_parse_file(&opt, path, &data) != cgltf_result_success) {
        return NULL;
    }
    return finish(&opt, data, path);
}

void peer_cgltf_release(peer_cgltf_loaded *l) {
    if (!l) {
        return;
    }
    for (cgltf_size i = 0; i < l->data->accessors_count; i++) {
        free(l->arrays[i]);
    }
    free(l->arrays);
    cgltf_free(l->data);
    free(l);
}

/* Compares what cgltf decodes with Rill's model: positions, UV0 and indices of every primitive
 * must be bit-identical (normals may differ in the last bit where Rill renormalizes). */
int peer_cgltf_compare(const void *bytes, size_t size, const rill_gltf_model *model) {
    cgltf_options opt;
    memset(&opt, 0, sizeof(opt));
    cgltf_data *data = NULL;
    if (cgltf_parse(&opt, bytes, size, &data) != cgltf_result_success) {
        return 0;
    }
    int ok = cgltf_load_buffers(&opt, data, NULL) == cgltf_result_success &&
             data->meshes_count == model->mesh_count;
    void **arrays = calloc(data->accessors_count + 1, sizeof(void *));
    ok = ok && decode_all(data, arrays) > 0;
    for (cgltf_size m = 0; ok && m < data->meshes_count; m++) {
        const rill_gltf_mesh *rm = &model->meshes[m];
        ok = data->meshes[m].primitives_count == rm->primitive_count;
        for (cgltf_size p = 0; ok && p < rm->primitive_count; p++) {
            const cgltf_primitive *cp = &data->meshes[m].primitives[p];
            const rill_gltf_primitive *rp = &rm->primitives[p];
            ok = cp->indices && cp->indices->count == rp->index_count &&
                 memcmp(arrays[cp->indices - data->accessors], rp->indices,
                        rp->index_count * sizeof(uint32_t)) == 0;
            for (cgltf_size k = 0; ok && k < cp->attributes_count; k++) {
                const cgltf_attribute *at = &cp->attributes[k];
                const float *mine = NULL;
                size_t comps = 0;
                if (at->type == cgltf_attribute_type_position) {
                    mine = rp->positions;
                    comps = 3;
                } else if (at->type == cgltf_attribute_type_texcoord && at->index == 0) {
                    mine = rp->uv0;
                    comps = 2;
                }
                if (mine) {
                    ok = at->data->count == rp->vertex_count &&
                         memcmp(arrays[at->data - data->accessors], mine,
                                rp->vertex_count * comps * sizeof(float)) == 0;
                }
            }
        }
    }
    for (cgltf_size i = 0; i < data->accessors_count; i++) {
        free(arrays[i]);
    }
    free(arrays);
    cgltf_free(data);
    return ok;
}
