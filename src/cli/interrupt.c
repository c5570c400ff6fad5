/* interrupt.c — Ctrl-C while attn runs Lua (pcall.c's attn_pcall, for scripts, lessons and the REPL).
 * Split from main.c; the rules are lua.c's. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <lua.h>

#include "cli.h"
#include "tensor.h"

static lua_State *globalL = NULL;

/* ---- Ctrl-C ---------------------------------------------------------------------------------- */

/* A C signal handler cannot touch a Lua state safely, so (as lua.c does) it only installs a hook;
 * the hook raises the error at the next Lua instruction. The core checks its own flag in long
 * loops, since no hook runs while C code computes. */
static volatile sig_atomic_t interrupt_unseen; /* a Ctrl-C no hook or loop has acted on yet (REPL) */

static void lstop(lua_State *L, lua_Debug *ar) {
    (void)ar;
    interrupt_unseen = 0; /* seen: Lua runs again, the error below stops the chunk */
    lua_sethook(L, NULL, 0, 0);
    lua_pushliteral(L, "interrupted"); /* no position: it is nobody's line */
    lua_error(L);
}

static void set_sigint(void (*handler)(int), struct sigaction *old) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sa.sa_flags = 0; /* no SA_RESTART: a blocking read (io.read) returns, so Ctrl-C is seen */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, old);
}

/* In a script a second Ctrl-C kills the process, as in lua.c, in case the first is never seen. */
static void laction(int sig) {
    (void)sig;
    set_sigint(SIG_DFL, NULL);
    attn_interrupt_requested = 1;
    lua_sethook(globalL, lstop, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
}

/* At the REPL a Ctrl-C stops the computation. A C function that neither runs Lua (where the hook fires)
 * nor polls attn_interrupt_requested (a Lua pattern search that backtracks for ever) never sees it; so,
 * as in lua.c, a second Ctrl-C within 2 s of an unseen first ends attn, saying why. The history is saved
 * already (repl.c appends each chunk before it runs). Async-signal-safe calls only. */
static struct timespec interrupt_time;
static char second_interrupt_message[512] = "\nattn: a second Ctrl-C: quitting\n"; /* repl.c translates it */

void attn_set_second_interrupt_message(const char *msg) {
    snprintf(second_interrupt_message, sizeof second_interrupt_message, "\n%s\n", msg);
}

static void laction_repl(int sig) {
    struct timespec now;
    (void)sig;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double since = (double)(now.tv_sec - interrupt_time.tv_sec) + (now.tv_nsec - interrupt_time.tv_nsec) * 1e-9;
    if (interrupt_unseen && since < 2.0) {
        ssize_t w = write(STDERR_FILENO, second_interrupt_message, strlen(second_interrupt_message));
        (void)w;
        _exit(130); /* 128 + SIGINT, the status a shell gives a program Ctrl-C ended */
    }
    interrupt_time = now;
    interrupt_unseen = 1;
    attn_interrupt_requested = 1;
    lua_sethook(globalL, lstop, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
}

void attn_sigint_begin(lua_State *L, int interactive, struct sigaction *old) {
    globalL = L;
    attn_interrupt_requested = 0;
    set_sigint(interactive ? laction_repl : laction, old);
}

void attn_sigint_end(lua_State *L, const struct sigaction *old) {
    sigaction(SIGINT, old, NULL); /* at the REPL: its own handler for Ctrl-C at the prompt */
    /* A Ctrl-C that came after the last Lua instruction left its hook behind: drop it, or it
     * would stop the next chunk before it starts. */
    if (lua_gethook(L) == lstop) lua_sethook(L, NULL, 0, 0);
    attn_interrupt_requested = 0;
    interrupt_unseen = 0; /* the call is over: whatever stopped it, the Ctrl-C was acted on */
}
