/* page_figures.c — the page's figures: attn.web.figures (src/lua/web/figures.lua) is installed in the
 * page's Lua state with a function that hands each heatmap's and plot's SVG to worker.js (its figure),
 * which posts it to the page; the terminal's text carries a marker where the figure was drawn. */
#include <emscripten.h>
#include <lauxlib.h>
#include <lua.h>

#include "cli.h"
#include "page.h"

EM_JS(void, page_figure, (int n, const char *svg), { Module["figure"](n, UTF8ToString(svg)); });

static int l_send(lua_State *L) {
    page_figure((int)luaL_checkinteger(L, 1), luaL_checkstring(L, 2));
    return 0;
}

int attn_page_figures_setup(lua_State *L) {
    int top = lua_gettop(L), ok = 0;
    lua_getglobal(L, "require");
    lua_pushliteral(L, "attn.web.figures");
    if (attn_pcall(L, 1, 1, 0) == LUA_OK && lua_getfield(L, -1, "install") == LUA_TFUNCTION) {
        lua_pushcfunction(L, l_send);
        ok = attn_pcall(L, 1, 0, 0) == LUA_OK;
    }
    lua_settop(L, top);
    return ok;
}
