/* notes.c — the Markdown modes of the command line: --verify [--update] checks (and rewrites) the
 * output blocks of notes written in Markdown, --markdown writes lessons as Markdown handouts. The work
 * is in Lua (src/lua/verify/run.lua, src/lua/lesson/markdown.lua); this file gives each file a fresh
 * Lua state, so that one file's globals, or its error, or its Ctrl-C, never reach the next. */
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "attn_lua.h"
#include "cli.h"
#include "tensor.h"

/* Pushes require(module)[name]. Returns 0 (the error on the stack) when the module fails to load. */
static int push_function(lua_State *L, const char *module, const char *name) {
    lua_getglobal(L, "require");
    lua_pushstring(L, module);
    if (attn_pcall(L, 1, 1, 0) != LUA_OK) return 0;
    lua_getfield(L, -1, name);
    lua_remove(L, -2);
    return 1;
}

static void report_error(lua_State *L, const char *path) {
    const char *msg = lua_tostring(L, -1);
    fflush(stdout);
    if (msg && (strcmp(msg, "interrupted") == 0 || strstr(msg, ": interrupted") != NULL))
        printf(attn_tr("✗ %s: interrupted (Ctrl-C)\n"), path);
    else
        printf("✗ %s: %s\n", path, msg ? msg : "(error object is not a string)");
    fflush(stdout);
    lua_pop(L, 1);
}

/* A new state with attn opened, no colour (the text is compared and written to files). */
static lua_State *new_state(const char *path) {
    lua_State *L = luaL_newstate();
    if (L == NULL) {
        printf(attn_tr("✗ %s: cannot create a Lua state: not enough memory\n"), path);
        return NULL;
    }
    lua_gc(L, LUA_GCSTOP);
    if (attn_open(L) != LUA_OK) {
        report_error(L, path);
        lua_close(L);
        return NULL;
    }
    lua_gc(L, LUA_GCRESTART);
    attn_term_setup(L, 0);
    return L;
}

static long int_field(lua_State *L, int t, const char *name) {
    lua_getfield(L, t, name);
    long v = (long)lua_tointeger(L, -1);
    lua_pop(L, 1);
    return v;
}

/* --verify [--update] FILE...: each file in a state of its own; "N passed, N failed" last (with ", N
 * skipped" when a file stopped at lesson.skip). */
int attn_verify(char **files, int nfiles, int update) {
    long passed = 0, failed = 0, skipped = 0;
    if (nfiles == 0) {
        fprintf(stderr, attn_tr("attn: --verify needs Markdown files (attn --verify notes.md)\n"));
        return 0;
    }
    for (int i = 0; i < nfiles; i++) {
        lua_State *L = new_state(files[i]);
        if (L == NULL) {
            failed++;
            continue;
        }
        if (!push_function(L, "attn.verify.run", "file")) {
            report_error(L, files[i]);
            failed++;
        } else {
            lua_pushstring(L, files[i]);
            lua_createtable(L, 0, 1);
            lua_pushboolean(L, update);
            lua_setfield(L, -2, "update");
            if (attn_pcall(L, 2, 1, 0) != LUA_OK) {
                report_error(L, files[i]);
                failed++;
            } else {
                passed += int_field(L, -1, "passed");
                failed += int_field(L, -1, "failed");
                skipped += int_field(L, -1, "skipped");
            }
        }
        lua_close(L);
        fflush(stdout);
    }
    if (skipped > 0) /* as --check: "N skipped" only when a file called lesson.skip */
        printf("%ld passed, %ld failed, %ld skipped\n", passed, failed, skipped);
    else
        printf("%ld passed, %ld failed\n", passed, failed);
    fflush(stdout);
    return failed == 0;
}

/* --markdown LESSON...: each lesson as a Markdown handout on stdout, one after the other. */
int attn_markdown(char **files, int nfiles) {
    int ok = 1;
    if (nfiles == 0) {
        fprintf(stderr, attn_tr("attn: --markdown needs a lesson file (attn --markdown lessons/02_trainable_weights.lua)\n"));
        return 0;
    }
    for (int i = 0; i < nfiles; i++) {
        lua_State *L = new_state(files[i]);
        if (L == NULL) {
            ok = 0;
            continue;
        }
        /* markdown.write(path) -> true, or nil and what went wrong */
        int done = push_function(L, "attn.lesson.markdown", "write");
        if (done) {
            lua_pushstring(L, files[i]);
            done = attn_pcall(L, 1, 2, 0) == LUA_OK;
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
