/* autograd.c (bindings) — the one C piece of attn's autograd (src/lua/autograd): the dispatch in front
 * of every differentiable op. autograd.wrap(orig, impl, graph) returns a C closure that
 *   - when grad mode is off (graph.enabled) or no argument requires grad (graph.meta[arg] has
 *     requires_grad or grad_fn; a plain table argument, torch.cat's list, is looked into), runs the
 *     op's C function itself, in its own frame: its errors name the function as the user called it
 *     and point at the user's line, as without autograd;
 *   - otherwise calls impl(caller, ...), the Lua function that runs the op and records its node
 *     (caller: orig called by name, the fourth argument).
 * It is C, not Lua, because a Lua wrapper that the user's code tail-calls (return x:matmul(w))
 * would take the place of the user's frame, and the error would lose the user's line. */
#include "attn_lua.h"
#include "bind.h"
#include "layers.h"
#include "ops.h"

static int requires_grad(lua_State *L, int meta, int idx)
{
    int t = lua_type(L, idx);
    if (t != LUA_TUSERDATA && t != LUA_TTABLE)
        return 0;
    lua_pushvalue(L, idx);
    if (lua_rawget(L, meta) == LUA_TTABLE) {
        int yes = lua_getfield(L, -1, "grad_fn") != LUA_TNIL;
        lua_pop(L, 1);
        if (!yes) {
            lua_getfield(L, -1, "requires_grad");
            yes = lua_toboolean(L, -1);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
        return yes;
    }
    lua_pop(L, 1);
    if (t == LUA_TTABLE && !lua_getmetatable(L, idx)) { /* a list of tensors */
        lua_Integer n = (lua_Integer)lua_rawlen(L, idx);
        for (lua_Integer i = 1; i <= n; i++) {
            lua_rawgeti(L, idx, i);
            int yes = lua_type(L, -1) == LUA_TUSERDATA && requires_grad(L, meta, lua_gettop(L));
            lua_pop(L, 1);
            if (yes)
                return 1;
        }
    } else if (t == LUA_TTABLE) {
        lua_pop(L, 1); /* the metatable lua_getmetatable pushed */
    }
    return 0;
}

static int recording(lua_State *L, int n)
{
    int graph = lua_upvalueindex(3);
    lua_getfield(L, graph, "enabled");
    int enabled = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (!enabled)
        return 0;
    lua_getfield(L, graph, "meta");
    int meta = lua_gettop(L), yes = 0;
    for (int i = 1; i <= n && !yes; i++)
        yes = requires_grad(L, meta, i);
    lua_settop(L, n);
    return yes;
}

int lt_autograd_dispatch(lua_State *L)
{
    int n = lua_gettop(L);
    if (!recording(L, n)) {
        lua_CFunction f = lua_tocfunction(L, lua_upvalueindex(1));
        if (f)
            return f(L); /* the op in this frame: same name, same stack, same errors */
        lua_pushvalue(L, lua_upvalueindex(4));
        lua_insert(L, 1);
        lua_call(L, n, LUA_MULTRET);
        return lua_gettop(L);
    }
    lua_pushvalue(L, lua_upvalueindex(2)); /* impl */
    lua_pushvalue(L, lua_upvalueindex(4)); /* caller */
    lua_rotate(L, 1, 2);
    lua_call(L, n + 1, LUA_MULTRET);
    return lua_gettop(L);
}

/* Autograd's version counter (src/lua/autograd/graph.lua): one per storage, so a write through any
 * view of a tensor is seen by every other view of it, as PyTorch's is. */
static int tensor_version(lua_State *L)
{
    attn_tensor *t = lt_check(L, 1, "version", "tensor");
    lua_pushinteger(L, (lua_Integer)t->storage->version);
    return 1;
}

static int tensor_bump_version(lua_State *L)
{
    attn_tensor *t = lt_check(L, 1, "bump_version", "tensor");
    t->storage->version++;
    return 0;
}

/* Whether two tensors share one storage (a view of the other, or both views of a third). */
static int tensor_shares_storage(lua_State *L)
{
    attn_tensor *a = lt_check(L, 1, "shares_storage", "tensor");
    attn_tensor *b = lt_check(L, 2, "shares_storage", "tensor");
    lua_pushboolean(L, a->storage == b->storage);
    return 1;
}

/* Whether t is the whole of its storage, contiguous from its start: no other tensor can see an
 * element of it that t does not (autograd lets t[i] = v record onto such a tensor). */
static int tensor_is_whole(lua_State *L)
{
    attn_tensor *t = lt_check(L, 1, "is_whole", "tensor");
    lua_pushboolean(L, t->offset == 0 && attn_numel(t) == t->storage->numel && attn_is_contiguous(t));
    return 1;
}

/* Whether t is the whole of its storage and the only tensor on it: no other tensor alive can see or
 * change its numbers (the autograd engine then keeps a gradient as .grad instead of copying it). */
static int tensor_is_sole(lua_State *L)
{
    attn_tensor *t = lt_check(L, 1, "is_sole", "tensor");
    lua_pushboolean(L, t->offset == 0 && attn_numel(t) == t->storage->numel && attn_is_contiguous(t) &&
                           t->storage->refcount == 1);
    return 1;
}

/* A new tensor header on t's storage (autograd's detach: same numbers, no history). */
static int tensor_alias(lua_State *L)
{
    attn_tensor *t = lt_check(L, 1, "detach", "tensor");
    attn_tensor **slot = lt_newslot(L);
    attn_error err;
    return lt_finish(L, slot, attn_alias(t, &err), &err);
}

static int f_tanh_backward(lua_State *L)
{
    attn_tensor *g = lt_check(L, 1, "tanh_backward", "grad");
    attn_tensor *y = lt_check(L, 2, "tanh_backward", "y");
    attn_tensor **slot = lt_newslot(L);
    attn_error err;
    return lt_finish(L, slot, attn_tanh_backward(g, y, &err), &err);
}

/* autograd.softmax_backward(grad, y, dim): dim 1-based or negative */
static int f_softmax_backward(lua_State *L)
{
    attn_tensor *g = lt_check(L, 1, "softmax_backward", "grad");
    attn_tensor *y = lt_check(L, 2, "softmax_backward", "y");
    int dim = y->ndim ? lt_check_dim(L, 3, y->ndim, "softmax_backward") : 0;
    attn_tensor **slot = lt_newslot(L);
    attn_error err;
    return lt_finish(L, slot, attn_softmax_backward(g, y, dim, &err), &err);
}

/* autograd.layer_norm_backward(grad, x, nnorm, weight or nil, eps) -> dx, dweight, dbias (nil, nil without a
 * weight): src/core/layers.c, PyTorch's kernel */
static int f_layer_norm_backward(lua_State *L)
{
    attn_tensor *g = lt_check(L, 1, "layer_norm_backward", "grad");
    attn_tensor *x = lt_check(L, 2, "layer_norm_backward", "input");
    int nnorm = (int)lt_check_integer(L, 3, "layer_norm_backward", "nnorm");
    attn_tensor *w = lua_isnil(L, 4) ? NULL : lt_check(L, 4, "layer_norm_backward", "weight");
    double eps = lt_check_number(L, 5, "layer_norm_backward", "eps");
    attn_tensor **slots[3] = {lt_newslot(L), lt_newslot(L), lt_newslot(L)};
    attn_tensor *dx, *dw, *db;
    attn_error err;
    if (attn_layer_norm_backward(g, x, nnorm, w, eps, &dx, &dw, &db, &err))
        return lt_finish(L, slots[0], NULL, &err);
    *slots[0] = dx, *slots[1] = dw, *slots[2] = db;
    if (!dw) {
        lua_pop(L, 2);
        lua_pushnil(L);
        lua_pushnil(L);
    }
    return 3;
}

/* autograd.wrap(orig, impl, graph, caller): orig's C function is run directly only when it has no
 * upvalues (it would read the dispatch's own); otherwise caller(...) runs it. */
static int f_wrap(lua_State *L)
{
    luaL_checktype(L, 2, LUA_TFUNCTION);
    luaL_checktype(L, 3, LUA_TTABLE);
    luaL_checktype(L, 4, LUA_TFUNCTION);
    const char *up = lua_iscfunction(L, 1) ? lua_getupvalue(L, 1, 1) : NULL;
    if (up)
        lua_pop(L, 1);
    int direct = lua_iscfunction(L, 1) && !up;
    if (!direct) {
        lua_settop(L, 4);
        lua_pushboolean(L, 0); /* not a C function to call directly: upvalue 1 is only a marker */
        lua_replace(L, 1);
    }
    lua_settop(L, 4);
    lua_pushcclosure(L, lt_autograd_dispatch, 4);
    return 1;
}

int luaopen_attn_autograd(lua_State *L)
{
    static const luaL_Reg fns[] = {{"wrap", f_wrap}, {"version", tensor_version}, {"bump_version", tensor_bump_version},
                                   {"shares_storage", tensor_shares_storage}, {"alias", tensor_alias},
                                   {"is_whole", tensor_is_whole}, {"is_sole", tensor_is_sole},
                                   {"tanh_backward", f_tanh_backward},
                                   {"softmax_backward", f_softmax_backward}, {"layer_norm_backward", f_layer_norm_backward}, {NULL, NULL}};
    lua_newtable(L);
    lt_newpart(L, "autograd", fns, NULL);
    return 1;
}
