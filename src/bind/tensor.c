/* tensor.c (bindings) — the Tensor userdata: its metatable, printing, and torch.Size. Indexing with
 * 1-based indices (t[i], t[{i, {a, b}, {}}], t[i] = v) and the properties (t.shape, t.T, t.ndim,
 * t.dtype) are in bind/index.c. Creation is in bind/create.c, views in bind/views.c, arithmetic and the attention stages in
 * bind/ops.c, random numbers in bind/random.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attn_lua.h"
#include "bind.h"
#include "format.h"
#include "size.h"

/* ---- the userdata -------------------------------------------------------------------------- */

/* What one tensor costs outside Lua besides its data: the attn_tensor and attn_storage structs and
 * malloc's header on each. Lua counts only the userdata (a pointer), so without this a loop of small
 * tensors (torch.rand(4, 4): 64 bytes of data, ~250 bytes in all) grew by hundreds of MB before the
 * collector noticed. */
#define TENSOR_OVERHEAD ((int64_t)(sizeof(attn_tensor) + sizeof(attn_storage) + 32))

/* Bytes of tensors made since the last full collection. */
static int64_t gc_pending = 0;

/* The least tensor bytes between two collections: a loop of small tensors is collected every few
 * hundred thousand of them, at a cost of one pass over Lua's objects each time. */
#define COLLECT_FLOOR ((int64_t)16 << 20)

void lt_account(lua_State *L)
{
    /* Tensor memory is allocated outside Lua's own objects, so the collector does not see it; the
     * tensors are freed only when it runs. It runs here, fully, once the tensors made since its last
     * run reach a sixteenth of the tensor memory alive (at least COLLECT_FLOOR, and at least Lua's own
     * heap): so the garbage stays within about 6% of what is alive, a loop making tensors stays flat,
     * and a training step that makes gigabytes of tensors pays for a few dozen passes over Lua's objects.
     * (Telling the collector each tensor's bytes as debt instead paced it by Lua's own heap, a few MB:
     * a GPT-2 step ran a full mark and sweep for every few MB of tensors, some 1500 of them, a quarter
     * of the step's time.) */
    gc_pending += attn_take_new_bytes();
    int64_t threshold = attn_live_bytes() / 16;
    int64_t lua_heap = (int64_t)lua_gc(L, LUA_GCCOUNT) * 1024;
    if (threshold < COLLECT_FLOOR)
        threshold = COLLECT_FLOOR;
    if (threshold < lua_heap)
        threshold = lua_heap;
    if (gc_pending >= threshold) {
        gc_pending = 0;
        lua_gc(L, LUA_GCCOLLECT);
    }
}

attn_tensor **lt_newslot(lua_State *L)
{
    attn_tensor **slot = lua_newuserdatauv(L, sizeof *slot, 0);
    *slot = NULL;
    luaL_setmetatable(L, ATTN_TENSOR_MT);
    /* Every tensor that reaches Lua comes through here: count its structs, and whatever the core
     * allocated since the last tensor (the data of the one before, if its binding did not say). */
    gc_pending += TENSOR_OVERHEAD;
    lt_account(L);
    return slot;
}

int lt_finish(lua_State *L, attn_tensor **slot, attn_tensor *t, const attn_error *err)
{
    if (!t)
        return lt_raise(L, err);
    *slot = t;
    lt_account(L);
    return 1;
}

int lt_push_element(lua_State *L, const attn_tensor *t, int64_t at)
{
    if (t->dtype == ATTN_INT64)
        lua_pushinteger(L, (lua_Integer)t->storage->i64[at]);
    else if (t->dtype == ATTN_BOOL)
        lua_pushboolean(L, t->storage->data[at] != 0.0f);
    else
        lua_pushnumber(L, (lua_Number)t->storage->data[at]);
    return 1;
}

static int tensor_gc(lua_State *L)
{
    attn_tensor **slot = luaL_checkudata(L, 1, ATTN_TENSOR_MT);
    attn_free(*slot);
    *slot = NULL;
    return 0;
}

/* tostring(t), and tostring's second argument, the autograd suffix ("grad_fn=<MmBackward0>") that
 * src/lua/autograd/tensor_api.lua passes: the core places it as PyTorch's _add_suffixes does. */
static int tensor_tostring(lua_State *L)
{
    attn_tensor *t = lt_check(L, 1, "tostring", "argument");
    const char *suffix = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : NULL;
    attn_error err;
    char *s = attn_format_suffix(t, suffix, &err);
    if (!s)
        return lt_raise(L, &err);
    lua_pushstring(L, s);
    free(s);
    return 1;
}

