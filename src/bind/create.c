/* create.c (bindings) — making tensors: torch.tensor from Lua values, zeros/ones/empty/full, the
 * *_like functions, arange, eye, stack and cat; plus the print options and memory counter. */
#include <string.h>

#include "bind.h"
#include "format.h"

/* ---- creation ------------------------------------------------------------------------------ */

static attn_dtype opt_dtype(lua_State *L, int opts, attn_dtype dflt, const char *fn)
{
    if (!opts || lua_getfield(L, opts, "dtype") == LUA_TNIL) {
        if (opts)
            lua_pop(L, 1);
        return dflt;
    }
    int d = lt_test_dtype(L, -1);
    if (d < 0)
        lt_error(L, "%s: dtype must be torch.float32, torch.int64 or torch.bool (attn has no other dtypes), got %s",
                 fn, lt_typename(L, -1));
    lua_pop(L, 1);
    return (attn_dtype)d;
}

/* A leaf of the data given to torch.tensor as an attn_number: a Lua integer, float or boolean, or a
 * one-element tensor (with its own dtype, as PyTorch takes it); *ok is 0 for anything else. */
static attn_number leaf_value(lua_State *L, int idx, int *ok)
{
    attn_tensor *t = lt_test(L, idx);
    *ok = 1;
    if (lua_type(L, idx) == LUA_TNUMBER || lua_type(L, idx) == LUA_TBOOLEAN)
        return lt_check_value(L, idx, "tensor", "element");
    if (t && attn_numel(t) == 1)
        return t->dtype == ATTN_INT64 ? attn_int(attn_get_flat_i64(t, 0))
               : t->dtype == ATTN_BOOL ? attn_bool(attn_get_flat(t, 0) != 0.0f)
                                       : attn_float(attn_get_flat(t, 0));
    *ok = 0;
    return attn_int(0);
}

/* Writes v into element at of t, cast to t's dtype (an int64 from a Lua integer exactly). */
static void put_leaf(attn_tensor *t, int64_t at, attn_number v)
{
    if (t->dtype == ATTN_INT64)
        t->storage->i64[at] = v.dtype == ATTN_FLOAT32 ? attn_f64_to_i64(v.f) : v.i;
    else if (t->dtype == ATTN_BOOL)
        t->storage->data[at] = (v.dtype == ATTN_FLOAT32 ? v.f != 0 : v.i != 0) ? 1.0f : 0.0f;
    else
        t->storage->data[at] = v.dtype == ATTN_FLOAT32 ? (float)v.f : (float)v.i;
}

/* The walk over torch.tensor's nested tables: pass 1 (t == NULL) checks the data and infers the dtype as
 * PyTorch does (float32 if any number is a float, else int64 if any is an integer, else bool); pass 2
 * writes the values into t in row-major order. */
typedef struct data_walk {
    attn_tensor *t;
    int64_t at;       /* next element (pass 2), elements seen (pass 1) */
    attn_dtype dtype; /* inferred so far (pass 1) */
} data_walk;

/* Walks nested tables once to find the shape (from the first element at each depth). */
static int data_shape(lua_State *L, int idx, int64_t *shape)
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

/* Walks nested table data (row-major), checking every row against the shape. */
static void data_fill(lua_State *L, int ndim, const int64_t *shape, int depth, int64_t *path, data_walk *w)
{
    char where[128];
    int ok, t = lua_gettop(L);
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
            data_fill(L, ndim, shape, depth + 1, path, w);
            lua_pop(L, 1);
            continue;
        }
        attn_number v = leaf_value(L, -1, &ok);
        if (!ok) {
            path_str(path, depth + 1, where, sizeof where);
            if (lt_test(L, -1))
                lt_error(L, "tensor: element %s is a tensor of %lld elements; use torch.stack{...} to join tensors",
                         where, (long long)attn_numel(lt_test(L, -1)));
            lt_error(L, "tensor: element %s is a %s, expected a number", where, luaL_typename(L, -1));
        }
        if (w->t)
            put_leaf(w->t, w->at, v);
        else
            w->dtype = w->at == 0 ? v.dtype : attn_promote(w->dtype, v.dtype);
        w->at++;
        lua_pop(L, 1);
    }
}

static const char *const DTYPE_ONLY[] = {"dtype", NULL};

