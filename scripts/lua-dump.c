/* lua-dump.c — build helper of scripts/embed-lua.sh: compiles one Lua file to bytecode and writes it to
 * stdout, so ./attn does not parse the ~180 KB of Lua it requires at every start (the parse was 5.5 ms of
 * a 12.5 ms `attn -e ''`). It links the same liblua as attn, so the bytecode format always matches; debug
 * information is kept, so errors and tracebacks name the same files and lines as the source would.
 *   build/gen/lua-dump src/lua/nn.lua '=[attn]/nn.lua' > nn.luac */
#include <lauxlib.h>
#include <stdio.h>

static int write_chunk(lua_State *L, const void *p, size_t size, void *out)
{
    return fwrite(p, 1, size, out) != size;
}

static int dump(const char *path, const char *chunkname)
{
    lua_State *L = luaL_newstate();
    if (!L) {
        fprintf(stderr, "lua-dump: out of memory\n");
        return 1;
    }
    FILE *f = fopen(path, "rb");
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    int ok = f != NULL;
    if (ok) {
        size_t n;
        while ((n = fread(luaL_prepbuffer(&b), 1, LUAL_BUFFERSIZE, f)) > 0)
            luaL_addsize(&b, n);
        ok = !ferror(f);
        fclose(f);
    }
    luaL_pushresult(&b);
    if (!ok) {
        fprintf(stderr, "lua-dump: cannot read %s\n", path);
    } else {
        size_t len;
        const char *src = lua_tolstring(L, -1, &len);
        if (luaL_loadbuffer(L, src, len, chunkname) != LUA_OK) {
            fprintf(stderr, "lua-dump: %s\n", lua_tostring(L, -1));
            ok = 0;
        } else if (lua_dump(L, write_chunk, stdout, 0) != 0 || fflush(stdout) != 0) {
            fprintf(stderr, "lua-dump: cannot write the bytecode of %s\n", path);
            ok = 0;
        }
    }
    lua_close(L);
    return !ok;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: lua-dump file.lua chunkname > file.luac\n");
        return 2;
    }
    return dump(argv[1], argv[2]);
}
