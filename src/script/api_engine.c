/* api_engine.c: the rest of rill.* for scripts: log, time, scenes (load_scene through the same
 * streamed, budgeted loader as the C API, with a handle reporting progress), timers, input, physics
 * and terrain raycasts, channel modes, cameras, and events (scene loaded / failed, physics
 * contacts, picks and the scripts' own rill.emit), delivered to on_event. */
#include <math.h>
#include <string.h>

#include "rill/channels.h"
#include "script_internal.h"

/* >>log and time --------------------------------------------------------------------------------
 * rill.log is print's function (rill__script_log_values, sandbox.c). */

static int r_time(lua_State *L) {
    lua_pushnumber(L, rill__script_get(L)->time);
    return 1;
}

static int r_frame(lua_State *L) {
    lua_pushinteger(L, (lua_Integer)rill__script_get(L)->frame);
    return 1;
}

/* >>scenes ------------------------------------------------------------------------------------- */

typedef struct scene_handle {
    rill_scene_load load;
    rill_entity root;           /* additive loads: the instance root; main loads: none */
    rill_scene_load_state last; /* the state seen last (a finished record may be recycled) */
    float progress;
} scene_handle;

static rill_scene_loader *need_loader(lua_State *L) {
    rill_scene_loader *l = rill__script_get(L)->desc.scenes;
    if (!l) {
        luaL_error(L, "this script system has no scene loader");
    }
    return l;
}

/* Refreshes the handle's cached state from the loader while its record is valid. */
static void scene_refresh(rill_scripts *s, scene_handle *h) {
    if (!s->desc.scenes || h->last == RILL_SCENE_LOAD_LOADED || h->last == RILL_SCENE_LOAD_FAILED ||
        h->last == RILL_SCENE_LOAD_CANCELLED) {
        return;
    }
    rill_scene_load_state st = rill_scene_load_get_state(s->desc.scenes, h->load);
    if (st == RILL_SCENE_LOAD_INVALID) {
        return;
    }
    h->last = st;
    h->progress =
        st == RILL_SCENE_LOAD_LOADED ? 1.0f : rill_scene_load_progress(s->desc.scenes, h->load);
}

static scene_handle *check_scene(lua_State *L, int idx) {
    scene_handle *h = luaL_testudata(L, idx, SCRIPT_MT_SCENE);
    if (!h) {
        rill__script_arg_error(L, idx, "a scene handle");
    }
    scene_refresh(rill__script_get(L), h);
    return h;
}

static int sc_progress(lua_State *L) {
    lua_pushnumber(L, check_scene(L, 1)->progress);
    return 1;
}

static int sc_loaded(lua_State *L) {
    lua_pushboolean(L, check_scene(L, 1)->last == RILL_SCENE_LOAD_LOADED);
    return 1;
}

static int sc_state(lua_State *L) {
    lua_pushstring(L, rill_scene_load_state_name(check_scene(L, 1)->last));
    return 1;
}

static int sc_error(lua_State *L) {
    scene_handle *h = check_scene(L, 1);
    const char *e = rill__script_get(L)->desc.scenes
                        ? rill_scene_load_error(rill__script_get(L)->desc.scenes, h->load)
                        : NULL;
    if (e && *e) {
        lua_pushstring(L, e);
    } else {
        lua_pushnil(L);
    }
    return 1;
}

static int sc_root(lua_State *L) {
    rill__script_push_entity(L, check_scene(L, 1)->root);
    return 1;
}

static int sc_id(lua_State *L) {
    lua_pushinteger(L, check_scene(L, 1)->load.id);
    return 1;
}

/* Keeps handle (at idx) findable by load id, so the loaded event carries the same handle. */
static void remember_handle(lua_State *L, int idx, uint32_t id) {
    idx = lua_absindex(L, idx);
    lua_getfield(L, LUA_REGISTRYINDEX, "rill.scenes");
    lua_pushvalue(L, idx);
    lua_rawseti(L, -2, id);
    lua_pop(L, 1);
}

/* rill.load_scene(path[, opts]): a main scene swap (the previous scene goes when this one is
 * complete), or with opts.additive a scene instance under a new root entity placed at
 * opts.position (vec3) and named opts.name. Returns a handle. */
