/* scripts.c: the script system: the Script component, script files (compile, reload), instances
 * (one per entity with a Script, in the order they appeared) and their lifecycle, and how a
 * failing script is stopped. Every entry into Lua goes through rill__script_pcall (sandbox.c), so
 * an error, the instruction budget or the memory limit lands here as a status, never as a panic. */
#include <string.h>

#include "script_internal.h"

#define PROPERTIES_MAX 65536 /* bytes of a Script's properties text */

static const char *const CB_NAMES[SCRIPT_CB_NUM] = {"init",     "update", "fixed_update",
                                                    "on_event", "final",  "on_reload"};

/* >>component ---------------------------------------------------------------------------------- */

rill_component rill_script_register(rill_world *world) {
    rill_component c = rill_world_find_component(world, "Script");
    if (c.id) {
        return c;
    }
    static const rill_field fields[] = {
        RILL_FIELD_WITH(rill_script, path, ASSET_PATH,
                        .doc = "the .lua file the entity runs (docs/scripting.md)"),
        RILL_FIELD_WITH(rill_script, properties, STRING,
                        .doc = "overrides of the script's properties: a Lua table body, e.g. "
                               "speed = 3, target = \"door\""),
    };
    rill_type_desc d = {.name = "Script",
                        RILL_TYPE_LAYOUT(rill_script),
                        RILL_FIELDS(fields),
                        .doc = "runs a Lua gameplay script on the entity"};
    return rill_world_register_component(world, &d);
}

/* >>messages ----------------------------------------------------------------------------------- */

/* "entity 5:1 'Door'" into buf. */
static const char *entity_label(const rill_scripts *s, rill_entity e, char *buf, size_t cap) {
    const char *name = rill_world_get_name(s->world, e);
    snprintf(buf, cap, "entity %u:%u%s%s%s", RILL_ENTITY_INDEX(e), RILL_ENTITY_GENERATION(e),
             name ? " '" : "", name ? name : "", name ? "'" : "");
    return buf;
}

void rill__script_disable_file(rill_scripts *s, uint32_t file, const char *why) {
    script_file *f = &s->files.data[file];
    if (!f->disabled) {
        RILL_LOG_ERROR(SCRIPT_LOG,
                       "%s stopped and disabled (every entity running it) until the file "
                       "changes: %s",
                       f->path, why);
    }
    f->disabled = true;
}

/* A callback of instance i failed with status st (message on the stack, popped here). */
static void call_failed(rill_scripts *s, uint32_t i, script_cb cb, int st) {
    lua_State *L = s->L;
    script_inst *in = &s->insts.data[i];
    const char *msg = lua_tostring(L, -1);
    s->stats.errors++;
    if (s->aborting || s->mem_refused || st == LUA_ERRMEM) {
        char why[RILL_ERROR_MSG_MAX];
        snprintf(why, sizeof(why), "%s%s",
                 st == LUA_ERRMEM || (s->mem_refused && !s->aborting) ? "memory limit reached: "
                                                                      : "",
                 msg ? msg : "?");
        rill__script_disable_file(s, in->file, why);
    } else {
        char ent[160];
        RILL_LOG_ERROR(SCRIPT_LOG, "%s: %s failed on %s (that entity's script is stopped): %s",
                       s->files.data[in->file].path, CB_NAMES[cb],
                       entity_label(s, in->entity, ent, sizeof(ent)), msg ? msg : "?");
        in->state = INST_FAILED;
    }
    lua_pop(L, 1);
    if (st == LUA_ERRMEM || s->mem_refused) {
        lua_gc(L, LUA_GCCOLLECT);
    }
}

/* >>calls -------------------------------------------------------------------------------------- */

/* The function and self of callback cb of instance i pushed, true; false (nothing pushed) when it
 * does not run or its script does not define cb. */
static bool push_callback(rill_scripts *s, uint32_t i, script_cb cb) {
    const script_inst *in = &s->insts.data[i];
    if (in->state != INST_RUNNING) {
        return false;
    }
    const script_file *f = &s->files.data[in->file];
    if (f->disabled || f->cb[cb] == LUA_NOREF) {
        return false;
    }
    lua_rawgeti(s->L, LUA_REGISTRYINDEX, f->cb[cb]);
    lua_rawgeti(s->L, LUA_REGISTRYINDEX, in->self);
    return true;
}

