/* term.c — what only C can tell the library about the terminal: whether to colour, whether stdout is
 * a terminal, and one key press. attn_term_setup hands them to the Lua module attn.term
 * (src/lua/term.lua), which the REPL, the tracer, heatmaps and the lesson library read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>

#include "cli.h"

int attn_color_wanted(void) {
    const char *nc = getenv("NO_COLOR");
    return isatty(1) && (nc == NULL || nc[0] == '\0');
}

/* ---- one key --------------------------------------------------------------------------------- */

/* One key: on a terminal a single key press (no Enter needed, not echoed); otherwise the first
 * character of the next line. Enter is "\n"; end of input, or a read cut short by Ctrl-C, is "q". */
static int l_readkey(lua_State *L) {
    int c = EOF;
    fflush(stdout);
    if (isatty(0)) {
        struct termios old, raw;
        unsigned char ch;
        if (tcgetattr(0, &old) != 0) return luaL_error(L, "readkey: cannot read the terminal's settings");
        raw = old;
        raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO); /* ISIG stays: Ctrl-C still interrupts */
        raw.c_cc[VMIN] = 1;
        raw.c_cc[VTIME] = 0;
        tcsetattr(0, TCSANOW, &raw);
        if (read(0, &ch, 1) == 1) c = ch;
        if (c == 27) { /* an escape sequence (arrow keys): drop the rest of it */
            raw.c_cc[VMIN] = 0;
            raw.c_cc[VTIME] = 1;
            tcsetattr(0, TCSANOW, &raw);
            while (read(0, &ch, 1) == 1) {}
        }
        tcsetattr(0, TCSANOW, &old);
    } else {
        char line[256];
        if (fgets(line, sizeof line, stdin) != NULL) {
            size_t n = strlen(line);
            c = (unsigned char)line[0];
            while (n > 0 && line[n - 1] != '\n' && fgets(line, sizeof line, stdin) != NULL)
                n = strlen(line); /* the rest of a long line */
        }
    }
    if (c == EOF || c == 4 /* Ctrl-D */) c = 'q';
    if (c == '\r') c = '\n';
    if (c >= 'A' && c <= 'Z') c += 'a' - 'A';
    lua_pushlstring(L, (const char *)&(char){(char)c}, 1);
    return 1;
}

/* ---- attn.term ------------------------------------------------------------------------------- */

void attn_term_setup(lua_State *L, int color) {
    lua_getglobal(L, "require");
    lua_pushliteral(L, "attn.term");
    if (lua_pcall(L, 1, 1, 0) != LUA_OK || !lua_istable(L, -1)) {
        lua_pop(L, 1);
        return;
    }
    lua_pushboolean(L, color);
    lua_setfield(L, -2, "color");
    lua_pushboolean(L, isatty(1));
    lua_setfield(L, -2, "tty");
    lua_pushcfunction(L, l_readkey);
    lua_setfield(L, -2, "readkey");
    lua_pop(L, 1);
}
