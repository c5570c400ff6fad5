/* ipynb.c — attn --ipynb OUT LESSON...: each lesson as a Jupyter notebook (src/lua/kernel/ipynb.lua
 * lays it out), run in a Lua state of its own as --markdown runs each lesson. One lesson: OUT is the
 * notebook's file; several: OUT is a folder, with NAME.ipynb for each lesson (as --html does). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <lauxlib.h>
#include <lualib.h>

#include "attn_lua.h"
#include "cli.h"
#include "safe_write.h"

/* Through the one way attn writes a file (core/safe_write.c: a temporary beside it, fsync, rename;
 * never over a folder, FIFO or device, never through a planted link). */
static int write_notebook(const char *path, const char *text, size_t len) {
    attn_error err;
    if (attn_write_file("--ipynb", path, text, len, &err) == 0) return 1;
    fprintf(stderr, "attn: %s\n", err.msg);
    return 0;
}

/* OUT/NAME.ipynb for lesson path a/b/NAME.lua */
static void notebook_path(char *out, size_t n, const char *dir, const char *lesson) {
    const char *base = strrchr(lesson, '/');
    base = base ? base + 1 : lesson;
    size_t len = strlen(base);
    if (len > 4 && strcmp(base + len - 4, ".lua") == 0) len -= 4;
    snprintf(out, n, "%s/%.*s.ipynb", dir, (int)len, base);
}

/* html.refusal(path, inputs, "--ipynb") in L (src/lua/lesson/html.lua): the rule --html follows, never
 * over a Lua file or one of the lessons given (a swapped pair, OUT == LESSON, a symlink to it). Returns 1
 * when path may be written; else prints why. */
static int may_write(lua_State *L, const char *path, char **files, int nfiles) {
    int top = lua_gettop(L), ok = 0;
    if (attn_push_function(L, "attn.lesson.html", "refusal", ATTN_CALL_SCRIPT)) {
        lua_pushstring(L, path);
        lua_createtable(L, nfiles, 0);
        for (int i = 0; i < nfiles; i++) {
            lua_pushstring(L, files[i]);
            lua_rawseti(L, -2, i + 1);
        }
        lua_pushliteral(L, "--ipynb");
        if (attn_pcall(L, 3, 1, ATTN_CALL_SCRIPT) == LUA_OK && lua_isnil(L, -1)) ok = 1;
    }
    if (!ok) fprintf(stderr, "attn: %s\n", lua_tostring(L, -1) ? lua_tostring(L, -1) : "--ipynb");
    lua_settop(L, top);
    return ok;
}

static int one(const char *lesson, const char *path, char **files, int nfiles) {
    lua_State *L = luaL_newstate();
    int ok = 0;
    if (L == NULL) return 0;
    lua_gc(L, LUA_GCSTOP);
    if (attn_open(L) != LUA_OK) {
        fprintf(stderr, "attn: --ipynb: %s\n", lua_tostring(L, -1));
        lua_close(L);
        return 0;
    }
    lua_gc(L, LUA_GCRESTART);
    attn_term_setup(L, 0);
    attn_json_preload(L);
    if (!may_write(L, path, files, nfiles)) {
        lua_close(L);
        return 0;
    }
    if (attn_push_function(L, "attn.kernel.ipynb", "notebook", ATTN_CALL_SCRIPT)) {
        lua_pushstring(L, lesson);
        if (attn_pcall(L, 1, 2, ATTN_CALL_SCRIPT) == LUA_OK) {
            size_t len;
            const char *text = lua_tolstring(L, -2, &len);
            long failed = (long)lua_tointeger(L, -1);
            ok = text != NULL && write_notebook(path, text, len);
            if (failed > 0) {
                fprintf(stderr, "attn: --ipynb: %s: %ld check(s) failed (the notebook shows them with ✗)\n", lesson,
                        failed);
                ok = 0;
            }
        } else {
            fprintf(stderr, "attn: --ipynb: %s: %s\n", lesson, lua_tostring(L, -1));
        }
    } else {
        fprintf(stderr, "attn: --ipynb: %s\n", lua_tostring(L, -1));
    }
    lua_close(L);
    return ok;
}

int attn_ipynb(const char *out, char **files, int nfiles) {
    int ok = 1;
    if (nfiles == 0) {
        fprintf(stderr, "attn: --ipynb needs lesson files (attn --ipynb out.ipynb lessons/01_simple_attention.lua)\n");
        return 0;
    }
    if (nfiles == 1) return one(files[0], out, files, nfiles);
    if (mkdir(out, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "attn: --ipynb: cannot make the folder %s: %s\n", out, strerror(errno));
        return 0;
    }
    for (int i = 0; i < nfiles; i++) {
        char path[4096];
        notebook_path(path, sizeof path, out, files[i]);
        ok = one(files[i], path, files, nfiles) && ok;
    }
    return ok;
}
