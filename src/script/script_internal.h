/* script_internal.h: the script system's private state, shared by its files: scripts.c (the
 * system, instances and lifecycle), sandbox.c (the state, globals, require, budget and memory
 * limit), api_world.c (entities and components through reflection), api_engine.c (log, scenes,
 * timers, input, raycasts, channels, cameras, events), api_vec3.c, api_quat.c and api_vecs.c (the
 * vec3, quat, vec2, vec4 and color types), lanes.c (what those types share) and names.c (what
 * values are called in messages). */
#ifndef RILL_SCRIPT_INTERNAL_H
#define RILL_SCRIPT_INTERNAL_H

#include <lauxlib.h>
#include <lua.h>

#include "rill/script.h"

#define SCRIPT_LOG "script"

/* Registry keys (metatable names). */
#define SCRIPT_MT_ENTITY "rill.entity"
#define SCRIPT_MT_COMPONENT "rill.component"
#define SCRIPT_MT_SCENE "rill.scene"
/* The lanes types (lanes.c): vec2, vec3, vec4, color and quat. */
#define SCRIPT_LANES_TYPES 5

/* One script file: its environment (the globals the file defined) and callback references. */
typedef enum script_cb {
    SCRIPT_CB_INIT,
    SCRIPT_CB_UPDATE,
    SCRIPT_CB_FIXED_UPDATE,
    SCRIPT_CB_ON_EVENT,
    SCRIPT_CB_FINAL,
    SCRIPT_CB_ON_RELOAD,
    SCRIPT_CB_NUM
} script_cb;

typedef struct script_file {
    const char *path;      /* interned VFS path */
    int env;               /* registry ref of the environment table; LUA_NOREF: never compiled */
    int cb[SCRIPT_CB_NUM]; /* registry refs of the callbacks (LUA_NOREF when not defined) */
    bool disabled;         /* stopped by the budget or the memory limit until the file changes */
    uint64_t mtime_ns;     /* the loose file's mtime when read (0: in a pack, or unreadable) */
    char loose[1024];      /* the OS path of the loose file ("" when in a pack) */
} script_file;

typedef enum script_state {
    INST_NEW = 0, /* init not called yet */
    INST_RUNNING,
    INST_FAILED, /* a runtime error stopped it */
    INST_GONE,   /* final called; compacted away at the end of the update */
} script_state;

typedef struct script_inst {
    rill_entity entity;
    const char *path; /* the Script path it started with (a new path restarts it) */
    uint32_t file;
    int self; /* registry ref of self */
    script_state state;
} script_inst;

/* A timer from rill.after / rill.every. */
typedef struct script_timer {
    uint32_t id;
    double due;
    double period; /* 0 = once */
    int fn;        /* registry ref */
    uint32_t owner_file;
} script_timer;

struct rill_scripts {
    rill_scripts_desc desc;
    lua_State *L;
    rill_world *world;
    rill_component comp;      /* Script */
    rill_component transform; /* Transform */
    rill_component name;      /* Name */
    rill_component camera;    /* Camera */
    /* Memory: bytes held, the limit, and whether the limit refused an allocation in a callback. */
    size_t mem_used, mem_limit;
    bool mem_refused;
    /* The small-block pool under the allocator (sandbox.c): free lists per 16-byte class, slabs. */
    void *pool_free[17];
    struct pool_slab *pool_slabs;
    unsigned char *pool_next;
    size_t pool_left;
    /* The budget of the running callback, in instructions left; `aborting` once it ran out (the
     * hook then raises at every count and the sandbox's pcall re-raises, so nothing catches it). */
    int64_t steps_left;
    bool aborting;
    bool in_call;
    RILL_ARRAY(script_file) files;
    RILL_ARRAY(script_inst) insts;
    rill_map by_entity;            /* entity -> index into insts + 1 */
    RILL_ARRAY(rill_entity) fresh; /* scratch: entities whose Script has no instance yet */
    RILL_ARRAY(script_timer) timers;
    uint32_t next_timer;
    int32_t current_file; /* the file whose callback runs (-1: none), for rill.log and timers */
    rill_script_input input;
    double time;
    uint64_t frame;
    rill_event_reader scene_loaded, scene_failed;
    rill_event_reader contact_begin, contact_end, picked;
    int loaded_modules; /* registry ref: require's cache */
    int sandbox_mt;     /* registry ref: the metatable whose __index is the sandbox globals */
    int vec3_mt, quat_mt, vec2_mt, vec4_mt, color_mt; /* registry refs */
    int field_tables; /* registry ref: component id -> {field name = index + 1} (api_world.c) */
    int entity_mt, component_mt; /* registry refs of the two metatables (also under their names) */
    int lane_key[8];             /* registry refs of the strings x y z w r g b a */
    /* The addresses of the entity, component proxy and vec3 metatables (kept alive by the refs
     * above; Lua never moves an object): a type test compares one pointer. */
    const void *entity_meta, *component_meta, *vec3_meta, *quat_meta, *vec2_meta, *vec4_meta,
        *color_meta;
    /* The lanes types as opened (lanes.c): each one's description and metatable address. */
    const struct script_lanes *lanes_type[SCRIPT_LANES_TYPES];
    const void *lanes_meta[SCRIPT_LANES_TYPES];
    int lanes_types;
    rill_scripts_stats stats;
};

