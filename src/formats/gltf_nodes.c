/* gltf_nodes.c: the glTF reader's node hierarchy, scenes, cameras, KHR_lights_punctual lights
 * and skins (joints and inverse bind matrices). */
#include "gltf_read_internal.h"

#include "rill/world.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

/* >>nodes, scenes, cameras, lights ------------------------------------------------------------ */

rill_result rill__rd_read_cameras_lights(rd *r) {
    const rill__gj *arr;
    uint32_t count;
    RILL_TRY(rill__rd_js_array(r, r->root, "cameras", "", &arr, &count));
    if (count) {
        r->m->cameras = rill__gltf_alloc(count, sizeof(rill_gltf_camera));
        if (!r->m->cameras) {
            return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "cameras: out of memory");
        }
    }
    const rill__gj *c;
    RILL__GJ_FOR(c, arr) {
        uint32_t i = r->m->camera_count;
        rill_gltf_camera *cam = &r->m->cameras[i];
        r->m->camera_count++;
        char where[64];
        rill__rd_index_path(where, sizeof(where), "cameras", i);
        RILL_TRY(rill__rd_js_object(r, c, where));
        RILL_TRY(rill__rd_js_name(r, c, where, &cam->name));
        const char *type;
        RILL_TRY(rill__rd_js_str(r, c, "type", where, &type));
        const rill__gj *sub;
        char sw[96];
        if (type && strcmp(type, "perspective") == 0) {
            cam->type = RILL_GLTF_CAMERA_PERSPECTIVE;
            RILL_TRY(rill__rd_js_member_object(r, c, "perspective", where, &sub));
            snprintf(sw, sizeof(sw), "%s.perspective", where);
            if (!sub) {
                return rill__rd_fail(r, RILL_ERR_PARSE, "%s: missing", sw);
            }
            RILL_TRY(rill__rd_js_float(r, sub, "yfov", sw, 0.0f, &cam->yfov));
            RILL_TRY(rill__rd_js_float(r, sub, "aspectRatio", sw, 0.0f, &cam->aspect_ratio));
            RILL_TRY(rill__rd_js_float(r, sub, "znear", sw, 0.0f, &cam->znear));
            RILL_TRY(rill__rd_js_float(r, sub, "zfar", sw, 0.0f, &cam->zfar));
            if (!(cam->yfov > 0.0f) || !(cam->znear > 0.0f) || cam->aspect_ratio < 0.0f ||
                (cam->zfar != 0.0f && !(cam->zfar > cam->znear))) {
                return rill__rd_fail(r, RILL_ERR_CORRUPT, "%s: invalid projection values", sw);
            }
        } else if (type && strcmp(type, "orthographic") == 0) {
            cam->type = RILL_GLTF_CAMERA_ORTHOGRAPHIC;
            RILL_TRY(rill__rd_js_member_object(r, c, "orthographic", where, &sub));
            snprintf(sw, sizeof(sw), "%s.orthographic", where);
            if (!sub) {
                return rill__rd_fail(r, RILL_ERR_PARSE, "%s: missing", sw);
            }
            RILL_TRY(rill__rd_js_float(r, sub, "xmag", sw, 0.0f, &cam->xmag));
            RILL_TRY(rill__rd_js_float(r, sub, "ymag", sw, 0.0f, &cam->ymag));
            RILL_TRY(rill__rd_js_float(r, sub, "znear", sw, -1.0f, &cam->znear));
            RILL_TRY(rill__rd_js_float(r, sub, "zfar", sw, 0.0f, &cam->zfar));
            if (cam->xmag == 0.0f || cam->ymag == 0.0f || cam->znear < 0.0f ||
                !(cam->zfar > cam->znear)) {
                return rill__rd_fail(r, RILL_ERR_CORRUPT, "%s: invalid projection values", sw);
            }
        } else {
            return rill__rd_fail(r, RILL_ERR_PARSE, "%s.type: expected perspective or orthographic",
                                 where);
        }
    }

    const rill__gj *ext, *lp;
    RILL_TRY(rill__rd_js_member_object(r, r->root, "extensions", "", &ext));
    lp = NULL;
    if (ext) {
        RILL_TRY(rill__rd_js_member_object(r, ext, "KHR_lights_punctual", "extensions", &lp));
    }
    if (!lp) {
        return RILL_OK;
    }
    const char *lw = "extensions.KHR_lights_punctual";
    RILL_TRY(rill__rd_js_array(r, lp, "lights", lw, &arr, &count));
    if (count) {
        r->m->lights = rill__gltf_alloc(count, sizeof(rill_gltf_light));
        if (!r->m->lights) {
            return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "lights: out of memory");
        }
    }
    const rill__gj *l;
    RILL__GJ_FOR(l, arr) {
        uint32_t i = r->m->light_count;
        rill_gltf_light *light = &r->m->lights[i];
        r->m->light_count++;
        char where[96];
        snprintf(where, sizeof(where), "%s.lights[%u]", lw, i);
        RILL_TRY(rill__rd_js_object(r, l, where));
        RILL_TRY(rill__rd_js_name(r, l, where, &light->name));
        const char *type;
        RILL_TRY(rill__rd_js_str(r, l, "type", where, &type));
        if (type && strcmp(type, "directional") == 0) {
            light->type = RILL_GLTF_LIGHT_DIRECTIONAL;
        } else if (type && strcmp(type, "point") == 0) {
            light->type = RILL_GLTF_LIGHT_POINT;
        } else if (type && strcmp(type, "spot") == 0) {
            light->type = RILL_GLTF_LIGHT_SPOT;
        } else {
            return rill__rd_fail(r, RILL_ERR_PARSE, "%s.type: expected directional, point or spot",
                                 where);
        }
        light->color[0] = light->color[1] = light->color[2] = 1.0f;
        RILL_TRY(rill__rd_js_floats(r, l, "color", where, 3, light->color, NULL));
        RILL_TRY(rill__rd_js_float(r, l, "intensity", where, 1.0f, &light->intensity));
        RILL_TRY(rill__rd_js_float(r, l, "range", where, 0.0f, &light->range));
        if (light->range < 0.0f || light->intensity < 0.0f) {
            return rill__rd_fail(r, RILL_ERR_CORRUPT, "%s: negative range or intensity", where);
        }
        light->inner_cone_angle = 0.0f;
        light->outer_cone_angle = 0.78539816f;
        if (light->type == RILL_GLTF_LIGHT_SPOT) {
            const rill__gj *spot;
            RILL_TRY(rill__rd_js_member_object(r, l, "spot", where, &spot));
            if (spot) {
                char sw[128];
                snprintf(sw, sizeof(sw), "%s.spot", where);
                RILL_TRY(rill__rd_js_float(r, spot, "innerConeAngle", sw, 0.0f,
                                           &light->inner_cone_angle));
                RILL_TRY(rill__rd_js_float(r, spot, "outerConeAngle", sw, 0.78539816f,
                                           &light->outer_cone_angle));
                if (light->inner_cone_angle < 0.0f ||
                    light->inner_cone_angle >= light->outer_cone_angle ||
                    light->outer_cone_angle > 1.5707964f) {
                    return rill__rd_fail(r, RILL_ERR_CORRUPT, "%s: invalid cone angles", sw);
                }
            }
        }
    }
    return RILL_OK;
}

