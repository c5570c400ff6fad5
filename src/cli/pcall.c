/* pcall.c — attn_pcall, lua.c's docall: how every chunk of the user's runs (scripts, -e, lessons, notes, the
 * REPL), with Ctrl-C turned into a Lua error (interrupt.c) and, outside the REPL, a traceback. Apart from
 * main.c so that the page's entry point (src/web/page/main_page.c) runs chunks the same way. */
#include <signal.h>

#include <lauxlib.h>
#include <lua.h>

#include "attn_lua.h"
#include "cli.h"

static int msghandler(lua_State *L) {
    const char *msg = lua_tostring(L, 1);
    if (msg == NULL) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
            return 1;
        msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }
    /* m.forward(x) for m:forward(x): attn.errors.explain reads this stack and says so */
    if (lua_getglobal(L, "package") == LUA_TTABLE && lua_getfield(L, -1, "loaded") == LUA_TTABLE &&
        lua_getfield(L, -1, "attn.errors") == LUA_TTABLE && lua_getfield(L, -1, "explain") == LUA_TFUNCTION) {
        lua_pushstring(L, msg);
        lua_call(L, 1, 1);
        if (lua_type(L, -1) == LUA_TSTRING)
            msg = lua_tostring(L, -1);
    }
    luaL_traceback(L, L, msg, 1);
    return 1;
}

/* lua.c's docall: calls the function below the narg arguments with Ctrl-C turned into a Lua
 * error. interactive: no traceback (the REPL shows messages only) and every Ctrl-C is caught. */
int attn_pcall(lua_State *L, int narg, int nres, int interactive) {
    int status;
    int base = lua_gettop(L) - narg;
    struct sigaction old;
    if (!interactive) {
        lua_pushcfunction(L, msghandler);
        lua_insert(L, base);
    }
    attn_sigint_begin(L, interactive, &old); /* Ctrl-C becomes a Lua error: interrupt.c */
    status = lua_pcall(L, narg, nres, interactive ? 0 : base);
    attn_sigint_end(L, &old);
    if (!interactive) lua_remove(L, base);
    return status;
}

