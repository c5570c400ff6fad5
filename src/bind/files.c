/* files.c (bindings) — the part `files` of attn.bind: core/safe_write.c's one way of writing a file,
 * for the Lua library (html/page.lua for --html and tr:save, attention.heatmap's svg, verify/run.lua
 * for --update), and what --verify's restricted notes need to know about paths (verify/sandbox.lua):
 *   files.write(path, text [, who]) -> #text, or nil and a message naming who ("tr:save", "--html")
 *   files.identity(path)            -> "device:inode" of the file path names (links followed), or nil
 *   files.realpath(path)            -> the absolute path without symlinks, "." or "..", or nil and why
 *   files.forbid_writes(why)        -> every write of this process refused from now on (why is said);
 *                                      files.forbid_writes(nil) allows them again
 *   files.open(path)                -> a file handle to read, as io.open(path, "rb") gives, or nil,
 *                                      "PATH: why" and, when something is there, why it cannot be read:
 *                                      "kind" (a FIFO, a device), "outside" (a note's confinement) or
 *                                      "unreadable" (permissions, ...): core/safe_read.c's one way of opening a file to read
 *                                      (FIFOs and devices refused before they block; a note's reads
 *                                      confined to its folder)
 *   files.lesson_trusted(path)      -> whether the lesson modes run the lesson at path with the program's
 *                                      globals (attn_set_lesson_trust: --trusted, or one of attn's own)
 *   files.confine_reads(folders, why) -> every read of this process through files.open (and
 *                                      safetensors.load_file) inside one of the folders from now on */
#include <errno.h>
#include <lauxlib.h>
#include <stdio.h>
#include <unistd.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bind.h"
#include "safe_read.h"
#include "safe_write.h"

static int l_write(lua_State *L)
{
    size_t n;
    const char *path = luaL_checkstring(L, 1);
    const char *text = luaL_checklstring(L, 2, &n);
    const char *who = luaL_optstring(L, 3, "write");
    attn_error err;
    if (strlen(path) != lua_rawlen(L, 1)) {
        lua_pushnil(L);
        lua_pushfstring(L, "%s: a file name cannot hold a NUL byte", who);
        return 2;
    }
    if (attn_write_file(who, path, text, n, &err) != 0) {
        lua_pushnil(L);
        lua_pushstring(L, err.msg);
        return 2;
    }
    lua_pushinteger(L, (lua_Integer)n);
    return 1;
}

static int l_identity(lua_State *L)
{
    struct stat st;
    if (stat(luaL_checkstring(L, 1), &st) != 0)
        return 0;
    lua_pushfstring(L, "%I:%I", (lua_Integer)st.st_dev, (lua_Integer)st.st_ino);
    return 1;
}

static int l_realpath(lua_State *L)
{
    char *r = realpath(luaL_checkstring(L, 1), NULL);
    if (!r) {
        lua_pushnil(L);
        lua_pushstring(L, strerror(errno));
        return 2;
    }
    lua_pushstring(L, r);
    free(r);
    return 1;
}

static int l_forbid_writes(lua_State *L)
{
    static char why[256]; /* the core keeps the pointer: a copy that outlives the Lua string */
    if (lua_isnoneornil(L, 1)) { /* writes allowed again (a lesson given by path has ended) */
        attn_safe_forbid(NULL);
        return 0;
    }
    const char *w = luaL_checkstring(L, 1);
    strncpy(why, w, sizeof why - 1);
    attn_safe_forbid(why);
    return 0;
}

static int lesson_policy = 0; /* 0: every lesson trusted; 1: only --trusted or attn's own */
static int lessons_all_trusted = 0;
static char own_lessons[4096];

void attn_set_lesson_trust(int trusted, const char *own_dir)
{
    lesson_policy = 1;
    lessons_all_trusted = trusted;
    snprintf(own_lessons, sizeof own_lessons, "%s", own_dir ? own_dir : "");
}

static int l_lesson_trusted(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    int trusted = !lesson_policy || lessons_all_trusted;
    if (!trusted && own_lessons[0]) {
        char *real = realpath(path, NULL);
        size_t k = strlen(own_lessons);
        trusted = real && strncmp(real, own_lessons, k) == 0 && real[k] == '/' && strchr(real + k + 1, '/') == NULL;
        free(real);
    }
    lua_pushboolean(L, trusted);
    return 1;
}

static int close_stream(lua_State *L)
{
    luaL_Stream *p = (luaL_Stream *)luaL_checkudata(L, 1, LUA_FILEHANDLE);
    int ok = fclose(p->f) == 0;
    return luaL_fileresult(L, ok, NULL);
}

static int l_open(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    attn_error err;
    if (strlen(path) != lua_rawlen(L, 1)) {
        lua_pushnil(L);
        lua_pushliteral(L, "a file name cannot hold a NUL byte");
        return 2;
    }
    /* the handle first, as liolib makes it: a memory error leaves no descriptor open */
    luaL_Stream *p = (luaL_Stream *)lua_newuserdatauv(L, sizeof(luaL_Stream), 0);
    p->closef = NULL;
    luaL_setmetatable(L, LUA_FILEHANDLE);
    int fd = attn_read_open(NULL, path, &err);
    int e = errno;
    const char *why = e == ENOENT ? NULL : e == EINVAL ? "kind" : e == EPERM ? "outside" : "unreadable";
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (!f) {
        if (fd >= 0) {
            snprintf(err.msg, sizeof err.msg, "%s: %s", path, strerror(errno));
            close(fd);
        }
        lua_pushnil(L);
        lua_pushstring(L, err.msg);
        if (!why) return 2; /* no file at all, as io.open says it */
        lua_pushstring(L, why); /* something is there, and cannot be read: its reader says so */
        return 3;
    }
    p->f = f;
    p->closef = close_stream;
    return 1;
}

static int l_confine_reads(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    const char *why = luaL_optstring(L, 2, "");
    int n = (int)lua_rawlen(L, 1);
    const char *folders[64];
    if (n > 64) n = 64;
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, 1, i + 1);
        folders[i] = luaL_checkstring(L, -1); /* kept alive by the table at 1 */
        lua_pop(L, 1);
    }
    if (attn_read_confine(folders, n, why) != 0)
        return luaL_error(L, "files.confine_reads: out of memory");
    return 0;
}

int luaopen_attn_files(lua_State *L)
{
    static const luaL_Reg fns[] = {{"write", l_write},
                                   {"identity", l_identity},
                                   {"realpath", l_realpath},
                                   {"forbid_writes", l_forbid_writes},
                                   {"open", l_open},
                                   {"confine_reads", l_confine_reads},
                                   {"lesson_trusted", l_lesson_trusted},
                                   {NULL, NULL}};
    lua_newtable(L);
    lt_newpart(L, "files", fns, NULL);
    return 1;
}
