/* api_world.c: entities and components for scripts. An entity is a userdata holding its 64-bit
 * id; `e.Transform` gives a component proxy (entity + component id) and `e.Transform.translation`
 * reads the field through the reflection registry, so every registered component, user ones
 * included, reads and writes the same way with no per-component binding. Field values map to Lua
 * as: bool -> boolean, integers -> integer, floats -> number, vec2 / vec3 / vec4 / color / quat ->
 * a value of that type, string / asset_path -> string or nil, entity -> entity or nil, enum -> its
 * name, arrays -> a sequence. Writes convert back (a vector also from {1, 2, 3}, {x=, ...} or
 * {r=, g=, b=, a=}), clamp to the field's bounds, and mark a Transform dirty. Unknown components
 * and fields are errors naming the script line. Also rill.find, spawn, despawn and query. */
#include <string.h>

#include "script_internal.h"

typedef struct comp_proxy {
    rill_entity entity;
    rill_component comp;
} comp_proxy;

/* >>entities ---------------------------------------------------------------------------------- */

void rill__script_push_entity(lua_State *L, rill_entity e) {
    if (!e) {
        lua_pushnil(L);
        return;
    }
    rill_entity *u = lua_newuserdatauv(L, sizeof(rill_entity), 1); /* uv 1: its proxies */
    *u = e;
    lua_rawgeti(L, LUA_REGISTRYINDEX, rill__script_get(L)->entity_mt);
    lua_setmetatable(L, -2);
}

/* The same test as luaL_testudata, by the metatable's address instead of by name (no string
 * lookup, no registry read per call). */
void *rill__script_test_udata(lua_State *L, int idx, const void *meta) {
    void *p = lua_touserdata(L, idx);
    if (!p || !lua_getmetatable(L, idx)) {
        return NULL;
    }
    bool same = lua_topointer(L, -1) == meta;
    lua_pop(L, 1);
    return same ? p : NULL;
}

/* The userdata with metatable meta at idx; raises "expected <what>, got ..." for anything else. */
static void *check_udata(lua_State *L, int idx, const void *meta, const char *what) {
    void *p = rill__script_test_udata(L, idx, meta);
    if (!p) {
        rill__script_arg_error(L, idx, what);
    }
    return p;
}

rill_entity rill__script_check_entity(lua_State *L, int idx) {
    return *(rill_entity *)check_udata(L, idx, rill__script_get(L)->entity_meta, "an entity");
}

rill_entity rill__script_opt_entity(lua_State *L, int idx) {
    rill_entity *u = rill__script_test_udata(L, idx, rill__script_get(L)->entity_meta);
    return u ? *u : RILL_ENTITY_NULL;
}

/* The name of component id i of the world ctx (ids start at 1: 0 has none). */
static const char *component_name_at(const void *ctx, uint32_t i) {
    return i ? rill_world_component_type((rill_world *)ctx, (rill_component){i})->name : NULL;
}

static rill_component check_component(lua_State *L, rill_scripts *s, int idx) {
    const char *name = luaL_checkstring(L, idx);
    rill_component c = rill_world_find_component(s->world, name);
    if (!c.id) {
        const char *near = rill_suggest_name(name, strlen(name), component_name_at, s->world,
                                             rill_world_component_count(s->world) + 1u);
        luaL_error(L, "unknown component '%s'%s%s%s", name, near ? "; did you mean '" : "",
                   near ? near : "", near ? "'?" : "");
    }
    return c;
}

/* >>values ------------------------------------------------------------------------------------ */

static const char *const LANES[4] = {"x", "y", "z", "w"};
static const char *const COLOR_LANES[4] = {"r", "g", "b", "a"};

static int vec_lanes(rill_field_type t) {
    switch (t) {
    case RILL_FIELD_VEC2:
        return 2;
    case RILL_FIELD_VEC3:
        return 3;
    case RILL_FIELD_VEC4:
    case RILL_FIELD_QUAT:
    case RILL_FIELD_COLOR:
        return 4;
    default:
        return 0;
    }
}

/* The value a field of vector type t (vec_lanes(t) > 0) reads as, holding v: a new vec2, vec3,
 * vec4, color or quat. */
