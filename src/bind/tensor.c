/* tensor.c (bindings) — the Tensor userdata: creation from Lua values, indexing with 1-based
 * indices, properties (t.shape, t.T, t.ndim, t.dtype), views, conversion back to Lua values, and
 * printing. Arithmetic and the attention stages are in bind/ops.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "format.h"

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

int lt_push_number_or_bool(lua_State *L, const attn_tensor *t, float v)
{
    if (t->dtype == ATTN_BOOL)
        lua_pushboolean(L, v != 0.0f);
    else
        lua_pushnumber(L, (lua_Number)v);
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
    /* Only reached for keys missing from the table: negative indices count from the end. */
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
        n *= shape[d];
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

/* ---- creation ------------------------------------------------------------------------------ */

static attn_dtype opt_dtype(lua_State *L, int opts, attn_dtype dflt, const char *fn)
{
    if (!opts || lua_getfield(L, opts, "dtype") == LUA_TNIL) {
        if (opts)
            lua_pop(L, 1);
        return dflt;
    }
    lua_getfield(L, -1, "name");
    const char *name = lua_tostring(L, -1);
    attn_dtype d = dflt;
    if (name && strcmp(name, "float32") == 0)
        d = ATTN_FLOAT32;
    else if (name && strcmp(name, "bool") == 0)
        d = ATTN_BOOL;
    else
        lt_error(L, "%s: dtype must be torch.float32 or torch.bool (attn has no other dtypes)", fn);
    lua_pop(L, 2);
    return d;
}

/* Walks nested tables once to find the shape (from the first element at each depth). */
static int data_shape(lua_State *L, int idx, int64_t *shape, int *all_bool)
{
    int ndim = 0;
    lua_pushvalue(L, idx);
    while (lua_type(L, -1) == LUA_TTABLE && !luaL_testudata(L, -1, ATTN_TENSOR_MT)) {
        if (ndim == ATTN_MAX_DIMS)
            lt_error(L, "tensor: more than %d levels of nesting; attn supports at most %d dimensions",
                       ATTN_MAX_DIMS, ATTN_MAX_DIMS);
        shape[ndim++] = (int64_t)lua_rawlen(L, -1);
        lua_rawgeti(L, -1, 1);
        lua_remove(L, -2);
    }
    *all_bool = lua_type(L, -1) == LUA_TBOOLEAN;
    lua_pop(L, 1);
    return ndim;
}

static void path_str(const int64_t *path, int depth, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < depth && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, depth == 1 ? "%lld" : "[%lld]", (long long)path[i] + 1);
}

/* Copies nested table data into out (row-major), checking every row against the shape. */
static void data_fill(lua_State *L, int ndim, const int64_t *shape, int depth, int64_t *path, float **out)
{
    char where[128];
    int t = lua_gettop(L);
    int64_t n = (int64_t)lua_rawlen(L, t);
    if (n != shape[depth]) {
        path_str(path, depth, where, sizeof where);
        if (depth == 0)
            lt_error(L, "tensor: expected %lld elements, got %lld", (long long)shape[0], (long long)n);
        lt_error(L, "tensor: row %s has %lld element%s, expected %lld", where, (long long)n, n == 1 ? "" : "s",
                   (long long)shape[depth]);
    }
    for (int64_t i = 0; i < n; i++) {
        path[depth] = i;
        int type = lua_rawgeti(L, t, (lua_Integer)i + 1);
        if (depth + 1 < ndim) {
            if (type != LUA_TTABLE) {
                path_str(path, depth + 1, where, sizeof where);
                lt_error(L, "tensor: row %s is a %s, expected a list of %lld", where, luaL_typename(L, -1),
                           (long long)shape[depth + 1]);
            }
            data_fill(L, ndim, shape, depth + 1, path, out);
        } else if (type == LUA_TNUMBER) {
            *(*out)++ = (float)lua_tonumber(L, -1);
        } else if (type == LUA_TBOOLEAN) {
            *(*out)++ = lua_toboolean(L, -1) ? 1.0f : 0.0f;
        } else {
            path_str(path, depth + 1, where, sizeof where);
            lt_error(L, "tensor: element %s%s is a %s, expected a number", depth ? "" : "", where,
                       luaL_typename(L, -1));
        }
        lua_pop(L, 1);
    }
}

