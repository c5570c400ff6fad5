/* index.c (bindings) — indexing a tensor from Lua, with 1-based indices: t[i], t[{i, {a, b}, {}}],
 * t.shape and the other properties, t[i] = v, #t and pairs(t). The Tensor's metatable (bind/tensor.c)
 * holds these functions. */
#include <string.h>

#include "bind.h"
#include "learn.h"
#include "overlap.h"

/* ---- indexing: t[i], t[{i, {a, b}, {}}], t[i] = v ------------------------------------------ */

/* An int64 tensor of 1-based indices (negative ones from the end) as the core's: i - 1, or i when < 0. */
static attn_tensor *list_indices(lua_State *L, attn_tensor *t, int k)
{
    attn_error err;
    if (t->dtype != ATTN_INT64)
        lt_error(L, "index: entry %d is a %s tensor; a tensor in an index must hold int64 indices (a list "
                    "such as torch.tensor{1, 2, 3})", k, attn_dtype_name(t->dtype));
    attn_tensor **slot = lt_newslot(L);
    lt_finish(L, slot, attn_contiguous(t, &err), &err);
    attn_tensor *c = attn_clone(*slot, &err);
    if (!c)
        lt_raise(L, &err);
    attn_free(*slot);
    *slot = c;
    for (int64_t i = 0; i < attn_numel(c); i++) {
        int64_t *x = c->storage->i64 + i;
        if (*x == 0)
            lt_error(L, "index: entry %d holds the index 0; indices are 1-based (-1 is the last)", k);
        *x = *x > 0 ? *x - 1 : *x;
    }
    return c;
}

/* The int64 tensors of an index table ({1, torch.tensor{1, 2, 3}, targets[1]}): PyTorch's advanced
 * indexing, a copy taken from the view the rest of the table made (advindex.c). */
static attn_tensor *index_lists(lua_State *L, int slot_idx, int n, const int *dims, attn_tensor *const *lists)
{
    attn_error err;
    attn_tensor **slot = lua_touserdata(L, slot_idx);
    attn_tensor *r = attn_index_lists("index", *slot, n, dims, lists, &err);
    if (!r)
        lt_raise(L, &err);
    attn_free(*slot);
    *slot = r;
    return r;
}

/* Applies one index table {i, {a, b}, {}, ":"} to t, returning a new view; with int64 tensors among its
 * entries (lists of indices) a copy, which assignment (lists = 0) refuses. */
static attn_tensor *index_view(lua_State *L, const attn_tensor *t, int key, int lists_ok)
{
    int nlists = 0, list_dims[ATTN_MAX_DIMS];
    attn_tensor *lists[ATTN_MAX_DIMS];
    attn_error err;
    int n = (int)lua_rawlen(L, key);
    if (n > t->ndim)
        lt_error(L, "index: %d indices given for a %d-D tensor", n, t->ndim);
    attn_tensor **slot = lt_newslot(L); /* keeps the view owned while we work */
    int slot_idx = lua_gettop(L);
    *slot = attn_alias(t, &err);
    if (!*slot)
        lt_raise(L, &err);
    lua_pushnil(L);
    int anchors = lua_gettop(L);
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
        attn_tensor *list = type == LUA_TUSERDATA ? lt_test(L, -1) : NULL;
        if (list) {
            if (!lists_ok)
                lt_error(L, "assign: an index with a tensor of indices gives a copy, so assigning through it "
                            "would change nothing; assign to each row, or use masked_fill_ with a mask");
            if (nlists == 0) {
                lua_newtable(L); /* keeps the converted index tensors alive: below the entry */
                lua_replace(L, anchors);
            }
            list_dims[nlists] = d++;
            lists[nlists++] = list_indices(L, list, k);
            lua_rawseti(L, anchors, nlists); /* pops the clone's userdata */
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
            lt_error(L, "index: entry %d must be an index, a range {first, last}, {}, \":\" (all) or a tensor of "
                       "indices, got %s", k,
                       lt_typename(L, -1));
        }
        lua_pop(L, 1);
        if (!next)
            lt_raise(L, &err);
        attn_free(*slot);
        *slot = next;
    }
    if (nlists)
        index_lists(L, slot_idx, nlists, list_dims, lists);
    lua_settop(L, slot_idx); /* leave the view's (or the copy's) userdata on the stack */
    return *slot;
}

int lt_tensor_index(lua_State *L)
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
        /* one past the end is an error too, as PyTorch's IndexError: ipairs(t) walks the rows through
         * attn's own ipairs (src/lua/ipairs.lua), which stops at #t */
        int64_t j = lt_check_index(L, 2, t, 0, "index");
        if (t->ndim == 1)
            return lt_push_element(L, t, t->offset + j * t->stride[0]);
        attn_tensor **slot = lt_newslot(L);
        attn_error err;
        return lt_finish(L, slot, attn_select(t, 0, j, &err), &err);
    }
    if (type == LUA_TTABLE && !lua_getmetatable(L, 2)) {
        attn_tensor *v = index_view(L, t, 2, 1);
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
        if (attn_check_inplace("assign", dst, src, &err) || attn_copy_(dst, src, &err))
            lt_raise(L, &err);
    } else if (lua_type(L, value) == LUA_TNUMBER || lua_type(L, value) == LUA_TBOOLEAN) {
        if (attn_fill_number_("assign", dst, lt_check_value(L, value, "assign", "value"), &err))
            lt_raise(L, &err);
    } else {
        lt_error(L, "assign: value must be a number, a boolean or a tensor, got %s", lt_typename(L, value));
    }
}

int lt_tensor_newindex(lua_State *L)
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
        assign(L, index_view(L, t, 2, 0), 3);
        return 0;
    }
    if (type == LUA_TSTRING)
        return lt_error(L, "assign: cannot set field '%s' on a tensor", lua_tostring(L, 2));
    return lt_error(L, "assign: cannot index a tensor with %s", lt_typename(L, 2));
}

int lt_tensor_len(lua_State *L)
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

int lt_tensor_pairs(lua_State *L)
{
    lt_check(L, 1, "pairs", "tensor");
    lua_pushcfunction(L, tensor_pairs_next);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}
