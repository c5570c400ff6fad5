/* markdown.c — attn --markdown LESSON...: each lesson as a Markdown handout on standard output (the work
 * is src/lua/lesson/markdown.lua's), each in a fresh Lua state (notes.c's attn_new_file_state). */
#include <stdio.h>

#include <lauxlib.h>
#include <lua.h>

#include "attn_lua.h"
#include "cli.h"
#include "tensor.h"

/* --markdown LESSON...: each lesson as a Markdown handout on stdout, one after the other. */
int attn_markdown(char **files, int nfiles) {
    int ok = 1;
    if (nfiles == 0) {
        fprintf(stderr, attn_tr("attn: --markdown needs a lesson file (attn --markdown lessons/02_trainable_weights.lua)\n"));
        return 0;
    }
    for (int i = 0; i < nfiles; i++) {
        lua_State *L = attn_new_file_state(files[i]);
        if (L == NULL) {
            ok = 0;
            continue;
        }
        /* markdown.write(path) -> true, or nil and what went wrong */
        int done = attn_push_function(L, "attn.lesson.markdown", "write", ATTN_CALL_SCRIPT);
        if (done) {
            lua_pushstring(L, files[i]);
            done = attn_pcall(L, 1, 2, ATTN_CALL_SCRIPT) == LUA_OK;
            if (done && !lua_toboolean(L, -2)) done = 0; /* the message is on top */
        }
        if (!done) {
            const char *msg = lua_tostring(L, -1);
            fflush(stdout);
            fprintf(stderr, "attn: %s\n", msg ? msg : "(error object is not a string)");
            ok = 0;
        }
        lua_close(L);
        fflush(stdout);
    }
    return ok;
}
