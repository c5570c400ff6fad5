/* views.c (bindings) — inspecting a tensor (size, dim, numel, item, tolist) and the views and copies
 * (view, reshape, transpose, permute, narrow, select, expand, clone, contiguous, bool, fill_, ...). */
#include <string.h>

#include "bind.h"
#include "overlap.h"

/* ---- inspection ---------------------------------------------------------------------------- */

static int t_size(lua_State *L)
{
    attn_tensor *t = lt_check(L, 1, "size", "input");
    if (lua_isnoneornil(L, 2)) {
        lt_push_size(L, t->ndim, t->shape);
        return 1;
    }
    if (t->ndim == 0)
        return lt_error(L, "size: a 0-d tensor has no dims");
    int d = lt_check_dim(L, 2, t->ndim, "size");
    lua_pushinteger(L, (lua_Integer)t->shape[d]);
    return 1;
}

static int t_dim(lua_State *L)
{
    lua_pushinteger(L, lt_check(L, 1, "dim", "input")->ndim);
    return 1;
}

static int t_numel(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)attn_numel(lt_check(L, 1, "numel", "input")));
    return 1;
}

static int t_item(lua_State *L)
{
    attn_tensor *t = lt_check(L, 1, "item", "input");
    int64_t n = attn_numel(t);
    if (n != 1) {
        char s[160];
        return lt_error(L, "item: a tensor with %lld elements (shape %s) cannot be converted to a number; "
                             "only one-element tensors can", (long long)n, attn_shape_str(t, s, sizeof s));
    }
    return lt_push_element(L, t, attn_flat_offset(t, 0));
}