static int r_load_scene(lua_State *L) {
    rill_scripts *s = rill__script_get(L);
    rill_scene_loader *loader = need_loader(L);
    const char *path = luaL_checkstring(L, 1);
    bool additive = false;
    float pos[3] = {0, 0, 0};
    const char *name = NULL;
    if (lua_type(L, 2) == LUA_TTABLE) {
        lua_getfield(L, 2, "additive");
        additive = lua_toboolean(L, -1);
        lua_getfield(L, 2, "position");
        if (!lua_isnil(L, -1) && !rill__script_to_vec(L, -1, pos, 3)) {
            return luaL_error(L, "load_scene: opts.position must be a vec3, not %s",
                              rill__script_value_name(L, -1));
        }
        lua_getfield(L, 2, "name");
        name = lua_tostring(L, -1);
        lua_pop(L, 3);
    }
    rill_error err = {0};
    scene_handle *h = lua_newuserdatauv(L, sizeof(scene_handle), 0);
    memset(h, 0, sizeof(*h));
    luaL_setmetatable(L, SCRIPT_MT_SCENE);
    if (!additive) {
        h->load = rill_scene_load_async(loader, path, &err);
    } else {
        rill_component inst = rill_world_find_component(s->world, "SceneInstance");
        rill_entity root = rill_world_spawn(s->world);
        rill_scene_instance si = {.scene = rill_intern(path)};
        rill_transform t = {{pos[0], pos[1], pos[2]}, {0, 0, 0, 1}, {1, 1, 1}};
        if (!inst.id || !root || !rill_world_add(s->world, root, inst, &si) ||
            !rill_world_set_transform(s->world, root, &t)) {
            rill_world_despawn(s->world, root);
            return luaL_error(L, "load_scene '%s': cannot make the instance root", path);
        }
        rill_world_set_name(s->world, root, name ? name : path);
        h->root = root;
        h->load = rill_scene_instance_load(loader, root, &err);
        if (!h->load.id) {
            rill_world_despawn(s->world, root);
        }
    }
    if (!h->load.id) {
        return luaL_error(L, "load_scene '%s': %s", path, err.msg);
    }
    h->last = RILL_SCENE_LOAD_PARSING;
    remember_handle(L, -1, h->load.id);
    return 1;
}

/* rill.unload_scene(handle): an additive load's root and everything under it go (its load is
 * cancelled if still in flight); a main load is cancelled if in flight, else its scene's roots go.
 */
static int r_unload_scene(lua_State *L) {
    rill_scripts *s = rill__script_get(L);
    rill_scene_loader *loader = need_loader(L);
    scene_handle *h = check_scene(L, 1);
    uint32_t n = 0;
    if (h->root) {
        n = rill_scene_instance_unload(loader, h->root);
        n += rill_world_despawn_recursive(s->world, h->root);
        h->root = RILL_ENTITY_NULL;
    } else if (!rill_scene_load_cancel(loader, h->load)) {
        rill_entity roots[256];
        uint32_t count;
        while ((count = rill_scene_loader_main_roots(loader, roots, 256)) > 0) {
            n += rill_world_despawn_recursive_n(s->world, roots, RILL_MIN(count, 256u));
            if (count <= 256) {
                break;
            }
        }
    }
    h->last = RILL_SCENE_LOAD_CANCELLED;
    lua_pushinteger(L, n);
    return 1;
}

/* >>timers ------------------------------------------------------------------------------------- */

static int add_timer(lua_State *L, bool repeat) {
    rill_scripts *s = rill__script_get(L);
    double t = luaL_checknumber(L, 1);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    if (!(t >= 0.0) || (repeat && !(t > 0.0))) {
        return luaL_error(L, "%s: the delay must be %s", repeat ? "every" : "after",
                          repeat ? "> 0" : ">= 0");
    }
    if (s->timers.len >= 100000) {
        return luaL_error(L, "too many timers (100000)");
    }
    lua_pushvalue(L, 2);
    script_timer tm = {
        .id = ++s->next_timer,
        .due = s->time + t,
        .period = repeat ? t : 0.0,
        .fn = luaL_ref(L, LUA_REGISTRYINDEX),
        .owner_file = (uint32_t)(s->current_file < 0 ? UINT32_MAX : (uint32_t)s->current_file)};
    if (!rill_array_push(&s->timers, tm)) {
        luaL_unref(L, LUA_REGISTRYINDEX, tm.fn);
        return luaL_error(L, "out of memory");
    }
    lua_pushinteger(L, tm.id);
    return 1;
}

static int r_after(lua_State *L) {
    return add_timer(L, false);
}

