/* anim.c: the animation system (rill/scene/anim.h): AnimationPlayer components played on the
 * node entities the model system spawned. Each player gets a binding (glTF node -> entity, the
 * rest pose and a pose buffer), made once per spawned tree and dropped with it. An update
 * advances the players' clocks on the main thread, samples every bound player on the job system
 * (each writes only its own pose buffer) and writes the animated nodes' Transforms back on the
 * main thread, before transform propagation. */
#include <math.h>
#include <string.h>

#include "rill/scene/anim.h"

#define LOGM "anim"
/* A pose entry: translation xyz, rotation xyzw, scale xyz. */
#define POSE 10

typedef struct binding {
    rill_entity player;
    rill_entity root;         /* the spawned tree it was made for */
    const rill_gltf_model *m; /* the file's model (the asset's payload) */
    uint32_t node_count;
    rill_entity *nodes; /* node index -> entity (RILL_ENTITY_NULL: not spawned) */
    float *rest;        /* node_count * POSE: the node's own TRS */
    float *pose;        /* node_count * POSE: this frame's sampled pose */
    uint8_t *touched;   /* node_count: animated this frame */
    bool has_weights;   /* some clip of the model has "weights" channels (morph targets) */
    /* What the job samples this frame (copied from the component on the main thread). */
    int32_t active, from;
    float time, from_time, blend; /* blend: weight of active (1 = no fade) */
} binding;

struct rill_scene_anim {
    rill_world *world;
    rill_scene_models *models;
    rill_jobs *jobs;
    rill_component player;
    rill_event ended;
    RILL_ARRAY(binding) bindings;
    rill_map binding_of; /* player entity -> index in bindings */
    rill_scene_anim_stats stats;
};

/* >>component ---------------------------------------------------------------------------------- */

static const float f_one = 1.0f;
static const bool b_true = true;
static const rill_field player_fields[] = {
    RILL_FIELD_WITH(rill_animation_player, clip, STRING,
                    .doc = "the clip's name in the model (empty: use index)"),
    RILL_FIELD_WITH(rill_animation_player, index, I32, RILL_FIELD_MIN(0.0),
                    .doc = "the clip's number when clip is empty"),
    RILL_FIELD_WITH(rill_animation_player, playing, BOOL, .default_value = &b_true,
                    .doc = "advance time (a non-looping clip stops itself at its end)"),
    RILL_FIELD_WITH(rill_animation_player, loop, BOOL, .default_value = &b_true,
                    .doc = "wrap at the end instead of holding the last pose"),
    RILL_FIELD_WITH(rill_animation_player, speed, F32, RILL_FIELD_RANGE(-100.0, 100.0),
                    .default_value = &f_one, .doc = "playback rate (negative: backwards)"),
    RILL_FIELD_WITH(rill_animation_player, time, F32, RILL_FIELD_MIN(0.0),
                    .doc = "position in the clip, seconds"),
    RILL_FIELD_WITH(rill_animation_player, fade, F32, RILL_FIELD_RANGE(0.0, 60.0),
                    .doc = "cross-fade duration when the clip changes, seconds (0 = cut)"),
};
static const rill_animation_player player_default = {NULL, 0, true, true, 1.0f, 0.0f,
                                                     0.0f, 0, 0,    0.0f, 0.0f};

/* >>bindings ----------------------------------------------------------------------------------- */

static void binding_free(binding *b) {
    rill_free(b->nodes);
    rill_free(b->rest);
    rill_free(b->pose);
    rill_free(b->touched);
    memset(b, 0, sizeof(*b));
}

/* Walks the spawned tree as rill_scene_model_spawn built it: a node entity's children are its
 * primitives' entities, then its child nodes' entities, in the file's order. */
static void bind_node(rill_world *w, const rill_gltf_model *m, int32_t node, rill_entity e,
                      binding *b, uint32_t depth) {
    if (depth > 256 || !e || b->nodes[node]) {
        return;
    }
    b->nodes[node] = e;
    const rill_gltf_node *n = &m->nodes[node];
    rill_entity c = rill_world_first_child(w, e);
    uint32_t prims = n->mesh >= 0 ? m->meshes[n->mesh].primitive_count : 0;
    for (uint32_t p = 0; p < prims && c; p++) {
        c = rill_world_next_sibling(w, c);
    }
    for (uint32_t i = 0; i < n->child_count && c; i++) {
        rill_entity next = rill_world_next_sibling(w, c);
        bind_node(w, m, n->children[i], c, b, depth + 1);
        c = next;
    }
}

