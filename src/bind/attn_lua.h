/* attn_lua.h — what the command line (src/cli) needs from the Lua bindings. */
#ifndef ATTN_LUA_H
#define ATTN_LUA_H
#include <lua.h>

#define ATTN_VERSION "0.1"

/* Opens the standard libraries and attn's: globals torch, nn, help, ... and the embedded src/lua
 * modules. Returns LUA_OK, or an error code with the message on the stack. L must come from
 * luaL_newstate: its allocator (realloc and free) gets the memory limits in front (bind/lua_memory.c). */
int attn_open(lua_State *L);

/* How the lesson modes trust a lesson file (src/bind/files.c, files.lesson_trusted): all of them with
 * trusted (--trusted), else only those inside own_dir (attn's own lessons; NULL: none). Until this is
 * called, every lesson is trusted (attn used as a library). */
void attn_set_lesson_trust(int trusted, const char *own_dir);
/* lua_setglobal, for the globals the command line sets (arg, -l name): init.c is the one place that
 * sets globals. */
void attn_setglobal(lua_State *L, const char *name);
/* The entry of attn.so: require("attn") -> {torch =, nn =, attention =, help =, lesson =}; no globals. */
int luaopen_attn(lua_State *L);

#endif
