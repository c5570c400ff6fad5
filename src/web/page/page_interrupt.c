/* page_interrupt.c — Ctrl-C on the page (what src/cli/interrupt.c does with SIGINT in a terminal). The
 * Lua state runs in a Web Worker, busy until the chunk returns: no message reaches it meanwhile. The page
 * (page.js) sets a flag in a SharedArrayBuffer on Ctrl-C; while a chunk runs, a count hook reads that flag
 * every few thousand Lua instructions (attn_page_interrupted, worker.js) and raises "interrupted" as the
 * terminal's Ctrl-C does, so the chunk stops and the variables stay. A loop inside one C call (a large
 * product) is not stopped midway: the hook runs between Lua instructions. */
#include <signal.h>

#include <emscripten.h>
#include <lua.h>

#include "cli.h"
#include "page.h"
#include "tensor.h"

/* 1 when the page asked to stop since the last call (and clears the request): worker.js's flag. */
EM_JS(int, attn_page_interrupted, (void), {
    return Module["takeInterrupt"] ? Module["takeInterrupt"]() : 0;
});

#define HOOK_EVERY 4096 /* Lua instructions between two looks at the flag */

static double deadline;   /* emscripten_get_now()'s milliseconds; 0: none */
static int deadline_spent;

void attn_page_deadline(double seconds) {
    deadline = seconds > 0 ? emscripten_get_now() + seconds * 1000 : 0;
    deadline_spent = 0;
}

int attn_page_deadline_passed(void) {
    return deadline_spent;
}

static void poll_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    int spent = deadline > 0 && emscripten_get_now() > deadline;
    if (spent) { /* once, as the child's alarm in src/cli/notes.c: run.lua then runs no more blocks */
        deadline = 0;
        deadline_spent = 1;
    }
    if (!attn_page_interrupted() && !spent) return;
    attn_interrupt_requested = 1;
    lua_pushliteral(L, "interrupted"); /* no position: it is nobody's line, as in interrupt.c */
    lua_error(L);
}

static int depth; /* attn_pcall inside attn_pcall (a lesson's state inside the page's): the outer keeps its hook */

void attn_sigint_begin(lua_State *L, int interactive, struct sigaction *old) {
    (void)interactive;
    (void)old;
    if (depth++ == 0) {
        attn_page_interrupted(); /* a Ctrl-C typed at the prompt, before this chunk, is not this chunk's */
        attn_interrupt_requested = 0;
    }
    lua_sethook(L, poll_hook, LUA_MASKCOUNT, HOOK_EVERY);
}

void attn_sigint_end(lua_State *L, const struct sigaction *old) {
    (void)old;
    if (--depth > 0) return;
    lua_sethook(L, NULL, 0, 0);
    attn_interrupt_requested = 0;
}

void attn_set_second_interrupt_message(const char *msg) {
    (void)msg; /* a page's worker never quits: a second Ctrl-C is like the first */
}