static void push_lanes(lua_State *L, rill_scripts *s, rill_field_type t, const float *v) {
    double d[4] = {0};
    for (int i = 0; i < vec_lanes(t); i++) {
        d[i] = v[i];
    }
    switch (t) {
    case RILL_FIELD_VEC2:
        rill__script_push_vec2(L, d);
        break;
    case RILL_FIELD_VEC3:
        rill__script_push_vec3(L, s, d);
        break;
    case RILL_FIELD_VEC4:
        rill__script_push_vec4(L, d);
        break;
    case RILL_FIELD_COLOR:
        rill__script_push_color(L, d);
        break;
    default:
        rill__script_push_quat(L, s, d);
        break;
    }
}

void rill__script_push_vec(lua_State *L, rill_scripts *s, const float *v, int n) {
    push_lanes(L, s, n == 2 ? RILL_FIELD_VEC2 : n == 3 ? RILL_FIELD_VEC3 : RILL_FIELD_QUAT, v);
}

bool rill__script_table_lanes(lua_State *L, int idx, double *out, int n) {
    if (lua_type(L, idx) != LUA_TTABLE) {
        return false;
    }
    idx = lua_absindex(L, idx);
    rill_scripts *s = rill__script_get(L);
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, s->lane_key[i]);
        if (lua_gettable(L, idx) == LUA_TNIL) {
            lua_pop(L, 1);
            lua_rawgeti(L, LUA_REGISTRYINDEX, s->lane_key[4 + i]);
            lua_gettable(L, idx);
        }
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            lua_rawgeti(L, idx, i + 1);
        }
        int ok = 0;
        out[i] = lua_tonumberx(L, -1, &ok);
        lua_pop(L, 1);
        if (!ok) {
            return false;
        }
    }
    return true;
}

/* Reads a vector of n lanes from a lanes value of n lanes (vec2, vec3, vec4, color, quat; a vec3
 * also gives a vec2 its x and y), {x=, y=, ...}, {r=, g=, ...} or {a, b, c}. */
bool rill__script_to_vec(lua_State *L, int idx, float *out, int n) {
    const script_lanes *t;
    double d[4];
    const double *lanes = rill__script_lanes_value(L, idx, &t);
    if (lanes && t->n != n && !(t->n == 3 && n < 3)) {
        return false;
    }
    if (!lanes && n <= 4 && rill__script_table_lanes(L, idx, d, n)) {
        lanes = d;
    }
    if (!lanes) {
        return false;
    }
    for (int i = 0; i < n; i++) {
        out[i] = (float)lanes[i];
    }
    return true;
}

static void push_element(lua_State *L, rill_scripts *s, const rill_field *f, const void *p) {
    int lanes = vec_lanes(f->type);
    if (lanes) {
        float v[4];
        memcpy(v, p, sizeof(float) * (size_t)lanes);
        push_lanes(L, s, f->type, v);
        return;
    }
    switch (f->type) {
    case RILL_FIELD_BOOL:
        lua_pushboolean(L, *(const bool *)p);
        break;
    case RILL_FIELD_I32:
        lua_pushinteger(L, *(const int32_t *)p);
        break;
    case RILL_FIELD_U32:
        lua_pushinteger(L, *(const uint32_t *)p);
        break;
    case RILL_FIELD_I64:
        lua_pushinteger(L, (lua_Integer) * (const int64_t *)p);
        break;
    case RILL_FIELD_U64:
        lua_pushinteger(L, (lua_Integer) * (const uint64_t *)p);
        break;
    case RILL_FIELD_F32:
        lua_pushnumber(L, *(const float *)p);
        break;
    case RILL_FIELD_F64:
        lua_pushnumber(L, *(const double *)p);
        break;
    case RILL_FIELD_STRING:
    case RILL_FIELD_ASSET_PATH: {
        const char *str = *(const char *const *)p;
        if (str) {
            lua_pushstring(L, str);
        } else {
            lua_pushnil(L);
        }
        break;
    }
    case RILL_FIELD_ENTITY:
        rill__script_push_entity(L, *(const rill_entity *)p);
        break;
    case RILL_FIELD_ENUM: {
        int32_t v = *(const int32_t *)p;
        const char *name = rill_field_enum_name(f, v);
        if (name) {
            lua_pushstring(L, name);
        } else {
            lua_pushinteger(L, v);
        }
        break;
    }
    default:
        lua_pushnil(L);
        break;
    }
}

