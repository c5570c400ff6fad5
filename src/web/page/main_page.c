/* main_page.c — the page's entry points (what src/cli/main.c and repl.c are in a terminal), called by
 * worker.js in the Web Worker that owns the Lua state. One Lua state for the REPL, as `attn -i`; the lesson
 * modes, --list and --verify go through src/cli/lessons.c as on the command line, with the files the page
 * was built with (src/web/web.mk preloads /attn/lessons and /attn/data/torch, make install's layout).
 * Everything is printed to stdout, which worker.js sends to the terminal, and heatmaps and plots go to the
 * page as SVG too (page_figures.c); nothing here knows about the DOM. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <emscripten.h>
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "attn_lua.h"
#include "cli.h"
#include "page.h"
#include "tensor.h"

static lua_State *L;

/* Pushes require("attn.repl")[name]; 0 (the error pushed) when the module cannot be loaded. */
static int push_repl_function(const char *name) {
    lua_getglobal(L, "require");
    lua_pushliteral(L, "attn.repl");
    if (attn_pcall(L, 1, 1, 1) != LUA_OK) return 0;
    lua_getfield(L, -1, name);
    lua_remove(L, -2);
    return 1;
}

/* The language: "en" or one with catalogs ("zh_CN"), for this state and the ones lessons make. */
EMSCRIPTEN_KEEPALIVE int attn_page_lang(const char *lang) {
    if (!attn_lang_option(lang)) return 0;
    if (L == NULL) return 1;
    int top = lua_gettop(L);
    lua_getglobal(L, "require");
    lua_pushliteral(L, "attn.i18n");
    if (attn_pcall(L, 1, 1, 0) == LUA_OK && lua_getfield(L, -1, "lang") == LUA_TFUNCTION) {
        lua_pushstring(L, getenv("ATTN_LANG"));
        attn_pcall(L, 1, 0, 0);
    }
    lua_settop(L, top);
    return 1;
}

/* A new state with attn's library, the page's terminal and the REPL loaded; prints the banner. */
EMSCRIPTEN_KEEPALIVE int attn_page_start(const char *lang) {
    attn_page_lang(lang);
    L = luaL_newstate();
    if (L == NULL) return 0;
    if (attn_open(L) != LUA_OK) {
        fprintf(stderr, "attn: %s\n", lua_tostring(L, -1));
        return 0;
    }
    lua_gc(L, LUA_GCRESTART);
    attn_term_setup(L, 1);
    attn_page_figures_setup(L); /* the REPL's and step mode's: not a note's (page_notes.c) */
    if (!push_repl_function("banner")) return 0;
    lua_pushliteral(L, ATTN_VERSION);
    lua_pushliteral(L, LUA_VERSION);
    if (attn_pcall(L, 2, 1, 0) == LUA_OK && lua_isstring(L, -1)) printf("%s\n", lua_tostring(L, -1));
    lua_settop(L, 0);
    fflush(stdout);
    return 1;
}

/* repl.eval(chunk, {interactive = true}): 1 when the chunk needs more lines, else 0 (it ran, or its
 * error was printed). */
EMSCRIPTEN_KEEPALIVE int attn_page_eval(const char *chunk) {
    int incomplete = 0;
    int top = lua_gettop(L);
    if (push_repl_function("eval")) {
        lua_pushstring(L, chunk);
        lua_newtable(L);
        lua_pushboolean(L, 1);
        lua_setfield(L, -2, "interactive");
        lua_pushboolean(L, 0);
        if (attn_pcall(L, 3, 1, 1) == LUA_OK) {
            const char *r = lua_tostring(L, -1);
            incomplete = r != NULL && strcmp(r, "incomplete") == 0;
        } else if (push_repl_function("write_error")) { /* a Ctrl-C outside the user's chunk */
            lua_insert(L, -2);
            lua_pushboolean(L, 1);
            lua_pcall(L, 2, 0, 0);
        }
    }
    lua_settop(L, top);
    fflush(stdout);
    fflush(stderr);
    return incomplete;
}

/* Tab: repl.complete(text)'s candidates, one per line (a static buffer, valid until the next call). */
EMSCRIPTEN_KEEPALIVE const char *attn_page_complete(const char *text) {
    static char *out;
    int top = lua_gettop(L);
    free(out);
    out = NULL;
    if (push_repl_function("complete")) {
        lua_pushstring(L, text);
        if (attn_pcall(L, 1, 1, 1) == LUA_OK && lua_istable(L, -1)) {
            lua_getglobal(L, "table");
            lua_getfield(L, -1, "concat");
            lua_pushvalue(L, -3);
            lua_pushliteral(L, "\n");
            if (lua_pcall(L, 2, 1, 0) == LUA_OK && lua_isstring(L, -1)) out = strdup(lua_tostring(L, -1));
        }
    }
    lua_settop(L, top);
    return out ? out : "";
}

/* A lesson mode, as `attn --check FILE...` and the others (cli.h's ATTN_LESSON_*), on the files named in
 * list (one per line); from: the first step in step mode (0: the first), and for ATTN_LESSON_VERIFY, 1 for
 * --update (main.c, too, calls attn_verify itself: attn_lessons has no notes). Returns what the command
 * line's exit status would say. */
#define MAX_FILES 64
EMSCRIPTEN_KEEPALIVE int attn_page_lesson(int mode, const char *list, int from) {
    attn_step_options step = {from, 0, NULL, 0};
    char *files[MAX_FILES], *copy = strdup(list ? list : ""), *save = NULL;
    int n = 0;
    for (char *f = strtok_r(copy, "\n", &save); f && n < MAX_FILES; f = strtok_r(NULL, "\n", &save)) files[n++] = f;
    int ok = mode == ATTN_LESSON_VERIFY ? attn_verify(L, files, n, from != 0, 0) : attn_lessons(L, mode, files, n, &step);
    free(copy);
    fflush(stdout);
    fflush(stderr);
    return ok;
}