static void rest_pose(const rill_gltf_node *n, float *out) {
    if (!n->has_matrix) {
        memcpy(out, n->translation, 3 * sizeof(float));
        memcpy(out + 3, n->rotation, 4 * sizeof(float));
        memcpy(out + 7, n->scale, 3 * sizeof(float));
        return;
    }
    /* A node given as a matrix is not a valid animation target (glTF 2.0, 3.11); it keeps the
     * identity here and is never written. */
    static const float ident[POSE] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1};
    memcpy(out, ident, sizeof(ident));
}

static bool binding_make(rill_scene_anim *a, binding *b, rill_entity player, rill_entity root,
                         const rill_gltf_model *m) {
    memset(b, 0, sizeof(*b));
    b->player = player;
    b->root = root;
    b->m = m;
    b->node_count = m->node_count;
    size_t n = m->node_count ? m->node_count : 1;
    b->nodes = rill_calloc_tagged(n, sizeof(rill_entity), RILL_MEM_SCENE);
    b->rest = rill_calloc_tagged(n * POSE, sizeof(float), RILL_MEM_SCENE);
    b->pose = rill_calloc_tagged(n * POSE, sizeof(float), RILL_MEM_SCENE);
    b->touched = rill_calloc_tagged(n, 1, RILL_MEM_SCENE);
    if (!b->nodes || !b->rest || !b->pose || !b->touched) {
        binding_free(b);
        return false;
    }
    int32_t scene = m->default_scene >= 0 ? m->default_scene : (m->scene_count ? 0 : -1);
    uint32_t roots = scene >= 0 ? m->scenes[scene].node_count : m->node_count;
    rill_entity c = rill_world_first_child(a->world, root);
    for (uint32_t i = 0; i < roots && c; i++) {
        int32_t node = scene >= 0 ? m->scenes[scene].nodes[i] : (int32_t)i;
        if (scene < 0 && m->nodes[node].parent >= 0) {
            continue;
        }
        rill_entity next = rill_world_next_sibling(a->world, c);
        bind_node(a->world, m, node, c, b, 0);
        c = next;
    }
    for (uint32_t i = 0; i < m->node_count; i++) {
        rest_pose(&m->nodes[i], &b->rest[(size_t)i * POSE]);
    }
    for (uint32_t k = 0; k < m->animation_count && !b->has_weights; k++) {
        for (uint32_t ch = 0; ch < m->animations[k].channel_count; ch++) {
            b->has_weights |= m->animations[k].channels[ch].path == RILL_GLTF_ANIM_WEIGHTS;
        }
    }
    return true;
}

static void drop_binding(rill_scene_anim *a, uint32_t i) {
    rill_map_remove(&a->binding_of, a->bindings.data[i].player);
    binding_free(&a->bindings.data[i]);
    uint32_t last = a->bindings.len - 1;
    if (i != last) {
        a->bindings.data[i] = a->bindings.data[last];
        rill_map_set(&a->binding_of, a->bindings.data[i].player, i);
    }
    a->bindings.len--;
}

/* The binding of player e to its current tree, made or remade as needed; NULL when e has no
 * spawned model (yet) or memory ran out. */
static binding *bind(rill_scene_anim *a, rill_entity e) {
    rill_entity root = rill_scene_models_root(a->models, e);
    const rill_gltf_model *m = rill_scene_models_model(a->models, e);
    uint64_t i = 0;
    bool have = rill_map_get(&a->binding_of, e, &i);
    if (have && a->bindings.data[i].root == root && a->bindings.data[i].m == m && root) {
        return &a->bindings.data[i];
    }
    if (have) {
        drop_binding(a, (uint32_t)i);
    }
    if (!root || !m || !m->animation_count) {
        return NULL;
    }
    binding b;
    if (!binding_make(a, &b, e, root, m)) {
        return NULL;
    }
    if (!rill_array_push(&a->bindings, b)) {
        binding_free(&b);
        return NULL;
    }
    if (!rill_map_set(&a->binding_of, e, a->bindings.len - 1)) {
        binding_free(&a->bindings.data[a->bindings.len - 1]);
        a->bindings.len--;
        return NULL;
    }
    return &a->bindings.data[a->bindings.len - 1];
}

/* >>clock -------------------------------------------------------------------------------------- */

static int32_t resolve_clip(const rill_gltf_model *m, const rill_animation_player *p) {
    if (p->clip && p->clip[0]) {
        return rill_gltf_animation_find(m, p->clip);
    }
    return p->index >= 0 && (uint32_t)p->index < m->animation_count ? p->index : -1;
}

/* Moves t by step inside [0, dur]: wraps when looping, else clamps. Returns how many times the
 * clip ended on the way (each wrap; reaching an end when not looping), at most 4. */