static int r_every(lua_State *L) {
    return add_timer(L, true);
}

static int r_cancel(lua_State *L) {
    rill_scripts *s = rill__script_get(L);
    lua_Integer id = luaL_checkinteger(L, 1);
    for (uint32_t i = 0; i < s->timers.len; i++) {
        if (s->timers.data[i].id == (uint32_t)id) {
            s->timers.data[i].due = -1.0; /* removed by the next run, outside its loop */
            s->timers.data[i].period = 0.0;
            lua_pushboolean(L, 1);
            return 1;
        }
    }
    lua_pushboolean(L, 0);
    return 1;
}

void rill__script_run_timers(rill_scripts *s) {
    lua_State *L = s->L;
    /* Timers added by the callbacks wait for the next frame: only those present now run. */
    uint32_t n = s->timers.len;
    for (uint32_t i = 0; i < n; i++) {
        script_timer *t = &s->timers.data[i];
        if (t->due < 0.0 || t->due > s->time) {
            continue;
        }
        if (t->owner_file != UINT32_MAX && s->files.data[t->owner_file].disabled) {
            t->due = -1.0;
            continue;
        }
        lua_rawgeti(L, LUA_REGISTRYINDEX, t->fn);
        s->current_file = (int32_t)t->owner_file;
        uint32_t owner = t->owner_file;
        int st = rill__script_pcall(s, 0, 0);
        t = &s->timers.data[i]; /* the callback may have added timers (the array may move) */
        if (st != LUA_OK) {
            s->stats.errors++;
            const char *path = owner != UINT32_MAX ? s->files.data[owner].path : "script";
            if (owner != UINT32_MAX && (s->aborting || s->mem_refused || st == LUA_ERRMEM)) {
                rill__script_disable_file(s, owner, lua_tostring(L, -1));
            } else {
                RILL_LOG_ERROR(SCRIPT_LOG, "timer of %s failed (cancelled): %s", path,
                               lua_tostring(L, -1));
            }
            lua_pop(L, 1);
            t->due = -1.0;
            continue;
        }
        if (t->due >= 0.0) {
            t->due = t->period > 0.0 ? t->due + t->period : -1.0;
        }
        if (t->period > 0.0 && t->due <= s->time) { /* a long frame: no burst of catch-up calls */
            t->due = s->time + t->period;
        }
    }
    s->current_file = -1;
    uint32_t w = 0;
    for (uint32_t i = 0; i < s->timers.len; i++) {
        if (s->timers.data[i].due < 0.0) {
            luaL_unref(L, LUA_REGISTRYINDEX, s->timers.data[i].fn);
        } else {
            s->timers.data[w++] = s->timers.data[i];
        }
    }
    s->timers.len = w;
}

/* >>input -------------------------------------------------------------------------------------- */

typedef struct key_name {
    const char *name;
    int code;
} key_name;

static const key_name KEYS[] = {
    {"space", 32},        {"escape", 256},        {"enter", 257},        {"tab", 258},
    {"backspace", 259},   {"right", 262},         {"left", 263},         {"down", 264},
    {"up", 265},          {"left_shift", 340},    {"left_control", 341}, {"left_alt", 342},
    {"right_shift", 344}, {"right_control", 345}, {"right_alt", 346},    {NULL, 0}};

/* "a".."z" / "A".."Z", "0".."9", "f1".."f12" and the names above, to a GLFW key code (-1: none). */
static int key_code(const char *k) {
    size_t n = strlen(k);
    if (n == 1) {
        char c = k[0];
        if (c >= 'a' && c <= 'z') {
            return c - 'a' + 'A';
        }
        if ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
            return c;
        }
    }
    if ((k[0] == 'f' || k[0] == 'F') && n >= 2 && n <= 3) {
        int v = 0;
        for (size_t i = 1; i < n; i++) {
            if (k[i] < '0' || k[i] > '9') {
                return -1;
            }
            v = v * 10 + (k[i] - '0');
        }
        return v >= 1 && v <= 12 ? 290 + v - 1 : -1;
    }
    for (const key_name *kn = KEYS; kn->name; kn++) {
        if (rill_str_ieq(kn->name, k)) {
            return kn->code;
        }
    }
    return -1;
}

int rill_scripts_key_code(const char *name) {
    int code = name && name[0] ? key_code(name) : -1;
    return code >= 0 && code < RILL_SCRIPT_KEY_COUNT ? code : -1;
}

