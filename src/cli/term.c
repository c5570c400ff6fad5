/* term.c — what only C can tell the library about the terminal: whether to colour, whether stdout is
 * a terminal, its size, one key press and one typed line. attn_term_setup hands them to the Lua
 * module attn.term (src/lua/term.lua), which the REPL, the tracer, heatmaps and the lesson library read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>

#include "cli.h"
#include "tensor.h"

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
        if (tcgetattr(0, &old) != 0) return luaL_error(L, "%s", attn_tr("readkey: cannot read the terminal's settings"));
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

/* One line typed (step mode's number after g): on a terminal in its ordinary (canonical) mode, so
 * the terminal itself echoes and edits it (Backspace, Ctrl-U); otherwise the next line of stdin.
 * Returns the line without its newline and whether the terminal echoed it (stdin is a terminal), or
 * nil at the end of input or when Ctrl-C cut the read. */
static int l_readline(lua_State *L) {
    char line[256];
    size_t n;
    fflush(stdout);
    if (fgets(line, sizeof line, stdin) == NULL) {
        clearerr(stdin);
        lua_pushnil(L);
        return 1;
    }
    n = strlen(line);
    if (n > 0 && line[n - 1] == '\n') n--;
    else {
        char rest[256]; /* the rest of a long line is dropped */
        while (fgets(rest, sizeof rest, stdin) != NULL && rest[strlen(rest) - 1] != '\n') {}
    }
    lua_pushlstring(L, line, n);
    lua_pushboolean(L, isatty(0));
    return 2;
}

/* The terminal's size: rows, columns; nil when stdout is not a terminal. Asked each time, since a
 * window can be resized while a lesson runs. */
static int l_size(lua_State *L) {
    struct winsize ws;
    if (!isatty(1) || ioctl(1, TIOCGWINSZ, &ws) != 0 || ws.ws_row == 0 || ws.ws_col == 0) {
        lua_pushnil(L);
        return 1;
    }
    lua_pushinteger(L, ws.ws_row);
    lua_pushinteger(L, ws.ws_col);
    return 2;
}

/* ---- attn.term ------------------------------------------------------------------------------- */

void attn_term_setup(lua_State *L, int color) {
    if (!attn_push_function(L, "attn.term", NULL, ATTN_CALL_BARE) || !lua_istable(L, -1)) {
        lua_pop(L, 1);
        return;
    }
    lua_pushboolean(L, color);
    lua_setfield(L, -2, "color");
    lua_pushboolean(L, isatty(1));
    lua_setfield(L, -2, "tty");
    lua_pushcfunction(L, l_readkey);
    lua_setfield(L, -2, "readkey");
    lua_pushcfunction(L, l_readline);
    lua_setfield(L, -2, "readline");
    lua_pushcfunction(L, l_size);
    lua_setfield(L, -2, "size");
    lua_pop(L, 1);
}