/* sandbox.c */
bool rill__script_open(rill_scripts *s, rill_error *err);
void rill__script_close(rill_scripts *s);
/* A new environment table for a chunk (globals fall through to the sandbox), left on the stack. */
void rill__script_new_env(lua_State *L, rill_scripts *s);
/* Reads a VFS file into a buffer the caller frees (rill_free); NULL + message pushed on error. */
char *rill__script_read(rill_scripts *s, const char *path, size_t *out_len, rill_error *err);
/* luaL_loadbufferx of a text chunk, after a UTF-8 byte-order mark at its start (Windows editors
 * write one; Lua's own file loader skips it too). */
int rill__script_load_text(lua_State *L, const char *src, size_t len, const char *chunk);
/* Starts the budget of a callback. */
void rill__script_budget_start(rill_scripts *s);
/* lua_pcall under the budget with a traceback handler: returns the status, the message (with its
 * traceback) on the stack on failure. */
int rill__script_pcall(rill_scripts *s, int nargs, int nresults);
/* The "file:line" of the innermost Lua function calling into C (level 1), into buf. */
const char *rill__script_where(lua_State *L, char *buf, size_t cap);
/* print(...) and rill.log(...): one line at INFO in the engine log, "file:line: values"
 * (tab-separated, each as tostring gives it). */
int rill__script_log_values(lua_State *L);

/* api_world.c */
void rill__script_open_world(lua_State *L, rill_scripts *s);
void rill__script_push_entity(lua_State *L, rill_entity e);
/* The userdata at idx when its metatable is the one at address meta, else NULL. */
void *rill__script_test_udata(lua_State *L, int idx, const void *meta);
rill_entity rill__script_check_entity(lua_State *L, int idx);
rill_entity rill__script_opt_entity(lua_State *L, int idx);
void rill__script_push_vec(lua_State *L, rill_scripts *s, const float *v, int n);
bool rill__script_to_vec(lua_State *L, int idx, float *out, int n);
/* n lanes (n <= 4) from a table {x=, y=, ...}, {r=, g=, ...} or {a, b, ...} into out; false for
 * any other value or a lane that is not a number. */
bool rill__script_table_lanes(lua_State *L, int idx, double *out, int n);

/* lanes.c: a value type of n double lanes (a full userdata of n doubles), described once. */
#define SCRIPT_LANES_MAX 4
typedef struct script_lanes {
    int n;             /* lanes, 1..SCRIPT_LANES_MAX */
    const char *type;  /* its name and global ("vec3"), in messages */
    const char *names; /* the lanes' one-letter field names in order ("xyz") */
    const double *(*test)(lua_State *L, int idx); /* the lanes of the value at idx, or NULL */
    const double *unset;                          /* the constructor's value for a lane not given */
    void (*push)(lua_State *L, const double *v);  /* pushes a new value of these lanes */
    const char *aliases; /* other names of the same lanes in order ("xyzw" for color), or NULL */
    bool vector; /* has the per-lane arithmetic and vector methods (lanes.c); quat does not */
} script_lanes;
/* An argument of type t (or of another lanes type of as many lanes, or a table it is read from)
 * into out; raises naming op and the type. */
