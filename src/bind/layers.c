/* layers.c (bindings) — torch.layer_norm, torch.embedding, torch.erf/sin/cos (also as tensor methods),
 * and gelu/silu, which PyTorch has only as torch.nn.functional.gelu/silu: those two are the part
 * `functional`, which src/lua/nn/functional.lua puts into nn.functional. The numbers
 * are computed in core/layers.c and core/activation.c. */
#include <stdio.h>
#include <string.h>

#include "bind.h"
#include "layers.h"

static int push_result(lua_State *L, attn_tensor *t, attn_error *err)
{
    attn_tensor **slot = lt_newslot(L);
    return lt_finish(L, slot, t, err);
}

/* ---- layer_norm ------------------------------------------------------------------------------ */

/* normalized_shape: one size or a list of sizes (a table or a torch.Size). */
static int check_normalized_shape(lua_State *L, int idx, int64_t *shape)
{
    if (lua_type(L, idx) == LUA_TNUMBER) {
        shape[0] = lt_check_integer(L, idx, "layer_norm", "normalized_shape");
        return 1;
    }
    if (lua_type(L, idx) == LUA_TTABLE && (lt_is_size(L, idx) || lua_rawlen(L, idx) > 0))
        return lt_check_shape_table(L, idx, "layer_norm", shape);
    return lt_error(L, "layer_norm: normalized_shape must be a size or a list of sizes, e.g. 4 or {4} for the "
                       "last dim of the input, got %s", lt_typename(L, idx));
}

static attn_tensor *optional_tensor(lua_State *L, int idx, const char *what)
{
    return lua_isnil(L, idx) ? NULL : lt_check(L, idx, "layer_norm", what);
}

/* torch.layer_norm(input, normalized_shape [, weight [, bias [, eps]]]), all but input also by name */
static int f_layer_norm(lua_State *L)
{
    attn_tensor *x = lt_check(L, 1, "layer_norm", "input");
    static const char *const known[] = {"normalized_shape", "weight", "bias", "eps", NULL};
    int opts = lt_options(L, 3, "layer_norm", known);
    lua_settop(L, 5 > lua_gettop(L) ? 5 : lua_gettop(L)); /* lt_arg pushes: keep positions fixed */
    if (lt_arg(L, 2, opts, "normalized_shape") == LUA_TNIL)
        return lt_error(L, "layer_norm: normalized_shape is missing: give the sizes of the last dims to "
                           "normalize, e.g. torch.layer_norm(x, {%lld})",
                        (long long)(x->ndim ? x->shape[x->ndim - 1] : 1));
    int64_t shape[ATTN_MAX_DIMS];
    int nnorm = check_normalized_shape(L, lua_gettop(L), shape);
    if (nnorm == 0)
        return lt_error(L, "layer_norm: normalized_shape must name at least one dim, got an empty shape");
    if (nnorm > x->ndim || memcmp(shape, x->shape + (x->ndim - nnorm), sizeof(int64_t) * (size_t)nnorm) != 0) {
        char a[160], b[160];
        size_t at = 0;
        for (int d = 0; d < nnorm && at < sizeof b; d++)
            at += (size_t)snprintf(b + at, sizeof b - at, d ? ", %lld" : "%lld", (long long)shape[d]);
        return lt_error(L, "layer_norm: expected an input of shape [*, %s] (normalized_shape [%s]), got %s", b, b,
                        attn_shape_str(x, a, sizeof a));
    }
    lt_arg(L, 3, opts, "weight");
    attn_tensor *weight = optional_tensor(L, lua_gettop(L), "weight");
    lt_arg(L, 4, opts, "bias");
    attn_tensor *bias = optional_tensor(L, lua_gettop(L), "bias");
    double eps = 1e-5;
    if (lt_arg(L, 5, opts, "eps") != LUA_TNIL)
        eps = lt_check_number(L, lua_gettop(L), "layer_norm", "eps");
    attn_error err;
    return push_result(L, attn_layer_norm(x, nnorm, weight, bias, eps, &err), &err);
}

/* ---- embedding ------------------------------------------------------------------------------- */

/* torch.embedding(weight, indices): ids are 1-based, as everything in attn (PyTorch's id 0 is id 1). */
static int f_embedding(lua_State *L)
{
    attn_tensor *weight = lt_check(L, 1, "embedding", "weight");
    attn_tensor *indices = lt_check(L, 2, "embedding", "indices");
    attn_error err;
    return push_result(L, attn_embedding(weight, indices, 1, &err), &err);
}

/* ---- element-wise ---------------------------------------------------------------------------- */

static int activate(lua_State *L, const char *fn, attn_activation f)
{
    attn_tensor *x = lt_check(L, 1, fn, "input");
    attn_error err;
    return push_result(L, attn_activate(f, x, &err), &err);
}

static int f_erf(lua_State *L) { return activate(L, "erf", ATTN_ACT_ERF); }
static int f_sin(lua_State *L) { return activate(L, "sin", ATTN_ACT_SIN); }
static int f_cos(lua_State *L) { return activate(L, "cos", ATTN_ACT_COS); }
static int f_silu(lua_State *L) { return activate(L, "silu", ATTN_ACT_SILU); }

/* gelu(input [, {approximate = "none" | "tanh"}]); the string may also come second. */
static int f_gelu(lua_State *L)
{
    lt_check(L, 1, "gelu", "input");
    static const char *const known[] = {"approximate", NULL};
    int opts = lt_options(L, 2, "gelu", known);
    lua_settop(L, 2 > lua_gettop(L) ? 2 : lua_gettop(L));
    attn_activation f = ATTN_ACT_GELU;
    if (lt_arg(L, 2, opts, "approximate") != LUA_TNIL) {
        const char *s = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        if (s && strcmp(s, "tanh") == 0)
            f = ATTN_ACT_GELU_TANH;
        else if (!s || strcmp(s, "none") != 0)
            return lt_error(L, "gelu: approximate must be \"none\" or \"tanh\", got %s", lt_typename(L, -1));
    }
    lua_settop(L, 1);
    return activate(L, "gelu", f);
}

static const luaL_Reg both[] = {{"erf", f_erf}, {"sin", f_sin}, {"cos", f_cos}, {NULL, NULL}};
static const luaL_Reg torch_only[] = {{"layer_norm", f_layer_norm}, {"embedding", f_embedding}, {NULL, NULL}};
static const luaL_Reg functional[] = {{"gelu", f_gelu}, {"silu", f_silu}, {NULL, NULL}};

int luaopen_attn_layers(lua_State *L)
{
    lua_newtable(L);
    lt_newpart(L, "torch", both, torch_only);
    lt_newpart(L, "methods", both, NULL);
    lt_newpart(L, "functional", functional, NULL);
    return 1;
}