static int torch_tensor(lua_State *L)
{
    int opts = lt_options_index(L, 2);
    attn_tensor **slot = lt_newslot(L);
    attn_error err;
    attn_tensor *src = lt_test(L, 1);
    if (src) { /* torch.tensor(t) copies, as PyTorch does */
        attn_tensor *c = attn_clone(src, &err);
        return lt_finish(L, slot, c, &err);
    }
    int type = lua_type(L, 1);
    if (type == LUA_TNUMBER || type == LUA_TBOOLEAN) {
        attn_tensor *t = attn_scalar(type == LUA_TNUMBER ? (float)lua_tonumber(L, 1) : (float)lua_toboolean(L, 1),
                                     &err);
        if (t && type == LUA_TBOOLEAN)
            t->dtype = ATTN_BOOL;
        lt_finish(L, slot, t, &err);
    } else if (type == LUA_TTABLE) {
        int64_t shape[ATTN_MAX_DIMS], path[ATTN_MAX_DIMS];
        int all_bool;
        int ndim = data_shape(L, 1, shape, &all_bool);
        attn_tensor *t = attn_empty("tensor", ndim, shape, all_bool ? ATTN_BOOL : ATTN_FLOAT32, &err);
        lt_finish(L, slot, t, &err); /* owned by Lua from here, so a data error below leaks nothing */
        float *out = t->storage->data;
        lua_pushvalue(L, 1);
        data_fill(L, ndim, shape, 0, path, &out);
        lua_pop(L, 1);
    } else {
        return lt_error(L, "tensor: data must be a number, a boolean, a (nested) table of numbers or a tensor, "
                             "got %s", lt_typename(L, 1));
    }
    attn_tensor *t = *slot;
    attn_dtype want = opt_dtype(L, opts, t->dtype, "tensor");
    if (want != t->dtype) {
        attn_tensor *c = attn_to_dtype(t, want, &err);
        attn_tensor **slot2 = lt_newslot(L);
        return lt_finish(L, slot2, c, &err);
    }
    return 1;
}

static int make_filled(lua_State *L, const char *fn, float value, int fill)
{
    int64_t shape[ATTN_MAX_DIMS];
    int opts = lt_options_index(L, 1);
    int ndim = lt_check_shape(L, 1, fn, shape);
    attn_dtype dtype = opt_dtype(L, opts, ATTN_FLOAT32, fn);
    attn_tensor **slot = lt_newslot(L);
    attn_error err;
    attn_tensor *t = attn_empty(fn, ndim, shape, dtype, &err);
    if (t && fill)
        attn_fill_(t, value);
    else if (t)
        memset(t->storage->data, 0, sizeof(float) * (size_t)attn_numel(t)); /* "empty" is zeros here */
    return lt_finish(L, slot, t, &err);
}

static int torch_zeros(lua_State *L) { return make_filled(L, "zeros", 0.0f, 1); }
static int torch_ones(lua_State *L) { return make_filled(L, "ones", 1.0f, 1); }
static int torch_empty(lua_State *L) { return make_filled(L, "empty", 0.0f, 0); }

static int torch_full(lua_State *L)
{
    int64_t shape[ATTN_MAX_DIMS];
    if (lua_type(L, 1) != LUA_TTABLE || lt_is_options(L, 1))
        return lt_error(L, "full: size must be a table such as {2, 3}, got %s", lt_typename(L, 1));
    int ndim = lt_check_shape_table(L, 1, "full", shape);
    float value = (float)lt_check_number(L, 2, "full", "fill_value");
    attn_dtype dtype = opt_dtype(L, lt_options_index(L, 3), ATTN_FLOAT32, "full");
    attn_tensor **slot = lt_newslot(L);
    attn_error err;
    attn_tensor *t = attn_empty("full", ndim, shape, dtype, &err);
    if (t)
        attn_fill_(t, value);
    return lt_finish(L, slot, t, &err);
}

