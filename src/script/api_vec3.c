/* api_vec3.c: the scripts' vec3, a full userdata of three doubles (one small allocation, no hash
 * part), with C metamethods: `v.x` / `v.y` / `v.z` read and write the lanes (any other name is an
 * error naming the script line, methods aside), `+ - * /`, unary minus, `==`, tostring, and the
 * methods dot, cross, length, normalized, lerp, distance and copy (also as vec3.dot(a, b), ...).
 * Every read of a vec3 field makes a new one, so a read stays a copy. Where a vec3 is taken, a
 * table {x=, y=, z=} or {1, 2, 3} is taken too (rill__script_to_vec). All but cross is the lanes
 * type's (lanes.c): field access, `==`, tostring, the constructor, the argument reader and the
 * per-lane arithmetic and methods the vectors share. */

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
static const script_lanes VEC3 = {.n = 3,
                                  .type = "vec3",
                                  .names = "xyz",
                                  .test = rill__script_test_vec3,
                                  .unset = UNSET,
                                  .push = push_v,
                                  .vector = true};

void rill__script_arg_vec3(lua_State *L, int idx, const char *op, double out[3]) {
    rill__script_lanes_arg(L, &VEC3, idx, op, out);
}

/* >>methods (the rest, per lane, is the vectors' shared arithmetic in lanes.c) -------------- */

static int push3(lua_State *L, double x, double y, double z) {
    new_vec3(L, rill__script_get(L), x, y, z);
    return 1;
}

static int m_cross(lua_State *L) {
    double a[3], b[3];
    rill__script_arg_vec3(L, 1, "cross", a);
    rill__script_arg_vec3(L, 2, "cross", b);
    return push3(L, a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                 a[0] * b[1] - a[1] * b[0]);
}

/* Makes the vec3 metatable (kept as s->vec3_mt) and pushes the `vec3` global (callable, indexing
 * the methods). The metatable itself stays out of the scripts' reach: getmetatable(v) gives the
 * methods table. */
void rill__script_open_vec3(lua_State *L, rill_scripts *s) {
    static const luaL_Reg methods[] = {{"cross", m_cross}, {NULL, NULL}};
    static const luaL_Reg meta[] = {{NULL, NULL}};
    rill__script_lanes_open(L, &VEC3, methods, meta, &s->vec3_mt, &s->vec3_meta);
}
