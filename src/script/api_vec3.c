/* api_vec3.c: the scripts' vec3, a full userdata of three doubles (one small allocation, no hash
 * part), with C metamethods: `v.x` / `v.y` / `v.z` read and write the lanes (any other name is an
 * error naming the script line, methods aside), `+ - * /`, unary minus, `==`, tostring, and the
 * methods dot, cross, length, normalized, lerp, distance and copy (also as vec3.dot(a, b), ...).
 * Every read of a vec3 field makes a new one, so a read stays a copy. Where a vec3 is taken, a
 * table {x=, y=, z=} or {1, 2, 3} is taken too (rill__script_to_vec). The field access, `==`,
 * tostring, the constructor and the argument reader are the lanes type's (lanes.c). */
#include <math.h>

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

static void push_v(lua_State *L, const double *v) {
    new_vec3(L, rill__script_get(L), v[0], v[1], v[2]);
}

static const double UNSET[3] = {0, 0, 0}; /* vec3() is (0, 0, 0) */
static const script_lanes VEC3 = {3, "vec3", "xyz", rill__script_test_vec3, UNSET, push_v};

void rill__script_arg_vec3(lua_State *L, int idx, const char *op, double out[3]) {
    rill__script_lanes_arg(L, &VEC3, idx, op, out);
}

/* >>metamethods ------------------------------------------------------------------------------- */

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

/* Makes the vec3 metatable (kept as s->vec3_mt) and pushes the `vec3` global (callable, indexing
 * the methods). The metatable itself stays out of the scripts' reach: getmetatable(v) gives the
 * methods table. */
void rill__script_open_vec3(lua_State *L, rill_scripts *s) {
    static const luaL_Reg methods[] = {{"dot", m_dot},       {"cross", m_cross},
                                       {"length", m_length}, {"normalized", m_normalized},
                                       {"lerp", m_lerp},     {"distance", m_distance},
                                       {"copy", m_copy},     {NULL, NULL}};
    static const luaL_Reg meta[] = {{"__add", v_add}, {"__sub", v_sub}, {"__unm", v_unm},
                                    {"__mul", v_mul}, {"__div", v_div}, {NULL, NULL}};
    rill__script_lanes_open(L, &VEC3, methods, meta, &s->vec3_mt, &s->vec3_meta);
}