rill_result rill__rd_read_nodes(rd *r) {
    const rill__gj *arr;
    uint32_t count;
    RILL_TRY(rill__rd_js_array(r, r->root, "nodes", "", &arr, &count));
    const rill__gj *skins;
    uint32_t skin_count;
    RILL_TRY(rill__rd_js_array(r, r->root, "skins", "", &skins, &skin_count));
    if (count) {
        r->m->nodes = rill__gltf_alloc(count, sizeof(rill_gltf_node));
        if (!r->m->nodes) {
            return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "nodes: out of memory");
        }
        for (uint32_t i = 0; i < count; i++) {
            r->m->nodes[i].parent = -1;
        }
    }
    const rill__gj *no;
    RILL__GJ_FOR(no, arr) {
        uint32_t i = r->m->node_count;
        rill_gltf_node *node = &r->m->nodes[i];
        r->m->node_count++;
        char where[64];
        rill__rd_index_path(where, sizeof(where), "nodes", i);
        RILL_TRY(rill__rd_js_object(r, no, where));
        RILL_TRY(rill__rd_js_name(r, no, where, &node->name));
        RILL_TRY(rill__rd_js_index(r, no, "mesh", where, r->m->mesh_count, "mesh", &node->mesh));
        RILL_TRY(
            rill__rd_js_index(r, no, "camera", where, r->m->camera_count, "camera", &node->camera));
        node->light = -1;
        RILL_TRY(rill__rd_js_index(r, no, "skin", where, skin_count, "skin", &node->skin));
        uint32_t targets = 0;
        for (uint32_t p = 0; node->mesh >= 0 && p < r->m->meshes[node->mesh].primitive_count; p++) {
            targets = r->m->meshes[node->mesh].primitives[p].target_count;
        }
        RILL_TRY(rill__rd_js_weights(r, no, where, targets, &node->weight_count, &node->weights));
        const rill__gj *ext, *lp;
        RILL_TRY(rill__rd_check_extensions(r, no, where));
        RILL_TRY(rill__rd_js_member_object(r, no, "extensions", where, &ext));
        if (ext) {
            char ew[96];
            snprintf(ew, sizeof(ew), "%s.extensions", where);
            RILL_TRY(rill__rd_js_member_object(r, ext, "KHR_lights_punctual", ew, &lp));
            if (lp) {
                char lw[128];
                snprintf(lw, sizeof(lw), "%s.KHR_lights_punctual", ew);
                RILL_TRY(rill__rd_js_index(r, lp, "light", lw, r->m->light_count, "light",
                                           &node->light));
            }
        }
        node->rotation[3] = 1.0f;
        node->scale[0] = node->scale[1] = node->scale[2] = 1.0f;
        bool has_t, has_r, has_s;
        RILL_TRY(rill__rd_js_floats(r, no, "translation", where, 3, node->translation, &has_t));
        RILL_TRY(rill__rd_js_floats(r, no, "rotation", where, 4, node->rotation, &has_r));
        RILL_TRY(rill__rd_js_floats(r, no, "scale", where, 3, node->scale, &has_s));
        RILL_TRY(rill__rd_js_floats(r, no, "matrix", where, 16, node->matrix, &node->has_matrix));
        if (node->has_matrix && (has_t || has_r || has_s)) {
            return rill__rd_fail(r, RILL_ERR_CORRUPT, "%s: both matrix and TRS given", where);
        }
        RILL_TRY(rill__rd_check_world_limit(r, where, "translation", node->translation, 3));
        RILL_TRY(rill__rd_check_world_limit(r, where, "scale", node->scale, 3));
        if (node->has_matrix) {
            RILL_TRY(rill__rd_check_world_limit(r, where, "matrix", node->matrix, 16));
        }
        if (!node->has_matrix) {
            float *q = node->rotation;
            float ql = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
            if (!(ql > 1e-6f) || !isfinite(ql)) {
                return rill__rd_fail(r, RILL_ERR_CORRUPT, "%s.rotation: not a unit quaternion",
                                     where);
            }
            /* Rescaled only when visibly off, so a re-read file keeps identical bits. */
            for (int k = 0; k < 4 && fabsf(ql - 1.0f) > 1e-6f; k++) {
                q[k] /= ql;
            }
            rill__gltf_trs_to_matrix(node->translation, node->rotation, node->scale, node->matrix);
        }
        const rill__gj *children;
        uint32_t cc;
        RILL_TRY(rill__rd_js_array(r, no, "children", where, &children, &cc));
        if (cc) {
            node->children = rill__gltf_alloc(cc, sizeof(int32_t));
            if (!node->children) {
                return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
            }
        }
        const rill__gj *ch;
        RILL__GJ_FOR(ch, children) {
            double v = rill__gj_num(ch);
            uint32_t k = node->child_count;
            if (!rill__gj_is_number(ch) || v != floor(v) || v < 0.0 || v >= (double)count) {
                return rill__rd_fail(r, RILL_ERR_CORRUPT,
                                     "%s.children[%u]: node index out of range", where, k);
            }
            int32_t c = (int32_t)v;
            if ((uint32_t)c == i || r->m->nodes[c].parent >= 0) {
                return rill__rd_fail(r, RILL_ERR_CORRUPT,
                                     "%s.children[%u]: node %d already has a parent (or is itself)",
                                     where, k, c);
            }
            r->m->nodes[c].parent = (int32_t)i;
            node->children[node->child_count++] = c;
        }
    }
    /* Every node has at most one parent now, so the hierarchy is a forest unless some parent
     * chain loops; walking up at most node_count steps finds every loop. */
    for (uint32_t i = 0; i < r->m->node_count; i++) {
        int32_t p = r->m->nodes[i].parent;
        uint32_t steps = 0;
        while (p >= 0 && steps <= r->m->node_count) {
            p = r->m->nodes[p].parent;
            steps++;
        }
        if (p >= 0) {
            return rill__rd_fail(r, RILL_ERR_CORRUPT, "nodes[%u]: the node hierarchy has a cycle",
                                 i);
        }
    }
    return RILL_OK;
}

