/* api_quat.c: the scripts' quat, a full userdata of four doubles (x, y, z, w), like vec3
 * (api_vec3.c): `q.x` .. `q.w` read and write the lanes (any other name is an error naming the
 * script line, methods aside), `q * r` composes, `q * v` rotates a vec3, `==`, tostring, and the
 * methods dot, length, normalized, inverse, slerp and copy, with quat.axis_angle(axis, radians)
 * and quat.euler(x, y, z) on the `quat` global. A quat field read makes a new one (a copy).
 * Where a quat is taken, a table {x=, y=, z=, w=} or {x, y, z, w} is taken too. The field access,
 * `==`, tostring, the constructor, the argument reader and dot, length and copy are the lanes
 * type's (lanes.c). */
#include <math.h>
#include <string.h>

#include "script_internal.h"

typedef struct script_quat {
    double q[4];
} script_quat;

/* >>values ------------------------------------------------------------------------------------ */

static int push4(lua_State *L, double x, double y, double z, double w) {
    rill_scripts *s = rill__script_get(L);
    script_quat *p = lua_newuserdatauv(L, sizeof(script_quat), 0);
    p->q[0] = x;
    p->q[1] = y;
    p->q[2] = z;
    p->q[3] = w;
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->quat_mt);
    lua_setmetatable(L, -2);
    return 1;
}

static int push_q(lua_State *L, const double q[4]) {
    return push4(L, q[0], q[1], q[2], q[3]);
}

static void push_v(lua_State *L, const double *q) {
    push_q(L, q);
}

void rill__script_push_quat(lua_State *L, rill_scripts *s, const double q[4]) {
    (void)s;
    push_q(L, q);
}

const double *rill__script_test_quat(lua_State *L, int idx) {
    script_quat *p = rill__script_test_udata(L, idx, rill__script_get(L)->quat_meta);
    return p ? p->q : NULL;
}

static const double UNSET[4] = {0, 0, 0, 1}; /* quat() is the identity */
static const script_lanes QUAT = {4, "quat", "xyzw", rill__script_test_quat, UNSET, push_v};

/* A quat argument (or a table one is read from) into out; raises naming op and the type. */
static void arg_quat(lua_State *L, int idx, const char *op, double out[4]) {
    rill__script_lanes_arg(L, &QUAT, idx, op, out);
}

/* >>math -------------------------------------------------------------------------------------- */

static double dot4(const double a[4], const double b[4]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
}

/* a * b: b's rotation first, then a's. */
static void qmul(const double a[4], const double b[4], double out[4]) {
    double r[4] = {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
                   a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
                   a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
                   a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
    memcpy(out, r, sizeof(r));
}

static void cross3(const double a[3], const double b[3], double out[3]) {
    double r[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    memcpy(out, r, sizeof(r));
}

/* v rotated by q (q need not be unit; it is used as given, as before): v + 2w(u x v) + u x t. */
static void rotate(const double q[4], const double v[3], double out[3]) {
    double t[3], c[3];
    cross3(q, v, t);
    for (int i = 0; i < 3; i++) {
        t[i] *= 2;
    }
    cross3(q, t, c);
    for (int i = 0; i < 3; i++) {
        out[i] = v[i] + t[i] * q[3] + c[i];
    }
}

static void axis_angle(const double axis[3], double angle, double out[4]) {
    double l = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    double s = l == 0 ? 0 : sin(angle / 2) / l;
    out[0] = axis[0] * s;
    out[1] = axis[1] * s;
    out[2] = axis[2] * s;
    out[3] = cos(angle / 2);
}

/* >>metamethods ------------------------------------------------------------------------------- */

/* q * r composes; q * v rotates a vec3. */
static int q_mul(lua_State *L) {
    double a[4], b[4];
    arg_quat(L, 1, "quat *", a);
    const double *v = rill__script_test_vec3(L, 2);
    if (v) {
        double r[3];
        rotate(a, v, r);
        rill__script_push_vec3(L, rill__script_get(L), r);
        return 1;
    }
    arg_quat(L, 2, "quat *", b);
    qmul(a, b, b);
    return push_q(L, b);
}

/* >>methods ----------------------------------------------------------------------------------- */

/* The unit quat along a; the identity for a zero quat. */
static int m_normalized(lua_State *L) {
    double a[4];
    arg_quat(L, 1, "normalized", a);
    double l = sqrt(dot4(a, a));
    if (l == 0) {
        return push4(L, 0, 0, 0, 1);
    }
    return push4(L, a[0] / l, a[1] / l, a[2] / l, a[3] / l);
}

/* The inverse (conjugate over the squared length); the identity for a zero quat. */
static int m_inverse(lua_State *L) {
    double a[4];
    arg_quat(L, 1, "inverse", a);
    double d = dot4(a, a);
    if (d == 0) {
        return push4(L, 0, 0, 0, 1);
    }
    return push4(L, -a[0] / d, -a[1] / d, -a[2] / d, a[3] / d);
}

/* Spherical interpolation from a (t = 0) to b (t = 1) the short way round; nearly equal
 * rotations interpolate linearly and normalize. */
static int m_slerp(lua_State *L) {
    double a[4], b[4];
    arg_quat(L, 1, "slerp", a);
    arg_quat(L, 2, "slerp", b);
    double t = luaL_checknumber(L, 3), d = dot4(a, b), r[4];
    if (d < 0) {
        for (int i = 0; i < 4; i++) {
            b[i] = -b[i];
        }
        d = -d;
    }
    if (d > 0.9995) {
        for (int i = 0; i < 4; i++) {
            r[i] = a[i] + (b[i] - a[i]) * t;
        }
        double l = sqrt(dot4(r, r));
        if (l == 0) {
            return push4(L, 0, 0, 0, 1);
        }
        return push4(L, r[0] / l, r[1] / l, r[2] / l, r[3] / l);
    }
    double th = acos(d), s = sin(th), wa = sin((1 - t) * th) / s, wb = sin(t * th) / s;
    for (int i = 0; i < 4; i++) {
        r[i] = a[i] * wa + b[i] * wb;
    }
    return push_q(L, r);
}

/* quat.axis_angle(axis, radians): the rotation about axis (normalized here). */
static int m_axis_angle(lua_State *L) {
    double axis[3], q[4];
    rill__script_arg_vec3(L, 1, "axis_angle", axis);
    axis_angle(axis, luaL_checknumber(L, 2), q);
    return push_q(L, q);
}

/* quat.euler(x, y, z): radians, applied Z then X then Y (q = qy * qx * qz). */
static int m_euler(lua_State *L) {
    double qx[4], qy[4], qz[4];
    axis_angle((const double[3]){1, 0, 0}, luaL_optnumber(L, 1, 0), qx);
    axis_angle((const double[3]){0, 1, 0}, luaL_optnumber(L, 2, 0), qy);
    axis_angle((const double[3]){0, 0, 1}, luaL_optnumber(L, 3, 0), qz);
    qmul(qy, qx, qy);
    qmul(qy, qz, qy);
    return push_q(L, qy);
}

void rill__script_open_quat(lua_State *L, rill_scripts *s) {
    static const luaL_Reg methods[] = {{"normalized", m_normalized}, {"inverse", m_inverse},
                                       {"slerp", m_slerp},           {"axis_angle", m_axis_angle},
                                       {"euler", m_euler},           {NULL, NULL}};
    static const luaL_Reg meta[] = {{"__mul", q_mul}, {NULL, NULL}};
    rill__script_lanes_open(L, &QUAT, methods, meta, &s->quat_mt, &s->quat_meta);
}