static uint32_t advance(float *t, float step, float dur, bool loop) {
    if (!isfinite(*t)) {
        *t = 0.0f;
    }
    if (step == 0.0f) {
        return 0;
    }
    if (!(dur > 0.0f)) {
        *t = 0.0f;
        return loop ? 0 : 1;
    }
    float v = *t + step;
    if (v >= 0.0f && v < dur) {
        return *t = v, 0;
    }
    if (!loop) {
        bool was_at_end = step > 0.0f ? *t >= dur : *t <= 0.0f;
        *t = v < 0.0f ? 0.0f : dur;
        return was_at_end ? 0 : 1;
    }
    float wraps = floorf(v / dur);
    *t = v - wraps * dur;
    if (!(*t >= 0.0f && *t < dur)) { /* rounding at the edge */
        *t = 0.0f;
    }
    return (uint32_t)fminf(fabsf(wraps), 4.0f);
}

/* Advances one player's clock and fills its binding's sampling plan. */
static void tick(rill_scene_anim *a, rill_entity e, rill_animation_player *p, binding *b,
                 float dt) {
    int32_t clip = resolve_clip(b->m, p);
    if (clip + 1 != p->active_plus1) {
        /* A new clip: fade from the old one when asked (and there was one). */
        bool fade = p->active_plus1 > 0 && p->fade > 0.0f && clip >= 0;
        p->from_plus1 = fade ? p->active_plus1 : 0;
        p->from_time = p->time;
        p->fade_elapsed = 0.0f;
        /* A clip named at load keeps its saved time; one named later starts at 0. */
        if (p->active_plus1 > 0) {
            p->time = 0.0f;
        }
        p->active_plus1 = clip + 1;
    }
    float step = p->playing ? dt * p->speed : 0.0f;
    if (clip >= 0) {
        const rill_gltf_animation *an = &b->m->animations[clip];
        uint32_t ends = advance(&p->time, step, an->duration, p->loop);
        if (ends && !p->loop) {
            p->playing = false;
        }
        for (uint32_t k = 0; k < ends && k < 4; k++) {
            rill_animation_ended ev = {e, clip};
            rill_world_send_event(a->world, a->ended, &ev);
        }
    }
    b->active = clip;
    b->from = -1;
    b->blend = 1.0f;
    if (p->from_plus1 > 0 && (uint32_t)(p->from_plus1 - 1) < b->m->animation_count) {
        p->fade_elapsed += fabsf(dt);
        if (p->fade_elapsed >= p->fade) {
            p->from_plus1 = 0;
        } else {
            const rill_gltf_animation *fa = &b->m->animations[p->from_plus1 - 1];
            advance(&p->from_time, dt * p->speed, fa->duration, true);
            b->from = p->from_plus1 - 1;
            b->from_time = p->from_time;
            b->blend = p->fade_elapsed / p->fade;
        }
    }
    b->time = p->time;
}

/* >>sampling (workers) ------------------------------------------------------------------------- */

/* Samples clip `clip` at t into out (node_count * POSE, starting from the rest pose), marking
 * the nodes it animates in mask with bit. */
static void sample_clip(const binding *b, int32_t clip, float t, float *out, uint8_t bit) {
    const rill_gltf_animation *an = &b->m->animations[clip];
    for (uint32_t c = 0; c < an->channel_count; c++) {
        const rill_gltf_anim_channel *ch = &an->channels[c];
        if (ch->path == RILL_GLTF_ANIM_WEIGHTS || (uint32_t)ch->node >= b->node_count ||
            b->m->nodes[ch->node].has_matrix) {
            continue;
        }
        const rill_gltf_anim_sampler *s = &an->samplers[ch->sampler];
        float *dst = out + (size_t)ch->node * POSE;
        int off = ch->path == RILL_GLTF_ANIM_TRANSLATION ? 0
                  : ch->path == RILL_GLTF_ANIM_ROTATION  ? 3
                                                         : 7;
        uint32_t want = ch->path == RILL_GLTF_ANIM_ROTATION ? 4u : 3u;
        if (s->comps != want) {
            continue;
        }
        rill_gltf_sampler_eval(s, t, ch->path == RILL_GLTF_ANIM_ROTATION, dst + off);
        b->touched[ch->node] |= bit;
    }
}

static void nlerp_quat(float *a, const float *b, float u) {
    float d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    float s = d < 0.0f ? -1.0f : 1.0f, l = 0.0f;
    for (int i = 0; i < 4; i++) {
        a[i] = a[i] * (1.0f - u) + s * b[i] * u;
        l += a[i] * a[i];
    }
    l = sqrtf(l);
    for (int i = 0; i < 4 && l > 1e-12f; i++) {
        a[i] /= l;
    }
}

