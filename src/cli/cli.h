/* cli.h — what the two files of src/cli share: main.c runs chunks, repl.c reads them. */
#ifndef ATTN_CLI_H
#define ATTN_CLI_H
#include <lua.h>

/* lua_pcall with attn's message handler (a traceback for scripts; the plain message when
 * interactive) and Ctrl-C armed for the duration of the call. */
int attn_pcall(lua_State *L, int narg, int nres, int interactive);
/* The interactive loop; returns 0 when the user quits with Ctrl-D (or stdin ends). */
int attn_repl(lua_State *L);

#endif
