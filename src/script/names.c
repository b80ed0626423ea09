/* names.c: what a script value is called in error messages. Scripts see entities, components,
 * scene handles and the lanes types (vec3, quat, ...) as values of their own kinds, so a message
 * names those kinds ("an entity", "a Transform component", "a vec3"), never the "userdata" or
 * the metatable names underneath. */
#include "script_internal.h"

#include <string.h>

const char *rill__script_article(const char *word) {
    return word && strchr("aeiouAEIOU", word[0]) && word[0] ? "an" : "a";
}

const char *rill__script_value_name(lua_State *L, int idx) {
    const script_lanes *t;
    if (rill__script_lanes_value(L, idx, &t)) {
        return lua_pushfstring(L, "%s %s", rill__script_article(t->type), t->type);
    }
    const rill_scripts *s = rill__script_get(L);
    if (rill__script_test_udata(L, idx, s->entity_meta)) {
        return "an entity";
    }
    const char *comp = rill__script_proxy_type(L, idx);
    if (comp) {
        return lua_pushfstring(L, "%s %s component", rill__script_article(comp), comp);
    }
    if (luaL_testudata(L, idx, SCRIPT_MT_SCENE)) {
        return "a scene handle";
    }
    switch (lua_type(L, idx)) {
    case LUA_TNONE:
        return "nothing";
    case LUA_TNIL:
        return "nil";
    case LUA_TBOOLEAN:
        return "a boolean";
    case LUA_TNUMBER:
        return "a number";
    case LUA_TSTRING:
        return "a string";
    case LUA_TTABLE:
        return "a table";
    case LUA_TFUNCTION:
        return "a function";
    case LUA_TTHREAD:
        return "a coroutine";
    default:
        return "a value of another kind"; /* no other userdata reaches a script */
    }
}

int rill__script_arg_error(lua_State *L, int idx, const char *expected) {
    return luaL_argerror(
        L, idx,
        lua_pushfstring(L, "expected %s, got %s", expected, rill__script_value_name(L, idx)));
}