static void sample_binding(binding *b) {
    size_t bytes = (size_t)b->node_count * POSE * sizeof(float);
    memcpy(b->pose, b->rest, bytes);
    memset(b->touched, 0, b->node_count);
    if (b->active < 0) {
        return;
    }
    if (b->from < 0) {
        sample_clip(b, b->active, b->time, b->pose, 1);
        return;
    }
    /* Cross-fade: the old clip's pose goes into pose; then every node either clip animates gets
     * its new pose (rest + the new clip's channels) sampled on the stack and blended in by the
     * fade's progress, so the pose is continuous at the fade's start and end. */
    sample_clip(b, b->from, b->from_time, b->pose, 1);
    const rill_gltf_animation *an = &b->m->animations[b->active];
    for (uint32_t c = 0; c < an->channel_count; c++) {
        if ((uint32_t)an->channels[c].node < b->node_count) {
            b->touched[an->channels[c].node] |= 2;
        }
    }
    for (uint32_t n = 0; n < b->node_count; n++) {
        if (!b->touched[n] || b->m->nodes[n].has_matrix) {
            continue;
        }
        float nw[POSE];
        memcpy(nw, &b->rest[(size_t)n * POSE], sizeof(nw));
        for (uint32_t c = 0; c < an->channel_count; c++) {
            const rill_gltf_anim_channel *ch = &an->channels[c];
            if (ch->node != (int32_t)n || ch->path == RILL_GLTF_ANIM_WEIGHTS) {
                continue;
            }
            const rill_gltf_anim_sampler *s = &an->samplers[ch->sampler];
            int off = ch->path == RILL_GLTF_ANIM_TRANSLATION ? 0
                      : ch->path == RILL_GLTF_ANIM_ROTATION  ? 3
                                                             : 7;
            if (s->comps == (ch->path == RILL_GLTF_ANIM_ROTATION ? 4u : 3u)) {
                rill_gltf_sampler_eval(s, b->time, ch->path == RILL_GLTF_ANIM_ROTATION, nw + off);
            }
        }
        float *p = &b->pose[(size_t)n * POSE];
        float u = b->blend;
        for (int k = 0; k < 3; k++) {
            p[k] += (nw[k] - p[k]) * u;
            p[7 + k] += (nw[7 + k] - p[7 + k]) * u;
        }
        nlerp_quat(p + 3, nw + 3, u);
    }
}

static void sample_range(void *arg, uint32_t begin, uint32_t end, uint32_t index) {
    (void)index;
    rill_scene_anim *a = arg;
    for (uint32_t i = begin; i < end; i++) {
        sample_binding(&a->bindings.data[i]);
    }
}

/* >>morph weights (main thread) ---------------------------------------------------------------- */

/* The active clip's "weights" channels written to the MeshMorph of each primitive entity of
 * their node (the node entity's children with a MeshMorph of that many weights). A cross-fade
 * does not blend weights: the new clip's apply from its first frame. */
static void apply_weights(rill_scene_anim *a, const binding *b) {
    rill_component morph = rill_scene_models_components(a->models)->mesh_morph;
    if (!b->has_weights || b->active < 0 || !morph.id) {
        return;
    }
    const rill_gltf_animation *an = &b->m->animations[b->active];
    float w[RILL_GLTF_MAX_TARGETS];
    for (uint32_t c = 0; c < an->channel_count; c++) {
        const rill_gltf_anim_channel *ch = &an->channels[c];
        const rill_gltf_anim_sampler *s = &an->samplers[ch->sampler];
        if (ch->path != RILL_GLTF_ANIM_WEIGHTS || (uint32_t)ch->node >= b->node_count ||
            !b->nodes[ch->node] || !s->comps || s->comps > RILL_GLTF_MAX_TARGETS) {
            continue;
        }
        rill_gltf_sampler_eval(s, b->time, false, w);
        for (rill_entity e = rill_world_first_child(a->world, b->nodes[ch->node]); e;
             e = rill_world_next_sibling(a->world, e)) {
            rill_mesh_morph *mm = rill_world_get(a->world, e, morph);
            if (mm && mm->weights && mm->count == s->comps) {
                memcpy(mm->weights, w, s->comps * sizeof(float));
            }
        }
    }
}

/* >>update ------------------------------------------------------------------------------------- */

