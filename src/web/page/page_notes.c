/* page_notes.c — --verify on the page (what src/cli/notes.c does with a child process per file; a page
 * has no processes). The note runs in a fresh Lua state of its own inside the worker, under the native
 * sandbox's rules: verify/sandbox.lua's restricted globals, no file written (attn_safe_forbid), a memory
 * budget (attn_set_memory_budget) and a time budget (ATTN_VERIFY_SECONDS, default 300 s: the hook of
 * page_interrupt.c stops the note, as the child's alarm does). The worker is the boundary a process is
 * in a terminal: a note that crashes the wasm module ends the worker, never the page, and the page says so.
 * --markdown is not part of the page. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "attn_lua.h"
#include "cli.h"
#include "memlimit.h"
#include "page.h"
#include "safe_write.h"
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
    lua_pop(L, 1);
}

static long int_field(lua_State *L, int t, const char *name) {
    lua_getfield(L, t, name);
    long v = (long)lua_tointeger(L, -1);
    lua_pop(L, 1);
    return v;
}

static double env_number(const char *name, double fallback) {
    const char *v = getenv(name);
    char *end;
    double d = v ? strtod(v, &end) : 0;
    return v && *v && *end == '\0' && d > 0 ? d : fallback;
}

static const char *notes_budget_name(void) {
    return attn_tr("the memory budget of a notes file (--trusted lifts it)");
}

/* over_time() -> true once the budget is spent (run.lua then runs no more blocks). */
static int l_over_time(lua_State *L) {
    lua_pushboolean(L, attn_page_deadline_passed());
    return 1;
}

/* One file in a state of its own; adds to the counts; with update, writes the new text to the file (the
 * page's own memory file system: worker.js gives it back to the page to download). */
static void verify_one(const char *path, int update, int trusted, long *passed, long *failed, long *skipped) {
    double seconds = env_number("ATTN_VERIFY_SECONDS", 300), megabytes = env_number("ATTN_VERIFY_MB", 1024);
    if (!trusted) {
        attn_safe_forbid("a note does not write files (--trusted lifts this)");
        attn_set_memory_budget(megabytes * 1e6, notes_budget_name);
    }
    lua_State *L = luaL_newstate();
    if (L == NULL) {
        printf(attn_tr("✗ %s: cannot create a Lua state: not enough memory\n"), path);
        (*failed)++;
    } else if (lua_gc(L, LUA_GCSTOP), attn_open(L) != LUA_OK) {
        report_error(L, path);
        (*failed)++;
    } else if (lua_gc(L, LUA_GCRESTART), attn_term_setup(L, 0), !push_function(L, "attn.verify.run", "file")) {
        report_error(L, path);
        (*failed)++;
    } else {
        if (!trusted && (!push_function(L, "attn.verify.sandbox", "seal") || attn_pcall(L, 0, 0, 0) != LUA_OK))
            lua_pop(L, 1);
        lua_pushstring(L, path);
        lua_createtable(L, 0, 5);
        lua_pushboolean(L, update);
        lua_setfield(L, -2, "update");
        lua_pushboolean(L, trusted);
        lua_setfield(L, -2, "trusted");
        lua_pushinteger(L, (lua_Integer)seconds);
        lua_setfield(L, -2, "seconds");
        lua_pushcfunction(L, l_over_time);
        lua_setfield(L, -2, "over_time");
        if (!trusted) {
            lua_pushinteger(L, (lua_Integer)megabytes);
            lua_setfield(L, -2, "megabytes");
        }
        attn_page_deadline(trusted ? 0 : seconds);
        int status = attn_pcall(L, 2, 1, 0);
        attn_page_deadline(0);
        if (status != LUA_OK) {
            report_error(L, path);
            (*failed)++;
        } else {
            *passed += int_field(L, -1, "passed");
            *failed += int_field(L, -1, "failed");
            *skipped += int_field(L, -1, "skipped");
            size_t new_len = 0;
            lua_getfield(L, -1, "new_text");
            const char *text = lua_tolstring(L, -1, &new_len);
            lua_getfield(L, -2, "update_line");
            const char *line = lua_tostring(L, -1);
            attn_safe_forbid(NULL); /* the page writes the new text, never the note */
            attn_error err;
            if (text && attn_write_file("--update", path, text, new_len, &err) != 0) {
                printf("✗ %s:0: %s\n", path, err.msg);
                (*failed)++;
            } else if (line) {
                printf("%s\n", line);
            }
        }
    }
    if (L) lua_close(L);
    attn_safe_forbid(NULL); /* the REPL's state writes files again */
    attn_set_memory_budget(0, NULL);
    fflush(stdout);
}

int attn_verify(lua_State *L, char **files, int nfiles, int update, int trusted) {
    long passed = 0, failed = 0, skipped = 0;
    (void)L;
    for (int i = 0; i < nfiles; i++) verify_one(files[i], update, trusted, &passed, &failed, &skipped);
    if (skipped > 0)
        printf("%ld passed, %ld failed, %ld skipped\n", passed, failed, skipped);
    else
        printf("%ld passed, %ld failed\n", passed, failed);
    fflush(stdout);
    return failed == 0;
}

int attn_markdown(char **files, int nfiles) {
    (void)files;
    (void)nfiles;
    fprintf(stderr, attn_tr("attn: %s is not part of this WebAssembly build\n"), "--markdown");
    return 0;
}
