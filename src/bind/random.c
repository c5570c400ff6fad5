/* random.c (bindings) — torch.manual_seed, rand/randn/randint, the in-place fills uniform_/normal_/
 * bernoulli_, the generator state, the Bernoulli flavour and torch.dropout. The streams themselves
 * are in core/rng.c and follow PyTorch bit for bit. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attention.h"
#include "bind.h"
#include "overlap.h"
#include "rng.h"

static int f_manual_seed(lua_State *L)
{
    if (lua_type(L, 1) != LUA_TNUMBER)
        return lt_error(L, "manual_seed: seed must be a non-negative integer, got %s", lt_typename(L, 1));
    int64_t seed = lt_check_integer(L, 1, "manual_seed", "seed");
    if (seed < 0)
        return lt_error(L, "manual_seed: seed must be a non-negative integer, got %lld", (long long)seed);
    attn_manual_seed((uint64_t)seed);
    return 0;
}

static int f_initial_seed(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)attn_initial_seed());
    return 1;
}

/* Fills t (any layout) in row-major order from a buffer the generator wrote. */
static int fill_from(lua_State *L, attn_tensor *t, float *buf)
{
    int64_t n = attn_numel(t), index[ATTN_MAX_DIMS] = {0};
    for (int64_t i = 0; i < n; i++) {
        if (attn_poll(i))
            return -1;
        if (t->dtype == ATTN_INT64)
            t->storage->i64[attn_offset_of(t, index)] = attn_f64_to_i64(buf[i]);
        else
            *attn_ptr(t, index) = t->dtype == ATTN_BOOL ? (buf[i] != 0.0f) : buf[i];
        for (int d = t->ndim - 1; d >= 0; d--) {
            if (++index[d] < t->shape[d])
                break;
            index[d] = 0;
        }
    }
    return 0;
}

typedef enum { GEN_RAND, GEN_RANDN } gen_kind;

static int generate(lua_State *L, const char *fn, gen_kind kind)
{
    int64_t shape[ATTN_MAX_DIMS];
    int ndim = lt_check_shape(L, 1, fn, shape);
    attn_tensor **slot = lt_newslot(L);
    attn_error err;
    attn_tensor *t = attn_empty(fn, ndim, shape, ATTN_FLOAT32, &err);
    lt_finish(L, slot, t, &err);
    /* a fresh tensor is contiguous: the generator writes straight into it */
    if (kind == GEN_RAND ? attn_rand_fill(t->storage->data, attn_numel(t))
                         : attn_randn_fill(t->storage->data, attn_numel(t)))
        return lt_interrupted(L);
    return 1;
}

static int f_rand(lua_State *L) { return generate(L, "rand", GEN_RAND); }
static int f_randn(lua_State *L) { return generate(L, "randn", GEN_RANDN); }

/* torch.randint(high, size) or torch.randint(low, high, size) */
static int f_randint(lua_State *L)
{
    int64_t low = 0, high;
    int size_at;
    if (lua_type(L, 2) == LUA_TNUMBER) {
        low = lt_check_integer(L, 1, "randint", "low");
        high = lt_check_integer(L, 2, "randint", "high");
        size_at = 3;
    } else {
        high = lt_check_integer(L, 1, "randint", "high");
        size_at = 2;
    }
    if (lua_type(L, size_at) != LUA_TTABLE)
        return lt_error(L, "randint: size must be a table such as {2, 3}, got %s", lt_typename(L, size_at));
    int64_t shape[ATTN_MAX_DIMS];
    int ndim = lt_check_shape_table(L, size_at, "randint", shape);
    attn_error err;
    if (high <= low)
        return lt_error(L, "randint: high must be greater than low, got low %lld and high %lld", (long long)low,
                          (long long)high);
    attn_tensor **slot = lt_newslot(L);
    attn_tensor *t = attn_empty("randint", ndim, shape, ATTN_INT64, &err);
    lt_finish(L, slot, t, &err);
    if (attn_randint_fill(t->storage->i64, attn_numel(t), low, high, &err))
        return lt_raise(L, &err);
    return 1;
}

/* The in-place fills draw n numbers into a scratch buffer, then copy them into t and return t: in
 * memory order (PyTorch's TensorIterator walks a tensor's memory, so t:t():uniform_() gets the numbers
 * in the order of t's storage) or, for a kernel that fills a contiguous scratch tensor first and copies
 * it (MKL's Bernoulli), in row-major order. For a contiguous t the two are the same. */
typedef int (*fill_fn)(float *out, int64_t n, double a, double b);