static void push_field(lua_State *L, rill_scripts *s, const rill_field *f, const void *obj) {
    const char *p = (const char *)obj + f->offset;
    uint32_t n = rill_field_count(f);
    if (n <= 1) {
        push_element(L, s, f, p);
        return;
    }
    size_t es = rill_field_type_size(f->type);
    lua_createtable(L, (int)n, 0);
    for (uint32_t i = 0; i < n; i++) {
        push_element(L, s, f, p + es * i);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

static int bad_value(lua_State *L, const char *comp, const rill_field *f, int idx) {
    const char *type = rill_field_type_name(f->type);
    return luaL_error(L, "%s.%s is %s %s; cannot set it to %s", comp, f->name,
                      rill__script_article(type), type, rill__script_value_name(L, idx));
}

/* Converts the Lua value at idx into one element of the field's storage at out (raises). */
static void to_element(lua_State *L, const char *comp, const rill_field *f, int idx, void *out) {
    int lanes = vec_lanes(f->type);
    if (lanes) {
        if (!rill__script_to_vec(L, idx, out, lanes)) {
            bad_value(L, comp, f, idx);
        }
        return;
    }
    int ok = 1;
    switch (f->type) {
    case RILL_FIELD_BOOL:
        if (!lua_isboolean(L, idx)) {
            bad_value(L, comp, f, idx);
        }
        *(bool *)out = lua_toboolean(L, idx);
        return;
    case RILL_FIELD_STRING:
    case RILL_FIELD_ASSET_PATH:
        if (lua_isnil(L, idx)) {
            *(const char **)out = NULL;
            return;
        }
        if (lua_type(L, idx) != LUA_TSTRING) {
            bad_value(L, comp, f, idx);
        }
        size_t len;
        const char *str = lua_tolstring(L, idx, &len);
        *(const char **)out = len ? rill_intern_n(str, len) : NULL;
        return;
    case RILL_FIELD_ENTITY:
        if (lua_isnil(L, idx)) {
            *(rill_entity *)out = RILL_ENTITY_NULL;
            return;
        }
        if (!rill__script_test_udata(L, idx, rill__script_get(L)->entity_meta)) {
            bad_value(L, comp, f, idx);
        }
        *(rill_entity *)out = rill__script_check_entity(L, idx);
        return;
    case RILL_FIELD_ENUM:
        if (lua_type(L, idx) == LUA_TSTRING) {
            if (!rill_field_enum_value(f, lua_tostring(L, idx), (int32_t *)out)) {
                luaL_error(L, "%s.%s has no value '%s'", comp, f->name, lua_tostring(L, idx));
            }
            return;
        }
        break;
    default:
        break;
    }
    lua_Number v = lua_tonumberx(L, idx, &ok);
    if (!ok) {
        bad_value(L, comp, f, idx);
    }
    memset(out, 0, rill_field_type_size(f->type));
    rill_field_set_f64(&(rill_field){.type = f->type == RILL_FIELD_ENUM ? RILL_FIELD_I32 : f->type},
                       out, 0, (double)v);
}

/* Writes the Lua value at idx into field f of component c on e (raises on a bad value). The value
 * is converted first, into a buffer: converting may run script code (a table's metamethods) that
 * moves or removes the component. */
static void write_field(lua_State *L, rill_scripts *s, rill_entity e, rill_component c,
                        const rill_type_desc *t, const rill_field *f, int idx) {
    uint32_t n = rill_field_count(f);
    size_t es = rill_field_type_size(f->type);
    _Alignas(16) unsigned char one[64];
    unsigned char *buf = one;
    idx = lua_absindex(L, idx);
    if (n > 1) {
        if (lua_type(L, idx) != LUA_TTABLE) {
            bad_value(L, t->name, f, idx);
        }
        buf = lua_newuserdatauv(L, es * n, 0); /* collected with the stack; no leak on error */
        void *data = rill_world_get(s->world, e, c);
        if (data) { /* elements the table leaves out keep their values */
            memcpy(buf, (char *)data + f->offset, es * n);
        }
        for (uint32_t i = 0; i < n; i++) {
            if (lua_rawgeti(L, idx, (lua_Integer)i + 1) != LUA_TNIL) {
                to_element(L, t->name, f, -1, buf + es * i);
            }
            lua_pop(L, 1);
        }
    } else {
        to_element(L, t->name, f, idx, buf);
    }
    void *data = rill_world_get(s->world, e, c);
    if (!data) {
        luaL_error(L, "the entity no longer has %s", t->name);
    }
    memcpy((char *)data + f->offset, buf, es * n);
    if (f->flags & (RILL_FIELD_HAS_MIN | RILL_FIELD_HAS_MAX)) {
        rill_type_clamp(t, data);
    }
    if (c.id == s->transform.id) {
        rill_world_mark_transform_dirty(s->world, e);
    }
}

static const rill_field *check_field(lua_State *L, const rill_type_desc *t, const char *name) {
    const rill_field *f = rill_type_find_field(t, name);
    if (!f) {
        luaL_Buffer b;
        luaL_buffinit(L, &b);
        for (uint32_t i = 0; i < t->field_count; i++) {
            luaL_addstring(&b, i ? ", " : "");
            luaL_addstring(&b, t->fields[i].name);
        }
        luaL_pushresult(&b);
        luaL_error(L, "%s has no field '%s' (its fields: %s)", t->name, name, lua_tostring(L, -1));
    }
    return f;
}

/* Sets every field of table idx on component c of e. */
static void write_table(lua_State *L, rill_scripts *s, rill_entity e, rill_component c, int idx) {
    const rill_type_desc *t = rill_world_component_type(s->world, c);
    idx = lua_absindex(L, idx);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        if (lua_type(L, -2) != LUA_TSTRING) {
            luaL_error(L, "%s: field names are strings", t->name);
        }
        write_field(L, s, e, c, t, check_field(L, t, lua_tostring(L, -2)), lua_gettop(L));
        lua_pop(L, 1);
    }
}

/* >>component proxies -------------------------------------------------------------------------- */

static void *proxy_data(lua_State *L, rill_scripts *s, const comp_proxy *p,
                        const rill_type_desc **out_t) {
    *out_t = rill_world_component_type(s->world, p->comp);
    void *data = rill_world_get(s->world, p->entity, p->comp);
    if (!data) {
        luaL_error(L, "the entity no longer has %s", (*out_t)->name);
    }
    return data;
}

/* The field named by the key at 2 of the proxy at 1, through the proxy's field table (raises for
 * an unknown field, listing the type's fields). */
static const rill_field *proxy_field(lua_State *L, const rill_type_desc *t) {
    lua_getiuservalue(L, 1, 1);
    lua_pushvalue(L, 2);
    lua_Integer i = lua_rawget(L, -2) == LUA_TNUMBER ? lua_tointeger(L, -1) : 0;
    lua_pop(L, 2);
    if (i >= 1 && (uint64_t)i <= t->field_count) {
        return &t->fields[i - 1];
    }
    if (lua_type(L, 2) != LUA_TSTRING) {
        luaL_error(L, "%s has no field keyed by %s (field names are strings)", t->name,
                   rill__script_value_name(L, 2));
    }
    return check_field(L, t, lua_tostring(L, 2));
}

static int proxy_index(lua_State *L) {
    rill_scripts *s = rill__script_get(L);
    comp_proxy *p = check_udata(L, 1, s->component_meta, "a component");
    const rill_type_desc *t;
    void *data = proxy_data(L, s, p, &t);
    push_field(L, s, proxy_field(L, t), data);
    return 1;
}

static int proxy_newindex(lua_State *L) {
    rill_scripts *s = rill__script_get(L);
    comp_proxy *p = check_udata(L, 1, s->component_meta, "a component");
    const rill_type_desc *t = rill_world_component_type(s->world, p->comp);
    write_field(L, s, p->entity, p->comp, t, proxy_field(L, t), 3); /* raises if it is gone */
    return 0;
}

static int proxy_tostring(lua_State *L) {
    rill_scripts *s = rill__script_get(L);
    comp_proxy *p = check_udata(L, 1, s->component_meta, "a component");
    const rill_type_desc *t = rill_world_component_type(s->world, p->comp);
    const void *data = rill_world_get(s->world, p->entity, p->comp);
    rill_strbuf sb = {0};
    if (data && rill_type_dump(t, data, &sb) && sb.data) {
        lua_pushstring(L, sb.data);
    } else {
        lua_pushfstring(L, "%s (gone)", t->name);
    }
    rill_strbuf_free(&sb);
    return 1;
}

/* Pushes the field table of component c: field name -> index + 1, made once per type and kept
 * in the registry, so a proxy finds a field with one table lookup instead of comparing names. */
static void push_field_table(lua_State *L, rill_scripts *s, rill_component c) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->field_tables);
    if (lua_rawgeti(L, -1, (lua_Integer)c.id) == LUA_TTABLE) {
        lua_remove(L, -2);
        return;
    }
    lua_pop(L, 1);
    const rill_type_desc *t = rill_world_component_type(s->world, c);
    lua_createtable(L, 0, (int)t->field_count);
    for (uint32_t i = 0; i < t->field_count; i++) {
        lua_pushinteger(L, (lua_Integer)i + 1);
        lua_setfield(L, -2, t->fields[i].name);
    }
    lua_pushvalue(L, -1);
    lua_rawseti(L, -3, (lua_Integer)c.id);
    lua_remove(L, -2);
}