void rill__script_call(rill_scripts *s, uint32_t i, script_cb cb, int nextra) {
    if (!push_callback(s, i, cb)) {
        return;
    }
    lua_State *L = s->L;
    for (int k = 0; k < nextra;
         k++) { /* extra k sits at -(nextra + 2) once the others are pushed */
        lua_pushvalue(L, -(nextra + 2));
    }
    s->current_file = (int32_t)s->insts.data[i].file;
    int st = rill__script_pcall(s, 1 + nextra, 0);
    s->current_file = -1;
    if (st != LUA_OK) {
        call_failed(s, i, cb, st);
    }
}

/* A broadcast's run: callback cb of instances next .. end - 1, with the extras at stack slots
 * 2 .. 1 + nextra of batch_protected. */
typedef struct batch_job {
    rill_scripts *s;
    script_cb cb;
    int nextra;
    uint32_t next, end;
} batch_job;

/* Calls the instances one after the other under the one pcall of the broadcast (a pcall per
 * instance costs a setjmp and a handler each), each with a budget of its own. On an error
 * job->next is the instance that raised; the broadcast handles it and goes on after it. */
static int batch_protected(lua_State *L) {
    batch_job *j = lua_touserdata(L, 1);
    rill_scripts *s = j->s;
    for (; j->next < j->end; j->next++) {
        if (!push_callback(s, j->next, j->cb)) {
            continue;
        }
        for (int k = 0; k < j->nextra; k++) {
            lua_pushvalue(L, 2 + k);
        }
        s->current_file = (int32_t)s->insts.data[j->next].file;
        rill__script_budget_start(s);
        s->stats.calls++;
        lua_call(L, 1 + j->nextra, 0);
    }
    s->current_file = -1;
    return 0;
}

void rill__script_broadcast(rill_scripts *s, script_cb cb, int nextra) {
    lua_State *L = s->L;
    /* instances made meanwhile start at the next update */
    batch_job j = {s, cb, nextra, 0, s->insts.len};
    while (j.next < j.end) {
        lua_pushcfunction(L, batch_protected);
        lua_pushlightuserdata(L, &j);
        for (int k = 0; k < nextra; k++) { /* the extras, from under the two just pushed */
            lua_pushvalue(L, -(nextra + 2));
        }
        int st = rill__script_pcall(s, 1 + nextra, 0);
        s->stats.calls--; /* counted per callback, in batch_protected */
        s->current_file = -1;
        if (st == LUA_OK) {
            break;
        }
        call_failed(s, j.next, cb, st);
        j.next++;
    }
}

/* >>files -------------------------------------------------------------------------------------- */

typedef struct load_job {
    rill_scripts *s;
    uint32_t file;
    const char *src;
    size_t len;
    bool syntax; /* the chunk did not compile */
} load_job;

/* Compiles and runs a file's chunk in a fresh environment; on success the file's environment and
 * callbacks are replaced (the old ones stay on any failure). */
static int load_protected(lua_State *L) {
    load_job *j = lua_touserdata(L, 1);
    script_file *f = &j->s->files.data[j->file];
    lua_pushfstring(L, "@%s", f->path);
    if (rill__script_load_text(L, j->src, j->len, lua_tostring(L, -1)) != LUA_OK) {
        j->syntax = true;
        return lua_error(L);
    }
    rill__script_new_env(L, j->s);
    lua_pushvalue(L, -1);
    lua_setupvalue(L, -3, 1); /* the chunk's _ENV */
    int env = lua_gettop(L);
    lua_pushvalue(L, env - 1);
    lua_call(L, 0, 0);
    int refs[SCRIPT_CB_NUM];
    for (int c = 0; c < SCRIPT_CB_NUM; c++) {
        lua_pushstring(L, CB_NAMES[c]);
        if (lua_rawget(L, env) == LUA_TFUNCTION) {
            refs[c] = luaL_ref(L, LUA_REGISTRYINDEX);
        } else {
            lua_pop(L, 1);
            refs[c] = LUA_NOREF;
        }
    }
    lua_pushvalue(L, env);
    int env_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    f = &j->s->files.data[j->file];
    luaL_unref(L, LUA_REGISTRYINDEX, f->env);
    f->env = env_ref;
    for (int c = 0; c < SCRIPT_CB_NUM; c++) {
        luaL_unref(L, LUA_REGISTRYINDEX, f->cb[c]);
        f->cb[c] = refs[c];
    }
    return 0;
}