void rill_scene_anim_update(rill_scene_anim *a, float dt) {
    if (!a) {
        return;
    }
    if (!isfinite(dt)) {
        dt = 0.0f;
    }
    /* Bindings of players that died or lost their component go first. */
    for (uint32_t i = a->bindings.len; i-- > 0;) {
        rill_entity e = a->bindings.data[i].player;
        if (!rill_world_is_alive(a->world, e) || !rill_world_has(a->world, e, a->player)) {
            drop_binding(a, i);
        }
    }
    const rill_entity *ents;
    void *data;
    uint32_t n = rill_world_component_dense(a->world, a->player, &ents, &data);
    uint32_t players = 0;
    for (uint32_t i = 0; i < n; i++) {
        rill_entity e = ents[i];
        binding *b = bind(a, e);
        if (!b) {
            continue;
        }
        /* Neither binding nor sending events changes the component's storage. */
        tick(a, e, (rill_animation_player *)data + i, b, dt);
        players++;
    }
    uint64_t t0 = rill_time_ns();
    rill_jobs_for(a->jobs, a->bindings.len, 16, sample_range, a);
    a->stats.last_sample_ns = rill_time_ns() - t0;
    uint64_t written = 0;
    for (uint32_t i = 0; i < a->bindings.len; i++) {
        const binding *b = &a->bindings.data[i];
        for (uint32_t k = 0; k < b->node_count; k++) {
            if (!b->touched[k] || !b->nodes[k]) {
                continue;
            }
            const float *p = &b->pose[(size_t)k * POSE];
            rill_transform t;
            memcpy(t.translation, p, 3 * sizeof(float));
            memcpy(t.rotation, p + 3, 4 * sizeof(float));
            memcpy(t.scale, p + 7, 3 * sizeof(float));
            written += rill_world_set_transform(a->world, b->nodes[k], &t);
        }
        apply_weights(a, b);
    }
    a->stats.players = players;
    a->stats.bindings = a->bindings.len;
    a->stats.nodes_written = written;
}

rill_component rill_scene_anim_register(rill_world *world, rill_error *err) {
    if (!world) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rill_scene_anim_register: NULL world");
        return RILL_COMPONENT_NONE;
    }
    rill_component c = rill_world_find_component(world, "AnimationPlayer");
    if (c.id) {
        return c;
    }
    rill_type_desc d = {.name = "AnimationPlayer",
                        RILL_TYPE_LAYOUT(rill_animation_player),
                        RILL_FIELDS(player_fields),
                        .defaults = &player_default,
                        .doc = "plays a clip of this entity's Model (rill/scene/anim.h)"};
    c = rill_world_register_component(world, &d);
    if (!c.id) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "registering AnimationPlayer");
    }
    return c;
}

/* >>lifetime ----------------------------------------------------------------------------------- */

rill_scene_anim *rill_scene_anim_create(const rill_scene_anim_desc *desc, rill_error *err) {
    if (RILL_DESC_CHECK(desc, "rill_scene_anim_create", err) != RILL_OK) {
        return NULL;
    }
    if (!desc || !desc->world || !desc->models) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "rill_scene_anim_create: world and models are required");
        return NULL;
    }
    rill_scene_anim *a = rill_calloc_tagged(1, sizeof(*a), RILL_MEM_SCENE);
    if (!a) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_scene_anim_create: out of memory");
        return NULL;
    }
    a->world = desc->world;
    a->models = desc->models;
    a->jobs = desc->jobs;
    a->player = rill_scene_anim_register(a->world, NULL);
    a->ended = rill_world_find_event(a->world, "AnimationEnded");
    if (!a->ended.id) {
        a->ended =
            rill_world_register_event(a->world, "AnimationEnded", sizeof(rill_animation_ended));
    }
    if (!a->player.id || !a->ended.id) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "rill_scene_anim_create: cannot register AnimationPlayer");
        rill_free(a);
        return NULL;
    }
    return a;
}

void rill_scene_anim_destroy(rill_scene_anim *a) {
    if (!a) {
        return;
    }
    for (uint32_t i = 0; i < a->bindings.len; i++) {
        binding_free(&a->bindings.data[i]);
    }
    rill_array_free(&a->bindings);
    rill_map_free(&a->binding_of);
    rill_free(a);
}

rill_component rill_scene_anim_component(const rill_scene_anim *a) {
    return a ? a->player : RILL_COMPONENT_NONE;
}

rill_event rill_scene_anim_ended_event(const rill_scene_anim *a) {
    return a ? a->ended : RILL_EVENT_NONE;
}

void rill_scene_anim_get_stats(const rill_scene_anim *a, rill_scene_anim_stats *out) {
    if (out) {
        *out = a ? a->stats : (rill_scene_anim_stats){0};
    }
}
