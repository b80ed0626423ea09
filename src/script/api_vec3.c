/* api_vec3.c: the scripts' vec3, a full userdata of three doubles (one small allocation, no hash
 * part), with C metamethods: `v.x` / `v.y` / `v.z` read and write the lanes (any other name is an
 * error naming the script line, methods aside), `+ - * /`, unary minus, `==`, tostring, and the
 * methods dot, cross, length, normalized, lerp, distance and copy (also as vec3.dot(a, b), ...).
 * Every read of a vec3 field makes a new one, so a read stays a copy. Where a vec3 is taken, a
 * table {x=, y=, z=} or {1, 2, 3} is taken too (rill__script_to_vec). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "script_internal.h"

typedef struct script_vec3 {
    double v[3];
} script_vec3;

/* >>values ------------------------------------------------------------------------------------ */

static script_vec3 *new_vec3(lua_State *L, rill_scripts *s, double x, double y, double z) {
    script_vec3 *p = lua_newuserdatauv(L, sizeof(script_vec3), 0);
    p->v[0] = x;
    p->v[1] = y;
    p->v[2] = z;
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->vec3_mt);
    lua_setmetatable(L, -2);
    return p;
}

void rill__script_push_vec3(lua_State *L, rill_scripts *s, const double v[3]) {
    new_vec3(L, s, v[0], v[1], v[2]);
}

/* The vec3 at idx, or NULL when the value there is anything else. */
const double *rill__script_test_vec3(lua_State *L, int idx) {
    script_vec3 *p = rill__script_test_udata(L, idx, rill__script_get(L)->vec3_meta);
    return p ? p->v : NULL;
}

void rill__script_arg_vec3(lua_State *L, int idx, const char *op, double out[3]) {
    const double *v = rill__script_test_vec3(L, idx);
    if (v) {
        memcpy(out, v, sizeof(double) * 3);
        return;
    }
    float f[3];
    if (!rill__script_to_vec(L, idx, f, 3)) {
        luaL_error(L, "%s: expected a vec3, got a %s", op, luaL_typename(L, idx));
    }
    for (int i = 0; i < 3; i++) {
        out[i] = f[i];
    }
}

/* The lane a key names (0..2), or -1 for any other key. */
static int lane_of(lua_State *L, int idx) {
    if (lua_type(L, idx) != LUA_TSTRING) {
        return -1;
    }
    size_t len;
    const char *k = lua_tolstring(L, idx, &len);
    if (len != 1 || k[0] < 'x' || k[0] > 'z') {
        return -1;
    }
    return k[0] - 'x';
}

static int no_field(lua_State *L, int key) {
    if (lua_type(L, key) == LUA_TSTRING) {
        return luaL_error(L, "vec3 has no field '%s' (its fields: x, y, z)", lua_tostring(L, key));
    }
    return luaL_error(L, "vec3 has no field %s (its fields: x, y, z)", luaL_typename(L, key));
}

/* >>metamethods ------------------------------------------------------------------------------- */

/* v.x / v.y / v.z, or a method from the methods table (upvalue 1). */
static int v_index(lua_State *L) {
    const double *v = rill__script_test_vec3(L, 1);
    int lane = lane_of(L, 2);
    if (v && lane >= 0) {
        lua_pushnumber(L, v[lane]);
        return 1;
    }
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL) {
        return 1;
    }
    return no_field(L, 2);
}

static int v_newindex(lua_State *L) {
    double *v = (double *)rill__script_test_vec3(L, 1);
    int lane = lane_of(L, 2);
    if (!v || lane < 0) {
        return no_field(L, 2);
    }
    if (lua_type(L, 3) != LUA_TNUMBER) {
        return luaL_error(L, "vec3.%c is a number; cannot set it to a %s value", 'x' + lane,
                          luaL_typename(L, 3));
    }
    v[lane] = lua_tonumber(L, 3);
    return 0;
}

static int push3(lua_State *L, double x, double y, double z) {
    new_vec3(L, rill__script_get(L), x, y, z);
    return 1;
}

static int v_add(lua_State *L) {
    double a[3], b[3];
    rill__script_arg_vec3(L, 1, "vec3 +", a);
    rill__script_arg_vec3(L, 2, "vec3 +", b);
    return push3(L, a[0] + b[0], a[1] + b[1], a[2] + b[2]);
}

