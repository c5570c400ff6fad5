/* threads.c (bindings) — torch.set_num_threads(n) and torch.get_num_threads(), as in PyTorch, and
 * torch.kernels(): which instruction set attn's exact kernels run with (src/core/isa.h). Threads and the
 * instruction set change only the time: every kernel computes each number in one order whatever they are. */
#include "bind.h"
#include "isa.h"
#include "parallel.h"

static int f_set_num_threads(lua_State *L)
{
    lua_Integer n = lt_check_integer(L, 1, "set_num_threads", "n");
    if (n < 1 || n > attn_max_threads())
        return lt_error(L, "torch.set_num_threads: n must be between 1 and %d, got %lld", attn_max_threads(), (long long)n);
    attn_set_threads((int)n);
    return 0;
}

static int f_get_num_threads(lua_State *L)
{
    lua_pushinteger(L, attn_threads());
    return 1;
}

static int f_kernels(lua_State *L)
{
    lua_pushstring(L, attn_isa_name(attn_isa_current()));
    return 1;
}

static const luaL_Reg torch_fns[] = {
    {"set_num_threads", f_set_num_threads},
    {"get_num_threads", f_get_num_threads},
    {"kernels", f_kernels},
    {NULL, NULL}
};

int luaopen_attn_threads(lua_State *L)
{
    lua_newtable(L);
    lt_newpart(L, "torch", torch_fns, NULL);
    return 1;
}
