/* lanes.c: what the scripts' small value types of n double lanes (vec2, vec3, vec4, color, quat)
 * share: reading an
 * argument (the userdata, or a table it is read from), the lane a field name picks, the field
 * read and write metamethods with their errors, ==, tostring and the constructor, and making
 * the metatable and the global. Each type names itself with a script_lanes (its name, lane
 * names, type test, constructor defaults and push); its own arithmetic and methods stay in its
 * file (api_vec3.c, api_quat.c). */
#include <stdio.h>
#include <string.h>

#include "script_internal.h"

/* >>arguments --------------------------------------------------------------------------------- */

void rill__script_lanes_arg(lua_State *L, const script_lanes *t, int idx, const char *op,
                            double *out) {
    const double *v = t->test(L, idx);
    if (v) {
        memcpy(out, v, sizeof(double) * (size_t)t->n);
        return;
    }
    float f[SCRIPT_LANES_MAX];
    if (!rill__script_to_vec(L, idx, f, t->n)) {
        luaL_error(L, "%s: expected a %s, got a %s", op, t->type, rill__script_value_name(L, idx));
    }
    for (int i = 0; i < t->n; i++) {
        out[i] = f[i];
    }
}

const double *rill__script_lanes_value(lua_State *L, int idx, const script_lanes **out_t) {
    void *p = lua_touserdata(L, idx);
    if (!p || !lua_getmetatable(L, idx)) {
        return NULL;
    }
    const void *meta = lua_topointer(L, -1);
    lua_pop(L, 1);
    const rill_scripts *s = rill__script_get(L);
    for (int i = 0; i < s->lanes_types; i++) {
        if (s->lanes_meta[i] == meta) {
            *out_t = s->lanes_type[i];
            return p;
        }
    }
    return NULL;
}

const char *rill__script_value_name(lua_State *L, int idx) {
    const script_lanes *t;
    return rill__script_lanes_value(L, idx, &t) ? t->type : luaL_typename(L, idx);
}

/* The lane a key names (its index in t->names or t->aliases), or -1 for any other key. */
static int lane_of(lua_State *L, const script_lanes *t, int idx) {
    if (lua_type(L, idx) != LUA_TSTRING) {
        return -1;
    }
    size_t len;
    const char *k = lua_tolstring(L, idx, &len);
    if (len != 1) {
        return -1;
    }
    const char *at = memchr(t->names, k[0], (size_t)t->n);
    if (at) {
        return (int)(at - t->names);
    }
    at = t->aliases ? memchr(t->aliases, k[0], (size_t)t->n) : NULL;
    return at ? (int)(at - t->aliases) : -1;
}

/* "x, y, z" for names "xyz", into buf (cap >= 3 * SCRIPT_LANES_MAX). */
static const char *name_list(const char *names, int n, char *buf) {
    char *p = buf;
    for (int i = 0; i < n; i++) {
        if (i) {
            *p++ = ',';
            *p++ = ' ';
        }
        *p++ = names[i];
    }
    *p = '\0';
    return buf;
}

static const char *field_list(const script_lanes *t, char *buf) {
    return name_list(t->names, t->n, buf);
}

static int no_field(lua_State *L, const script_lanes *t, int key) {
    char fields[3 * SCRIPT_LANES_MAX], aliases[3 * SCRIPT_LANES_MAX + 8] = "";
    field_list(t, fields);
    if (t->aliases) {
        memcpy(aliases, "; or ", 6);
        name_list(t->aliases, t->n, aliases + 5);
    }
    if (lua_type(L, key) == LUA_TSTRING) {
        return luaL_error(L, "%s has no field '%s' (its fields: %s%s)", t->type,
                          lua_tostring(L, key), fields, aliases);
    }
    return luaL_error(L, "%s has no field %s (its fields: %s%s)", t->type, luaL_typename(L, key),
                      fields, aliases);
}

/* >>metamethods (the type's script_lanes is upvalue 1; __index has the methods as upvalue 2) -- */

static const script_lanes *lanes_up(lua_State *L) {
    return lua_touserdata(L, lua_upvalueindex(1));
}

/* v.x .. (a lane), or a method from the methods table. */
static int lanes_index(lua_State *L) {
    const script_lanes *t = lanes_up(L);
    const double *v = t->test(L, 1);
    int lane = lane_of(L, t, 2);
    if (v && lane >= 0) {
        lua_pushnumber(L, v[lane]);
        return 1;
    }
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(2)) != LUA_TNIL) {
        return 1;
    }
    return no_field(L, t, 2);
}

