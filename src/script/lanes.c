/* lanes.c: what the scripts' small value types of n double lanes (vec2, vec3, vec4, color, quat)
 * share: reading an argument (the userdata, or a table it is read from), the lane a field name
 * picks, the field read and write metamethods with their errors, ==, tostring and the
 * constructor, and making the metatable and the global. Each type names itself with a
 * script_lanes (its name, lane names, type test, constructor defaults and push). The per-lane
 * methods dot, length and copy are here for all of them, and for the vectors (vec2, vec3, vec4,
 * color) the rest of their arithmetic too (+ - * /, unary -, normalized, lerp, distance); vec3's
 * cross and quat's own math (product, normalized, inverse, slerp, ...) stay in their files
 * (api_vec3.c, api_quat.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "script_internal.h"

/* >>arguments --------------------------------------------------------------------------------- */

/* A value of t, of another lanes type of as many lanes (a vec4 for a color), or a table. */
void rill__script_lanes_arg(lua_State *L, const script_lanes *t, int idx, const char *op,
                            double *out) {
    const double *v = t->test(L, idx);
    const script_lanes *other = t;
    if (!v) {
        v = rill__script_lanes_value(L, idx, &other);
    }
    if (v && other->n == t->n) {
        memcpy(out, v, sizeof(double) * (size_t)t->n);
        return;
    }
    if (v || !rill__script_table_lanes(L, idx, out, t->n)) {
        luaL_error(L, "%s: expected a %s, got %s", op, t->type, rill__script_value_name(L, idx));
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
    return luaL_error(L, "%s has no field keyed by %s (its fields: %s%s)", t->type,
                      rill__script_value_name(L, key), fields, aliases);
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
        return luaL_error(L, "%s.%c is a number; cannot set it to %s", t->type, t->names[lane],
                          rill__script_value_name(L, 3));
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
            return luaL_error(L, "%s(%s): %c is %s, not a number", t->type, field_list(t, fields),
                              t->names[i], rill__script_value_name(L, idx));
        }
    }
    t->push(L, v);
    return 1;
}

/* >>per-lane arithmetic (dot, length and copy for every type, the rest for the vectors: a type
 * with .vector set; upvalue 1 is its script_lanes) -------------------------------------------- */

/* Operand idx of operator sym ("+"): raises "vec3 +: expected a vec3, got a number". */
static void operand(lua_State *L, const script_lanes *t, int idx, const char *sym, double *out) {
    const double *v = t->test(L, idx);
    if (v) {
        memcpy(out, v, sizeof(double) * (size_t)t->n);
        return;
    }
    char op[32];
    snprintf(op, sizeof(op), "%s %s", t->type, sym);
    rill__script_lanes_arg(L, t, idx, op, out);
}

static int push_lanes(lua_State *L, const script_lanes *t, const double *v) {
    t->push(L, v);
    return 1;
}

/* Operand idx of operator sym, or, where scalar, a number standing for every lane. */
static void operand_or_scalar(lua_State *L, const script_lanes *t, int idx, const char *sym,
                              bool scalar, double *out) {
    if (scalar && lua_type(L, idx) == LUA_TNUMBER) {
        for (int i = 0; i < t->n; i++) {
            out[i] = lua_tonumber(L, idx);
        }
        return;
    }
    operand(L, t, idx, sym, out);
}

/* a sym b per lane (sym one of + - * /); scalar_a / scalar_b: that side may be a number. */
static int binary(lua_State *L, const char *sym, bool scalar_a, bool scalar_b) {
    const script_lanes *t = lanes_up(L);
    double a[SCRIPT_LANES_MAX], b[SCRIPT_LANES_MAX];
    operand_or_scalar(L, t, 1, sym, scalar_a, a);
    operand_or_scalar(L, t, 2, sym, scalar_b, b);
    for (int i = 0; i < t->n; i++) {
        switch (sym[0]) {
        case '+':
            a[i] += b[i];
            break;
        case '-':
            a[i] -= b[i];
            break;
        case '*':
            a[i] *= b[i];
            break;
        default:
            a[i] /= b[i];
            break;
        }
    }
    return push_lanes(L, t, a);
}

static int vec_add(lua_State *L) {
    return binary(L, "+", false, false);
}

static int vec_sub(lua_State *L) {
    return binary(L, "-", false, false);
}

/* s * a, a * s, or a * b per lane. */
static int vec_mul(lua_State *L) {
    return binary(L, "*", true, true);
}

/* a / s, or a / b per lane. */
static int vec_div(lua_State *L) {
    return binary(L, "/", false, true);
}