static void push_new_proxy(lua_State *L, rill_scripts *s, rill_entity e, rill_component c) {
    comp_proxy *p = lua_newuserdatauv(L, sizeof(comp_proxy), 1); /* uv 1: the field table */
    p->entity = e;
    p->comp = c;
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->component_mt);
    lua_setmetatable(L, -2);
    push_field_table(L, s, c);
    lua_setiuservalue(L, -2, 1);
}

/* The proxy of component c on the entity userdata at ent: one per (entity userdata, component),
 * kept in the userdata's user value, so `self.entity.Transform` in every frame's update allocates
 * nothing after the first. A proxy holds no state but the two ids, so reusing it is safe. */
static void push_proxy_of(lua_State *L, rill_scripts *s, int ent, rill_component c) {
    rill_entity e = *(const rill_entity *)lua_touserdata(L, ent);
    if (lua_getiuservalue(L, ent, 1) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_createtable(L, 0, 0);
        lua_pushvalue(L, -1);
        lua_setiuservalue(L, ent, 1);
    }
    if (lua_rawgeti(L, -1, (lua_Integer)c.id) == LUA_TUSERDATA) {
        lua_remove(L, -2);
        return;
    }
    lua_pop(L, 1);
    push_new_proxy(L, s, e, c);
    lua_pushvalue(L, -1);
    lua_rawseti(L, -3, (lua_Integer)c.id);
    lua_remove(L, -2);
}