static int fill_in_place(lua_State *L, attn_tensor *t, fill_fn fill, double a, double b, int memory_order)
{
    int64_t n = attn_numel(t);
    attn_error err;
    attn_tensor **view = lt_newslot(L); /* owned by Lua while we work */
    lt_finish(L, view, memory_order ? attn_memory_order(t, &err) : attn_alias(t, &err), &err);
    float *buf = lua_newuserdatauv(L, sizeof(float) * (size_t)(n > 0 ? n : 1), 0);
    if (fill(buf, n, a, b) || fill_from(L, *view, buf))
        return lt_interrupted(L);
    lua_settop(L, 1);
    return 1;
}

/* The two optional numbers of uniform_(from, to) and normal_(mean, std), positional or by name. */
static void two_numbers(lua_State *L, const char *fn, const char *name1, double *v1, const char *name2,
                        double *v2)
{
    const char *const known[] = {name1, name2, NULL};
    int opts = lt_options(L, 2, fn, known);
    lua_settop(L, 3 > lua_gettop(L) ? 3 : lua_gettop(L)); /* lt_arg pushes: keep positions fixed */
    if (lt_arg(L, 2, opts, name1) != LUA_TNIL)
        *v1 = lt_check_number(L, -1, fn, name1);
    if (lt_arg(L, 3, opts, name2) != LUA_TNIL)
        *v2 = lt_check_number(L, -1, fn, name2);
}

static int f_uniform_(lua_State *L)
{
    attn_tensor *t = lt_check(L, 1, "uniform_", "input");
    attn_error err;
    if (attn_check_float("uniform_", "the tensor", t, &err) || attn_check_inplace("uniform_", t, NULL, &err))
        return lt_raise(L, &err);
    double a = 0, b = 1;
    two_numbers(L, "uniform_", "from", &a, "to", &b);
    if (!(a <= b) || !isfinite(a) || !isfinite(b))
        return lt_error(L, "uniform_: expects from <= to, both finite, got from %g and to %g", a, b);
    return fill_in_place(L, t, attn_uniform_fill, a, b, 1);
}

static int f_normal_(lua_State *L)
{
    attn_tensor *t = lt_check(L, 1, "normal_", "input");
    attn_error err;
    if (attn_check_float("normal_", "the tensor", t, &err) || attn_check_inplace("normal_", t, NULL, &err))
        return lt_raise(L, &err);
    double mean = 0, std = 1;
    two_numbers(L, "normal_", "mean", &mean, "std", &std);
    if (!(std >= 0) || !isfinite(mean) || !isfinite(std))
        return lt_error(L, "normal_: expects a finite mean and std >= 0, got mean %g and std %g", mean, std);
    /* PyTorch vectorises a contiguous tensor of 16 or more; anything else gets one draw per element */
    if (attn_is_contiguous(t) && attn_numel(t) >= 16)
        return fill_in_place(L, t, attn_normal_fill, mean, std, 0);
    return fill_in_place(L, t, attn_normal_fill_serial, mean, std, 1);
}

static int bernoulli_fill(float *out, int64_t n, double p, double unused)
{
    (void)unused;
    return attn_bernoulli_fill(out, n, p);
}

static double check_probability(lua_State *L, int idx, const char *fn, const char *what)
{
    double p = lt_check_number(L, idx, fn, what);
    if (!(p >= 0 && p <= 1))
        lt_error(L, "%s: %s must be between 0 and 1, got %g", fn, what, p);
    return p;
}

static int f_bernoulli_(lua_State *L)
{
    attn_tensor *t = lt_check(L, 1, "bernoulli_", "input");
    attn_error err;
    if (attn_check_inplace("bernoulli_", t, NULL, &err))
        return lt_raise(L, &err);
    static const char *const known[] = {"p", NULL};
    int opts = lt_options(L, 2, "bernoulli_", known);
    double p = 0.5;
    if (lt_arg(L, 2, opts, "p") != LUA_TNIL)
        p = check_probability(L, -1, "bernoulli_", "p");
    return fill_in_place(L, t, bernoulli_fill, p, 0, attn_get_bernoulli_flavor() == ATTN_BERNOULLI_DEFAULT);
}

/* torch.dropout(x, p, train) — what nn.Dropout calls. As PyTorch's _dropout_impl: with p = 0, or not
 * training, the input itself is returned and no random numbers are used; with p = 1 the result is
 * all zeros (again without drawing); otherwise noise = bernoulli_(1 - p), noise /= (1 - p), x * noise. */