/* Reads and (re)loads file i. False (logged) when it cannot be read, does not compile, or its
 * top level fails: the file keeps what it had. */
static bool load_file(rill_scripts *s, uint32_t i) {
    script_file *f = &s->files.data[i];
    rill_error err = {0};
    size_t len = 0;
    char *src = rill__script_read(s, f->path, &len, &err);
    if (!src) {
        RILL_LOG_ERROR(SCRIPT_LOG, "script %s: %s", f->path, err.msg);
        s->stats.compile_errors++;
        return false;
    }
    const char *root = rill_vfs_which(s->desc.vfs, f->path);
    f->loose[0] = '\0';
    if (root) {
        char loose[sizeof(f->loose)];
        int n = snprintf(loose, sizeof(loose), "%s/%s", root, f->path);
        if (n > 0 && (size_t)n < sizeof(loose) && rill_file_mtime_ns(loose) != 0) {
            memcpy(f->loose, loose, (size_t)n + 1);
        }
    }
    f->mtime_ns = f->loose[0] ? rill_file_mtime_ns(f->loose) : 0;
    load_job j = {s, i, src, len, false};
    lua_State *L = s->L;
    lua_pushcfunction(L, load_protected);
    lua_pushlightuserdata(L, &j);
    s->current_file = (int32_t)i;
    int st = rill__script_pcall(s, 1, 0);
    s->current_file = -1;
    rill_free(src);
    f = &s->files.data[i];
    if (st != LUA_OK) {
        bool had = f->env != LUA_NOREF;
        RILL_LOG_ERROR(SCRIPT_LOG, "%s %s%s: %s", j.syntax ? "syntax error in" : "error running",
                       f->path, had ? " (its entities keep the last good version)" : "",
                       lua_tostring(L, -1));
        lua_pop(L, 1);
        s->stats.compile_errors++;
        if (st == LUA_ERRMEM || s->mem_refused) {
            lua_gc(L, LUA_GCCOLLECT);
        }
        return false;
    }
    f->disabled = false;
    return true;
}

static uint32_t file_for(rill_scripts *s, const char *path) {
    for (uint32_t i = 0; i < s->files.len; i++) {
        if (s->files.data[i].path == path) {
            return i;
        }
    }
    script_file f = {.path = path, .env = LUA_NOREF};
    for (int c = 0; c < SCRIPT_CB_NUM; c++) {
        f.cb[c] = LUA_NOREF;
    }
    if (!rill_array_push(&s->files, f)) {
        return UINT32_MAX;
    }
    s->stats.files++;
    load_file(s, s->files.len - 1);
    return s->files.len - 1;
}

static uint32_t reload_file(rill_scripts *s, uint32_t fi) {
    if (!load_file(s, fi)) {
        return 0;
    }
    s->stats.reloads++;
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->insts.len; i++) {
        script_inst *in = &s->insts.data[i];
        if (in->file != fi || in->state == INST_GONE || in->state == INST_NEW) {
            continue;
        }
        if (in->self == LUA_NOREF) { /* it never started (bad properties): start afresh */
            in->state = INST_NEW;
            continue;
        }
        in->state = INST_RUNNING; /* an instance an error stopped gets another chance */
        rill__script_call(s, i, SCRIPT_CB_ON_RELOAD, 0);
        n++;
    }
    RILL_LOG_INFO(SCRIPT_LOG, "reloaded %s (%u running entities keep their self)",
                  s->files.data[fi].path, n);
    return 1;
}

uint32_t rill_scripts_reload_changed(rill_scripts *s) {
    if (!s) {
        return 0;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->files.len; i++) {
        script_file *f = &s->files.data[i];
        if (!f->loose[0]) {
            continue;
        }
        uint64_t m = rill_file_mtime_ns(f->loose);
        if (m != 0 && m != f->mtime_ns) {
            n += reload_file(s, i);
        }
    }
    return n;
}

/* >>instances ---------------------------------------------------------------------------------- */

typedef struct start_job {
    rill_scripts *s;
    uint32_t inst;
    const char *props;
    int self;
} start_job;

/* A copy of a property default: vec3s, quats and the other lanes values are copied, other tables
 * one level deep, so one instance changing its self.offset.x does not change every other
 * instance's. */