rill_result rill__rd_read_scenes(rd *r) {
    const rill__gj *arr;
    uint32_t count;
    RILL_TRY(rill__rd_js_array(r, r->root, "scenes", "", &arr, &count));
    if (count) {
        r->m->scenes = rill__gltf_alloc(count, sizeof(rill_gltf_scene));
        if (!r->m->scenes) {
            return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "scenes: out of memory");
        }
    }
    const rill__gj *sc;
    RILL__GJ_FOR(sc, arr) {
        uint32_t i = r->m->scene_count;
        rill_gltf_scene *scene = &r->m->scenes[i];
        r->m->scene_count++;
        char where[64];
        rill__rd_index_path(where, sizeof(where), "scenes", i);
        RILL_TRY(rill__rd_js_object(r, sc, where));
        RILL_TRY(rill__rd_js_name(r, sc, where, &scene->name));
        const rill__gj *nodes;
        uint32_t nc;
        RILL_TRY(rill__rd_js_array(r, sc, "nodes", where, &nodes, &nc));
        if (nc) {
            scene->nodes = rill__gltf_alloc(nc, sizeof(int32_t));
            if (!scene->nodes) {
                return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
            }
        }
        const rill__gj *n;
        RILL__GJ_FOR(n, nodes) {
            double v = rill__gj_num(n);
            uint32_t k = scene->node_count;
            if (!rill__gj_is_number(n) || v != floor(v) || v < 0.0 ||
                v >= (double)r->m->node_count) {
                return rill__rd_fail(r, RILL_ERR_CORRUPT, "%s.nodes[%u]: node index out of range",
                                     where, k);
            }
            if (r->m->nodes[(int32_t)v].parent >= 0) {
                return rill__rd_fail(r, RILL_ERR_CORRUPT, "%s.nodes[%u]: node %.0f is not a root",
                                     where, k, v);
            }
            scene->nodes[scene->node_count++] = (int32_t)v;
        }
    }
    RILL_TRY(rill__rd_js_index(r, r->root, "scene", "", r->m->scene_count, "scene",
                               &r->m->default_scene));
    return RILL_OK;
}

