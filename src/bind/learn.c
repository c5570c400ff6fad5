/* learn.c (bindings) — the operations of training (core/learn.h): add's alpha, addcmul, addcdiv, gather,
 * randperm, and the losses for nn.functional (whose options src/lua/nn/losses.lua reads). Ids are
 * 1-based here as everywhere in attn: class ids, gather's indices and ignore_index are shifted by one
 * on their way to the core, so a target equal to ignore_index is ignored whatever its value. */
#include "bind.h"
#include "learn.h"
#include "overlap.h"
#include "rng.h"

#include <string.h>

static int push_result(lua_State *L, attn_tensor *t, attn_error *err)
{
    attn_tensor **slot = lt_newslot(L);
    return lt_finish(L, slot, t, err);
}

/* Copies r into self (in-place forms), refusing a result of another shape. */
static int store_into(lua_State *L, const char *fn, attn_tensor *self, int result_idx)
{
    attn_error err;
    attn_tensor *r = lt_test(L, result_idx);
    if (r->ndim != self->ndim || memcmp(r->shape, self->shape, sizeof(int64_t) * (size_t)self->ndim) != 0) {
        char a[160], b[160];
        return lt_error(L, "%s: the result has shape %s but the tensor has shape %s; in-place operations cannot "
                           "change the shape", fn, attn_shape_str(r, a, sizeof a), attn_shape_str(self, b, sizeof b));
    }
    if (self->dtype != ATTN_FLOAT32)
        return lt_error(L, "%s: the result is torch.float32, which cannot be stored in the %s tensor in place", fn,
                        attn_dtype_name(self->dtype));
    if (attn_copy_(self, r, &err))
        return lt_raise(L, &err);
    lua_settop(L, 1);
    return 1;
}

/* addcmul(self, t1, t2, {value = v}) (value positional too) */
static int addc(lua_State *L, const char *fn, int divide)
{
    attn_tensor *self = lt_check(L, 1, fn, "input");
    attn_tensor *t1 = lt_check(L, 2, fn, "tensor1");
    attn_tensor *t2 = lt_check(L, 3, fn, "tensor2");
    int opts = lt_options_index(L, 4);
    double value = 1.0;
    if (lt_arg(L, 4, opts, "value") != LUA_TNIL)
        value = lt_check_number(L, -1, fn, "value");
    attn_error err;
    return push_result(L, attn_addcmul(fn, self, t1, t2, value, divide, &err), &err);
}

static int addc_(lua_State *L, const char *fn, int divide)
{
    attn_tensor *self = lt_check(L, 1, fn, "input");
    attn_error err;
    if (attn_check_inplace(fn, self, lt_test(L, 2), &err) || attn_check_inplace(fn, self, lt_test(L, 3), &err))
        return lt_raise(L, &err);
    addc(L, fn, divide);
    return store_into(L, fn, self, -1);
}

static int f_addcmul(lua_State *L) { return addc(L, "addcmul", 0); }
static int f_addcdiv(lua_State *L) { return addc(L, "addcdiv", 1); }
static int f_addcmul_(lua_State *L) { return addc_(L, "addcmul_", 0); }
static int f_addcdiv_(lua_State *L) { return addc_(L, "addcdiv_", 1); }

/* An int64 tensor of 1-based ids as the core's 0-based ones (a new tensor). */
static attn_tensor *zero_based(lua_State *L, int idx, const char *fn, const char *what)
{
    attn_tensor *t = lt_check(L, idx, fn, what);
    attn_error err;
    if (t->dtype != ATTN_INT64)
        lt_error(L, "%s: %s must be an int64 tensor of 1-based ids, got %s", fn, what, attn_dtype_name(t->dtype));
    attn_tensor **slot = lt_newslot(L);
    lt_finish(L, slot, attn_binary_scalar(fn, ATTN_SUB, t, attn_int(1), 0, &err), &err);
    lua_replace(L, idx);
    return *slot;
}

/* torch.gather(t, dim, index) and t:gather(dim, index) */
static int f_gather(lua_State *L)
{
    attn_tensor *t = lt_check(L, 1, "gather", "input");
    int dim = lt_check_dim(L, 2, t->ndim == 0 ? 1 : t->ndim, "gather");
    attn_tensor *index = zero_based(L, 3, "gather", "index");
    attn_error err;
    return push_result(L, attn_gather("gather", t, dim, index, &err), &err);
}

/* t:scatter(dim, index, src) and t:scatter_add(dim, index, src), out of place */
static int scatter(lua_State *L, const char *fn, int add)
{
    attn_tensor *t = lt_check(L, 1, fn, "input");
    int dim = lt_check_dim(L, 2, t->ndim == 0 ? 1 : t->ndim, fn);
    attn_tensor *index = zero_based(L, 3, fn, "index");
    attn_tensor *src = lt_check(L, 4, fn, "src");
    attn_error err;
    return push_result(L, attn_scatter(fn, t, dim, index, src, add, &err), &err);
}

