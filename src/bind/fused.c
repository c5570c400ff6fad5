/* fused.c (bindings) — attention.fused(q, k, v [, {causal = false, scale = 1/sqrt(d)}]), the one-pass
 * attention of src/core/fused.c, a part of the table `attention` (whose stage operations are in
 * bind/attention.c). */
#include <math.h>
#include <string.h>

#include "bind.h"
#include "fused.h"

#define FN "attention.fused"

/* The options table at idx: {causal = boolean, scale = number}; a misspelt key is an error, since a
 * silently ignored {casual = true} would give a different answer. */
static void read_options(lua_State *L, int idx, int *causal, double *scale)
{
    static const char *const known[] = {"causal", "scale", NULL};
    lt_check_options(L, idx, FN, known);
    int t = lua_getfield(L, idx, "causal");
    if (t != LUA_TNIL && t != LUA_TBOOLEAN)
        lt_error(L, "attention.fused: option causal must be true or false, got %s", lt_typename(L, -1));
    *causal = lua_toboolean(L, -1);
    t = lua_getfield(L, idx, "scale");
    if (t != LUA_TNIL) {
        if (t != LUA_TNUMBER)
            lt_error(L, "attention.fused: option scale must be a number, got %s", lt_typename(L, -1));
        *scale = lua_tonumber(L, -1);
        if (isnan(*scale))
            lt_error(L, "attention.fused: option scale must be a number, got nan");
    }
    lua_pop(L, 2);
}

static int f_fused(lua_State *L)
{
    attn_tensor *q = lt_check(L, 1, FN, "q"), *k = lt_check(L, 2, FN, "k"), *v = lt_check(L, 3, FN, "v");
    int causal = 0;
    double scale = NAN;
    if (!lua_isnoneornil(L, 4)) {
        if (!lt_is_options(L, 4))
            return lt_error(L, "attention.fused: argument 4 must be an options table {causal = ..., scale = ...}, got %s",
                            lt_typename(L, 4));
        read_options(L, 4, &causal, &scale);
    }
    if (lua_gettop(L) > 4)
        return lt_error(L, "attention.fused: expected q, k, v and an options table, got %d arguments", lua_gettop(L));
    attn_error err;
    attn_tensor **slot = lt_newslot(L);
    return lt_finish(L, slot, attn_fused(q, k, v, causal, scale, &err), &err);
}

static const luaL_Reg fused_fns[] = {
    {"fused", f_fused},
    {NULL, NULL}
};

int luaopen_attn_fused(lua_State *L)
{
    lua_newtable(L);
    lt_newpart(L, "attention", fused_fns, NULL);
    return 1;
}