static int v_sub(lua_State *L) {
    double a[3], b[3];
    rill__script_arg_vec3(L, 1, "vec3 -", a);
    rill__script_arg_vec3(L, 2, "vec3 -", b);
    return push3(L, a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}

static int v_unm(lua_State *L) {
    double a[3];
    rill__script_arg_vec3(L, 1, "vec3 unary -", a);
    return push3(L, -a[0], -a[1], -a[2]);
}

/* s * a, a * s, or a * b per lane. */
static int v_mul(lua_State *L) {
    double a[3], b[3];
    if (lua_type(L, 1) == LUA_TNUMBER) {
        double k = lua_tonumber(L, 1);
        rill__script_arg_vec3(L, 2, "vec3 *", b);
        return push3(L, k * b[0], k * b[1], k * b[2]);
    }
    rill__script_arg_vec3(L, 1, "vec3 *", a);
    if (lua_type(L, 2) == LUA_TNUMBER) {
        double k = lua_tonumber(L, 2);
        return push3(L, a[0] * k, a[1] * k, a[2] * k);
    }
    rill__script_arg_vec3(L, 2, "vec3 *", b);
    return push3(L, a[0] * b[0], a[1] * b[1], a[2] * b[2]);
}

/* a / s, or a / b per lane. */
static int v_div(lua_State *L) {
    double a[3], b[3];
    rill__script_arg_vec3(L, 1, "vec3 /", a);
    if (lua_type(L, 2) == LUA_TNUMBER) {
        double k = lua_tonumber(L, 2);
        return push3(L, a[0] / k, a[1] / k, a[2] / k);
    }
    rill__script_arg_vec3(L, 2, "vec3 /", b);
    return push3(L, a[0] / b[0], a[1] / b[1], a[2] / b[2]);
}

/* Lua calls __eq for two userdata of any kinds: a vec3 equals only a vec3 of the same lanes. */
static int v_eq(lua_State *L) {
    const double *a = rill__script_test_vec3(L, 1), *b = rill__script_test_vec3(L, 2);
    lua_pushboolean(L, a && b && a[0] == b[0] && a[1] == b[1] && a[2] == b[2]);
    return 1;
}

static int v_tostring(lua_State *L) {
    double a[3];
    rill__script_arg_vec3(L, 1, "tostring", a);
    char buf[128];
    snprintf(buf, sizeof(buf), "vec3(%g, %g, %g)", a[0], a[1], a[2]);
    lua_pushstring(L, buf);
    return 1;
}

/* >>methods ----------------------------------------------------------------------------------- */

static double dot3(const double a[3], const double b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static int m_dot(lua_State *L) {
    double a[3], b[3];
    rill__script_arg_vec3(L, 1, "dot", a);
    rill__script_arg_vec3(L, 2, "dot", b);
    lua_pushnumber(L, dot3(a, b));
    return 1;
}

static int m_cross(lua_State *L) {
    double a[3], b[3];
    rill__script_arg_vec3(L, 1, "cross", a);
    rill__script_arg_vec3(L, 2, "cross", b);
    return push3(L, a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                 a[0] * b[1] - a[1] * b[0]);
}

static int m_length(lua_State *L) {
    double a[3];
    rill__script_arg_vec3(L, 1, "length", a);
    lua_pushnumber(L, sqrt(dot3(a, a)));
    return 1;
}

/* The unit vector along a; (0, 0, 0) for a zero vector. */
static int m_normalized(lua_State *L) {
    double a[3];
    rill__script_arg_vec3(L, 1, "normalized", a);
    double l = sqrt(dot3(a, a));
    if (l == 0) {
        return push3(L, 0, 0, 0);
    }
    return push3(L, a[0] / l, a[1] / l, a[2] / l);
}

static int m_lerp(lua_State *L) {
    double a[3], b[3];
    rill__script_arg_vec3(L, 1, "lerp", a);
    rill__script_arg_vec3(L, 2, "lerp", b);
    double t = luaL_checknumber(L, 3);
    return push3(L, a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t);
}

static int m_distance(lua_State *L) {
    double a[3], b[3];
    rill__script_arg_vec3(L, 1, "distance", a);
    rill__script_arg_vec3(L, 2, "distance", b);
    double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    lua_pushnumber(L, sqrt(dot3(d, d)));
    return 1;
}

static int m_copy(lua_State *L) {
    double a[3];
    rill__script_arg_vec3(L, 1, "copy", a);
    return push3(L, a[0], a[1], a[2]);
}

/* >>constructor ------------------------------------------------------------------------------- */

/* One lane of the constructor: nil or none is 0, a number is itself, anything else an error. */
static double ctor_lane(lua_State *L, int idx, int lane) {
    if (lua_isnoneornil(L, idx)) {
        return 0;
    }
    if (lua_type(L, idx) != LUA_TNUMBER) {
        luaL_error(L, "vec3(x, y, z): %c is a %s, not a number", 'x' + lane, luaL_typename(L, idx));
    }
    return lua_tonumber(L, idx);
}

/* vec3(x, y, z) through the vec3 table's __call: argument 1 is the table. */
static int v_call(lua_State *L) {
    return push3(L, ctor_lane(L, 2, 0), ctor_lane(L, 3, 1), ctor_lane(L, 4, 2));
}

/* Makes the vec3 metatable (kept as s->vec3_mt) and pushes the `vec3` global (callable, indexing
 * the methods). The metatable itself stays out of the scripts' reach: getmetatable(v) gives the
 * methods table. */
void rill__script_open_vec3(lua_State *L, rill_scripts *s) {
    static const luaL_Reg methods[] = {{"dot", m_dot},       {"cross", m_cross},
                                       {"length", m_length}, {"normalized", m_normalized},
                                       {"lerp", m_lerp},     {"distance", m_distance},
                                       {"copy", m_copy},     {NULL, NULL}};
    luaL_newlib(L, methods);
    int m = lua_gettop(L);
    static const luaL_Reg meta[] = {{"__newindex", v_newindex},
                                    {"__add", v_add},
                                    {"__sub", v_sub},
                                    {"__unm", v_unm},
                                    {"__mul", v_mul},
                                    {"__div", v_div},
                                    {"__eq", v_eq},
                                    {"__tostring", v_tostring},
                                    {NULL, NULL}};
    luaL_newlib(L, meta);
    lua_pushvalue(L, m);
    lua_pushcclosure(L, v_index, 1);
    lua_setfield(L, -2, "__index");
    lua_pushvalue(L, m);
    lua_setfield(L, -2, "__metatable");
    s->vec3_meta = lua_topointer(L, -1);
    s->vec3_mt = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_newtable(L); /* the global: vec3(x, y, z), vec3.dot(a, b), ... */
    lua_createtable(L, 0, 2);
    lua_pushcfunction(L, v_call);
    lua_setfield(L, -2, "__call");
    lua_pushvalue(L, m);
    lua_setfield(L, -2, "__index");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
    lua_remove(L, m);
}