void rill__script_lanes_arg(lua_State *L, const script_lanes *t, int idx, const char *op,
                            double *out);
/* The lanes of the lanes-type value at idx (its type into *out_t), or NULL for any other value. */
const double *rill__script_lanes_value(lua_State *L, int idx, const script_lanes **out_t);
/* Makes t's metatable (methods plus meta, with the shared __index, __newindex, __eq and
 * __tostring, and for a vector the shared arithmetic and methods, which methods and meta
 * override; its registry ref into *out_mt, its address into *out_meta) and pushes the global
 * (callable as the constructor, indexing the methods). getmetatable(v) gives the methods. */
void rill__script_lanes_open(lua_State *L, const script_lanes *t, const luaL_Reg *methods,
                             const luaL_Reg *meta, int *out_mt, const void **out_meta);

/* names.c: what values are called in messages. */
/* "an" before a vowel, else "a". */
const char *rill__script_article(const char *word);
/* The value at idx as a script author knows it, with its article: "a vec3", "an entity", "a
 * Transform component", "a scene handle", "a number", "nil" (never "userdata"). May push a string
 * (for messages raised right after). */
const char *rill__script_value_name(lua_State *L, int idx);
/* Raises "bad argument #idx to 'f' (expected <expected>, got <value name>)". */
int rill__script_arg_error(lua_State *L, int idx, const char *expected);
/* The component type name of the component value (a proxy: e.Transform) at idx, or NULL. */
const char *rill__script_proxy_type(lua_State *L, int idx);

/* api_vec3.c */
/* Makes the vec3 type (s->vec3_mt) and pushes the `vec3` global. */
void rill__script_open_vec3(lua_State *L, rill_scripts *s);
void rill__script_push_vec3(lua_State *L, rill_scripts *s, const double v[3]);
/* The lanes of the vec3 at idx, or NULL when the value there is not a vec3. */
const double *rill__script_test_vec3(lua_State *L, int idx);
/* A vec3 argument (or a table a vec3 is read from) into out; raises naming op and the type. */
void rill__script_arg_vec3(lua_State *L, int idx, const char *op, double out[3]);

/* api_vecs.c */
/* Makes the vec2, vec4 and color types and sets their globals into the table at g. */
void rill__script_open_vecs(lua_State *L, rill_scripts *s, int g);
void rill__script_push_vec2(lua_State *L, const double v[2]);
void rill__script_push_vec4(lua_State *L, const double v[4]);
void rill__script_push_color(lua_State *L, const double v[4]);

/* api_quat.c */
/* Makes the quat type (s->quat_mt) and pushes the `quat` global. */
void rill__script_open_quat(lua_State *L, rill_scripts *s);
void rill__script_push_quat(lua_State *L, rill_scripts *s, const double q[4]);
/* The lanes (x, y, z, w) of the quat at idx, or NULL when the value there is not a quat. */
const double *rill__script_test_quat(lua_State *L, int idx);

/* api_engine.c */
void rill__script_open_engine(lua_State *L, rill_scripts *s);
void rill__script_run_timers(rill_scripts *s);
void rill__script_deliver_events(rill_scripts *s);
/* The scripts' system, from the registry (the C functions' upvalue-free way to find it). */
rill_scripts *rill__script_get(lua_State *L);

/* scripts.c */
/* Calls callback cb of instance i with (self, the nextra values on top of the stack, which stay
 * there for the caller to pop), if it runs and its script defines cb. */
void rill__script_call(rill_scripts *s, uint32_t i, script_cb cb, int nextra);
/* The same for every running instance, in order. */
void rill__script_broadcast(rill_scripts *s, script_cb cb, int nextra);
/* Marks every instance of a file disabled (budget or memory), logging once. */
void rill__script_disable_file(rill_scripts *s, uint32_t file, const char *why);

#endif /* RILL_SCRIPT_INTERNAL_H */