static int tensor_concat(lua_State *L)
{
    /* "Sum: " .. t — either side may be the tensor */
    luaL_tolstring(L, 1, NULL);
    luaL_tolstring(L, 2, NULL);
    lua_concat(L, 2);
    return 1;
}

static int tensor_compare(lua_State *L)
{
    return lt_error(L, "compare: Lua's < and <= must give one true/false, so they do not work on tensors; "
                         "use a:lt(b), a:le(b), a:gt(b), a:ge(b) for element-wise comparisons");
}

/* ---- torch.Size ---------------------------------------------------------------------------- */

void lt_push_size(lua_State *L, int ndim, const int64_t *shape)
{
    lua_createtable(L, ndim, 0);
    for (int d = 0; d < ndim; d++) {
        lua_pushinteger(L, (lua_Integer)shape[d]);
        lua_rawseti(L, -2, d + 1);
    }
    luaL_setmetatable(L, ATTN_SIZE_MT);
}

static int size_read(lua_State *L, int idx, int64_t *shape)
{
    int n = (int)lua_rawlen(L, idx);
    for (int d = 0; d < n && d < ATTN_MAX_DIMS; d++) {
        lua_rawgeti(L, idx, d + 1);
        shape[d] = (int64_t)lua_tointeger(L, -1);
        lua_pop(L, 1);
    }
    return n < ATTN_MAX_DIMS ? n : ATTN_MAX_DIMS;
}

static int size_tostring(lua_State *L)
{
    int64_t shape[ATTN_MAX_DIMS];
    int n = size_read(L, 1, shape);
    attn_error err;
    char *s = attn_format_size(n, shape, &err);
    if (!s)
        return lt_raise(L, &err);
    lua_pushstring(L, s);
    free(s);
    return 1;
}

static int size_index(lua_State *L)
{
    /* Only reached for keys missing from the table: negative indices count from the end; 0 is
     * Python's first dim, and a silent nil there would surface much later as someone else's error. */
    if (lua_type(L, 2) == LUA_TNUMBER && lua_tonumber(L, 2) == 0)
        return lt_error(L, "Size: index 0 is out of range: attn counts from 1 (Python's shape[0] is shape[1] here)");
    if (lua_isinteger(L, 2) && lua_tointeger(L, 2) < 0) {
        lua_Integer i = lua_tointeger(L, 2) + (lua_Integer)lua_rawlen(L, 1) + 1;
        if (i >= 1)
            lua_rawgeti(L, 1, i);
        else
            lua_pushnil(L);
        return 1;
    }
    if (lua_type(L, 2) == LUA_TSTRING && strcmp(lua_tostring(L, 2), "numel") == 0) {
        lua_getfield(L, lua_upvalueindex(1), "numel");
        return 1;
    }
    lua_pushnil(L);
    return 1;
}

static int size_eq(lua_State *L)
{
    int n = (int)lua_rawlen(L, 1);
    int same = lua_type(L, 2) == LUA_TTABLE && n == (int)lua_rawlen(L, 2);
    for (int i = 1; same && i <= n; i++) {
        lua_rawgeti(L, 1, i);
        lua_rawgeti(L, 2, i);
        same = lua_rawequal(L, -1, -2);
        lua_pop(L, 2);
    }
    lua_pushboolean(L, same);
    return 1;
}

static int size_numel(lua_State *L)
{
    int64_t shape[ATTN_MAX_DIMS], n = 1;
    int nd = size_read(L, 1, shape);
    for (int d = 0; d < nd; d++)
        if (shape[d] == 0)
            nd = 0, n = 0; /* [0, 2^40, 2^40] has no elements, however the others multiply */
    for (int d = 0; d < nd; d++) {
        if (attn_size_mul(n, shape[d], &n)) {
            lua_settop(L, 1);
            return lt_error(L, "numel: the sizes of %s multiply to more than a 64-bit integer holds",
                            luaL_tolstring(L, 1, NULL));
        }
    }
    lua_pushinteger(L, (lua_Integer)n);
    return 1;
}

static int torch_size(lua_State *L)
{
    int64_t shape[ATTN_MAX_DIMS];
    int n = lua_isnoneornil(L, 1) ? 0 : lt_check_shape(L, 1, "Size", shape);
    for (int d = 0; d < n; d++)
        if (shape[d] < 0)
            return lt_error(L, "Size: size %d must be non-negative, got %lld", d + 1, (long long)shape[d]);
    lt_push_size(L, n, shape);
    return 1;
}

/* ---- registration -------------------------------------------------------------------------- */

