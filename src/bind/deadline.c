/* deadline.c (bindings) — bind.testing.call_within(seconds, f, ...): calls f(...) as pcall does, and
 * stops it as Ctrl-C would once the seconds have passed. For the fuzzer (tests/lua/fuzz_spec.lua,
 * scripts/fuzz.sh): a random call such as torch.ones(1):expand(2^40):sum() is hours of honest work, and
 * stopping it exercises the same path a user's Ctrl-C takes. A call that ignores the stop (a C loop that
 * never polls attn_interrupt_requested) still hangs, and the fuzzer's outer timeout reports it.
 * bind.testing.set_memory_cap(bytes): a memory limit for the fuzzer's random shapes (memlimit.h). */
#include <signal.h>
#include <string.h>
#include <sys/time.h>

#include "bind.h"
#include "memlimit.h"

static lua_State *deadline_state;

static void deadline_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    lua_sethook(L, NULL, 0, 0);
    lua_pushliteral(L, "interrupted");
    lua_error(L);
}

/* SIGALRM: what src/cli's Ctrl-C handler does, the core's flag for C loops and a hook for Lua code. */
static void on_alarm(int sig)
{
    (void)sig;
    attn_interrupt_requested = 1;
    lua_sethook(deadline_state, deadline_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
}

static void arm(double seconds)
{
    struct itimerval it;
    memset(&it, 0, sizeof it);
    it.it_value.tv_sec = (time_t)seconds;
    it.it_value.tv_usec = (suseconds_t)((seconds - (double)(time_t)seconds) * 1e6);
    setitimer(ITIMER_REAL, &it, NULL);
}

static int call_within(lua_State *L)
{
    double seconds = luaL_checknumber(L, 1);
    luaL_argcheck(L, seconds > 0 && seconds < 1e6, 1, "seconds must be positive");
    luaL_checktype(L, 2, LUA_TFUNCTION);
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, &old);
    deadline_state = L;
    arm(seconds);
    int status = lua_pcall(L, lua_gettop(L) - 2, LUA_MULTRET, 0);
    arm(0); /* disarmed */
    sigaction(SIGALRM, &old, NULL);
    if (lua_gethook(L) == deadline_hook) /* the alarm came after f's last Lua instruction */
        lua_sethook(L, NULL, 0, 0);
    attn_interrupt_requested = 0;
    lua_pushboolean(L, status == LUA_OK);
    lua_replace(L, 1); /* in place of seconds: true/false, then f's results or its error */
    return lua_gettop(L);
}

/* bind.testing.set_memory_cap(bytes): a memory limit of attn's own (memlimit.h), so a fuzzer's random
 * shapes never take the shared machine's memory; 0 removes it. */
static int set_memory_cap(lua_State *L)
{
    attn_set_memory_cap(luaL_checknumber(L, 1));
    return 0;
}

int luaopen_attn_deadline(lua_State *L)
{
    static const luaL_Reg fns[] = {{"call_within", call_within}, {"set_memory_cap", set_memory_cap}, {NULL, NULL}};
    lua_newtable(L);
    lt_newpart(L, "testing", fns, NULL);
    return 1;
}