static void push_copy(lua_State *L, int idx) {
    const script_lanes *t;
    const double *v = rill__script_lanes_value(L, idx, &t);
    if (v) {
        t->push(L, v);
        return;
    }
    if (lua_type(L, idx) != LUA_TTABLE) {
        lua_pushvalue(L, idx);
        return;
    }
    idx = lua_absindex(L, idx);
    lua_newtable(L);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, -4);
    }
    if (lua_getmetatable(L, idx)) {
        lua_setmetatable(L, -2);
    }
}

/* Builds self: the script's declared properties, the component's overrides, and self.entity. */
static int start_protected(lua_State *L) {
    start_job *j = lua_touserdata(L, 1);
    rill_scripts *s = j->s;
    script_inst *in = &s->insts.data[j->inst];
    lua_newtable(L);
    int self = lua_gettop(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->files.data[in->file].env);
    lua_pushliteral(L, "properties");
    if (lua_rawget(L, -2) == LUA_TTABLE) {
        int props = lua_gettop(L);
        lua_pushnil(L);
        while (lua_next(L, props)) {
            lua_pushvalue(L, -2);
            push_copy(L, -2);
            lua_rawset(L, self);
            lua_pop(L, 1);
        }
    }
    lua_settop(L, self);
    if (j->props && *j->props) {
        size_t n = strlen(j->props);
        if (n > PROPERTIES_MAX) {
            return luaL_error(L, "its properties text is over %d bytes", PROPERTIES_MAX);
        }
        lua_pushliteral(L, "return {");
        lua_pushstring(L, j->props);
        lua_pushliteral(L, "\n}");
        lua_concat(L, 3);
        if (luaL_loadbufferx(L, lua_tostring(L, -1), lua_rawlen(L, -1), "=properties", "t") !=
            LUA_OK) {
            return luaL_error(L, "its properties do not parse: %s", lua_tostring(L, -1));
        }
        /* Evaluated with nothing but the math types in reach. */
        static const char *const TYPES[] = {"vec3", "quat", "vec2", "vec4", "color"};
        lua_createtable(L, 0, 5);
        lua_getfield(L, LUA_REGISTRYINDEX, "rill.sandbox");
        for (int i = 0; i < 5; i++) {
            lua_getfield(L, -1, TYPES[i]);
            lua_setfield(L, -3, TYPES[i]);
        }
        lua_pop(L, 1);
        lua_setupvalue(L, -2, 1);
        lua_call(L, 0, 1);
        int over = lua_gettop(L);
        lua_pushnil(L);
        while (lua_next(L, over)) {
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_rawset(L, self);
        }
        lua_settop(L, self);
    }
    rill__script_push_entity(L, in->entity);
    lua_setfield(L, self, "entity");
    j->self = luaL_ref(L, LUA_REGISTRYINDEX);
    return 0;
}

static void start(rill_scripts *s, uint32_t i) {
    script_inst *in = &s->insts.data[i];
    const rill_script *sc = rill_world_get(s->world, in->entity, s->comp);
    start_job j = {s, i, sc ? sc->properties : NULL, LUA_NOREF};
    lua_pushcfunction(s->L, start_protected);
    lua_pushlightuserdata(s->L, &j);
    s->current_file = (int32_t)in->file;
    int st = rill__script_pcall(s, 1, 0);
    s->current_file = -1;
    in = &s->insts.data[i];
    if (st != LUA_OK) { /* bad properties: that instance alone fails, whatever stopped it */
        char ent[160];
        RILL_LOG_ERROR(SCRIPT_LOG, "%s: cannot start on %s: %s", s->files.data[in->file].path,
                       entity_label(s, in->entity, ent, sizeof(ent)), lua_tostring(s->L, -1));
        lua_pop(s->L, 1);
        s->stats.errors++;
        in->state = INST_FAILED;
        if (st == LUA_ERRMEM || s->mem_refused) {
            lua_gc(s->L, LUA_GCCOLLECT);
        }
        return;
    }
    in->self = j.self;
    in->state = INST_RUNNING;
    rill__script_call(s, i, SCRIPT_CB_INIT, 0);
}

static void finish(rill_scripts *s, uint32_t i) {
    if (s->insts.data[i].state == INST_RUNNING) {
        rill__script_call(s, i, SCRIPT_CB_FINAL, 0);
    }
    script_inst *in = &s->insts.data[i];
    luaL_unref(s->L, LUA_REGISTRYINDEX, in->self);
    in->self = LUA_NOREF;
    in->state = INST_GONE;
}