static int vec_unm(lua_State *L) {
    const script_lanes *t = lanes_up(L);
    double a[SCRIPT_LANES_MAX];
    operand(L, t, 1, "unary -", a);
    for (int i = 0; i < t->n; i++) {
        a[i] = -a[i];
    }
    return push_lanes(L, t, a);
}

static double dot_n(const double *a, const double *b, int n) {
    double d = 0;
    for (int i = 0; i < n; i++) {
        d += a[i] * b[i];
    }
    return d;
}

/* The argument of method op (a:op() or type.op(a)). */
static const script_lanes *one_arg(lua_State *L, const char *op, double *a) {
    const script_lanes *t = lanes_up(L);
    rill__script_lanes_arg(L, t, 1, op, a);
    return t;
}

/* The two arguments of method op (a:op(b) or type.op(a, b)). */
static const script_lanes *two_args(lua_State *L, const char *op, double *a, double *b) {
    const script_lanes *t = lanes_up(L);
    rill__script_lanes_arg(L, t, 1, op, a);
    rill__script_lanes_arg(L, t, 2, op, b);
    return t;
}

static int vec_dot(lua_State *L) {
    double a[SCRIPT_LANES_MAX], b[SCRIPT_LANES_MAX];
    const script_lanes *t = two_args(L, "dot", a, b);
    lua_pushnumber(L, dot_n(a, b, t->n));
    return 1;
}

static int vec_length(lua_State *L) {
    double a[SCRIPT_LANES_MAX];
    const script_lanes *t = one_arg(L, "length", a);
    lua_pushnumber(L, sqrt(dot_n(a, a, t->n)));
    return 1;
}

/* The unit vector along a; all zero for a zero vector. */
static int vec_normalized(lua_State *L) {
    double a[SCRIPT_LANES_MAX];
    const script_lanes *t = one_arg(L, "normalized", a);
    double l = sqrt(dot_n(a, a, t->n));
    for (int i = 0; i < t->n; i++) {
        a[i] = l == 0 ? 0 : a[i] / l;
    }
    return push_lanes(L, t, a);
}

static int vec_lerp(lua_State *L) {
    double a[SCRIPT_LANES_MAX], b[SCRIPT_LANES_MAX];
    const script_lanes *t = two_args(L, "lerp", a, b);
    double k = luaL_checknumber(L, 3);
    for (int i = 0; i < t->n; i++) {
        a[i] += (b[i] - a[i]) * k;
    }
    return push_lanes(L, t, a);
}

static int vec_distance(lua_State *L) {
    double a[SCRIPT_LANES_MAX], b[SCRIPT_LANES_MAX];
    const script_lanes *t = two_args(L, "distance", a, b);
    for (int i = 0; i < t->n; i++) {
        a[i] -= b[i];
    }
    lua_pushnumber(L, sqrt(dot_n(a, a, t->n)));
    return 1;
}

static int vec_copy(lua_State *L) {
    double a[SCRIPT_LANES_MAX];
    const script_lanes *t = one_arg(L, "copy", a);
    return push_lanes(L, t, a);
}

/* Every lanes type's (quat's too). */
static const luaL_Reg LANES_METHODS[] = {
    {"dot", vec_dot}, {"length", vec_length}, {"copy", vec_copy}, {NULL, NULL}};
/* The vectors' besides. */
static const luaL_Reg VECTOR_METHODS[] = {
    {"normalized", vec_normalized}, {"lerp", vec_lerp}, {"distance", vec_distance}, {NULL, NULL}};
static const luaL_Reg VECTOR_META[] = {{"__add", vec_add}, {"__sub", vec_sub}, {"__unm", vec_unm},
                                       {"__mul", vec_mul}, {"__div", vec_div}, {NULL, NULL}};

/* >>opening ----------------------------------------------------------------------------------- */

/* luaL_setfuncs of fns as closures over t. */
static void set_closures(lua_State *L, const script_lanes *t, const luaL_Reg *fns) {
    lua_pushlightuserdata(L, (void *)t);
    luaL_setfuncs(L, fns, 1);
}

static void set_closure(lua_State *L, const script_lanes *t, lua_CFunction fn, const char *name) {
    lua_pushlightuserdata(L, (void *)t);
    lua_pushcclosure(L, fn, 1);
    lua_setfield(L, -2, name);
}

void rill__script_lanes_open(lua_State *L, const script_lanes *t, const luaL_Reg *methods,
                             const luaL_Reg *meta, int *out_mt, const void **out_meta) {
    lua_newtable(L);
    set_closures(L, t, LANES_METHODS);
    if (t->vector) {
        set_closures(L, t, VECTOR_METHODS);
    }
    luaL_setfuncs(L, methods, 0);
    int m = lua_gettop(L);
    lua_newtable(L);
    if (t->vector) {
        set_closures(L, t, VECTOR_META);
    }
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
