/* init.c — opens attn inside a Lua state: the standard libraries, the global `torch` table with
 * the tensor functions, the Tensor metatable, and the embedded Lua library (every src/lua file, available
 * as require("attn.<name>")), then runs attn.init which sets up nn, help and friends. */
#include <lauxlib.h>
#include <lualib.h>
#include <math.h>
#include <stdio.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "attn_lua.h"
#include "bind.h"
#include "lua_embed.h"

/* Tensor storage is allocated with the state's own allocator, so a custom allocator (or a memory
 * limit) given to the state applies to tensors as well. */
static void use_lua_allocator(lua_State *L)
{
    void *ud;
    lua_Alloc f = lua_getallocf(L, &ud);
    attn_set_allocator((attn_alloc_fn)f, ud);
}

/* A forward pass frees tensors of tens of MB and allocates the same sizes again, every call. By default
 * glibc gives freed memory back to the kernel once twice its mmap threshold is free at the top of the
 * heap, and the next tensor takes a page fault per 4 KB: nn.Linear(768, 768) on [8, 1024, 768] took
 * 107 ms instead of 70 ms, the ch. 3 multi-head forward ~540 ms instead of ~440 ms. Keep up to 256 MB
 * of freed memory, and serve blocks up to 32 MB (the largest glibc allows here, which its adaptive
 * threshold also reaches) from the heap. */
static void keep_freed_memory(void)
{
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, 256 * 1024 * 1024);
#endif
}

static int load_embedded(lua_State *L)
{
    const attn_lua_module *m = lua_touserdata(L, lua_upvalueindex(1));
    char chunkname[96];
    snprintf(chunkname, sizeof chunkname, "=[attn]/%s.lua", m->name);
    if (luaL_loadbuffer(L, m->chunk, m->length, chunkname) != LUA_OK)
        return lua_error(L);
    lua_pushvalue(L, 1); /* the module name, as require passes it */
    lua_call(L, 1, 1);
    return 1;
}

static void preload_embedded(lua_State *L)
{
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "preload");
    for (const attn_lua_module *m = attn_lua_modules; m->name; m++) {
        lua_pushlightuserdata(L, (void *)m);
        lua_pushcclosure(L, load_embedded, 1);
        lua_pushfstring(L, "attn.%s", m->name);
        lua_insert(L, -2);
        lua_settable(L, -3);
    }
    lua_pop(L, 2);
}

static int open_all(lua_State *L)
{
    luaL_openlibs(L);
    use_lua_allocator(L);
    keep_freed_memory();

    lua_newtable(L);
    int torch = lua_gettop(L);
    lua_newtable(L);
    int methods = lua_gettop(L);
    lt_open_tensor(L, torch, methods);
    lt_open_create(L, torch);
    lt_open_views(L, torch, methods);
    lt_open_ops(L, torch, methods);
    lt_open_random(L, torch, methods);
    lt_open_attention(L);
    lt_open_fused(L);
    lt_open_layers(L, torch, methods);
    lua_pushnumber(L, HUGE_VAL);
    lua_setfield(L, torch, "inf");
    lua_pushnumber(L, NAN);
    lua_setfield(L, torch, "nan");
    lua_pushliteral(L, ATTN_VERSION);
    lua_setfield(L, torch, "__version__");
    /* the table of tensor methods, for Lua code that adds methods (src/lua) */
    lua_pushvalue(L, methods);
    lua_setfield(L, LUA_REGISTRYINDEX, "attn.methods");
    lua_pushvalue(L, torch);
    lua_setglobal(L, "torch");
    lua_pushvalue(L, torch);
    lua_setfield(L, LUA_REGISTRYINDEX, "attn.torch");

    preload_embedded(L);
    lua_getglobal(L, "require");
    lua_pushliteral(L, "attn.init");
    lua_call(L, 1, 0);
    return 0;
}

int attn_open(lua_State *L)
{
    lua_pushcfunction(L, open_all);
    return lua_pcall(L, 0, 0, 0);
}