static void push_list(lua_State *L, const attn_tensor *t, int d, int64_t *index)
{
    if (d == t->ndim) {
        lt_push_element(L, t, attn_offset_of(t, index));
        return;
    }
    luaL_checkstack(L, 4, "tolist: nesting too deep");
    lua_createtable(L, (int)(t->shape[d] < 1000000 ? t->shape[d] : 0), 0);
    for (int64_t i = 0; i < t->shape[d]; i++) {
        if (attn_interrupt_requested) /* up to 5e7 values: seconds */
            lt_interrupted(L);
        index[d] = i;
        push_list(L, t, d + 1, index);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

/* The Lua values tolist would make: the numbers and every nested table. An empty tensor such as
 * [2^62, 0] has no numbers but would still make 2^62 empty tables. Saturates at limit + 1. */
static int64_t list_values(const attn_tensor *t, int64_t limit)
{
    int64_t count = 0, at_depth = 1;
    for (int d = 0; d < t->ndim && at_depth > 0; d++) {
        if (t->shape[d] > 0 && at_depth > (limit + 1) / t->shape[d])
            return limit + 1;
        at_depth *= t->shape[d];
        count += at_depth;
        if (count > limit)
            return limit + 1;
    }
    return count;
}

static int t_tolist(lua_State *L)
{
    attn_tensor *t = lt_check(L, 1, "tolist", "input");
    int64_t index[ATTN_MAX_DIMS] = {0};
    const int64_t limit = 50000000;
    if (list_values(t, limit) > limit) {
        char s[160];
        return lt_error(L, "tolist: a tensor of shape %s is too large for a Lua table (more than %lld values "
                           "and nested tables)", attn_shape_str(t, s, sizeof s), (long long)limit);
    }
    push_list(L, t, 0, index);
    return 1;
}

static int t_is_contiguous(lua_State *L)
{
    lua_pushboolean(L, attn_is_contiguous(lt_check(L, 1, "is_contiguous", "input")));
    return 1;
}


/* ---- views and copies ---------------------------------------------------------------------- */

static int push_view(lua_State *L, attn_tensor *(*make)(const attn_tensor *, attn_error *), const char *fn)
{
    attn_tensor *t = lt_check(L, 1, fn, "input");
    attn_tensor **slot = lt_newslot(L);
    attn_error err;
    return lt_finish(L, slot, make(t, &err), &err);
}

static int t_clone(lua_State *L) { return push_view(L, attn_clone, "clone"); }
static int t_contiguous(lua_State *L) { return push_view(L, attn_contiguous, "contiguous"); }

static int to_dtype(lua_State *L, const char *fn, attn_dtype dtype)
{
    attn_tensor *t = lt_check(L, 1, fn, "input");
    attn_tensor **slot = lt_newslot(L);
    attn_error err;
    return lt_finish(L, slot, attn_to_dtype(t, dtype, &err), &err);
}

static int t_bool(lua_State *L) { return to_dtype(L, "bool", ATTN_BOOL); }
static int t_float(lua_State *L) { return to_dtype(L, "float", ATTN_FLOAT32); }
static int t_long(lua_State *L) { return to_dtype(L, "long", ATTN_INT64); }

/* t:to(dtype) or t:to(other): other's dtype, as PyTorch's Tensor.to (no devices here). */
static int t_to(lua_State *L)
{
    lt_check(L, 1, "to", "input");
    attn_tensor *other = lt_test(L, 2);
    int dtype = other ? (int)other->dtype : lt_test_dtype(L, 2);
    if (dtype < 0)
        return lt_error(L, "to: expected a dtype (torch.float32, torch.int64, torch.bool) or a tensor, got %s",
                        lt_typename(L, 2));
    lua_settop(L, 1);
    return to_dtype(L, "to", (attn_dtype)dtype);
}

static int reshape_like(lua_State *L, const char *fn, int copy_ok)
{
    attn_tensor *t = lt_check(L, 1, fn, "input");
    int64_t shape[ATTN_MAX_DIMS];
    int ndim = lt_check_shape(L, 2, fn, shape);
    attn_tensor **slot = lt_newslot(L);
    attn_error err;
    attn_tensor *v = copy_ok ? attn_reshape(fn, t, ndim, shape, &err) : attn_view(fn, t, ndim, shape, &err);
    return lt_finish(L, slot, v, &err);
}

static int t_view(lua_State *L) { return reshape_like(L, "view", 0); }
static int t_reshape(lua_State *L) { return reshape_like(L, "reshape", 1); }

static int t_flatten(lua_State *L)
{
    attn_tensor *t = lt_check(L, 1, "flatten", "input");
    int start = lua_isnoneornil(L, 2) ? 0 : lt_check_dim(L, 2, t->ndim, "flatten");
    int end = lua_isnoneornil(L, 3) ? (t->ndim > 0 ? t->ndim - 1 : 0) : lt_check_dim(L, 3, t->ndim, "flatten");
    if (end < start)
        return lt_error(L, "flatten: start dim %d comes after end dim %d", start + 1, end + 1);
    int64_t shape[ATTN_MAX_DIMS];
    int n = 0;
    for (int d = 0; d < t->ndim; d++) {
        if (d <= start || d > end)
            shape[n++] = t->shape[d];
        else
            shape[n - 1] *= t->shape[d]; /* fits: a product of some of t's sizes (size.h) */
    }
    if (t->ndim == 0)
        shape[n++] = 1;
    attn_tensor **slot = lt_newslot(L);
    attn_error err;
    return lt_finish(L, slot, attn_reshape("flatten", t, n, shape, &err), &err);
}

static int t_transpose(lua_State *L)
{
    attn_tensor *t = lt_check(L, 1, "transpose", "input");
    if (lua_isnoneornil(L, 2) || lua_isnoneornil(L, 3))
        return lt_error(L, "transpose: expected two dims, e.g. keys:transpose(2, 3) "
                             "(PyTorch's keys.transpose(1, 2))");
    int d0 = lt_check_dim(L, 2, t->ndim, "transpose"), d1 = lt_check_dim(L, 3, t->ndim, "transpose");
    attn_tensor **slot = lt_newslot(L);
    attn_error err;
    attn_tensor *v = t->ndim == 0 ? attn_alias(t, &err) : attn_transpose(t, d0, d1, &err);
    return lt_finish(L, slot, v, &err);
}

/* x.T: the reversed dims (for a matrix, its transpose); x:t() only for up to 2 dims. */
attn_tensor *lt_reversed(const attn_tensor *t, attn_error *err)
{
    int dims[ATTN_MAX_DIMS];
    for (int d = 0; d < t->ndim; d++)
        dims[d] = t->ndim - 1 - d;
    return attn_permute(t, dims, err);
}

static int t_t(lua_State *L)
{
    attn_tensor *t = lt_check(L, 1, "t", "input");
    if (t->ndim > 2) {
        char s[160];
        return lt_error(L, "t: expects a tensor with at most 2 dims, got %s; use transpose(a, b)",
                          attn_shape_str(t, s, sizeof s));
    }
    return push_view(L, lt_reversed, "t");
}

static int t_permute(lua_State *L)
{
    attn_tensor *t = lt_check(L, 1, "permute", "input");
    int64_t given[ATTN_MAX_DIMS];
    int n = lt_check_shape(L, 2, "permute", given);
    if (n != t->ndim)
        return lt_error(L, "permute: expected %d dims for a %d-D tensor, got %d", t->ndim, t->ndim, n);
    int dims[ATTN_MAX_DIMS];
    for (int d = 0; d < n; d++) {
        lua_pushinteger(L, (lua_Integer)given[d]);
        dims[d] = lt_check_dim(L, -1, t->ndim, "permute");
        lua_pop(L, 1);
    }
    attn_tensor **slot = lt_newslot(L);
    attn_error err;
    return lt_finish(L, slot, attn_permute(t, dims, &err), &err);
}

static int t_unsqueeze(lua_State *L)
{
    attn_tensor *t = lt_check(L, 1, "unsqueeze", "input");
    int d = lt_check_dim(L, 2, t->ndim + 1, "unsqueeze");
    attn_tensor **slot = lt_newslot(L);
    attn_error err;
    return lt_finish(L, slot, attn_unsqueeze(t, d, &err), &err);
}

static int t_squeeze(lua_State *L)
{
    attn_tensor *t = lt_check(L, 1, "squeeze", "input");
    int d = lua_isnoneornil(L, 2) ? -1 : lt_check_dim(L, 2, t->ndim, "squeeze");
    attn_tensor **slot = lt_newslot(L);
    attn_error err;
    return lt_finish(L, slot, t->ndim == 0 ? attn_alias(t, &err) : attn_squeeze(t, d, &err), &err);
}

static int t_narrow(lua_State *L)
{
    attn_tensor *t = lt_check(L, 1, "narrow", "input");
    if (t->ndim == 0)
        return lt_error(L, "narrow: a 0-d tensor cannot be narrowed");
    int d = lt_check_dim(L, 2, t->ndim, "narrow");
    int64_t start = lt_check_integer(L, 3, "narrow", "start");
    int64_t length = lt_check_integer(L, 4, "narrow", "length");
    if (start < 0)
        start += t->shape[d] + 1;
    if (start == 0)
        return lt_error(L, "narrow: start 0 is not valid: attn counts from 1");
    attn_tensor **slot = lt_newslot(L);
    attn_error err;
    return lt_finish(L, slot, attn_narrow(t, d, start - 1, length, &err), &err);
}

/* A 1-based (or negative) index along dim d -> 0-based; 0 and out-of-range indices are errors. */
int64_t lt_check_index(lua_State *L, int idx, const attn_tensor *t, int d, const char *fn)
{
    int64_t i = lt_check_integer(L, idx, fn, "index"), n = t->shape[d];
    if (i == 0)
        lt_error(L, "%s: index 0 is out of range: attn counts from 1 (Python's x[0] is x[1] here)", fn);
    int64_t j = i < 0 ? i + n : i - 1;
    if (j < 0 || j >= n)
        lt_error(L, "%s: index %lld is out of range for dim %d of size %lld", fn, (long long)i, d + 1,
                   (long long)n);
    return j;
}

static int t_select(lua_State *L)
{
    attn_tensor *t = lt_check(L, 1, "select", "input");
    if (t->ndim == 0)
        return lt_error(L, "select: a 0-d tensor has no dims to select from");
    int d = lt_check_dim(L, 2, t->ndim, "select");
    int64_t i = lt_check_index(L, 3, t, d, "select");
    attn_tensor **slot = lt_newslot(L);
    attn_error err;
    return lt_finish(L, slot, attn_select(t, d, i, &err), &err);
}

static int t_expand(lua_State *L)
{
    attn_tensor *t = lt_check(L, 1, "expand", "input");
    int64_t shape[ATTN_MAX_DIMS];
    int n = lt_check_shape(L, 2, "expand", shape);
    attn_tensor **slot = lt_newslot(L);
    attn_error err;
    return lt_finish(L, slot, attn_expand(t, n, shape, &err), &err);
}

static int t_fill_(lua_State *L)
{
    attn_tensor *t = lt_check(L, 1, "fill_", "input");
    attn_error err;
    if (attn_fill_number_("fill_", t, lt_check_value(L, 2, "fill_", "value"), &err))
        return lt_raise(L, &err);
    lua_settop(L, 1);
    return 1;
}

static int t_zero_(lua_State *L)
{
    attn_error err;
    if (attn_fill_(lt_check(L, 1, "zero_", "input"), 0.0f, &err))
        return lt_raise(L, &err);
    lua_settop(L, 1);
    return 1;
}

static int t_copy_(lua_State *L)
{
    attn_tensor *t = lt_check(L, 1, "copy_", "input");
    attn_tensor *src = lt_check(L, 2, "copy_", "src");
    attn_error err;
    if (attn_check_inplace("copy_", t, src, &err) || attn_copy_(t, src, &err))
        return lt_raise(L, &err);
    lua_settop(L, 1);
    return 1;
}

/* Functions that are both torch.f(t, ...) and t:f(...). */
static const luaL_Reg shared[] = {
    {"numel", t_numel}, {"clone", t_clone}, {"reshape", t_reshape}, {"flatten", t_flatten},
    {"transpose", t_transpose}, {"t", t_t}, {"permute", t_permute}, {"unsqueeze", t_unsqueeze},
    {"squeeze", t_squeeze}, {"narrow", t_narrow}, {"select", t_select}, {NULL, NULL}};

/* Methods only. */
static const luaL_Reg method_only[] = {
    {"size", t_size}, {"dim", t_dim}, {"item", t_item}, {"tolist", t_tolist},
    {"is_contiguous", t_is_contiguous}, {"contiguous", t_contiguous}, {"view", t_view},
    {"expand", t_expand}, {"bool", t_bool}, {"float", t_float}, {"long", t_long}, {"to", t_to},
    {"fill_", t_fill_}, {"zero_", t_zero_},
    {"copy_", t_copy_}, {NULL, NULL}};

int luaopen_attn_views(lua_State *L)
{
    lua_newtable(L);
    lt_newpart(L, "torch", shared, NULL);
    lt_newpart(L, "methods", shared, method_only);
    return 1;
}
