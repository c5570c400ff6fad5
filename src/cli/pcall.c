/* pcall.c — the one way the command line calls into Lua: attn_pcall (lua.c's docall: a message handler
 * that adds a traceback, Ctrl-C turned into a Lua error for the length of the call) and
 * attn_push_function (require(module)[name], pushed for such a call). Every front end (main.c,
 * repl.c, lessons.c, notes.c, ipynb.c, kernel.c, kernel_install.c, term.c, and the page's entry point
 * src/web/page/main_page.c) comes through here, so a chunk runs the same way in each. */
#include <signal.h>

#include <lauxlib.h>
#include <lua.h>

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
 * error. ATTN_CALL_INTERACTIVE: no traceback (the REPL shows messages only) and every Ctrl-C is caught;
 * ATTN_CALL_BARE: lua_pcall as it is (the kernel's own requests, the terminal's setup). */
int attn_pcall(lua_State *L, int narg, int nres, int mode) {
    int status;
    int base = lua_gettop(L) - narg;
    struct sigaction old;
    if (mode == ATTN_CALL_BARE) return lua_pcall(L, narg, nres, 0);
    if (mode == ATTN_CALL_SCRIPT) {
        lua_pushcfunction(L, msghandler);
        lua_insert(L, base);
    }
    attn_sigint_begin(L, mode == ATTN_CALL_INTERACTIVE, &old); /* Ctrl-C becomes a Lua error: interrupt.c */
    status = lua_pcall(L, narg, nres, mode == ATTN_CALL_SCRIPT ? base : 0);
    attn_sigint_end(L, &old);
    if (mode == ATTN_CALL_SCRIPT) lua_remove(L, base);
    return status;
}

/* Pushes require(module)[name] (name NULL: the module itself), loading the module as attn_pcall calls
 * in mode. Returns 1, or 0 with the error message pushed instead. */
int attn_push_function(lua_State *L, const char *module, const char *name, int mode) {
    lua_getglobal(L, "require");
    lua_pushstring(L, module);
    if (attn_pcall(L, 1, 1, mode) != LUA_OK) return 0;
    if (name == NULL) return 1;
    lua_getfield(L, -1, name);
    lua_remove(L, -2);
    return 1;
}