/* Finishes instances whose Script went or changed path, makes instances for new Scripts and
 * starts those whose file has compiled. */
static void sync(rill_scripts *s) {
    uint32_t live = 0; /* instances left, each on its own entity with a Script of its path */
    for (uint32_t i = 0; i < s->insts.len; i++) {
        script_inst *in = &s->insts.data[i];
        if (in->state == INST_GONE) {
            continue;
        }
        const rill_script *sc = rill_world_get(s->world, in->entity, s->comp);
        if (!sc || sc->path != in->path) {
            finish(s, i);
        } else {
            live++;
        }
    }
    const rill_entity *ents = NULL;
    void *data = NULL;
    uint32_t n = rill_world_component_dense(s->world, s->comp, &ents, &data);
    s->fresh.len = 0;
    uint32_t with_path = 0;
    for (uint32_t k = 0; k < n; k++) {
        with_path += ((const rill_script *)data)[k].path != NULL;
    }
    if (with_path == live) { /* every Script with a path has its instance: nothing new */
        n = 0;
    }
    for (uint32_t k = 0; k < n; k++) {
        uint64_t v;
        if (((const rill_script *)data)[k].path && (!rill_map_get(&s->by_entity, ents[k], &v) ||
                                                    s->insts.data[v - 1].state == INST_GONE)) {
            rill_array_push(&s->fresh, ents[k]);
        }
    }
    for (uint32_t k = 0; k < s->fresh.len; k++) {
        const rill_script *sc = rill_world_get(s->world, s->fresh.data[k], s->comp);
        if (!sc || !sc->path) {
            continue;
        }
        uint32_t f = file_for(s, sc->path);
        script_inst in = {.entity = s->fresh.data[k],
                          .path = sc->path,
                          .file = f,
                          .self = LUA_NOREF,
                          .state = INST_NEW};
        if (f == UINT32_MAX || !rill_array_push(&s->insts, in) ||
            !rill_map_set(&s->by_entity, in.entity, s->insts.len)) {
            RILL_LOG_ERROR(SCRIPT_LOG, "out of memory starting %s", sc->path);
            return;
        }
    }
    for (uint32_t i = 0; i < s->insts.len; i++) {
        script_inst *in = &s->insts.data[i];
        if (in->state == INST_NEW && s->files.data[in->file].env != LUA_NOREF &&
            !s->files.data[in->file].disabled) {
            start(s, i);
        }
    }
}

/* Drops finished instances, keeping the order of the others. */
static void compact(rill_scripts *s) {
    uint32_t w = 0;
    for (uint32_t i = 0; i < s->insts.len; i++) {
        if (s->insts.data[i].state != INST_GONE) {
            s->insts.data[w++] = s->insts.data[i];
        }
    }
    if (w == s->insts.len) {
        return;
    }
    s->insts.len = w;
    rill_map_clear(&s->by_entity);
    for (uint32_t i = 0; i < w; i++) {
        rill_map_set(&s->by_entity, s->insts.data[i].entity, i + 1u);
    }
}

/* >>system ------------------------------------------------------------------------------------- */

rill_scripts *rill_scripts_create(const rill_scripts_desc *desc, rill_error *err) {
    if (RILL_DESC_CHECK(desc, "rill_scripts_create", err) != RILL_OK) {
        return NULL;
    }
    if (!desc || !desc->world || !desc->vfs) {
        rill_error_set(err, RILL_ERR_INVALID_ARGUMENT,
                       "rill_scripts_create: world and vfs are "
                       "required");
        return NULL;
    }
    rill_scripts *s = rill_calloc(1, sizeof(*s));
    if (!s) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_scripts_create: out of memory");
        return NULL;
    }
    s->desc = *desc;
    if (!s->desc.memory_limit) {
        s->desc.memory_limit = (size_t)64 << 20;
    }
    if (!s->desc.instruction_budget) {
        s->desc.instruction_budget = 50000000u;
    }
    s->mem_limit = s->desc.memory_limit;
    s->world = desc->world;
    s->current_file = -1;
    s->comp = rill_script_register(s->world);
    const rill_builtins *b = rill_world_builtin(s->world);
    s->transform = b->transform;
    s->name = b->name;
    s->camera = b->camera;
    if (!s->comp.id) {
        rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "rill_scripts_create: registering Script");
        rill_free(s);
        return NULL;
    }
    if (!rill__script_open(s, err)) {
        rill_free(s);
        return NULL;
    }
    return s;
}