/* >>skins ------------------------------------------------------------------------------------- */

/* inverseBindMatrices: a MAT4 float accessor with at least one matrix per joint (the first
 * joint_count are kept), every value finite; absent = identities. */
static rill_result skin_matrices(rd *r, const rill__gj *so, const char *where,
                                 rill_gltf_skin *skin) {
    int32_t acc;
    RILL_TRY(rill__rd_js_index(r, so, "inverseBindMatrices", where, r->accessor_count, "accessor",
                               &acc));
    size_t n = (size_t)skin->joint_count * 16;
    if (acc < 0) {
        RILL_TRY(rill__rd_charge(r, n * sizeof(float), where, ".inverseBindMatrices"));
        skin->inverse_bind_matrices = rill__gltf_alloc(n, sizeof(float));
        if (!skin->inverse_bind_matrices) {
            return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
        }
        for (uint32_t j = 0; j < skin->joint_count; j++) {
            float *m = &skin->inverse_bind_matrices[(size_t)j * 16];
            m[0] = m[5] = m[10] = m[15] = 1.0f;
        }
        return RILL_OK;
    }
    const rd_accessor *a;
    RILL_TRY(rill__rd_accessor_info(r, acc, &a));
    if (a->comps != 16 || a->component != GL_FLOAT) {
        return rill__rd_fail(r, RILL_ERR_CORRUPT,
                             "%s.inverseBindMatrices: accessor %d must be MAT4 float", where, acc);
    }
    if (a->count < skin->joint_count) {
        return rill__rd_fail(r, RILL_ERR_CORRUPT,
                             "%s.inverseBindMatrices: accessor %d holds %u matrices for %u joints",
                             where, acc, a->count, skin->joint_count);
    }
    float *all;
    RILL_TRY(rill__rd_accessor_floats(r, acc, a, where, ".inverseBindMatrices", NULL, &all));
    skin->inverse_bind_matrices = all;
    size_t bad = rill__gltf_first_non_finite(all, n);
    if (bad < n) {
        return rill__rd_fail(r, RILL_ERR_CORRUPT,
                             "%s.inverseBindMatrices: accessor %d: matrix %zu is not finite", where,
                             acc, bad / 16);
    }
    return RILL_OK;
}