static int torch_tensor(lua_State *L)
{
    int opts = lt_options(L, 2, "tensor", DTYPE_ONLY);
    /* torch.tensor(data, true) took the true for nothing: options are never silently ignored */
    for (int i = 2; i <= lua_gettop(L); i++)
        if (i != opts && !lua_isnil(L, i))
            return lt_error(L, "tensor: argument %d (%s) is not an option: options are given by name, as "
                               "torch.tensor(data, {dtype = torch.int64})", i, lt_typename(L, i));
    attn_tensor **slot = lt_newslot(L);
    attn_error err;
    attn_tensor *src = lt_test(L, 1);
    int type = lua_type(L, 1);
    if (src) { /* torch.tensor(t) copies, as PyTorch does */
        attn_dtype want = opt_dtype(L, opts, src->dtype, "tensor");
        attn_tensor *c = want == src->dtype ? attn_clone(src, &err) : attn_to_dtype(src, want, &err);
        return lt_finish(L, slot, c, &err);
    }
    if (type == LUA_TNUMBER || type == LUA_TBOOLEAN) {
        attn_number v = lt_check_value(L, 1, "tensor", "data");
        attn_tensor *t = attn_empty("tensor", 0, NULL, opt_dtype(L, opts, v.dtype, "tensor"), &err);
        if (t)
            put_leaf(t, 0, v);
        return lt_finish(L, slot, t, &err);
    }
    if (type != LUA_TTABLE)
        return lt_error(L, "tensor: data must be a number, a boolean, a (nested) table of numbers or a tensor, "
                             "got %s", lt_typename(L, 1));
    int64_t shape[ATTN_MAX_DIMS], path[ATTN_MAX_DIMS];
    int ndim = data_shape(L, 1, shape);
    data_walk w = {NULL, 0, ATTN_FLOAT32}; /* no elements at all: float32, as torch.tensor([]) */
    lua_pushvalue(L, 1);
    data_fill(L, ndim, shape, 0, path, &w);
    w.dtype = opt_dtype(L, opts, w.dtype, "tensor");
    attn_tensor *t = attn_empty("tensor", ndim, shape, w.dtype, &err);
    lt_finish(L, slot, t, &err);
    w.t = t;
    w.at = 0;
    lua_pushvalue(L, 1);
    data_fill(L, ndim, shape, 0, path, &w);
    lua_settop(L, lua_gettop(L) - 2);
    return 1;
}

static int make_filled(lua_State *L, const char *fn, float value, int fill)
{
    int64_t shape[ATTN_MAX_DIMS];
    int opts = lt_options(L, 1, fn, DTYPE_ONLY);
    int ndim = lt_check_shape(L, 1, fn, shape);
    attn_dtype dtype = opt_dtype(L, opts, ATTN_FLOAT32, fn);
    attn_tensor **slot = lt_newslot(L);
    attn_error err;
    attn_tensor *t = attn_empty(fn, ndim, shape, dtype, &err);
    if (t && attn_fill_(t, fill ? value : 0.0f, &err)) { /* "empty" is zeros here */
        attn_free(t);
        t = NULL;
    }
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
    attn_number value = lt_check_value(L, 2, "full", "fill_value");
    /* the dtype follows the value, as torch.full infers it: full({2}, 7) is int64, full({2}, 7.0) float32 */
    attn_dtype dtype = opt_dtype(L, lt_options(L, 3, "full", DTYPE_ONLY), value.dtype, "full");
    attn_tensor **slot = lt_newslot(L);
    attn_error err;
    attn_tensor *t = attn_empty("full", ndim, shape, dtype, &err);
    if (t && attn_fill_number_("full", t, value, &err)) {
        attn_free(t);
        t = NULL;
    }
    return lt_finish(L, slot, t, &err);
}

/* A tensor of src's shape and dtype filled with value (cast to that dtype, as PyTorch's *_like do). */
static int like(lua_State *L, const char *fn, attn_number value)
{
    attn_tensor *src = lt_check(L, 1, fn, "input");
    attn_dtype dtype = opt_dtype(L, lt_options(L, 2, fn, DTYPE_ONLY), src->dtype, fn);
    attn_tensor **slot = lt_newslot(L);
    attn_error err;
    attn_tensor *t = attn_empty(fn, src->ndim, src->shape, dtype, &err);
    if (t && attn_fill_number_(fn, t, value, &err)) {
        attn_free(t);
        t = NULL;
    }
    return lt_finish(L, slot, t, &err);
}

static int torch_zeros_like(lua_State *L) { return like(L, "zeros_like", attn_int(0)); }
static int torch_ones_like(lua_State *L) { return like(L, "ones_like", attn_int(1)); }
static int torch_empty_like(lua_State *L) { return like(L, "empty_like", attn_int(0)); }