void rill_scripts_destroy(rill_scripts *s) {
    if (!s) {
        return;
    }
    for (uint32_t i = 0; i < s->insts.len; i++) {
        if (s->insts.data[i].state == INST_RUNNING) {
            rill__script_call(s, i, SCRIPT_CB_FINAL, 0);
        }
    }
    rill__script_close(s);
    rill_array_free(&s->files);
    rill_array_free(&s->insts);
    rill_array_free(&s->fresh);
    rill_array_free(&s->timers);
    rill_map_free(&s->by_entity);
    rill_free(s);
}

void rill_scripts_update(rill_scripts *s, double dt) {
    if (!s) {
        return;
    }
    s->time += dt;
    s->frame++;
    /* A world without scripts pays for this test and nothing else. */
    if (s->insts.len == 0 && s->timers.len == 0 &&
        rill_world_component_len(s->world, s->comp) == 0) {
        return;
    }
    uint64_t t0 = rill_time_ns();
    if (s->desc.hot_reload) {
        rill_scripts_reload_changed(s);
    }
    sync(s);
    if (s->timers.len) {
        rill__script_run_timers(s);
    }
    rill__script_deliver_events(s);
    lua_pushnumber(s->L, dt);
    rill__script_broadcast(s, SCRIPT_CB_UPDATE, 1);
    lua_pop(s->L, 1);
    compact(s);
    s->stats.last_update_ns = rill_time_ns() - t0;
}

void rill_scripts_fixed_update(rill_scripts *s, double dt) {
    if (!s || s->insts.len == 0) {
        return;
    }
    lua_pushnumber(s->L, dt);
    rill__script_broadcast(s, SCRIPT_CB_FIXED_UPDATE, 1);
    lua_pop(s->L, 1);
}

void rill_scripts_set_input(rill_scripts *s, const rill_script_input *in) {
    if (!s) {
        return;
    }
    if (in) {
        s->input = *in;
    } else {
        memset(&s->input, 0, sizeof(s->input));
    }
}

void rill_scripts_get_stats(const rill_scripts *s, rill_scripts_stats *out) {
    if (!out) {
        return;
    }
    memset(out, 0, sizeof(*out));
    if (!s) {
        return;
    }
    *out = s->stats;
    out->instances = s->insts.len;
    for (uint32_t i = 0; i < s->insts.len; i++) {
        out->running += s->insts.data[i].state == INST_RUNNING &&
                        !s->files.data[s->insts.data[i].file].disabled;
    }
    out->memory_bytes = s->mem_used;
}

bool rill_scripts_running(const rill_scripts *s, rill_entity e) {
    uint64_t v;
    if (!s || !rill_map_get(&s->by_entity, e, &v)) {
        return false;
    }
    const script_inst *in = &s->insts.data[v - 1];
    return in->state == INST_RUNNING && !s->files.data[in->file].disabled;
}

typedef struct exec_job {
    rill_scripts *s;
    const char *name, *code;
    bool syntax;
} exec_job;

static int exec_protected(lua_State *L) {
    exec_job *j = lua_touserdata(L, 1);
    lua_pushfstring(L, "=%s", j->name);
    if (rill__script_load_text(L, j->code, strlen(j->code), lua_tostring(L, -1)) != LUA_OK) {
        j->syntax = true;
        return lua_error(L);
    }
    rill__script_new_env(L, j->s);
    lua_setupvalue(L, -2, 1);
    lua_call(L, 0, 0);
    return 0;
}

rill_result rill_scripts_exec(rill_scripts *s, const char *name, const char *code,
                              rill_error *err) {
    if (!s || !code) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rill_scripts_exec: NULL argument");
    }
    lua_State *L = s->L;
    exec_job j = {s, name ? name : "exec", code, false};
    lua_pushcfunction(L, exec_protected);
    lua_pushlightuserdata(L, &j);
    int st = rill__script_pcall(s, 1, 0);
    if (st == LUA_OK) {
        return RILL_OK;
    }
    rill_result r = j.syntax ? RILL_ERR_PARSE : RILL_ERR_INVALID_ARGUMENT;
    rill_error_set(err, r, "%s", lua_tostring(L, -1));
    lua_pop(L, 1);
    if (st == LUA_ERRMEM || s->mem_refused) {
        lua_gc(L, LUA_GCCOLLECT);
    }
    return r;
}