static int f_scatter(lua_State *L) { return scatter(L, "scatter", 0); }
static int f_scatter_add(lua_State *L) { return scatter(L, "scatter_add", 1); }

/* torch.bincount(input [, {weights =, minlength = 0}]) and input:bincount(...): input's values are attn's
 * 1-based bins (multinomial's, argmax's ids), so out[i] counts the values i, and PyTorch's
 * torch.bincount(x) is torch.bincount(x + 1) here. */
static int f_bincount(lua_State *L)
{
    attn_tensor *t = lt_check(L, 1, "bincount", "input");
    static const char *const known[] = {"weights", "minlength", NULL};
    int opts = lt_options(L, 2, "bincount", known);
    if (!opts && !lua_isnoneornil(L, 2))
        return lt_error(L, "bincount: the options must be a table such as {minlength = 10}, got %s", lt_typename(L, 2));
    attn_tensor *w = NULL;
    int64_t minlength = 0;
    if (opts) {
        lua_getfield(L, opts, "weights");
        if (!lua_isnil(L, -1))
            w = lt_check(L, lua_gettop(L), "bincount", "weights");
        lua_getfield(L, opts, "minlength");
        if (!lua_isnil(L, -1))
            minlength = lt_check_integer(L, lua_gettop(L), "bincount", "minlength");
    }
    if (t->dtype == ATTN_INT64) { /* the 1-based bins, checked, then 0-based for the core */
        int64_t n = attn_numel(t);
        for (int64_t i = 0; i < n && t->ndim == 1; i++) {
            int64_t v = t->storage->i64[t->offset + i * t->stride[0]];
            if (v < 1)
                return lt_error(L, "bincount: input[%lld] is %lld: attn counts bins from 1 (PyTorch's torch.bincount(x) "
                                   "is torch.bincount(x + 1) here)", (long long)(i + 1), (long long)v);
        }
        if (t->ndim == 1)
            t = zero_based(L, 1, "bincount", "input");
    }
    attn_error err;
    return push_result(L, attn_bincount("bincount", t, w, minlength, &err), &err);
}

/* log_softmax_backward(grad, output, dim): for src/lua/autograd/formulas_extra.lua */
static int f_log_softmax_backward(lua_State *L)
{
    attn_tensor *g = lt_check(L, 1, "log_softmax_backward", "grad");
    attn_tensor *y = lt_check(L, 2, "log_softmax_backward", "output");
    int dim = lt_check_dim(L, 3, y->ndim == 0 ? 1 : y->ndim, "log_softmax_backward");
    attn_error err;
    return push_result(L, attn_log_softmax_backward(g, y, dim, &err), &err);
}

/* randperm(n): from the global generator (src/lua/data swaps a torch.Generator's state in around it). */
static int f_randperm(lua_State *L)
{
    int64_t n = lt_check_integer(L, 1, "randperm", "n");
    attn_error err;
    attn_tensor *t = attn_randperm(n, &err);
    if (t) { /* ids are 1-based in attn: PyTorch's permutation of 0 .. n-1, plus one */
        for (int64_t i = 0; i < n; i++)
            t->storage->i64[i] += 1;
    }
    return push_result(L, t, &err);
}

/* torch.linspace(start, end, steps) */
static int f_linspace(lua_State *L)
{
    double start = lt_check_number(L, 1, "linspace", "start");
    double end = lt_check_number(L, 2, "linspace", "end");
    int64_t steps = lt_check_integer(L, 3, "linspace", "steps");
    attn_error err;
    return push_result(L, attn_linspace(start, end, steps, &err), &err);
}

/* torch.empty((), dtype=torch.int64).random_(): a 64-bit draw reduced modulo 2^63, the seed PyTorch's
 * RandomSampler and DataLoader iterator take from the default generator. */
static int f_random_seed(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)(attn_rng_u64() % ((uint64_t)1 << 63)));
    return 1;
}

static attn_reduction check_reduction(lua_State *L, int idx, const char *fn)
{
    const char *r = luaL_optstring(L, idx, "mean");
    if (strcmp(r, "mean") == 0)
        return ATTN_REDUCE_MEAN;
    if (strcmp(r, "sum") == 0)
        return ATTN_REDUCE_SUM;
    if (strcmp(r, "none") == 0)
        return ATTN_REDUCE_NONE;
    return (attn_reduction)lt_error(L, "%s: reduction must be \"mean\", \"sum\" or \"none\", got \"%s\"", fn, r);
}

