/* check.c: rill_scripts_check_source, the compile check `rill export` runs on every script it
 * packs: the text is compiled (never run) in a state of its own, under a memory limit, and a
 * syntax error comes back as "path:line: message", as the engine would log it at load. */
#include <string.h>

#include "script_internal.h"

#define CHECK_MEMORY_LIMIT (64u << 20) /* bytes a compile may use: a generous script is < 1 MiB */

typedef struct check_mem {
    size_t used;
} check_mem;

static void *check_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    check_mem *m = ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        m->used -= old;
        rill_free(ptr);
        return NULL;
    }
    if (nsize > old && m->used - old + nsize > CHECK_MEMORY_LIMIT) {
        return NULL;
    }
    void *p = rill_realloc_tagged(ptr, nsize, RILL_MEM_SCRIPT);
    if (p) {
        m->used = m->used - old + nsize;
    }
    return p;
}

rill_result rill_scripts_check_source(const char *path, const char *text, size_t len,
                                      rill_error *err) {
    if (!path || (!text && len)) {
        return rill_error_set(err, RILL_ERR_INVALID_ARGUMENT, "rill_scripts_check_source: NULL");
    }
    if (len && text[0] == LUA_SIGNATURE[0]) {
        return rill_error_set(err, RILL_ERR_PARSE,
                              "%s:1: a binary (precompiled) chunk: scripts load as text only",
                              path);
    }
    check_mem mem = {0};
    lua_State *L = lua_newstate(check_alloc, &mem);
    if (!L) {
        return rill_error_set(err, RILL_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    }
    lua_pushfstring(L, "@%s", path);
    rill_result r = RILL_OK;
    int st = rill__script_load_text(L, text ? text : "", len, lua_tostring(L, -1));
    if (st == LUA_ERRMEM) {
        r = rill_error_set(err, RILL_ERR_LIMIT, "%s: too large to compile (over %u MiB)", path,
                           CHECK_MEMORY_LIMIT >> 20);
    } else if (st != LUA_OK) {
        r = rill_error_set(err, RILL_ERR_PARSE, "%s", lua_tostring(L, -1));
    }
    lua_close(L);
    return r;
}