static int check_key(lua_State *L) {
    const char *k = luaL_checkstring(L, 1);
    int code = key_code(k);
    if (code < 0 || code >= RILL_SCRIPT_KEY_COUNT) {
        return luaL_error(L,
                          "unknown key '%s' (letters, digits, f1-f12, space, escape, enter, "
                          "tab, backspace, left, right, up, down, left_shift, ...)",
                          k);
    }
    return code;
}

static int r_key_down(lua_State *L) {
    lua_pushboolean(L, rill__script_get(L)->input.key_down[check_key(L)]);
    return 1;
}

static int r_key_pressed(lua_State *L) {
    lua_pushboolean(L, rill__script_get(L)->input.key_pressed[check_key(L)]);
    return 1;
}

static int check_button(lua_State *L) {
    const char *b = luaL_optstring(L, 1, "left");
    int i = strcmp(b, "left") == 0     ? 0
            : strcmp(b, "right") == 0  ? 1
            : strcmp(b, "middle") == 0 ? 2
                                       : -1;
    if (i < 0) {
        return luaL_error(L, "unknown mouse button '%s' (left, right, middle)", b);
    }
    return i;
}

static int r_mouse_down(lua_State *L) {
    lua_pushboolean(L, rill__script_get(L)->input.mouse_down[check_button(L)]);
    return 1;
}

static int r_mouse_pressed(lua_State *L) {
    lua_pushboolean(L, rill__script_get(L)->input.mouse_pressed[check_button(L)]);
    return 1;
}

/* rill.mouse(): x, y, dx, dy, scroll. */
static int r_mouse(lua_State *L) {
    const rill_script_input *in = &rill__script_get(L)->input;
    lua_pushnumber(L, in->mouse_x);
    lua_pushnumber(L, in->mouse_y);
    lua_pushnumber(L, in->mouse_dx);
    lua_pushnumber(L, in->mouse_dy);
    lua_pushnumber(L, in->scroll_y);
    return 5;
}

static const char *const PAD_BUTTONS[RILL_SCRIPT_GAMEPAD_BUTTONS] = {
    "a",          "b",         "x",        "y",          "left_bumper", "right_bumper",
    "back",       "start",     "guide",    "left_thumb", "right_thumb", "dpad_up",
    "dpad_right", "dpad_down", "dpad_left"};
static const char *const PAD_AXES[RILL_SCRIPT_GAMEPAD_AXES] = {
    "left_x", "left_y", "right_x", "right_y", "left_trigger", "right_trigger"};

/* The gamepad of the optional index argument at idx (1-based, default 1). */
static const rill_script_gamepad *check_pad(lua_State *L, int idx) {
    lua_Integer i = luaL_optinteger(L, idx, 1);
    if (i < 1 || i > RILL_SCRIPT_GAMEPADS) {
        luaL_error(L, "gamepad index %d is out of 1..%d", (int)i, RILL_SCRIPT_GAMEPADS);
    }
    return &rill__script_get(L)->input.gamepads[i - 1];
}

static int check_pad_name(lua_State *L, const char *const *names, int n, const char *what) {
    const char *k = luaL_checkstring(L, 1);
    for (int i = 0; i < n; i++) {
        if (strcmp(names[i], k) == 0) {
            return i;
        }
    }
    return luaL_error(L, "unknown gamepad %s '%s' (%s)", what, k,
                      names == PAD_AXES ? "left_x, left_y, right_x, right_y, left_trigger, "
                                          "right_trigger"
                                        : "a, b, x, y, left_bumper, right_bumper, back, start, "
                                          "guide, left_thumb, right_thumb, dpad_up, ...");
}

/* rill.gamepad([index]): whether gamepad index (1..4) is connected. */
static int r_gamepad(lua_State *L) {
    lua_pushboolean(L, check_pad(L, 1)->connected);
    return 1;
}

/* rill.gamepad_down(button[, index]) / rill.gamepad_pressed(button[, index]). */
static int r_gamepad_down(lua_State *L) {
    int b = check_pad_name(L, PAD_BUTTONS, RILL_SCRIPT_GAMEPAD_BUTTONS, "button");
    lua_pushboolean(L, check_pad(L, 2)->button_down[b]);
    return 1;
}

static int r_gamepad_pressed(lua_State *L) {
    int b = check_pad_name(L, PAD_BUTTONS, RILL_SCRIPT_GAMEPAD_BUTTONS, "button");
    lua_pushboolean(L, check_pad(L, 2)->button_pressed[b]);
    return 1;
}

