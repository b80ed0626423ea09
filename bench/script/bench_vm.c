/* bench_vm.c: the benchmark that chose the Lua runtime (docs/scripting.md, "Why Lua 5.4").
 * Built twice from this one file, against Debian's Lua 5.4 (bench_script_vm_lua54) and LuaJIT
 * 2.1 (bench_script_vm_luajit), with the same binding style the engine's script module uses: an
 * entity is a userdata whose __index gives a component proxy by name, a proxy's __index reads a
 * field into a fresh vec3 table and its __newindex writes one back. N entities (default 10,000)
 * each run update(self, dt) reading and writing its Transform translation, per frame. It also
 * measures each runtime with a count hook set (the instruction budget the sandbox needs), which
 * is what decides the choice: LuaJIT calls no hook inside JIT-compiled traces, and 64-bit LuaJIT
 * refuses lua_newstate with a custom allocator, so its budget and memory limit are not enforceable.
 * Prints one JSON line per configuration. Usage: bench_script_vm_xxx [entities] [frames]. */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct xf {
    float t[3], r[4], s[3];
} xf;
static xf *g_xf;

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void push_vec3(lua_State *L, const float *v) {
    lua_createtable(L, 0, 3);
    lua_pushnumber(L, v[0]);
    lua_setfield(L, -2, "x");
    lua_pushnumber(L, v[1]);
    lua_setfield(L, -2, "y");
    lua_pushnumber(L, v[2]);
    lua_setfield(L, -2, "z");
    luaL_getmetatable(L, "vec3");
    lua_setmetatable(L, -2);
}

static int proxy_index(lua_State *L) {
    uint32_t *p = luaL_checkudata(L, 1, "proxy");
    const char *k = luaL_checkstring(L, 2);
    if (strcmp(k, "translation") == 0) {
        push_vec3(L, g_xf[*p].t);
        return 1;
    }
    return luaL_error(L, "Transform has no field '%s'", k);
}

static int proxy_newindex(lua_State *L) {
    uint32_t *p = luaL_checkudata(L, 1, "proxy");
    const char *k = luaL_checkstring(L, 2);
    if (strcmp(k, "translation") != 0) {
        return luaL_error(L, "Transform has no field '%s'", k);
    }
    luaL_checktype(L, 3, LUA_TTABLE);
    static const char *names[3] = {"x", "y", "z"};
    for (int i = 0; i < 3; i++) {
        lua_getfield(L, 3, names[i]);
        g_xf[*p].t[i] = (float)lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    return 0;
}

static int entity_index(lua_State *L) {
    uint32_t *e = luaL_checkudata(L, 1, "entity");
    const char *k = luaL_checkstring(L, 2);
    if (strcmp(k, "Transform") != 0) {
        return luaL_error(L, "no component '%s'", k);
    }
    uint32_t *p = lua_newuserdata(L, sizeof(uint32_t));
    *p = *e;
    luaL_getmetatable(L, "proxy");
    lua_setmetatable(L, -2);
    return 1;
}

static const char *SCRIPT = "local M = {}\n"
                            "function M.update(self, dt)\n"
                            "  local t = self.entity.Transform\n"
                            "  local p = t.translation\n"
                            "  p.x = p.x + dt\n"
                            "  t.translation = p\n"
                            "end\n"
                            "return M\n";

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void hook(lua_State *L, lua_Debug *ar) {
    (void)L, (void)ar;
}

static void run(uint32_t n, uint32_t frames, int with_hook) {
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    luaL_newmetatable(L, "vec3");
    lua_pop(L, 1);
    luaL_newmetatable(L, "proxy");
    lua_pushcfunction(L, proxy_index);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, proxy_newindex);
    lua_setfield(L, -2, "__newindex");
    lua_pop(L, 1);
    luaL_newmetatable(L, "entity");
    lua_pushcfunction(L, entity_index);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
    if (with_hook) {
        lua_sethook(L, hook, LUA_MASKCOUNT, 1000);
    }
    if (luaL_loadstring(L, SCRIPT) || lua_pcall(L, 0, 1, 0)) {
        fprintf(stderr, "%s\n", lua_tostring(L, -1));
        exit(1);
    }
    int mod = luaL_ref(L, LUA_REGISTRYINDEX);
    int *selves = malloc(sizeof(int) * n);
    for (uint32_t i = 0; i < n; i++) {
        lua_createtable(L, 0, 4);
        uint32_t *e = lua_newuserdata(L, sizeof(uint32_t));
        *e = i;
        luaL_getmetatable(L, "entity");
        lua_setmetatable(L, -2);
        lua_setfield(L, -2, "entity");
        selves[i] = luaL_ref(L, LUA_REGISTRYINDEX);
    }
    lua_rawgeti(L, LUA_REGISTRYINDEX, mod);
    lua_getfield(L, -1, "update");
    int fn = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_pop(L, 1);
    double *ms_all = malloc(sizeof(double) * frames), sum = 0;
    for (uint32_t f = 0; f < frames; f++) {
        double t0 = now_ms();
        for (uint32_t i = 0; i < n; i++) {
            lua_rawgeti(L, LUA_REGISTRYINDEX, fn);
            lua_rawgeti(L, LUA_REGISTRYINDEX, selves[i]);
            lua_pushnumber(L, 1.0 / 60.0);
            if (lua_pcall(L, 2, 0, 0)) {
                fprintf(stderr, "%s\n", lua_tostring(L, -1));
                exit(1);
            }
        }
        double ms = now_ms() - t0;
        sum += ms;
        ms_all[f] = ms;
    }
    qsort(ms_all, frames, sizeof(double), cmp_double);
    printf("{\"bench\":\"script_vm\",\"runtime\":\"%s\",\"entities\":%u,\"frames\":%u,"
           "\"count_hook\":%s,\"frame_ms_mean\":%.3f,\"frame_ms_median\":%.3f,"
           "\"frame_ms_best\":%.3f,"
           "\"check_x\":%.4f}\n",
           LUA_VERSION, n, frames, with_hook ? "true" : "false", sum / frames, ms_all[frames / 2],
           ms_all[0], (double)g_xf[0].t[0]);
    free(selves);
    free(ms_all);
    lua_close(L);
}

static void *alloc_fn(void *ud, void *ptr, size_t osize, size_t nsize) {
    (void)ud, (void)osize;
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    return realloc(ptr, nsize);
}

int main(int argc, char **argv) {
    uint32_t n = argc > 1 ? (uint32_t)atoi(argv[1]) : 10000;
    uint32_t frames = argc > 2 ? (uint32_t)atoi(argv[2]) : 200;
    g_xf = calloc(n, sizeof(xf));
    run(n, frames, 0);
    memset(g_xf, 0, sizeof(xf) * n);
    run(n, frames, 1);
    free(g_xf);
    /* The memory limit needs an allocator of the engine's own (lua_newstate). */
    lua_State *L = lua_newstate(alloc_fn, NULL);
    printf("{\"bench\":\"script_vm_allocator\",\"runtime\":\"%s\",\"custom_allocator\":%s}\n",
           LUA_VERSION, L ? "true" : "false");
    if (L) {
        lua_close(L);
    }
    return 0;
}