static int torch_full_like(lua_State *L)
{
    lt_check(L, 1, "full_like", "input");
    return like(L, "full_like", lt_check_value(L, 2, "full_like", "fill_value"));
}

/* arange with Lua integers only: int64, as torch.arange(5) (unless a dtype is asked for). */
static attn_tensor *arange_int(lua_State *L, int nargs, attn_error *err)
{
    int64_t start = 0, end, step = 1;
    if (nargs == 1) {
        end = lt_check_integer(L, 1, "arange", "end");
    } else {
        start = lt_check_integer(L, 1, "arange", "start");
        end = lt_check_integer(L, 2, "arange", "end");
        if (nargs == 3)
            step = lt_check_integer(L, 3, "arange", "step");
    }
    return attn_arange_i64(start, end, step, err);
}

static int torch_arange(lua_State *L)
{
    int opts = lt_options(L, 1, "arange", DTYPE_ONLY);
    int nargs = (opts ? opts - 1 : lua_gettop(L));
    double start = 0, end, step = 1;
    if (nargs < 1 || nargs > 3)
        return lt_error(L, "arange: expected arange(end), arange(start, end) or arange(start, end, step)");
    int all_int = 1;
    for (int i = 1; i <= nargs; i++)
        all_int &= lua_isinteger(L, i);
    attn_dtype dtype = opt_dtype(L, opts, all_int ? ATTN_INT64 : ATTN_FLOAT32, "arange");
    if (all_int && dtype == ATTN_INT64) {
        attn_tensor **slot = lt_newslot(L);
        attn_error err;
        return lt_finish(L, slot, arange_int(L, nargs, &err), &err);
    }
    if (nargs == 1) {
        end = lt_check_number(L, 1, "arange", "end");
    } else {
        start = lt_check_number(L, 1, "arange", "start");
        end = lt_check_number(L, 2, "arange", "end");
        if (nargs == 3)
            step = lt_check_number(L, 3, "arange", "step");
    }
    attn_tensor **slot = lt_newslot(L);
    attn_error err;
    attn_tensor *t = attn_arange(start, end, step, &err);
    if (t && dtype != ATTN_FLOAT32) {
        attn_tensor *b = attn_to_dtype(t, dtype, &err);
        attn_free(t);
        t = b;
    }
    return lt_finish(L, slot, t, &err);
}

static int torch_eye(lua_State *L)
{
    int64_t n = lt_check_integer(L, 1, "eye", "n");
    int64_t m = lua_isnoneornil(L, 2) || lt_is_options(L, 2) ? n : lt_check_integer(L, 2, "eye", "m");
    attn_dtype dtype = opt_dtype(L, lt_options(L, 2, "eye", DTYPE_ONLY), ATTN_FLOAT32, "eye");
    attn_tensor **slot = lt_newslot(L);
    attn_error err;
    attn_tensor *t = attn_eye(n, m, &err);
    if (t && dtype != ATTN_FLOAT32) {
        attn_tensor *c = attn_to_dtype(t, dtype, &err);
        attn_free(t);
        t = c;
    }
    return lt_finish(L, slot, t, &err);
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
    static const char *const known[] = {"dim", NULL};
    int opts = lt_is_options(L, 2) ? 2 : 0;
    lt_check_options(L, opts, fn, known);
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

/* ---- print options and memory -------------------------------------------------------------- */

static int torch_set_printoptions(lua_State *L)
{
    static const char *const known[] = {"precision", "threshold", "edgeitems", "linewidth", "sci_mode", "profile",
                                        NULL};
    luaL_checktype(L, 1, LUA_TTABLE);
    lt_check_options(L, 1, "set_printoptions", known);
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

static const luaL_Reg creation[] = {
    {"tensor", torch_tensor}, {"zeros", torch_zeros}, {"ones", torch_ones}, {"empty", torch_empty},
    {"full", torch_full}, {"zeros_like", torch_zeros_like}, {"ones_like", torch_ones_like},
    {"empty_like", torch_empty_like}, {"full_like", torch_full_like}, {"arange", torch_arange},
    {"eye", torch_eye}, {"stack", torch_stack}, {"cat", torch_cat},
    {"set_printoptions", torch_set_printoptions}, {"memory_allocated", torch_memory}, {NULL, NULL}};

int lt_torch_tensor(lua_State *L)
{
    return torch_tensor(L);
}

int luaopen_attn_create(lua_State *L)
{
    lua_newtable(L);
    lt_newpart(L, "torch", creation, NULL);
    return 1;
}