/* rill.gamepad_axis(axis[, index]): sticks -1..1, triggers 0..1; 0 when not connected. */
static int r_gamepad_axis(lua_State *L) {
    int a = check_pad_name(L, PAD_AXES, RILL_SCRIPT_GAMEPAD_AXES, "axis");
    lua_pushnumber(L, check_pad(L, 2)->axis[a]);
    return 1;
}

/* >>raycasts ------------------------------------------------------------------------------------
 */

static void check_vec3(lua_State *L, int idx, float out[3], const char *what) {
    if (!rill__script_to_vec(L, idx, out, 3)) {
        luaL_error(L, "%s must be a vec3, not %s", what, rill__script_value_name(L, idx));
    }
}

/* rill.raycast(origin, dir[, max_distance = 1000[, mask = all]]): the nearest collider hit as
 * {entity, position, normal, distance}, or nil. */
static int r_raycast(lua_State *L) {
    rill_scripts *s = rill__script_get(L);
    float o[3], d[3];
    check_vec3(L, 1, o, "raycast origin");
    check_vec3(L, 2, d, "raycast direction");
    float maxd = (float)luaL_optnumber(L, 3, 1000.0);
    uint32_t mask = (uint32_t)luaL_optinteger(L, 4, 0);
    rill_physics_hit hit;
    if (!s->desc.physics || !rill_physics_raycast(s->desc.physics, o, d, maxd, mask, &hit)) {
        lua_pushnil(L);
        return 1;
    }
    lua_createtable(L, 0, 4);
    rill__script_push_entity(L, hit.entity);
    lua_setfield(L, -2, "entity");
    rill__script_push_vec(L, s, hit.position, 3);
    lua_setfield(L, -2, "position");
    rill__script_push_vec(L, s, hit.normal, 3);
    lua_setfield(L, -2, "normal");
    lua_pushnumber(L, hit.distance);
    lua_setfield(L, -2, "distance");
    return 1;
}

/* rill.terrain_raycast(origin, dir[, max_distance = 0 (unlimited)]): {position, normal,
 * distance} on any terrain, or nil. */
static int r_terrain_raycast(lua_State *L) {
    rill_scripts *s = rill__script_get(L);
    float o[3], d[3], n[3], dist;
    check_vec3(L, 1, o, "terrain_raycast origin");
    check_vec3(L, 2, d, "terrain_raycast direction");
    float maxd = (float)luaL_optnumber(L, 3, 0.0);
    if (!s->desc.terrain ||
        !rill_terrain_raycast(s->desc.terrain, RILL_ENTITY_NULL, o, d, maxd, false, &dist, n)) {
        lua_pushnil(L);
        return 1;
    }
    float len = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    float p[3];
    for (int k = 0; k < 3; k++) {
        p[k] = o[k] + d[k] / len * dist;
    }
    lua_createtable(L, 0, 3);
    rill__script_push_vec(L, s, p, 3);
    lua_setfield(L, -2, "position");
    rill__script_push_vec(L, s, n, 3);
    lua_setfield(L, -2, "normal");
    lua_pushnumber(L, dist);
    lua_setfield(L, -2, "distance");
    return 1;
}

/* rill.terrain_height(x, z): the height and normal of the terrain there, or nil. */
static int r_terrain_height(lua_State *L) {
    rill_scripts *s = rill__script_get(L);
    float x = (float)luaL_checknumber(L, 1), z = (float)luaL_checknumber(L, 2), h, n[3];
    if (!s->desc.terrain ||
        !rill_terrain_height_at(s->desc.terrain, RILL_ENTITY_NULL, x, z, &h, n)) {
        lua_pushnil(L);
        return 1;
    }
    lua_pushnumber(L, h);
    rill__script_push_vec(L, s, n, 3);
    return 2;
}

/* >>channels and cameras ------------------------------------------------------------------------
 */

/* rill.set_channel_mode(channel, mode[, opacity]): channel "context" | "selectable" |
 * "preserve-identity" | "ghost" | "bitN"; mode "normal" | "hidden" | "wireframe" | "ghost". */