const char *rill__script_proxy_type(lua_State *L, int idx) {
    rill_scripts *s = rill__script_get(L);
    const comp_proxy *p = rill__script_test_udata(L, idx, s->component_meta);
    return p ? rill_world_component_type(s->world, p->comp)->name : NULL;
}

/* >>entity methods ----------------------------------------------------------------------------- */

static int ent_alive(lua_State *L) {
    rill_scripts *s = rill__script_get(L);
    lua_pushboolean(L, rill_world_is_alive(s->world, rill__script_check_entity(L, 1)));
    return 1;
}

static int ent_has(lua_State *L) {
    rill_scripts *s = rill__script_get(L);
    rill_entity e = rill__script_check_entity(L, 1);
    lua_pushboolean(L, rill_world_has(s->world, e, check_component(L, s, 2)));
    return 1;
}

/* Adds (or replaces) the component named at stack index name on the entity userdata at ent,
 * with the type's defaults, then the fields of the table at fields (none or nil: none); pushes
 * its proxy. Raised errors name the script line of the C function the script called (add, spawn
 * or an assignment), so this is called directly, never through lua_call. */
static int add_component(lua_State *L, rill_scripts *s, int ent, int name, int fields) {
    rill_entity e = rill__script_check_entity(L, ent);
    rill_component c = check_component(L, s, name);
    const rill_type_desc *t = rill_world_component_type(s->world, c);
    if (!rill_world_is_alive(s->world, e)) {
        return luaL_error(L, "add %s: the entity is not alive", t->name);
    }
    if (t->flags & RILL_TYPE_MANAGED) {
        return luaL_error(L, "add %s: the world maintains it (use set_parent)", t->name);
    }
    if (!lua_isnoneornil(L, fields) && lua_type(L, fields) != LUA_TTABLE) {
        return luaL_error(L, "%s is set from a table of its fields, not %s", t->name,
                          rill__script_value_name(L, fields));
    }
    if (!rill_world_add(s->world, e, c, NULL)) {
        return luaL_error(L, "add %s: out of memory", t->name);
    }
    if (!lua_isnoneornil(L, fields)) {
        write_table(L, s, e, c, fields);
    }
    push_proxy_of(L, s, ent, c);
    return 1;
}

