/* attention.c (bindings) — the global table `attention`: the stages of core/attention.c (scores, scale,
 * masks, softmax, weighted_sum, dropout, heads, other score functions). attention.forward, trace and
 * heatmap are Lua (src/lua/attention/) on top of these. bind/fused.c adds attention.fused. */
#include <math.h>

#include "attention.h"
#include "bind.h"

static int push_result(lua_State *L, attn_tensor *t, attn_error *err)
{
    attn_tensor **slot = lt_newslot(L);
    return lt_finish(L, slot, t, err);
}

static int scores(lua_State *L, const char *fn)
{
    attn_tensor *q = lt_check(L, 1, fn, "q");
    attn_tensor *k = lt_check(L, 2, fn, "k");
    attn_error err;
    return push_result(L, attn_scores(q, k, &err), &err);
}

static int f_scores(lua_State *L) { return scores(L, "attention.scores"); }

/* Luong's name for the same score; its own function so help(attention.dot) finds its own entry, and its
 * errors name it. */
static int f_dot(lua_State *L) { return scores(L, "attention.dot"); }

static int f_scale(lua_State *L)
{
    attn_tensor *s = lt_check(L, 1, "attention.scale", "s");
    if (lua_isnoneornil(L, 2))
        return lt_error(L, "attention.scale: d_k is required (the key dim, e.g. keys.shape[-1])");
    double d_k = lt_check_number(L, 2, "attention.scale", "d_k");
    attn_error err;
    return push_result(L, attn_scale(s, d_k, &err), &err);
}

static int f_causal_mask(lua_State *L)
{
    int64_t n = lt_check_integer(L, 1, "attention.causal_mask", "n");
    int64_t m = lua_isnoneornil(L, 2) ? n : lt_check_integer(L, 2, "attention.causal_mask", "m");
    attn_error err;
    return push_result(L, attn_causal_mask(n, m, &err), &err);
}

/* lens: a tensor, or a table of numbers made into one by torch.tensor. */
static int f_valid_len_mask(lua_State *L)
{
    int64_t n = lt_check_integer(L, 1, "attention.valid_len_mask", "n");
    if (lua_type(L, 2) == LUA_TTABLE && !lt_test(L, 2)) {
        lua_pushcfunction(L, lt_torch_tensor);
        lua_pushvalue(L, 2);
        if (lua_pcall(L, 1, 1, 0) != LUA_OK) /* say whose argument it was: "tensor: element 1 is a string" */
            return lt_error(L, "attention.valid_len_mask: lens: %s",
                            lua_isstring(L, -1) ? lua_tostring(L, -1) : attn_tr("not a table of numbers"));
        lua_replace(L, 2);
    }
    attn_tensor *lens = lt_check(L, 2, "attention.valid_len_mask", "lens");
    attn_error err;
    return push_result(L, attn_valid_len_mask(n, lens, &err), &err);
}

static int f_mask(lua_State *L)
{
    attn_tensor *s = lt_check(L, 1, "attention.mask", "s");
    attn_tensor *hidden = lt_check(L, 2, "attention.mask", "hidden");
    float fill = lua_isnoneornil(L, 3) ? -HUGE_VALF : (float)lt_check_number(L, 3, "attention.mask", "fill");
    attn_error err;
    return push_result(L, attn_mask(s, hidden, fill, &err), &err);
}

static int f_softmax(lua_State *L)
{
    attn_tensor *s = lt_check(L, 1, "attention.softmax", "s");
    static const char *const known[] = {"dim", NULL};
    int opts = lt_options(L, 2, "attention.softmax", known);
    int dim = s->ndim > 0 ? s->ndim - 1 : 0;
    if (lt_arg(L, 2, opts, "dim") != LUA_TNIL)
        dim = lt_check_dim(L, -1, s->ndim, "attention.softmax");
    attn_error err;
    return push_result(L, attn_softmax(s, s->ndim == 0 ? 0 : dim, 0, &err), &err);
}

static int f_weighted_sum(lua_State *L)
{
    attn_tensor *w = lt_check(L, 1, "attention.weighted_sum", "w");
    attn_tensor *v = lt_check(L, 2, "attention.weighted_sum", "v");
    attn_error err;
    return push_result(L, attn_weighted_sum(w, v, &err), &err);
}

static int f_dropout(lua_State *L)
{
    attn_tensor *w = lt_check(L, 1, "attention.dropout", "w");
    if (lua_isnoneornil(L, 2))
        return lt_error(L, "attention.dropout: p (the probability of dropping each weight) is required");
    double p = lt_check_number(L, 2, "attention.dropout", "p");
    attn_error err;
    return push_result(L, attn_dropout("attention.dropout", w, p, &err), &err);
}

static int f_split_heads(lua_State *L)
{
    attn_tensor *x = lt_check(L, 1, "attention.split_heads", "x");
    int64_t h = lt_check_integer(L, 2, "attention.split_heads", "h");
    attn_error err;
    return push_result(L, attn_split_heads(x, h, &err), &err);
}

static int f_merge_heads(lua_State *L)
{
    attn_tensor *x = lt_check(L, 1, "attention.merge_heads", "x");
    attn_error err;
    return push_result(L, attn_merge_heads(x, &err), &err);
}

static int f_general(lua_State *L)
{
    attn_tensor *s = lt_check(L, 1, "attention.general", "s");
    attn_tensor *W = lt_check(L, 2, "attention.general", "W");
    attn_tensor *h = lt_check(L, 3, "attention.general", "h");
    attn_error err;
    return push_result(L, attn_general(s, W, h, &err), &err);
}

static int f_additive(lua_State *L)
{
    attn_tensor *q = lt_check(L, 1, "attention.additive", "q");
    attn_tensor *k = lt_check(L, 2, "attention.additive", "k");
    attn_tensor *W_q = lt_check(L, 3, "attention.additive", "W_q");
    attn_tensor *W_k = lt_check(L, 4, "attention.additive", "W_k");
    attn_tensor *v = lt_check(L, 5, "attention.additive", "v");
    attn_error err;
    return push_result(L, attn_additive(q, k, W_q, W_k, v, &err), &err);
}

static const luaL_Reg functions[] = {
    {"scores", f_scores}, {"dot", f_dot}, {"scale", f_scale}, {"causal_mask", f_causal_mask},
    {"valid_len_mask", f_valid_len_mask}, {"mask", f_mask}, {"softmax", f_softmax},
    {"weighted_sum", f_weighted_sum}, {"dropout", f_dropout}, {"split_heads", f_split_heads},
    {"merge_heads", f_merge_heads}, {"general", f_general}, {"additive", f_additive}, {NULL, NULL}};

int luaopen_attn_attention(lua_State *L)
{
    lua_newtable(L);
    lt_newpart(L, "attention", functions, NULL);
    return 1;
}