static int r_set_channel_mode(lua_State *L) {
    rill_scripts *s = rill__script_get(L);
    const char *ch = luaL_checkstring(L, 1), *mode = luaL_checkstring(L, 2);
    char text[128];
    if (lua_isnoneornil(L, 3)) {
        snprintf(text, sizeof(text), "%s=%s", ch, mode);
    } else {
        snprintf(text, sizeof(text), "%s=%s:%g", ch, mode, (double)luaL_checknumber(L, 3));
    }
    uint64_t bits;
    rill_render_mode m;
    float op = 1.0f;
    rill_error err = {0};
    if (!rill_channels_parse_assignment(text, &bits, &m, &op, &err)) {
        return luaL_error(L, "set_channel_mode: %s", err.msg);
    }
    rill_channels_set_mode(s->world, bits, m, op);
    lua_getfield(L, LUA_REGISTRYINDEX, "rill.events");
    lua_createtable(L, 0, 4);
    lua_pushliteral(L, "channel_changed");
    lua_setfield(L, -2, "type");
    lua_pushvalue(L, 1);
    lua_setfield(L, -2, "channel");
    lua_pushstring(L, rill_channels_mode_name(m));
    lua_setfield(L, -2, "mode");
    lua_pushnumber(L, op);
    lua_setfield(L, -2, "opacity");
    lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
    return 0;
}

/* rill.channel_mode(channel): mode name, ghost opacity. */
static int r_channel_mode(lua_State *L) {
    rill_scripts *s = rill__script_get(L);
    char text[128];
    snprintf(text, sizeof(text), "%s=normal", luaL_checkstring(L, 1));
    uint64_t bits;
    rill_render_mode m;
    float op = 1.0f;
    rill_error err = {0};
    if (!rill_channels_parse_assignment(text, &bits, &m, &op, &err) || !bits) {
        return luaL_error(L, "channel_mode: %s", err.msg);
    }
    uint32_t bit = 0;
    while (!(bits & (UINT64_C(1) << bit))) {
        bit++;
    }
    m = rill_channels_get_mode(s->world, bit, &op);
    lua_pushstring(L, rill_channels_mode_name(m));
    lua_pushnumber(L, op);
    return 2;
}

/* rill.camera(): the active game camera entity (lowest order first), or nil. */
static int r_camera(lua_State *L) {
    rill_scripts *s = rill__script_get(L);
    rill_query q = rill_world_query(s->world, &(rill_query_desc){.with = {s->camera}});
    rill_entity best = RILL_ENTITY_NULL;
    int32_t order = INT32_MAX;
    while (rill_query_next(&q)) {
        const rill_camera *c = rill_query_get(&q, 0);
        if (c->active && c->role == RILL_CAMERA_ROLE_GAME && c->order < order) {
            best = q.entity;
            order = c->order;
        }
    }
    rill__script_push_entity(L, best);
    return 1;
}

/* rill.set_camera(e): e's Camera becomes the active game camera; every other game camera goes
 * inactive. */
static int r_set_camera(lua_State *L) {
    rill_scripts *s = rill__script_get(L);
    rill_entity e = rill__script_check_entity(L, 1);
    if (!rill_world_has(s->world, e, s->camera)) {
        return luaL_error(L, "set_camera: the entity has no Camera");
    }
    rill_query q = rill_world_query(s->world, &(rill_query_desc){.with = {s->camera}});
    while (rill_query_next(&q)) {
        rill_camera *c = rill_query_get(&q, 0);
        if (c->role == RILL_CAMERA_ROLE_GAME) {
            c->active = q.entity == e;
        }
    }
    return 0;
}

/* >>events ------------------------------------------------------------------------------------- */

/* rill.emit(type[, data[, target]]): an event {type, data, target} for on_event at the next script
 * update: of every instance, or of the instances on `target` only. */
static int r_emit(lua_State *L) {
    luaL_checkstring(L, 1);
    if (!lua_isnoneornil(L, 3)) {
        rill__script_check_entity(L, 3);
    }
    lua_getfield(L, LUA_REGISTRYINDEX, "rill.events");
    if (lua_rawlen(L, -1) >= 10000) {
        return luaL_error(L, "emit: more than 10000 events waiting");
    }
    lua_createtable(L, 0, 3);
    lua_pushvalue(L, 1);
    lua_setfield(L, -2, "type");
    lua_pushvalue(L, 2);
    lua_setfield(L, -2, "data");
    lua_pushvalue(L, 3);
    lua_setfield(L, -2, "target");
    lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
    return 0;
}