/* e:add("Name"[, {field = value, ...}]): adds (or replaces) with the type's defaults, then sets
 * the given fields. Returns the component proxy. */
static int ent_add(lua_State *L) {
    return add_component(L, rill__script_get(L), 1, 2, 3);
}

static int ent_remove(lua_State *L) {
    rill_scripts *s = rill__script_get(L);
    rill_entity e = rill__script_check_entity(L, 1);
    rill_component c = check_component(L, s, 2);
    if (rill_world_component_type(s->world, c)->flags & RILL_TYPE_MANAGED) {
        return luaL_error(L, "remove: the world maintains that component (use set_parent)");
    }
    lua_pushboolean(L, rill_world_remove(s->world, e, c));
    return 1;
}

static int ent_despawn(lua_State *L) {
    rill_scripts *s = rill__script_get(L);
    lua_pushinteger(L, rill_world_despawn_recursive(s->world, rill__script_check_entity(L, 1)));
    return 1;
}

static int ent_parent(lua_State *L) {
    rill_scripts *s = rill__script_get(L);
    rill__script_push_entity(L, rill_world_get_parent(s->world, rill__script_check_entity(L, 1)));
    return 1;
}

static int ent_set_parent(lua_State *L) {
    rill_scripts *s = rill__script_get(L);
    rill_entity e = rill__script_check_entity(L, 1);
    rill_entity p = lua_isnoneornil(L, 2) ? RILL_ENTITY_NULL : rill__script_check_entity(L, 2);
    lua_pushboolean(L, rill_world_set_parent(s->world, e, p));
    return 1;
}

static int ent_children(lua_State *L) {
    rill_scripts *s = rill__script_get(L);
    rill_entity e = rill__script_check_entity(L, 1);
    lua_newtable(L);
    lua_Integer i = 1;
    for (rill_entity c = rill_world_first_child(s->world, e); c;
         c = rill_world_next_sibling(s->world, c)) {
        rill__script_push_entity(L, c);
        lua_rawseti(L, -2, i++);
    }
    return 1;
}

/* The key at 2 of e.key or e.key = v: a string, else an error naming what it was. */
static const char *check_entity_key(lua_State *L) {
    if (lua_type(L, 2) != LUA_TSTRING) {
        luaL_error(L,
                   "an entity has no field keyed by %s (its fields: id, name, the component "
                   "names and the methods)",
                   rill__script_value_name(L, 2));
    }
    return lua_tostring(L, 2);
}

/* e.key: a method (upvalue 1), a component by name (upvalue 2 caches name -> component id for
 * the names found before), id or name. */
