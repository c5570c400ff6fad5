/* variance.c (bindings) — torch.var and torch.std (also as methods), with PyTorch's arguments:
 *   x:var()  x:var(unbiased)  x:var(dim [, unbiased [, keepdim]])
 *   x:var{dim = d, unbiased = false, keepdim = true}  x:var{dim = d, correction = 0}
 * The numbers are computed in core/variance.c. */
#include "bind.h"

/* The arguments of var/std: dim (1-based, or -1: all), the correction (1 unbiased, 0 biased), keepdim. */
static void var_args(lua_State *L, const attn_tensor *t, const char *fn, int *dim, int64_t *correction,
                     int *keepdim)
{
    static const char *const known[] = {"dim", "unbiased", "correction", "keepdim", NULL};
    int opts = lt_options(L, 2, fn, known);
    lua_settop(L, 4 > lua_gettop(L) ? 4 : lua_gettop(L)); /* lt_arg pushes: keep positions fixed */
    *dim = -1;
    int unbiased = 1, unbiased_pos = 3;
    if (lua_type(L, 2) == LUA_TBOOLEAN) /* var(unbiased): over all elements */
        unbiased_pos = 2;
    else if (lt_arg(L, 2, opts, "dim") != LUA_TNIL)
        *dim = lt_check_dim(L, -1, t->ndim, fn);
    int type = lt_arg(L, unbiased_pos, opts, "unbiased");
    if (type != LUA_TNIL && type != LUA_TBOOLEAN)
        lt_error(L, "%s: unbiased must be true or false, got %s", fn, lt_typename(L, -1));
    if (type == LUA_TBOOLEAN)
        unbiased = lua_toboolean(L, -1);
    *correction = unbiased ? 1 : 0;
    if (opts && lua_getfield(L, opts, "correction") != LUA_TNIL) {
        if (type != LUA_TNIL)
            lt_error(L, "%s: give either unbiased or correction, not both", fn);
        *correction = lt_check_integer(L, -1, fn, "correction");
    }
    type = lt_arg(L, unbiased_pos == 2 ? 5 : 4, opts, "keepdim");
    if (type != LUA_TNIL && type != LUA_TBOOLEAN)
        lt_error(L, "%s: keepdim must be true or false, got %s", fn, lt_typename(L, -1));
    *keepdim = lua_toboolean(L, -1);
    if (t->ndim == 0 && *dim == 0)
        *dim = -1; /* a 0-d tensor reduced over its only "dim" */
}

static int var_or_std(lua_State *L, const char *fn, int take_sqrt)
{
    attn_tensor *t = lt_check(L, 1, fn, "input");
    int dim, keepdim;
    int64_t correction;
    var_args(L, t, fn, &dim, &correction, &keepdim);
    attn_error err;
    attn_tensor **slot = lt_newslot(L);
    return lt_finish(L, slot, attn_var(fn, t, dim, correction, keepdim, take_sqrt, &err), &err);
}

static int f_var(lua_State *L) { return var_or_std(L, "var", 0); }
static int f_std(lua_State *L) { return var_or_std(L, "std", 1); }

static const luaL_Reg functions[] = {{"var", f_var}, {"std", f_std}, {NULL, NULL}};

int luaopen_attn_variance(lua_State *L)
{
    lua_newtable(L);
    lt_newpart(L, "torch", functions, NULL);
    lt_newpart(L, "methods", functions, NULL);
    return 1;
}