/* Queues the scene loader's events of this frame as script events. */
static void queue_scene_events(lua_State *L, rill_scripts *s, int events) {
    lua_getfield(L, LUA_REGISTRYINDEX, "rill.scenes");
    int scenes = lua_gettop(L);
    for (int kind = 0; kind < 2; kind++) {
        rill_event_reader *rd = kind == 0 ? &s->scene_loaded : &s->scene_failed;
        if (!rd->event.id) {
            continue;
        }
        const rill_scene_event *ev;
        while ((ev = rill_event_read(s->world, rd)) != NULL) {
            lua_createtable(L, 0, 5);
            lua_pushstring(L, kind == 0 ? "scene_loaded" : "scene_failed");
            lua_setfield(L, -2, "type");
            lua_rawgeti(L, scenes, ev->load.id); /* the handle, when a script made the load */
            if (!lua_isnil(L, -1)) {
                scene_refresh(s, lua_touserdata(L, -1));
            }
            lua_setfield(L, -2, "scene");
            lua_pushinteger(L, ev->load.id);
            lua_setfield(L, -2, "load_id");
            rill__script_push_entity(L, ev->root);
            lua_setfield(L, -2, "root");
            lua_pushinteger(L, ev->entity_count);
            lua_setfield(L, -2, "entities");
            lua_pushboolean(L, ev->is_main);
            lua_setfield(L, -2, "main");
            lua_rawseti(L, events, (lua_Integer)lua_rawlen(L, events) + 1);
            lua_pushnil(L); /* the handle is no longer needed for lookups */
            lua_rawseti(L, scenes, ev->load.id);
        }
    }
    lua_pop(L, 1);
}

/* A contact event for the instance on `self` (when there is one): {type, target = self, other,
 * point, normal (pushing self out of other), depth}. */
static void queue_contact(lua_State *L, rill_scripts *s, int events, const char *type,
                          const rill_physics_contact *c, bool self_is_a) {
    rill_entity self = self_is_a ? c->a : c->b, other = self_is_a ? c->b : c->a;
    uint64_t k;
    if (!rill_map_get(&s->by_entity, self, &k)) {
        return;
    }
    float n[3];
    for (int i = 0; i < 3; i++) {
        n[i] = self_is_a ? c->normal[i] : -c->normal[i];
    }
    lua_createtable(L, 0, 6);
    lua_pushstring(L, type);
    lua_setfield(L, -2, "type");
    rill__script_push_entity(L, self);
    lua_setfield(L, -2, "target");
    rill__script_push_entity(L, other);
    lua_setfield(L, -2, "other");
    rill__script_push_vec(L, s, c->point, 3);
    lua_setfield(L, -2, "point");
    rill__script_push_vec(L, s, n, 3);
    lua_setfield(L, -2, "normal");
    lua_pushnumber(L, c->depth);
    lua_setfield(L, -2, "depth");
    lua_rawseti(L, events, (lua_Integer)lua_rawlen(L, events) + 1);
}

/* The physics steps' contact events, each to the instances on its two entities. */
static void queue_contact_events(lua_State *L, rill_scripts *s, int events) {
    for (int kind = 0; kind < 2; kind++) {
        rill_event_reader *rd = kind == 0 ? &s->contact_begin : &s->contact_end;
        const char *type = kind == 0 ? "contact_begin" : "contact_end";
        const rill_physics_contact *c;
        while (rd->event.id && (c = rill_event_read(s->world, rd)) != NULL) {
            queue_contact(L, s, events, type, c, true);
            queue_contact(L, s, events, type, c, false);
        }
    }
}

/* Picks (a click in rill run), to every instance: {type = "pick", entity (nil: nothing hit),
 * point, normal, distance, x, y}. */
static void queue_pick_events(lua_State *L, rill_scripts *s, int events) {
    const rill_pick_event *p;
    while (s->picked.event.id && (p = rill_event_read(s->world, &s->picked)) != NULL) {
        lua_createtable(L, 0, 7);
        lua_pushliteral(L, "pick");
        lua_setfield(L, -2, "type");
        if (p->entity) {
            rill__script_push_entity(L, p->entity);
            lua_setfield(L, -2, "entity");
            rill__script_push_vec(L, s, p->point, 3);
            lua_setfield(L, -2, "point");
            rill__script_push_vec(L, s, p->normal, 3);
            lua_setfield(L, -2, "normal");
            lua_pushnumber(L, p->distance);
            lua_setfield(L, -2, "distance");
        }
        lua_pushnumber(L, p->x);
        lua_setfield(L, -2, "x");
        lua_pushnumber(L, p->y);
        lua_setfield(L, -2, "y");
        lua_rawseti(L, events, (lua_Integer)lua_rawlen(L, events) + 1);
    }
}

