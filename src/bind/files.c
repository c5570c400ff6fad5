/* files.c (bindings) — the part `files` of attn.bind: core/safe_write.c's one way of writing a file,
 * for the Lua library (html/page.lua for --html and tr:save, attention.heatmap's svg, verify/run.lua
 * for --update), and what --verify's restricted notes need to know about paths (verify/sandbox.lua):
 *   files.write(path, text [, who]) -> #text, or nil and a message naming who ("tr:save", "--html")
 *   files.identity(path)            -> "device:inode" of the file path names (links followed), or nil
 *   files.realpath(path)            -> the absolute path without symlinks, "." or "..", or nil and why
 *   files.forbid_writes(why)        -> every write of this process refused from now on (why is said) */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bind.h"
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
    const char *w = luaL_checkstring(L, 1);
    strncpy(why, w, sizeof why - 1);
    attn_safe_forbid(why);
    return 0;
}

int luaopen_attn_files(lua_State *L)
{
    static const luaL_Reg fns[] = {{"write", l_write},
                                   {"identity", l_identity},
                                   {"realpath", l_realpath},
                                   {"forbid_writes", l_forbid_writes},
                                   {NULL, NULL}};
    lua_newtable(L);
    lt_newpart(L, "files", fns, NULL);
    return 1;
}