static int ent_index(lua_State *L) {
    rill_scripts *s = rill__script_get(L);
    rill_entity e = rill__script_check_entity(L, 1);
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL) { /* a method */
        return 1;
    }
    lua_pushvalue(L, 2);
    lua_Integer cached =
        lua_rawget(L, lua_upvalueindex(2)) == LUA_TNUMBER ? lua_tointeger(L, -1) : 0;
    lua_pop(L, 2);
    if (cached) {
        rill_component c = {(uint32_t)cached};
        if (rill_world_has(s->world, e, c)) {
            push_proxy_of(L, s, 1, c);
        } else {
            lua_pushnil(L);
        }
        return 1;
    }
    const char *key = check_entity_key(L);
    if (strcmp(key, "id") == 0) {
        lua_pushinteger(L, (lua_Integer)e);
        return 1;
    }
    if (strcmp(key, "name") == 0) {
        const char *name = rill_world_get_name(s->world, e);
        if (name) {
            lua_pushstring(L, name);
        } else {
            lua_pushnil(L);
        }
        return 1;
    }
    rill_component c = check_component(L, s, 2);
    lua_pushvalue(L, 2);
    lua_pushinteger(L, (lua_Integer)c.id);
    lua_rawset(L, lua_upvalueindex(2));
    if (rill_world_has(s->world, e, c)) {
        push_proxy_of(L, s, 1, c);
    } else {
        lua_pushnil(L);
    }
    return 1;
}

/* e.name = "x"; e.Transform = {translation = ...} sets fields of (adding if missing) a component.
 */
static int ent_newindex(lua_State *L) {
    rill_scripts *s = rill__script_get(L);
    rill_entity e = rill__script_check_entity(L, 1);
    const char *key = check_entity_key(L);
    if (strcmp(key, "name") == 0) {
        rill_world_set_name(s->world, e, luaL_optstring(L, 3, NULL));
        return 0;
    }
    lua_settop(L, 3);
    add_component(L, s, 1, 2, 3);
    return 0;
}

static int ent_eq(lua_State *L) {
    lua_pushboolean(L, rill__script_opt_entity(L, 1) == rill__script_opt_entity(L, 2));
    return 1;
}

static int ent_tostring(lua_State *L) {
    rill_scripts *s = rill__script_get(L);
    rill_entity e = rill__script_check_entity(L, 1);
    const char *name = rill_world_get_name(s->world, e);
    lua_pushfstring(L, "entity %d:%d%s%s", (int)RILL_ENTITY_INDEX(e),
                    (int)RILL_ENTITY_GENERATION(e), name ? " " : "", name ? name : "");
    return 1;
}

/* >>rill.* ------------------------------------------------------------------------------------- */

static int r_find(lua_State *L) {
    rill_scripts *s = rill__script_get(L);
    rill__script_push_entity(L, rill_world_find_by_name(s->world, luaL_checkstring(L, 1)));
    return 1;
}

/* rill.spawn([name]) or rill.spawn{name = "x", parent = e, Transform = {...}, ...}. */
static int r_spawn(lua_State *L) {
    rill_scripts *s = rill__script_get(L);
    rill_entity e = rill_world_spawn(s->world);
    if (!e) {
        return luaL_error(L, "spawn: out of memory");
    }
    rill__script_push_entity(L, e);
    int ent = lua_gettop(L);
    if (lua_type(L, 1) == LUA_TSTRING) {
        rill_world_set_name(s->world, e, lua_tostring(L, 1));
    } else if (lua_type(L, 1) == LUA_TTABLE) {
        lua_pushnil(L);
        while (lua_next(L, 1)) {
            const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "";
            if (strcmp(k, "name") == 0) {
                rill_world_set_name(s->world, e, luaL_checkstring(L, -1));
            } else if (strcmp(k, "parent") == 0) {
                rill_world_set_parent(s->world, e, rill__script_check_entity(L, -1));
            } else { /* copies: a number key read as a string must not confuse lua_next */
                lua_pushvalue(L, -2);
                lua_pushvalue(L, -2);
                int top = lua_gettop(L);
                add_component(L, s, ent, top - 1, top);
                lua_settop(L, top - 2);
            }
            lua_pop(L, 1);
        }
    } else if (!lua_isnoneornil(L, 1)) {
        return rill__script_arg_error(L, 1, "a name or a table");
    }
    lua_pushvalue(L, ent);
    return 1;
}

