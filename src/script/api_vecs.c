/* api_vecs.c: the scripts' vec2, vec4 and color, full userdata of two, four and four doubles, like
 * vec3 (api_vec3.c): `v.x` .. read and write the lanes (any other name is an error naming the
 * script line), `+ - * /`, unary minus, `==`, tostring, the methods dot, length, normalized,
 * lerp, distance and copy, and the constructors vec2(x, y), vec4(x, y, z, w) and
 * color(r, g, b, a) (lanes not given are 0, a colour's alpha 1). A colour's lanes are r, g, b, a,
 * also read and written as x, y, z, w. A field of these types reads as a new value each time (a
 * copy). Where one is taken, a table {x=, y=, ...}, {r=, g=, ...} or {1, 2, ...} is taken too.
 * All of it is the lanes type's (lanes.c); this file only names the three types. */
#include <string.h>

#include "script_internal.h"

/* >>values ------------------------------------------------------------------------------------ */

/* A new userdata of n lanes with the metatable at registry ref mt, holding v. */
static void push_lanes(lua_State *L, int n, int mt, const double *v) {
    double *p = lua_newuserdatauv(L, sizeof(double) * (size_t)n, 0);
    memcpy(p, v, sizeof(double) * (size_t)n);
    lua_rawgeti(L, LUA_REGISTRYINDEX, mt);
    lua_setmetatable(L, -2);
}

void rill__script_push_vec2(lua_State *L, const double v[2]) {
    push_lanes(L, 2, rill__script_get(L)->vec2_mt, v);
}

void rill__script_push_vec4(lua_State *L, const double v[4]) {
    push_lanes(L, 4, rill__script_get(L)->vec4_mt, v);
}

void rill__script_push_color(lua_State *L, const double v[4]) {
    push_lanes(L, 4, rill__script_get(L)->color_mt, v);
}

static const double *test_vec2(lua_State *L, int idx) {
    return rill__script_test_udata(L, idx, rill__script_get(L)->vec2_meta);
}

static const double *test_vec4(lua_State *L, int idx) {
    return rill__script_test_udata(L, idx, rill__script_get(L)->vec4_meta);
}

static const double *test_color(lua_State *L, int idx) {
    return rill__script_test_udata(L, idx, rill__script_get(L)->color_meta);
}

static const double ZERO[4] = {0, 0, 0, 0};   /* vec2() and vec4() are all 0 */
static const double OPAQUE[4] = {0, 0, 0, 1}; /* color() is opaque black */
static const script_lanes VEC2 = {.n = 2,
                                  .type = "vec2",
                                  .names = "xy",
                                  .test = test_vec2,
                                  .unset = ZERO,
                                  .push = rill__script_push_vec2,
                                  .vector = true};
static const script_lanes VEC4 = {.n = 4,
                                  .type = "vec4",
                                  .names = "xyzw",
                                  .test = test_vec4,
                                  .unset = ZERO,
                                  .push = rill__script_push_vec4,
                                  .vector = true};
static const script_lanes COLOR = {.n = 4,
                                   .type = "color",
                                   .names = "rgba",
                                   .aliases = "xyzw",
                                   .test = test_color,
                                   .unset = OPAQUE,
                                   .push = rill__script_push_color,
                                   .vector = true};

/* >>opening ----------------------------------------------------------------------------------- */

void rill__script_open_vecs(lua_State *L, rill_scripts *s, int g) {
    static const luaL_Reg none[] = {{NULL, NULL}};
    rill__script_lanes_open(L, &VEC2, none, none, &s->vec2_mt, &s->vec2_meta);
    lua_setfield(L, g, "vec2");
    rill__script_lanes_open(L, &VEC4, none, none, &s->vec4_mt, &s->vec4_meta);
    lua_setfield(L, g, "vec4");
    rill__script_lanes_open(L, &COLOR, none, none, &s->color_mt, &s->color_meta);
    lua_setfield(L, g, "color");
}