static rill_result read_skin(rd *r, const rill__gj *so, const char *where, rill_gltf_skin *skin) {
    RILL_TRY(rill__rd_js_object(r, so, where));
    RILL_TRY(rill__rd_js_name(r, so, where, &skin->name));
    RILL_TRY(
        rill__rd_js_index(r, so, "skeleton", where, r->m->node_count, "node", &skin->skeleton));
    const rill__gj *joints;
    uint32_t count;
    RILL_TRY(rill__rd_js_array(r, so, "joints", where, &joints, &count));
    if (count == 0 || count > RILL_GLTF_MAX_JOINTS) {
        return rill__rd_fail(r, count ? RILL_ERR_LIMIT : RILL_ERR_PARSE,
                             "%s.joints: %u joints (1 to %u allowed)", where, count,
                             RILL_GLTF_MAX_JOINTS);
    }
    skin->joints = rill__gltf_alloc(count, sizeof(int32_t));
    if (!skin->joints) {
        return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
    }
    const rill__gj *j;
    RILL__GJ_FOR(j, joints) {
        double v = rill__gj_num(j);
        if (!rill__gj_is_number(j) || v != floor(v) || v < 0.0 || v >= (double)r->m->node_count) {
            return rill__rd_fail(r, RILL_ERR_CORRUPT, "%s.joints[%u]: node index out of range (%u)",
                                 where, skin->joint_count, r->m->node_count);
        }
        skin->joints[skin->joint_count++] = (int32_t)v;
    }
    return skin_matrices(r, so, where, skin);
}

/* Every joint index that moves a vertex of a mesh must name a joint of each skin the mesh is
 * drawn with (a node's skin and mesh); the renderer indexes its joint matrices with them. */
rill_result rill__rd_check_skinned_meshes(rd *r) {
    for (uint32_t i = 0; i < r->m->node_count; i++) {
        const rill_gltf_node *n = &r->m->nodes[i];
        if (n->skin < 0 || n->mesh < 0) {
            continue;
        }
        uint32_t limit = r->m->skins[n->skin].joint_count;
        const rill_gltf_mesh *mesh = &r->m->meshes[n->mesh];
        for (uint32_t p = 0; p < mesh->primitive_count; p++) {
            const rill_gltf_primitive *pr = &mesh->primitives[p];
            for (size_t k = 0; pr->joints && k < (size_t)pr->vertex_count * 4; k++) {
                if (pr->joints[k] >= (float)limit) {
                    return rill__rd_fail(
                        r, RILL_ERR_CORRUPT,
                        "meshes[%d].primitives[%u].attributes.JOINTS_0: vertex %zu: "
                        "joint %.0f out of range of skins[%d] (%u joints; nodes[%u])",
                        n->mesh, p, k / 4, (double)pr->joints[k], n->skin, limit, i);
                }
            }
        }
    }
    return RILL_OK;
}

rill_result rill__rd_read_skins(rd *r) {
    const rill__gj *arr;
    uint32_t count;
    RILL_TRY(rill__rd_js_array(r, r->root, "skins", "", &arr, &count));
    if (count) {
        r->m->skins = rill__gltf_alloc(count, sizeof(rill_gltf_skin));
        if (!r->m->skins) {
            return rill__rd_fail(r, RILL_ERR_OUT_OF_MEMORY, "skins: out of memory");
        }
    }
    const rill__gj *so;
    RILL__GJ_FOR(so, arr) {
        rill_gltf_skin *skin = &r->m->skins[r->m->skin_count];
        skin->skeleton = -1;
        char where[64];
        rill__rd_index_path(where, sizeof(where), "skins", r->m->skin_count);
        r->m->skin_count++; /* counted first so a failure below frees what it holds */
        RILL_TRY(read_skin(r, so, where, skin));
    }
    return rill__rd_check_skinned_meshes(r);
}