static int like(lua_State *L, const char *fn, float value, int fill)
{
    attn_tensor *src = lt_check(L, 1, fn, "input");
    attn_tensor **slot = lt_newslot(L);
    attn_error err;
    attn_tensor *t = attn_empty(fn, src->ndim, src->shape, src->dtype, &err);
    if (t)
        attn_fill_(t, fill ? value : 0.0f);
    return lt_finish(L, slot, t, &err);
}

static int torch_zeros_like(lua_State *L) { return like(L, "zeros_like", 0.0f, 1); }
static int torch_ones_like(lua_State *L) { return like(L, "ones_like", 1.0f, 1); }
static int torch_empty_like(lua_State *L) { return like(L, "empty_like", 0.0f, 0); }

static int torch_full_like(lua_State *L)
{
    lt_check(L, 1, "full_like", "input");
    float v = (float)lt_check_number(L, 2, "full_like", "fill_value");
    lua_settop(L, 1);
    return like(L, "full_like", v, 1);
}

static int torch_arange(lua_State *L)
{
    int opts = lt_options_index(L, 1);
    int nargs = (opts ? opts - 1 : lua_gettop(L));
    double start = 0, end, step = 1;
    if (nargs < 1 || nargs > 3)
        return lt_error(L, "arange: expected arange(end), arange(start, end) or arange(start, end, step)");
    if (nargs == 1) {
        end = lt_check_number(L, 1, "arange", "end");
    } else {
        start = lt_check_number(L, 1, "arange", "start");
        end = lt_check_number(L, 2, "arange", "end");
        if (nargs == 3)
            step = lt_check_number(L, 3, "arange", "step");
    }
    attn_dtype dtype = opt_dtype(L, opts, ATTN_FLOAT32, "arange");
    attn_tensor **slot = lt_newslot(L);
    attn_error err;
    attn_tensor *t = attn_arange(start, end, step, &err);
    if (t && dtype == ATTN_BOOL) {
        attn_tensor *b = attn_to_dtype(t, ATTN_BOOL, &err);
        attn_free(t);
        t = b;
    }
    return lt_finish(L, slot, t, &err);
}

static int torch_eye(lua_State *L)
{
    int64_t n = lt_check_integer(L, 1, "eye", "n");
    int64_t m = lua_isnoneornil(L, 2) || lt_is_options(L, 2) ? n : lt_check_integer(L, 2, "eye", "m");
    attn_tensor **slot = lt_newslot(L);
    attn_error err;
    return lt_finish(L, slot, attn_eye(n, m, &err), &err);
}

/* stack/cat: a list of tensors and a dim (positional or {dim = d}). */
static int join(lua_State *L, const char *fn, int stacking)
{
    if (lua_type(L, 1) != LUA_TTABLE || lt_is_size(L, 1))
        return lt_error(L, "%s: expected a list of tensors such as {a, b}, got %s", fn, lt_typename(L, 1));
    lua_settop(L, 2); /* list, dim or options; the scratch list below goes to index 3 */
    int n = (int)lua_rawlen(L, 1);
    if (n < 1)
        return lt_error(L, "%s: expected a non-empty list of tensors", fn);
    if (n > 100000)
        return lt_error(L, "%s: too many tensors (%d)", fn, n);
    attn_tensor **ts = lua_newuserdatauv(L, sizeof(attn_tensor *) * (size_t)n, 0); /* freed by the GC */
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, 1, i + 1);
        ts[i] = lt_test(L, -1);
        if (!ts[i])
            return lt_error(L, "%s: element %d of the list is %s, expected a tensor", fn, i + 1,
                              lt_typename(L, -1));
        lua_pop(L, 1);
    }
    int opts = lt_is_options(L, 2) ? 2 : 0;
    int rank = ts[0]->ndim + stacking;
    int dim = 0;
    if (lt_arg(L, 2, opts, "dim") != LUA_TNIL)
        dim = lt_check_dim(L, -1, rank, fn);
    lua_pop(L, 1);
    attn_tensor **slot = lt_newslot(L);
    attn_error err;
    attn_tensor *t = stacking ? attn_stack(fn, ts, n, dim, &err) : attn_cat(fn, ts, n, dim, &err);
    return lt_finish(L, slot, t, &err);
}

