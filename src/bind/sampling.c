/* sampling.c (bindings) — torch.topk, torch.multinomial and t:exponential_ (core/sampling.c), what
 * chapter 5's generate samples with. Indices are 1-based, as every index in attn (PyTorch's + 1). */
#include "bind.h"
#include "overlap.h"
#include "sampling.h"

static void one_based(attn_tensor *t)
{
    int64_t n = attn_numel(t);
    for (int64_t i = 0; i < n; i++)
        t->storage->i64[i] += 1;
}

/* torch.topk(input, k [, {dim = -1, largest = true, sorted = true}]) -> values, indices */
static int f_topk(lua_State *L)
{
    attn_tensor *t = lt_check(L, 1, "topk", "input");
    static const char *const known[] = {"k", "dim", "largest", "sorted", NULL};
    int opts = lt_options(L, 3, "topk", known);
    lua_settop(L, 5 > lua_gettop(L) ? 5 : lua_gettop(L));
    if (lt_arg(L, 2, opts, "k") == LUA_TNIL)
        return lt_error(L, "topk: k is missing: torch.topk(x, k)");
    int64_t k = lt_check_integer(L, lua_gettop(L), "topk", "k");
    if (lt_arg(L, 3, opts, "dim") != LUA_TNIL) {
        int d = lt_check_dim(L, lua_gettop(L), t->ndim, "topk");
        if (t->ndim && d != t->ndim - 1)
            return lt_error(L, "topk: attn takes the top k along the last dim only (dim = -1), got dim %d", d + 1);
    }
    int largest = 1;
    if (lt_arg(L, 4, opts, "largest") != LUA_TNIL)
        largest = lua_toboolean(L, -1);
    if (opts) {
        lua_getfield(L, opts, "sorted");
        if (!lua_isnil(L, -1) && !lua_toboolean(L, -1))
            return lt_error(L, "topk: attn always sorts the result (sorted = false is not supported)");
    }
    attn_error err;
    attn_tensor **vslot = lt_newslot(L);
    attn_tensor **islot = lt_newslot(L);
    attn_tensor *values, *indices;
    if (attn_topk(t, k, largest, &values, &indices, &err))
        return lt_raise(L, &err);
    one_based(indices);
    *vslot = values;
    *islot = indices;
    lt_account(L);
    return 2;
}

/* torch.multinomial(input, num_samples [, {replacement = false}]) */
static int f_multinomial(lua_State *L)
{
    attn_tensor *t = lt_check(L, 1, "multinomial", "input");
    static const char *const known[] = {"num_samples", "replacement", NULL};
    int opts = lt_options(L, 3, "multinomial", known);
    lua_settop(L, 4 > lua_gettop(L) ? 4 : lua_gettop(L));
    if (lt_arg(L, 2, opts, "num_samples") == LUA_TNIL)
        return lt_error(L, "multinomial: num_samples is missing: torch.multinomial(probs, 1)");
    int64_t n = lt_check_integer(L, lua_gettop(L), "multinomial", "num_samples");
    int replacement = 0;
    if (lt_arg(L, 3, opts, "replacement") != LUA_TNIL) {
        if (!lua_isboolean(L, -1))
            return lt_error(L, "multinomial: replacement must be true or false, got %s", lt_typename(L, -1));
        replacement = lua_toboolean(L, -1);
    }
    attn_error err;
    attn_tensor **slot = lt_newslot(L);
    attn_tensor *r = attn_multinomial(t, n, replacement, &err);
    if (r)
        one_based(r);
    return lt_finish(L, slot, r, &err);
}

/* t:exponential_([lambd = 1]) */
static int f_exponential_(lua_State *L)
{
    attn_tensor *t = lt_check(L, 1, "exponential_", "self");
    double lambd = lua_isnoneornil(L, 2) ? 1.0 : lt_check_number(L, 2, "exponential_", "lambd");
    attn_error err;
    if (attn_check_inplace("exponential_", t, NULL, &err) || attn_exponential_(t, lambd, &err))
        return lt_raise(L, &err);
    lua_settop(L, 1);
    return 1;
}

int luaopen_attn_sampling(lua_State *L)
{
    static const luaL_Reg both[] = {{"topk", f_topk}, {"multinomial", f_multinomial}, {NULL, NULL}};
    static const luaL_Reg methods_only[] = {{"exponential_", f_exponential_}, {NULL, NULL}};
    lua_newtable(L);
    lt_newpart(L, "torch", both, NULL);
    lt_newpart(L, "methods", both, methods_only);
    return 1;
}