static int r_despawn(lua_State *L) {
    return ent_despawn(L);
}

/* rill.query("A", "B", ...): an iterator over the entities that have every component, taken as a
 * list first so the loop may spawn, despawn and add freely. */
static int query_iter(lua_State *L) {
    lua_Integer i = lua_tointeger(L, lua_upvalueindex(2)) + 1;
    lua_pushinteger(L, i);
    lua_replace(L, lua_upvalueindex(2));
    lua_rawgeti(L, lua_upvalueindex(1), i);
    return 1;
}

static int r_query(lua_State *L) {
    rill_scripts *s = rill__script_get(L);
    int n = lua_gettop(L);
    if (n < 1 || n > RILL_QUERY_MAX_TERMS) {
        return luaL_error(L, "query: 1 to %d component names", RILL_QUERY_MAX_TERMS);
    }
    rill_query_desc d = {0};
    for (int i = 0; i < n; i++) {
        d.with[i] = check_component(L, s, i + 1);
    }
    rill_query q = rill_world_query(s->world, &d);
    lua_newtable(L);
    lua_Integer k = 1;
    while (rill_query_next(&q)) {
        rill__script_push_entity(L, q.entity);
        lua_rawseti(L, -2, k++);
    }
    lua_pushinteger(L, 0);
    lua_pushcclosure(L, query_iter, 2);
    return 1;
}

/* rill.components(): the names of every registered component. */
static int r_components(lua_State *L) {
    rill_scripts *s = rill__script_get(L);
    uint32_t n = rill_world_component_count(s->world);
    lua_createtable(L, (int)n, 0);
    for (uint32_t i = 1; i <= n; i++) {
        lua_pushstring(L, rill_world_component_type(s->world, (rill_component){i})->name);
        lua_rawseti(L, -2, (lua_Integer)i);
    }
    return 1;
}

void rill__script_open_world(lua_State *L, rill_scripts *s) {
    lua_newtable(L);
    s->field_tables = luaL_ref(L, LUA_REGISTRYINDEX);
    luaL_newmetatable(L, SCRIPT_MT_ENTITY);
    lua_pushstring(L, "entity"); /* Lua's own messages say "got entity", not the registry key */
    lua_setfield(L, -2, "__name");
    static const luaL_Reg methods[] = {
        {"alive", ent_alive},           {"has", ent_has},           {"add", ent_add},
        {"remove", ent_remove},         {"despawn", ent_despawn},   {"parent", ent_parent},
        {"set_parent", ent_set_parent}, {"children", ent_children}, {NULL, NULL}};
    luaL_newlib(L, methods);
    lua_newtable(L); /* component name -> id, filled as scripts use names */
    lua_pushcclosure(L, ent_index, 2);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, ent_newindex);
    lua_setfield(L, -2, "__newindex");
    lua_pushcfunction(L, ent_eq);
    lua_setfield(L, -2, "__eq");
    lua_pushcfunction(L, ent_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    s->entity_meta = lua_topointer(L, -1);
    s->entity_mt = luaL_ref(L, LUA_REGISTRYINDEX);
    luaL_newmetatable(L, SCRIPT_MT_COMPONENT);
    lua_pushstring(L, "component");
    lua_setfield(L, -2, "__name");
    lua_pushcfunction(L, proxy_index);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, proxy_newindex);
    lua_setfield(L, -2, "__newindex");
    lua_pushcfunction(L, proxy_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    s->component_meta = lua_topointer(L, -1);
    s->component_mt = luaL_ref(L, LUA_REGISTRYINDEX);
    for (int i = 0; i < 8; i++) {
        lua_pushstring(L, i < 4 ? LANES[i] : COLOR_LANES[i - 4]);
        s->lane_key[i] = luaL_ref(L, LUA_REGISTRYINDEX);
    }
    static const luaL_Reg fns[] = {
        {"find", r_find},   {"spawn", r_spawn},           {"despawn", r_despawn},
        {"query", r_query}, {"components", r_components}, {NULL, NULL}};
    luaL_setfuncs(L, fns, 0); /* into the rill table on the stack */
}
