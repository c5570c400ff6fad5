/* tensor.c (bindings) — the Tensor userdata: its metatable, printing, indexing with 1-based indices
 * (t[i], t[{i, {a, b}, {}}], t[i] = v), properties (t.shape, t.T, t.ndim, t.dtype), and torch.Size.
 * Creation is in bind/create.c, views in bind/views.c, arithmetic and the attention stages in
 * bind/ops.c, random numbers in bind/random.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attn_lua.h"
#include "bind.h"
#include "format.h"
#include "size.h"

/* ---- the userdata -------------------------------------------------------------------------- */

attn_tensor **lt_newslot(lua_State *L)
{
    attn_tensor **slot = lua_newuserdatauv(L, sizeof *slot, 0);
    *slot = NULL;
    luaL_setmetatable(L, ATTN_TENSOR_MT);
    return slot;
}

void lt_account(lua_State *L)
{
    /* Tensor memory is allocated outside Lua's own objects, so tell the collector about it: it then
     * runs as if that many bytes had been allocated by Lua, and a loop making big tensors stays flat. */
    int64_t bytes = attn_take_new_bytes();
    if (bytes >= 1024)
        lua_gc(L, LUA_GCSTEP, (int)(bytes / 1024 > 1000000000 ? 1000000000 : bytes / 1024));
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

static int tensor_tostring(lua_State *L)
{
    attn_tensor *t = lt_check(L, 1, "tostring", "argument");
    attn_error err;
    char *s = attn_format(t, &err);
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

/* ---- indexing: t[i], t[{i, {a, b}, {}}], t[i] = v ------------------------------------------ */

/* Applies one index table {i, {a, b}, {}, ":"} to t, returning a new view. */
static attn_tensor *index_view(lua_State *L, const attn_tensor *t, int key)
{
    attn_error err;
    int n = (int)lua_rawlen(L, key);
    if (n > t->ndim)
        lt_error(L, "index: %d indices given for a %d-D tensor", n, t->ndim);
    attn_tensor **slot = lt_newslot(L); /* keeps the view owned while we work */
    int slot_idx = lua_gettop(L);
    *slot = attn_alias(t, &err);
    if (!*slot)
        lt_raise(L, &err);
    int d = 0;
    for (int k = 1; k <= n; k++) {
        attn_tensor *v = *slot, *next = NULL;
        int type = lua_rawgeti(L, key, k);
        int all = (type == LUA_TTABLE && lua_rawlen(L, -1) == 0) ||
                  (type == LUA_TSTRING && strcmp(lua_tostring(L, -1), ":") == 0);
        if (all) {
            d++;
            lua_pop(L, 1);
            continue;
        }
        if (type == LUA_TNUMBER) {
            next = attn_select(v, d, lt_check_index(L, -1, v, d, "index"), &err); /* the dim goes away */
        } else if (type == LUA_TTABLE && lua_rawlen(L, -1) <= 2) {
            int r = lua_gettop(L);
            lua_rawgeti(L, r, 1);
            int64_t a = lt_check_index(L, -1, v, d, "index");
            lua_rawgeti(L, r, lua_rawlen(L, r) == 2 ? 2 : 1);
            int64_t b = lt_check_index(L, -1, v, d, "index");
            lua_pop(L, 2);
            if (b < a)
                lt_error(L, "index: range {%lld, %lld} is empty (ranges are {first, last}, both included)",
                           (long long)a + 1, (long long)b + 1);
            next = attn_narrow(v, d, a, b - a + 1, &err);
            d++;
        } else {
            lt_error(L, "index: entry %d must be an index, a range {first, last}, {} or \":\" (all), got %s", k,
                       lt_typename(L, -1));
        }
        lua_pop(L, 1);
        if (!next)
            lt_raise(L, &err);
        attn_free(*slot);
        *slot = next;
    }
    lua_settop(L, slot_idx); /* leave the view's userdata on the stack */
    return *slot;
}

static int tensor_index(lua_State *L)
{
    attn_tensor *t = lt_check(L, 1, "index", "tensor");
    int type = lua_type(L, 2);
    if (type == LUA_TSTRING) {
        const char *k = lua_tostring(L, 2);
        if (strcmp(k, "shape") == 0) {
            lt_push_size(L, t->ndim, t->shape);
            return 1;
        }
        if (strcmp(k, "ndim") == 0) {
            lua_pushinteger(L, t->ndim);
            return 1;
        }
        if (strcmp(k, "T") == 0 || strcmp(k, "mT") == 0) {
            if (k[0] == 'm' && t->ndim < 2)
                return lt_error(L, "mT: expects a tensor with at least 2 dims");
            attn_tensor **slot = lt_newslot(L);
            attn_error err;
            attn_tensor *v = k[0] == 'T' ? lt_reversed(t, &err) : attn_transpose(t, t->ndim - 2, t->ndim - 1, &err);
            return lt_finish(L, slot, v, &err);
        }
        if (strcmp(k, "dtype") == 0) {
            lua_getfield(L, lua_upvalueindex(2), attn_dtype_name(t->dtype) + 6); /* torch.int64 -> "int64" */
            return 1;
        }
        lua_pushvalue(L, 2);
        if (lua_rawget(L, lua_upvalueindex(1)) == LUA_TNIL)
            return lt_error(L, "tensor has no method or field '%s' (see help(\"Tensor\"))", k);
        return 1;
    }
    if (type == LUA_TNUMBER) {
        if (t->ndim == 0)
            return lt_error(L, "index: a 0-d tensor cannot be indexed; use t:item()");
        int64_t i = lt_check_integer(L, 2, "index", "index");
        if (i == t->shape[0] + 1)
            return 0; /* one past the end is nil, so ipairs(t) stops there */
        int64_t j = lt_check_index(L, 2, t, 0, "index");
        if (t->ndim == 1)
            return lt_push_element(L, t, t->offset + j * t->stride[0]);
        attn_tensor **slot = lt_newslot(L);
        attn_error err;
        return lt_finish(L, slot, attn_select(t, 0, j, &err), &err);
    }
    if (type == LUA_TTABLE && !lua_getmetatable(L, 2)) {
        attn_tensor *v = index_view(L, t, 2);
        if (v->ndim == 0)
            return lt_push_element(L, v, v->offset);
        return 1;
    }
    return lt_error(L, "index: cannot index a tensor with %s (use an integer, a table such as {1, {2, 3}}, "
                         "or a method name)", lt_typename(L, 2));
}

static void assign(lua_State *L, attn_tensor *dst, int value)
{
    attn_error err;
    attn_tensor *src = lt_test(L, value);
    if (src) {
        if (attn_copy_(dst, src, &err))
            lt_raise(L, &err);
    } else if (lua_type(L, value) == LUA_TNUMBER || lua_type(L, value) == LUA_TBOOLEAN) {
        if (attn_fill_number_("assign", dst, lt_check_value(L, value, "assign", "value"), &err))
            lt_raise(L, &err);
    } else {
        lt_error(L, "assign: value must be a number, a boolean or a tensor, got %s", lt_typename(L, value));
    }
}

static int tensor_newindex(lua_State *L)
{
    attn_tensor *t = lt_check(L, 1, "assign", "tensor");
    int type = lua_type(L, 2);
    attn_error err;
    if (type == LUA_TNUMBER) {
        if (t->ndim == 0)
            return lt_error(L, "assign: a 0-d tensor cannot be indexed; use t:fill_(v)");
        int64_t j = lt_check_index(L, 2, t, 0, "assign");
        attn_tensor **slot = lt_newslot(L);
        lt_finish(L, slot, attn_select(t, 0, j, &err), &err);
        assign(L, *slot, 3);
        return 0;
    }
    if (type == LUA_TTABLE && !lua_getmetatable(L, 2)) {
        assign(L, index_view(L, t, 2), 3);
        return 0;
    }
    if (type == LUA_TSTRING)
        return lt_error(L, "assign: cannot set field '%s' on a tensor", lua_tostring(L, 2));
    return lt_error(L, "assign: cannot index a tensor with %s", lt_typename(L, 2));
}

static int tensor_len(lua_State *L)
{
    attn_tensor *t = lt_check(L, 1, "len", "tensor");
    if (t->ndim == 0)
        return lt_error(L, "len: a 0-d tensor has no length");
    lua_pushinteger(L, (lua_Integer)t->shape[0]);
    return 1;
}

/* pairs(t) walks the rows in order: for i, row in pairs(inputs) do ... end */
static int tensor_pairs_next(lua_State *L)
{
    attn_tensor *t = lt_check(L, 1, "pairs", "tensor");
    lua_Integer i = lua_isnil(L, 2) ? 1 : lua_tointeger(L, 2) + 1;
    if (t->ndim == 0 || i > t->shape[0])
        return 0;
    lua_pushinteger(L, i);
    lua_pushinteger(L, i);
    lua_gettable(L, 1);
    return 2;
}

static int tensor_pairs(lua_State *L)
{
    lt_check(L, 1, "pairs", "tensor");
    lua_pushcfunction(L, tensor_pairs_next);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
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

    luaL_newmetatable(L, ATTN_TENSOR_MT);
    int mt = lua_gettop(L);
    static const luaL_Reg meta[] = {
        {"__gc", tensor_gc}, {"__tostring", tensor_tostring}, {"__concat", tensor_concat},
        {"__len", tensor_len}, {"__newindex", tensor_newindex}, {"__pairs", tensor_pairs},
        {"__lt", tensor_compare}, {"__le", tensor_compare}, {NULL, NULL}};
    luaL_setfuncs(L, meta, 0);
    lua_pushliteral(L, "Tensor");
    lua_setfield(L, mt, "__name");
    lua_pushvalue(L, methods);
    lua_setfield(L, mt, "__methods"); /* for tab completion of t:<TAB> */
    lua_pushvalue(L, methods);
    lua_pushvalue(L, torch);
    lua_pushcclosure(L, tensor_index, 2);
    lua_setfield(L, mt, "__index");
    lua_setfield(L, parts, "metatable");
    lua_setfield(L, parts, "methods");
    lua_pop(L, 1); /* torch */
    return 1;
}