/* nll_loss / cross_entropy (input, target, ignore_index, reduction, fn): the Lua side has read the options. */
static int loss(lua_State *L, int log_softmax)
{
    const char *fn = luaL_checkstring(L, 5);
    attn_tensor *input = lt_check(L, 1, fn, "input");
    lt_check(L, 2, fn, "target");
    int64_t ignore = lt_check_integer(L, 3, fn, "ignore_index");
    attn_reduction reduction = check_reduction(L, 4, fn);
    attn_tensor *target = zero_based(L, 2, fn, "target");
    attn_error err;
    ignore = ignore == INT64_MIN ? ignore : ignore - 1;
    return push_result(L, log_softmax ? attn_cross_entropy(fn, input, target, ignore, reduction, &err)
                                      : attn_nll_loss(fn, input, target, ignore, reduction, &err), &err);
}

static int f_nll_loss(lua_State *L) { return loss(L, 0); }
static int f_cross_entropy(lua_State *L) { return loss(L, 1); }

static int f_mse_loss(lua_State *L)
{
    const char *fn = luaL_checkstring(L, 4);
    attn_tensor *input = lt_check(L, 1, fn, "input");
    attn_tensor *target = lt_check(L, 2, fn, "target");
    attn_reduction reduction = check_reduction(L, 3, fn);
    attn_error err;
    if (attn_check_float(fn, "the input", input, &err) || attn_check_float(fn, "the target", target, &err))
        return lt_raise(L, &err);
    return push_result(L, attn_mse_loss(fn, input, target, reduction, &err), &err);
}

/* learn.adam_step(param, grad, exp_avg, exp_avg_sq, {decoupled =, decay =, beta1 =, beta2 =, eps =,
 * bias_correction2_sqrt =, step_size =}): one Adam / AdamW update in place (core/adam_step.c), each
 * tensor's version bumped as an in-place operation bumps it. false, and nothing changed, when the tensors
 * are not contiguous float32 of one shape: src/lua/optim/adam.lua then runs the separate operations. */
static int f_adam_step(lua_State *L)
{
    const char *fn = "adam_step";
    attn_tensor *t[4];
    for (int i = 0; i < 4; i++)
        t[i] = lt_check(L, i + 1, fn, "tensor");
    luaL_checktype(L, 5, LUA_TTABLE);
    double v[7];
    static const char *const keys[7] = {"decay", "beta1", "beta2", "eps", "bias_correction2_sqrt", "step_size",
                                        "decoupled"};
    for (int i = 0; i < 6; i++) {
        lua_getfield(L, 5, keys[i]);
        v[i] = lt_check_number(L, -1, fn, keys[i]);
        lua_pop(L, 1);
    }
    lua_getfield(L, 5, keys[6]);
    int decoupled = lua_toboolean(L, -1);
    lua_pop(L, 1);
    /* each scalar as the separate operation casts its Python float: (float)x */
    attn_adam_scalars s = {decoupled, (float)v[0], (float)v[1], (float)(1 - v[1]), (float)v[2], (float)(1 - v[2]),
                           (float)v[4], (float)v[3], (float)-v[5]};
    int ok = attn_adam_step(t[0], t[1], t[2], t[3], &s) == 0;
    if (ok) {
        t[0]->storage->version++;
        t[2]->storage->version++;
        t[3]->storage->version++;
    }
    lua_pushboolean(L, ok);
    return 1;
}

static const luaL_Reg TORCH[] = {
    {"addcmul", f_addcmul}, {"addcdiv", f_addcdiv}, {"gather", f_gather}, {"linspace", f_linspace},
    {"scatter", f_scatter}, {"scatter_add", f_scatter_add}, {"bincount", f_bincount}, {NULL, NULL}};
static const luaL_Reg METHODS[] = {
    {"addcmul", f_addcmul}, {"addcdiv", f_addcdiv}, {"addcmul_", f_addcmul_}, {"addcdiv_", f_addcdiv_},
    {"gather", f_gather}, {"scatter", f_scatter}, {"scatter_add", f_scatter_add}, {"bincount", f_bincount},
    {NULL, NULL}};
/* the part "learn": what src/lua/nn/losses.lua and src/lua/data build on */
static const luaL_Reg LEARN[] = {
    {"nll_loss", f_nll_loss}, {"cross_entropy", f_cross_entropy}, {"mse_loss", f_mse_loss},
    {"random_seed", f_random_seed}, {"randperm", f_randperm},
    {"log_softmax_backward", f_log_softmax_backward}, {"adam_step", f_adam_step}, {NULL, NULL}};

int luaopen_attn_learn(lua_State *L)
{
    lua_newtable(L);
    lt_newpart(L, "torch", TORCH, NULL);
    lt_newpart(L, "methods", METHODS, NULL);
    lt_newpart(L, "learn", LEARN, NULL);
    return 1;
}
