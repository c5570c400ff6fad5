/* init.c — the one wiring point: opens attn inside a Lua state. The binding modules (luaopen_attn_*,
 * one per file of src/bind) are opened in the order written here and their parts merged into the
 * module attn.bind; the embedded Lua library (every src/lua file, available as
 * require("attn.<name>")) is registered; attn (src/lua/init.lua) returns the public tables,
 * which become the globals torch, nn, attention, help and lesson. This is the only file that sets
 * a global (attn_setglobal is how src/cli sets the ones the command line asks for: arg, -l name).
 * Two entries: attn_open for ./attn, luaopen_attn for attn.so (require "attn" from lua5.4); both
 * go through load_library. */
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
#include "parallel.h"

/* Tensor storage is allocated with the state's own allocator, so a custom allocator (or a memory
 * limit) given to the state applies to tensors as well. */
static int flush_kept_blocks(lua_State *L)
{
    (void)L;
    attn_storage_flush_cache();
    return 0;
}

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
    char chunkname[160];
    snprintf(chunkname, sizeof chunkname, "=[attn]/%s", m->path);
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
        lua_setfield(L, -2, m->name);
    }
    lua_pop(L, 2);
}

/* ---- the wiring point ------------------------------------------------------------------------- */

/* The binding modules (src/bind), in the order they are opened. tensor comes first: it makes the
 * Tensor type, whose table of methods and metatable the others add to. */
static const luaL_Reg BINDINGS[] = {
    {"deadline", luaopen_attn_deadline}, /* a part of its own (testing): any place in the list */
    {"tensor", luaopen_attn_tensor}, {"create", luaopen_attn_create}, {"views", luaopen_attn_views},
    {"ops", luaopen_attn_ops}, {"variance", luaopen_attn_variance}, {"random", luaopen_attn_random}, {"attention", luaopen_attn_attention},
    {"fused", luaopen_attn_fused}, {"layers", luaopen_attn_layers}, {"safetensors", luaopen_attn_safetensors},
    {"regex", luaopen_attn_regex}, {"unicode", luaopen_attn_unicode}, {"sampling", luaopen_attn_sampling}, {"learn", luaopen_attn_learn},
    {"markdown", luaopen_attn_markdown}, {"errors", luaopen_attn_errors}, {"i18n", luaopen_attn_i18n},
    {"files", luaopen_attn_files}, {"threads", luaopen_attn_threads}, {"autograd", luaopen_attn_autograd},
    {NULL, NULL}};

/* Adds the fields of the table on top of the stack to the table at index `into`, and pops it. */
static void merge(lua_State *L, int into)
{
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, into);
    }
    lua_pop(L, 1);
}

/* The module attn.bind: the C side of the library, one table per part name the bindings return
 * (torch, methods, metatable, attention, functional, errors). The first binding to return a part
 * gives that table itself (tensor's methods, which the Tensor metatable looks methods up in); the
 * later ones add their functions to it. */
static int open_bindings(lua_State *L)
{
    lua_newtable(L);
    int bind = lua_gettop(L);
    /* The core keeps some freed big blocks for reuse (core/storage.c); they go back to the state's
     * allocator when the state closes, by this table's finalizer: the table is made before any tensor,
     * so lua_close runs it after theirs (finalizers run in the reverse order of their objects). */
    lua_newtable(L);
    lua_pushcfunction(L, flush_kept_blocks);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, bind);
    for (const luaL_Reg *b = BINDINGS; b->func; b++) {
        lua_pushcfunction(L, b->func);
        lua_pushfstring(L, "attn.bind.%s", b->name);
        lua_call(L, 1, 1);
        lua_pushnil(L);
        while (lua_next(L, -2)) { /* part name, part */
            lua_pushvalue(L, -2);
            if (lua_rawget(L, bind) == LUA_TNIL) {
                lua_pop(L, 1);
                lua_pushvalue(L, -2);
                lua_pushvalue(L, -2);
                lua_rawset(L, bind);
                lua_pop(L, 1);
            } else {
                lua_insert(L, -2);
                merge(L, lua_gettop(L) - 1);
                lua_pop(L, 1);
            }
        }
        lua_pop(L, 1);
    }
    return 1;
}

/* The library, without the standard libraries or globals: attn.bind (the C side) and the embedded
 * Lua modules become requirable, and the table of the module attn (src/lua/init.lua: torch, nn,
 * attention, help, lesson) is left on the stack. The one start of both ./attn (attn_open) and attn.so. */
static int load_library(lua_State *L)
{
    use_lua_allocator(L);
    keep_freed_memory();
    luaL_requiref(L, "attn.bind", open_bindings, 0);
    lua_pop(L, 1);
    preload_embedded(L);
    lua_getglobal(L, "require");
    lua_pushliteral(L, "attn");
    lua_call(L, 1, 1);
    return 1;
}

void attn_setglobal(lua_State *L, const char *name)
{
    lua_setglobal(L, name);
}

/* ./attn: the standard libraries, the library, and its tables as globals (torch, nn, attention,
 * help, lesson). */
static int open_all(lua_State *L)
{
    luaL_openlibs(L);
    load_library(L);
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        attn_setglobal(L, lua_tostring(L, -2));
    }
    return 0;
}

int attn_open(lua_State *L)
{
    lt_guard_lua_memory(L); /* before the library takes the state's allocator for tensors */
    lua_pushcfunction(L, open_all);
    return lua_pcall(L, 0, 0, 0);
}

/* attn.so (make attn.so): require("attn") from lua5.4 returns the library's tables, the same ones
 * ./attn makes its globals, and sets no global. */
int luaopen_attn(lua_State *L)
{
    return load_library(L);
}
