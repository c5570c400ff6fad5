/* alpha.c (bindings) — the options table of the element-wise binary operations: only add and sub take
 * one, {alpha = s}, PyTorch's keyword (a + s·b, a - s·b, rounded once: core's attn_add_scaled); any
 * other key, or an options table given to mul, div, ..., is refused by name (lt_check_options). */
#include "bind.h"

static int push_result(lua_State *L, attn_tensor *t, attn_error *err)
{
    attn_tensor **slot = lt_newslot(L);
    return lt_finish(L, slot, t, err);
}

int lt_binary_options(lua_State *L, const char *fn, int takes_alpha, int negate)
{
    static const char *const none[] = {NULL}, *const alpha_only[] = {"alpha", NULL};
    int opts = lua_gettop(L) >= 3 && lt_is_options(L, 3) ? 3 : 0;
    lt_check_options(L, opts, fn, takes_alpha ? alpha_only : none);
    if (!opts || lua_getfield(L, opts, "alpha") == LUA_TNIL) {
        if (opts)
            lua_pop(L, 1);
        return 0;
    }
    attn_number alpha = lt_check_value(L, -1, fn, "alpha");
    lua_pop(L, 1);
    if (negate) { /* PyTorch's sub is add with -alpha */
        if (alpha.dtype == ATTN_BOOL)
            return lt_error(L, "%s: alpha must be a number, got a boolean", fn);
        alpha.f = -alpha.f;
        alpha.i = (int64_t)(0 - (uint64_t)alpha.i);
    }
    attn_error err;
    attn_tensor *ab[2];
    for (int i = 0; i < 2; i++) { /* numbers become 0-d tensors */
        ab[i] = lt_test(L, 1 + i);
        if (!ab[i]) {
            attn_number v = lt_check_value(L, 1 + i, fn, i ? "other" : "input");
            attn_tensor **slot = lt_newslot(L);
            lt_finish(L, slot, attn_scalar_number(v, &err), &err);
            lua_replace(L, 1 + i);
            ab[i] = *slot;
        }
    }
    return push_result(L, attn_add_scaled(fn, ab[0], ab[1], alpha, &err), &err);
}