static int f_dropout(lua_State *L)
{
    attn_tensor *x = lt_check(L, 1, "dropout", "input");
    static const char *const known[] = {"p", "train", NULL};
    int opts = lt_options(L, 2, "dropout", known);
    lua_settop(L, 3 > lua_gettop(L) ? 3 : lua_gettop(L)); /* lt_arg pushes: keep positions fixed */
    double p = 0.5;
    if (lt_arg(L, 2, opts, "p") != LUA_TNIL)
        p = check_probability(L, -1, "dropout", "p");
    int train = 1;
    if (lt_arg(L, 3, opts, "train") != LUA_TNIL)
        train = lua_toboolean(L, -1);
    lua_settop(L, 1);
    if (p == 0 || !train || attn_numel(x) == 0)
        return 1;
    attn_error err;
    attn_tensor **slot = lt_newslot(L);
    return lt_finish(L, slot, attn_dropout("dropout", x, p, &err), &err);
}

static int f_get_rng_state(lua_State *L)
{
    size_t n = attn_rng_state_size();
    unsigned char *buf = lua_newuserdatauv(L, n, 0);
    attn_rng_get_state(buf);
    lua_pushlstring(L, (const char *)buf, n);
    return 1;
}

static int f_set_rng_state(lua_State *L)
{
    if (lua_type(L, 1) != LUA_TSTRING)
        return lt_error(L, "set_rng_state: expected a state from torch.get_rng_state(), got %s",
                          lt_typename(L, 1));
    size_t n;
    const char *s = lua_tolstring(L, 1, &n);
    attn_error err;
    if (attn_rng_set_state((const unsigned char *)s, n, &err))
        return lt_raise(L, &err);
    return 0;
}

static const char *flavor_names[] = {"mkl", "default", NULL};

static int f_set_bernoulli_flavor(lua_State *L)
{
    if (lua_type(L, 1) != LUA_TSTRING)
        return lt_error(L, "set_bernoulli_flavor: expected \"mkl\" or \"default\", got %s", lt_typename(L, 1));
    const char *name = lua_tostring(L, 1);
    int i = 0;
    while (flavor_names[i] && strcmp(flavor_names[i], name) != 0)
        i++;
    if (!flavor_names[i])
        return lt_error(L, "set_bernoulli_flavor: expected \"mkl\" (PyTorch built with MKL, as the book's Chinese translation prints) "
                             "or \"default\" (built without, as the English edition prints), got \"%s\"", name);
    lua_pushstring(L, flavor_names[attn_get_bernoulli_flavor()]);
    attn_set_bernoulli_flavor((attn_bernoulli_flavor)i);
    return 1;
}

static int f_get_bernoulli_flavor(lua_State *L)
{
    lua_pushstring(L, flavor_names[attn_get_bernoulli_flavor()]);
    return 1;
}

/* torch.backends.cpu.get_cpu_capability() (PyTorch 2's name): "AVX2", the kernels of PyTorch's whose
 * results attn reproduces bit for bit (randn's vectorised Box-Muller, sin/cos in groups of 8) on every
 * machine, whatever instruction set its own kernels run (isa.h). */
static int f_get_cpu_capability(lua_State *L)
{
    lua_pushstring(L, "AVX2");
    return 1;
}

static const luaL_Reg functions[] = {
    {"manual_seed", f_manual_seed}, {"initial_seed", f_initial_seed}, {"rand", f_rand}, {"randn", f_randn},
    {"randint", f_randint}, {"dropout", f_dropout}, {"get_rng_state", f_get_rng_state},
    {"set_rng_state", f_set_rng_state}, {"set_bernoulli_flavor", f_set_bernoulli_flavor},
    {"get_bernoulli_flavor", f_get_bernoulli_flavor}, {NULL, NULL}};

static const luaL_Reg methods_only[] = {
    {"uniform_", f_uniform_}, {"normal_", f_normal_}, {"bernoulli_", f_bernoulli_}, {NULL, NULL}};

int luaopen_attn_random(lua_State *L)
{
    lua_newtable(L);
    lt_newpart(L, "torch", functions, NULL);
    lt_newpart(L, "methods", methods_only, NULL);
    lua_getfield(L, -1, "torch");
    lua_createtable(L, 0, 1); /* torch.backends */
    lua_createtable(L, 0, 1); /* torch.backends.cpu */
    lua_pushcfunction(L, f_get_cpu_capability);
    lua_setfield(L, -2, "get_cpu_capability");
    lua_setfield(L, -2, "cpu");
    lua_setfield(L, -2, "backends");
    lua_pop(L, 1);
    return 1;
}