/* Queues the world's events of this frame (scene loader, physics contacts, picks) as script
 * events. */
static int queue_world_events(lua_State *L) {
    rill_scripts *s = rill__script_get(L);
    lua_getfield(L, LUA_REGISTRYINDEX, "rill.events");
    int events = lua_gettop(L);
    queue_scene_events(L, s, events);
    queue_contact_events(L, s, events);
    queue_pick_events(L, s, events);
    return 0;
}

/* Takes the queued events (a fresh queue collects those emitted while they are delivered). */
static int take_events(lua_State *L) {
    lua_getfield(L, LUA_REGISTRYINDEX, "rill.events");
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, "rill.events");
    return 1;
}

void rill__script_deliver_events(rill_scripts *s) {
    lua_State *L = s->L;
    lua_pushcfunction(L, queue_world_events);
    if (rill__script_pcall(s, 0, 0) != LUA_OK) {
        RILL_LOG_ERROR(SCRIPT_LOG, "queueing events: %s", lua_tostring(L, -1));
        lua_pop(L, 1);
    }
    lua_pushcfunction(L, take_events);
    if (rill__script_pcall(s, 0, 1) != LUA_OK) {
        lua_pop(L, 1);
        return;
    }
    int q = lua_gettop(L);
    lua_Integer n = (lua_Integer)lua_rawlen(L, q);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, q, i);
        lua_getfield(L, -1, "target"); /* plain tables the engine made: no metamethods */
        rill_entity target = rill__script_opt_entity(L, -1);
        lua_pop(L, 1);
        uint64_t k;
        if (!target) {
            rill__script_broadcast(s, SCRIPT_CB_ON_EVENT, 1);
        } else if (rill_map_get(&s->by_entity, target, &k)) {
            rill__script_call(s, (uint32_t)(k - 1), SCRIPT_CB_ON_EVENT, 1);
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

void rill__script_open_engine(lua_State *L, rill_scripts *s) {
    s->scene_loaded.event = rill_world_find_event(s->world, "SceneLoaded");
    s->scene_failed.event = rill_world_find_event(s->world, "SceneLoadFailed");
    rill_physics_contact_events(s->world, &s->contact_begin.event, &s->contact_end.event);
    s->picked.event = rill_channels_pick_event(s->world);
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, "rill.events");
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, "rill.scenes");
    luaL_newmetatable(L, SCRIPT_MT_SCENE);
    lua_pushstring(L, "scene handle");
    lua_setfield(L, -2, "__name");
    static const luaL_Reg scene_methods[] = {
        {"progress", sc_progress}, {"loaded", sc_loaded}, {"state", sc_state}, {"error", sc_error},
        {"root", sc_root},         {"id", sc_id},         {NULL, NULL}};
    luaL_newlib(L, scene_methods);
    lua_setfield(L, -2, "__index");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);
    static const luaL_Reg fns[] = {{"log", rill__script_log_values},
                                   {"time", r_time},
                                   {"frame", r_frame},
                                   {"load_scene", r_load_scene},
                                   {"unload_scene", r_unload_scene},
                                   {"after", r_after},
                                   {"every", r_every},
                                   {"cancel", r_cancel},
                                   {"key_down", r_key_down},
                                   {"key_pressed", r_key_pressed},
                                   {"mouse_down", r_mouse_down},
                                   {"mouse_pressed", r_mouse_pressed},
                                   {"mouse", r_mouse},
                                   {"gamepad", r_gamepad},
                                   {"gamepad_down", r_gamepad_down},
                                   {"gamepad_pressed", r_gamepad_pressed},
                                   {"gamepad_axis", r_gamepad_axis},
                                   {"raycast", r_raycast},
                                   {"terrain_raycast", r_terrain_raycast},
                                   {"terrain_height", r_terrain_height},
                                   {"set_channel_mode", r_set_channel_mode},
                                   {"channel_mode", r_channel_mode},
                                   {"camera", r_camera},
                                   {"set_camera", r_set_camera},
                                   {"emit", r_emit},
                                   {NULL, NULL}};
    luaL_setfuncs(L, fns, 0);
}