static int torch_stack(lua_State *L) { return join(L, "stack", 1); }
static int torch_cat(lua_State *L) { return join(L, "cat", 0); }

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
    return lt_push_number_or_bool(L, t, attn_get_flat(t, 0));
}

static void push_list(lua_State *L, const attn_tensor *t, int d, int64_t *index)
{
    if (d == t->ndim) {
        lt_push_number_or_bool(L, t, *attn_ptr(t, index));
        return;
    }
    luaL_checkstack(L, 4, "tolist: nesting too deep");
    lua_createtable(L, (int)(t->shape[d] < 1000000 ? t->shape[d] : 0), 0);
    for (int64_t i = 0; i < t->shape[d]; i++) {
        index[d] = i;
        push_list(L, t, d + 1, index);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

static int t_tolist(lua_State *L)
{
    attn_tensor *t = lt_check(L, 1, "tolist", "input");
    int64_t index[ATTN_MAX_DIMS] = {0};
    if (attn_numel(t) > 50000000)
        return lt_error(L, "tolist: %lld elements is too many for a Lua table", (long long)attn_numel(t));
    push_list(L, t, 0, index);
    return 1;
}

static int t_is_contiguous(lua_State *L)
{
    lua_pushboolean(L, attn_is_contiguous(lt_check(L, 1, "is_contiguous", "input")));
    return 1;
}

static int torch_is_tensor(lua_State *L)
{
    lua_pushboolean(L, lt_test(L, 1) != NULL);
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
            shape[n - 1] *= t->shape[d];
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
static attn_tensor *reversed(const attn_tensor *t, attn_error *err)
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
    return push_view(L, reversed, "t");
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
static int64_t check_index(lua_State *L, int idx, const attn_tensor *t, int d, const char *fn)
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
    int64_t i = check_index(L, 3, t, d, "select");
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
    attn_fill_(t, (float)lt_check_number(L, 2, "fill_", "value"));
    lua_settop(L, 1);
    return 1;
}

static int t_zero_(lua_State *L)
{
    attn_fill_(lt_check(L, 1, "zero_", "input"), 0.0f);
    lua_settop(L, 1);
    return 1;
}

static int t_copy_(lua_State *L)
{
    attn_tensor *t = lt_check(L, 1, "copy_", "input");
    attn_tensor *src = lt_check(L, 2, "copy_", "src");
    attn_error err;
    if (attn_copy_(t, src, &err))
        return lt_raise(L, &err);
    lua_settop(L, 1);
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
            next = attn_select(v, d, check_index(L, -1, v, d, "index"), &err); /* the dim goes away */
        } else if (type == LUA_TTABLE && lua_rawlen(L, -1) <= 2) {
            int r = lua_gettop(L);
            lua_rawgeti(L, r, 1);
            int64_t a = check_index(L, -1, v, d, "index");
            lua_rawgeti(L, r, lua_rawlen(L, r) == 2 ? 2 : 1);
            int64_t b = check_index(L, -1, v, d, "index");
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
            attn_tensor *v = k[0] == 'T' ? reversed(t, &err) : attn_transpose(t, t->ndim - 2, t->ndim - 1, &err);
            return lt_finish(L, slot, v, &err);
        }
        if (strcmp(k, "dtype") == 0) {
            lua_getfield(L, lua_upvalueindex(2), t->dtype == ATTN_BOOL ? "bool" : "float32");
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
        int64_t j = check_index(L, 2, t, 0, "index");
        if (t->ndim == 1)
            return lt_push_number_or_bool(L, t, t->storage->data[t->offset + j * t->stride[0]]);
        attn_tensor **slot = lt_newslot(L);
        attn_error err;
        return lt_finish(L, slot, attn_select(t, 0, j, &err), &err);
    }
    if (type == LUA_TTABLE && !lua_getmetatable(L, 2)) {
        attn_tensor *v = index_view(L, t, 2);
        if (v->ndim == 0)
            return lt_push_number_or_bool(L, v, v->storage->data[v->offset]);
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
        attn_fill_(dst, (float)lt_check_number(L, value, "assign", "value"));
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
        int64_t j = check_index(L, 2, t, 0, "assign");
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

/* ---- print options and memory -------------------------------------------------------------- */

static int torch_set_printoptions(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    attn_print_options o = attn_get_print_options();
    static const char *names[] = {"precision", "threshold", "edgeitems", "linewidth"};
    for (int i = 0; i < 4; i++) {
        if (lua_getfield(L, 1, names[i]) != LUA_TNIL) {
            int64_t v = lt_check_integer(L, -1, "set_printoptions", names[i]);
            if (v < 0 || v > 1000000000)
                return lt_error(L, "set_printoptions: %s must be between 0 and 1e9, got %lld", names[i],
                                  (long long)v);
            if (i == 0) o.precision = (int)v;
            if (i == 1) o.threshold = v;
            if (i == 2) o.edgeitems = (int)v;
            if (i == 3) o.linewidth = (int)v;
        }
        lua_pop(L, 1);
    }
    int type = lua_getfield(L, 1, "sci_mode");
    if (type == LUA_TBOOLEAN)
        o.sci_mode = lua_toboolean(L, -1);
    else if (type != LUA_TNIL)
        return lt_error(L, "set_printoptions: sci_mode must be true, false or nil");
    else if (lua_getfield(L, 1, "profile") == LUA_TSTRING && strcmp(lua_tostring(L, -1), "default") == 0)
        o = (attn_print_options){4, 1000, 3, 80, -1};
    attn_set_print_options(o);
    return 0;
}

static int torch_memory(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)attn_live_bytes());
    return 1;
}

/* ---- registration -------------------------------------------------------------------------- */

void lt_register(lua_State *L, int torch, int methods, const luaL_Reg *fns)
{
    for (; fns->name; fns++) {
        lua_pushcfunction(L, fns->func);
        if (torch) {
            lua_pushvalue(L, -1);
            lua_setfield(L, torch, fns->name);
        }
        if (methods)
            lua_setfield(L, methods, fns->name);
        else
            lua_pop(L, 1);
    }
}

static const luaL_Reg creation[] = {
    {"tensor", torch_tensor}, {"zeros", torch_zeros}, {"ones", torch_ones}, {"empty", torch_empty},
    {"full", torch_full}, {"zeros_like", torch_zeros_like}, {"ones_like", torch_ones_like},
    {"empty_like", torch_empty_like}, {"full_like", torch_full_like}, {"arange", torch_arange},
    {"eye", torch_eye}, {"stack", torch_stack}, {"cat", torch_cat}, {"Size", torch_size},
    {"is_tensor", torch_is_tensor}, {"set_printoptions", torch_set_printoptions},
    {"memory_allocated", torch_memory}, {NULL, NULL}};

/* Functions that are both torch.f(t, ...) and t:f(...). */
static const luaL_Reg shared[] = {
    {"numel", t_numel}, {"clone", t_clone}, {"reshape", t_reshape}, {"flatten", t_flatten},
    {"transpose", t_transpose}, {"t", t_t}, {"permute", t_permute}, {"unsqueeze", t_unsqueeze},
    {"squeeze", t_squeeze}, {"narrow", t_narrow}, {"select", t_select}, {NULL, NULL}};

/* Methods only. */
static const luaL_Reg method_only[] = {
    {"size", t_size}, {"dim", t_dim}, {"item", t_item}, {"tolist", t_tolist},
    {"is_contiguous", t_is_contiguous}, {"contiguous", t_contiguous}, {"view", t_view},
    {"expand", t_expand}, {"bool", t_bool}, {"float", t_float}, {"fill_", t_fill_}, {"zero_", t_zero_},
    {"copy_", t_copy_}, {NULL, NULL}};

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

void lt_open_tensor(lua_State *L, int torch, int methods)
{
    lt_register(L, torch, 0, creation);
    lt_register(L, torch, methods, shared);
    lt_register(L, 0, methods, method_only);

    luaL_newmetatable(L, ATTN_DTYPE_MT);
    lua_pushcfunction(L, dtype_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pop(L, 1);
    make_dtype(L, torch, "float32");
    make_dtype(L, torch, "bool");
    lua_getfield(L, torch, "float32");
    lua_setfield(L, torch, "float");

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
    lua_pop(L, 1);
}
