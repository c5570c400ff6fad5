/* page_term.c — what src/cli/term.c tells the library about a terminal, for the page's xterm.js terminal:
 * colours on, a terminal (tty) of the size page.js reports, and one key or one line typed, which the worker
 * waits for (Atomics.wait on a SharedArrayBuffer the page writes: worker.js's readKey and readLine). Step
 * mode's keys (src/lua/lesson/keys.lua) come through here. */
#include <stdlib.h>
#include <string.h>

#include <emscripten.h>
#include <lauxlib.h>
#include <lua.h>

#include "cli.h"

/* worker.js: the next key (a byte; 'q' when there is no way to wait), a line typed (malloc'd), the size */
EM_JS(int, page_read_key, (void), { return Module["readKey"](); });
EM_JS(char *, page_read_line, (void), {
    var s = Module["readLine"]();
    if (s === null) return 0;
    var n = lengthBytesUTF8(s) + 1, p = _malloc(n);
    stringToUTF8(s, p, n);
    return p;
});
EM_JS(int, page_rows, (void), { return Module["rows"] || 24; });
EM_JS(int, page_cols, (void), { return Module["cols"] || 80; });

int attn_color_wanted(void) {
    return 1; /* xterm.js draws ANSI colours */
}

static int l_readkey(lua_State *L) {
    int c = page_read_key();
    if (c < 0 || c == 4 /* Ctrl-D */) c = 'q';
    if (c == '\r') c = '\n';
    if (c >= 'A' && c <= 'Z') c += 'a' - 'A';
    lua_pushlstring(L, (const char *)&(char){(char)c}, 1);
    return 1;
}

static int l_readline(lua_State *L) {
    char *s = page_read_line();
    if (s == NULL) {
        lua_pushnil(L);
        return 1;
    }
    lua_pushstring(L, s);
    free(s);
    lua_pushboolean(L, 1); /* page.js echoed it, as a terminal does */
    return 2;
}

static int l_size(lua_State *L) {
    lua_pushinteger(L, page_rows());
    lua_pushinteger(L, page_cols());
    return 2;
}

void attn_term_setup(lua_State *L, int color) {
    lua_getglobal(L, "require");
    lua_pushliteral(L, "attn.term");
    if (lua_pcall(L, 1, 1, 0) != LUA_OK || !lua_istable(L, -1)) {
        lua_pop(L, 1);
        return;
    }
    lua_pushboolean(L, color);
    lua_setfield(L, -2, "color");
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, "tty");
    lua_pushcfunction(L, l_readkey);
    lua_setfield(L, -2, "readkey");
    lua_pushcfunction(L, l_readline);
    lua_setfield(L, -2, "readline");
    lua_pushcfunction(L, l_size);
    lua_setfield(L, -2, "size");
    lua_pop(L, 1);
}