void lt_newpart(lua_State *L, const char *name, const luaL_Reg *a, const luaL_Reg *b)
{
    lua_newtable(L);
    if (a)
        luaL_setfuncs(L, a, 0);
    if (b)
        luaL_setfuncs(L, b, 0);
    lua_setfield(L, -2, name);
}

static int torch_is_tensor(lua_State *L)
{
    lua_pushboolean(L, lt_test(L, 1) != NULL);
    return 1;
}

static void make_dtype(lua_State *L, int torch, const char *name)
{
    lua_createtable(L, 0, 1);
    lua_pushstring(L, name);
    lua_setfield(L, -2, "name");
    luaL_setmetatable(L, ATTN_DTYPE_MT);
    lua_setfield(L, torch, name);
}

static int dtype_tostring(lua_State *L)
{
    lua_getfield(L, 1, "name");
    lua_pushfstring(L, "torch.%s", lua_tostring(L, -1));
    return 1;
}

/* torch.float32, torch.bool, torch.int64 (and the aliases torch.float, torch.long) in the table at torch. */
static void make_dtypes(lua_State *L, int torch)
{
    luaL_newmetatable(L, ATTN_DTYPE_MT);
    lua_pushcfunction(L, dtype_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pop(L, 1);
    make_dtype(L, torch, "float32");
    make_dtype(L, torch, "bool");
    make_dtype(L, torch, "int64");
    lua_getfield(L, torch, "float32");
    lua_setfield(L, torch, "float");
    lua_getfield(L, torch, "int64");
    lua_setfield(L, torch, "long");
}

/* The metatable of torch.Size: a table of sizes that prints, compares and concatenates as PyTorch's. */
static void make_size_type(lua_State *L)
{
    luaL_newmetatable(L, ATTN_SIZE_MT);
    lua_pushcfunction(L, size_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushcfunction(L, size_eq);
    lua_setfield(L, -2, "__eq");
    lua_pushcfunction(L, tensor_concat); /* "shape: " .. x.shape */
    lua_setfield(L, -2, "__concat");
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, size_numel);
    lua_setfield(L, -2, "numel");
    lua_pushcclosure(L, size_index, 1);
    lua_setfield(L, -2, "__index");
    lua_pushliteral(L, "torch.Size");
    lua_setfield(L, -2, "__name");
    lua_pop(L, 1);
}

/* The Tensor type: its metatable and its table of methods, which the other binding files add to (their
 * parts `methods` and `metatable`, merged by src/bind/init.c); torch.Size, torch.is_tensor, the dtypes
 * and the constants. Returns {torch = ..., methods = ..., metatable = ...}. */
int luaopen_attn_tensor(lua_State *L)
{
    static const luaL_Reg fns[] = {{"Size", torch_size}, {"is_tensor", torch_is_tensor}, {NULL, NULL}};
    lua_newtable(L);
    int parts = lua_gettop(L);
    lt_newpart(L, "torch", fns, NULL);
    lua_getfield(L, parts, "torch");
    int torch = lua_gettop(L);
    lua_newtable(L);
    int methods = lua_gettop(L);
    lua_pushnumber(L, HUGE_VAL);
    lua_setfield(L, torch, "inf");
    lua_pushnumber(L, NAN);
    lua_setfield(L, torch, "nan");
    lua_pushliteral(L, ATTN_VERSION);
    lua_setfield(L, torch, "__version__");

    make_dtypes(L, torch);
    make_size_type(L);


    luaL_newmetatable(L, ATTN_TENSOR_MT);
    int mt = lua_gettop(L);
    static const luaL_Reg meta[] = {
        {"__gc", tensor_gc}, {"__tostring", tensor_tostring}, {"__concat", tensor_concat},
        {"__len", lt_tensor_len}, {"__newindex", lt_tensor_newindex}, {"__pairs", lt_tensor_pairs},
        {"__lt", tensor_compare}, {"__le", tensor_compare}, {NULL, NULL}};
    luaL_setfuncs(L, meta, 0);
    lua_pushliteral(L, "Tensor");
    lua_setfield(L, mt, "__name");
    lua_pushvalue(L, methods);
    lua_setfield(L, mt, "__methods"); /* for tab completion of t:<TAB> */
    lua_pushvalue(L, methods);
    lua_pushvalue(L, torch);
    lua_pushcclosure(L, lt_tensor_index, 2);
    lua_setfield(L, mt, "__index");
    lua_setfield(L, parts, "metatable");
    lua_setfield(L, parts, "methods");
    lua_pop(L, 1); /* torch */
    return 1;
}