static int lanes_newindex(lua_State *L) {
    const script_lanes *t = lanes_up(L);
    double *v = (double *)t->test(L, 1);
    int lane = lane_of(L, t, 2);
    if (!v || lane < 0) {
        return no_field(L, t, 2);
    }
    if (lua_type(L, 3) != LUA_TNUMBER) {
        return luaL_error(L, "%s.%c is a number; cannot set it to a %s value", t->type,
                          t->names[lane], luaL_typename(L, 3));
    }
    v[lane] = lua_tonumber(L, 3);
    return 0;
}

/* Lua calls __eq for two userdata of any kinds: a value equals only one of its type and lanes. */
static int lanes_eq(lua_State *L) {
    const script_lanes *t = lanes_up(L);
    const double *a = t->test(L, 1), *b = t->test(L, 2);
    bool eq = a && b;
    for (int i = 0; eq && i < t->n; i++) {
        eq = a[i] == b[i];
    }
    lua_pushboolean(L, eq);
    return 1;
}

/* "vec3(1, 2, 3)". */
static int lanes_tostring(lua_State *L) {
    const script_lanes *t = lanes_up(L);
    double a[SCRIPT_LANES_MAX];
    rill__script_lanes_arg(L, t, 1, "tostring", a);
    char buf[64 + 32 * SCRIPT_LANES_MAX];
    int at = snprintf(buf, sizeof(buf), "%s(", t->type);
    for (int i = 0; i < t->n; i++) {
        at += snprintf(buf + at, sizeof(buf) - (size_t)at, i ? ", %g" : "%g", a[i]);
    }
    snprintf(buf + at, sizeof(buf) - (size_t)at, ")");
    lua_pushstring(L, buf);
    return 1;
}

/* type(x, y, ...) through the global's __call (argument 1 is the global): nil or none is the
 * lane's default, a number is itself, anything else an error. */
static int lanes_call(lua_State *L) {
    const script_lanes *t = lanes_up(L);
    double v[SCRIPT_LANES_MAX];
    for (int i = 0; i < t->n; i++) {
        int idx = 2 + i;
        if (lua_isnoneornil(L, idx)) {
            v[i] = t->unset[i];
        } else if (lua_type(L, idx) == LUA_TNUMBER) {
            v[i] = lua_tonumber(L, idx);
        } else {
            char fields[3 * SCRIPT_LANES_MAX];
            return luaL_error(L, "%s(%s): %c is a %s, not a number", t->type, field_list(t, fields),
                              t->names[i], luaL_typename(L, idx));
        }
    }
    t->push(L, v);
    return 1;
}

/* >>opening ----------------------------------------------------------------------------------- */

static void set_closure(lua_State *L, const script_lanes *t, lua_CFunction fn, const char *name) {
    lua_pushlightuserdata(L, (void *)t);
    lua_pushcclosure(L, fn, 1);
    lua_setfield(L, -2, name);
}

void rill__script_lanes_open(lua_State *L, const script_lanes *t, const luaL_Reg *methods,
                             const luaL_Reg *meta, int *out_mt, const void **out_meta) {
    lua_newtable(L);
    luaL_setfuncs(L, methods, 0);
    int m = lua_gettop(L);
    lua_newtable(L);
    luaL_setfuncs(L, meta, 0);
    lua_pushlightuserdata(L, (void *)t);
    lua_pushvalue(L, m);
    lua_pushcclosure(L, lanes_index, 2);
    lua_setfield(L, -2, "__index");
    set_closure(L, t, lanes_newindex, "__newindex");
    set_closure(L, t, lanes_eq, "__eq");
    set_closure(L, t, lanes_tostring, "__tostring");
    lua_pushvalue(L, m);
    lua_setfield(L, -2, "__metatable");
    lua_pushstring(L, t->type);
    lua_setfield(L, -2, "__name");
    *out_meta = lua_topointer(L, -1);
    rill_scripts *s = rill__script_get(L);
    if (s->lanes_types < SCRIPT_LANES_TYPES) {
        s->lanes_type[s->lanes_types] = t;
        s->lanes_meta[s->lanes_types++] = *out_meta;
    }
    *out_mt = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_newtable(L); /* the global: type(...), type.method(a, ...) */
    lua_createtable(L, 0, 3);
    set_closure(L, t, lanes_call, "__call");
    lua_pushvalue(L, m);
    lua_setfield(L, -2, "__index");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
    lua_remove(L, m);
}
