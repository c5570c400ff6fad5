/* args.c — checking Lua arguments for the tensor bindings: tensors, integers, dims, shapes and the
 * trailing options table that stands in for Python's keyword arguments. Every error names the
 * function and the argument, and says what was expected, and is raised at the user's line: the rule
 * of which stack frame is the user's is here, once, for the bindings and (luaopen_attn_errors) for
 * the Lua library (src/lua/errors.lua). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "bind.h"
#include "format.h"

attn_tensor *lt_test(lua_State *L, int idx)
{
    attn_tensor **ud = luaL_testudata(L, idx, ATTN_TENSOR_MT);
    return ud ? *ud : NULL;
}

const char *lt_typename(lua_State *L, int idx)
{
    if (lua_isnone(L, idx))
        return attn_tr("no value"); /* prose, in the user's language (a type's name stays code) */
    if (luaL_testudata(L, idx, ATTN_TENSOR_MT))
        return "tensor";
    if (lt_is_size(L, idx))
        return "torch.Size";
    if (lua_type(L, idx) == LUA_TSTRING) /* show short strings: manual_seed("abc") -> got string "abc" */
        return lua_pushfstring(L, "string \"%s\"", lua_rawlen(L, idx) <= 40 ? lua_tostring(L, idx) : "...");
    if (lua_type(L, idx) == LUA_TNUMBER)
        return luaL_tolstring(L, idx, NULL); /* the value says more than "number" */
    return luaL_typename(L, idx);
}

attn_tensor *lt_check(lua_State *L, int idx, const char *fn, const char *what)
{
    attn_tensor **ud = luaL_testudata(L, idx, ATTN_TENSOR_MT);
    if (!ud)
        lt_error(L, "%s: %s must be a tensor, got %s", fn, what, lt_typename(L, idx));
    if (!*ud)
        lt_error(L, "%s: %s is an empty tensor handle", fn, what);
    return *ud;
}

/* Whether a function (as lua_getinfo describes it) is one of attn's embedded library: its chunks are
 * named "=[attn]/<file>" (scripts/embed-lua.sh). The REPL's own frames (src/lua/repl/init.lua) are the
 * user's side: a one-liner runs as `return <line>`, a tail call that leaves no frame of the user's. */
static int library_source(const lua_Debug *ar)
{
    return strcmp(ar->what, "C") != 0 && strncmp(ar->source, "=[attn]/", 8) == 0 &&
           strcmp(ar->source, "=[attn]/repl/init.lua") != 0;
}

/* Whether the frame at level belongs to attn's embedded library: one of its Lua functions, or a C
 * function one of them called (a pcall). A C function the user called (their pcall) does not. */
static int library_frame(lua_State *L, int level)
{
    lua_Debug ar;
    if (!lua_getstack(L, level, &ar) || !lua_getinfo(L, "S", &ar))
        return 0;
    if (strcmp(ar.what, "C") == 0) {
        /* autograd's dispatch (bind/autograd.c) stands between the user and the op: the library's */
        lua_getinfo(L, "f", &ar);
        int dispatch = lua_tocfunction(L, -1) == lt_autograd_dispatch;
        lua_pop(L, 1);
        if (dispatch)
            return 1;
        return lua_getstack(L, level + 1, &ar) && lua_getinfo(L, "S", &ar) && library_source(&ar);
    }
    return library_source(&ar);
}

/* luaL_where(L, 1) for the user's line: the first frame up the stack that is not the library's. A
 * stage that attention.forward calls then reports the line that called attention.forward, not a
 * line of attention.lua. Pushes "" when that frame is C or there is none, as luaL_where does. */
static void push_user_where(lua_State *L)
{
    lua_Debug ar;
    int level = 1;
    while (library_frame(L, level))
        level++;
    if (lua_getstack(L, level, &ar)) {
        lua_getinfo(L, "Sl", &ar);
        if (ar.currentline > 0) {
            lua_pushfstring(L, "%s:%d: ", ar.short_src, ar.currentline);
            return;
        }
    }
    lua_pushliteral(L, "");
}

/* The core's helpers that many functions share name themselves in the errors they raise ("clone: 2.15e9
 * elements (8.59 GB) is more than ..." from x:contiguous(), "unary: ..." from x:exp()), and an in-place
 * method raises its out-of-place twin's errors ("add: ..." from x:add_(y)). The user called something
 * else: the name the running C function was called by (x:exp() or torch.exp: "exp") takes their place. */
static const char *const CORE_HELPERS[] = {"clone", "unary", "to", "activation", "copy", "dot", "addmm",
                                           "maximum", "minimum", "where", "masked_fill", NULL};

static const char *as_called(lua_State *L, const char *msg, char *buf, size_t size)
{
    lua_Debug ar;
    if (!lua_getstack(L, 0, &ar) || !lua_getinfo(L, "n", &ar) || !ar.name || !ar.namewhat)
        return msg;
    /* only a name the function was reached by (t:exp(), torch.exp): not a local alias, a metamethod or
     * a function called from C */
    if (strcmp(ar.namewhat, "method") != 0 && strcmp(ar.namewhat, "field") != 0 && strcmp(ar.namewhat, "global") != 0)
        return msg;
    size_t n = strspn(msg, "abcdefghijklmnopqrstuvwxyz_");
    if (n == 0 || msg[n] != ':' || msg[n + 1] != ' ' || (strncmp(msg, ar.name, n) == 0 && ar.name[n] == '\0'))
        return msg;
    int rename = strncmp(msg, ar.name, n) == 0 && ar.name[n] == '_' && ar.name[n + 1] == '\0'; /* add_ */
    for (const char *const *h = CORE_HELPERS; *h && !rename; h++)
        rename = strlen(*h) == n && strncmp(msg, *h, n) == 0;
    if (!rename)
        return msg;
    snprintf(buf, size, "%s%s", ar.name, msg + n);
    return buf;
}

static int raise_at_user(lua_State *L, const char *msg)
{
    char buf[1200];
    msg = as_called(L, msg, buf, sizeof buf);
    push_user_where(L);
    lua_pushstring(L, msg);
    lua_concat(L, 2);
    return lua_error(L);
}

int lt_raise(lua_State *L, const attn_error *err)
{
    if (strcmp(err->msg, "interrupted") == 0) /* Ctrl-C: nobody's line, as src/cli/main.c raises it */
        return lt_interrupted(L);
    return raise_at_user(L, err->msg);
}

int lt_interrupted(lua_State *L)
{
    lua_pushliteral(L, "interrupted");
    return lua_error(L);
}

int lt_error(lua_State *L, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, attn_tr(fmt), ap); /* the catalogs' translation, as attn_fail's */
    va_end(ap);
    return raise_at_user(L, msg);
}

int64_t lt_check_integer(lua_State *L, int idx, const char *fn, const char *what)
{
    if (lua_type(L, idx) != LUA_TNUMBER)
        lt_error(L, "%s: %s must be an integer, got %s", fn, what, lt_typename(L, idx));
    if (lua_isinteger(L, idx))
        return (int64_t)lua_tointeger(L, idx);
    double d = lua_tonumber(L, idx);
    if (d != floor(d)) /* also catches nan and inf */
        lt_error(L, "%s: %s must be an integer, got %s", fn, what, luaL_tolstring(L, idx, NULL));
    if (fabs(d) > 9.0e18)
        lt_error(L, "%s: %s is too large (%s)", fn, what, luaL_tolstring(L, idx, NULL));
    return (int64_t)d;
}

double lt_check_number(lua_State *L, int idx, const char *fn, const char *what)
{
    if (lua_type(L, idx) == LUA_TBOOLEAN)
        return lua_toboolean(L, idx) ? 1.0 : 0.0;
    if (lua_type(L, idx) != LUA_TNUMBER)
        lt_error(L, "%s: %s must be a number, got %s", fn, what, lt_typename(L, idx));
    return lua_tonumber(L, idx);
}

attn_number lt_check_value(lua_State *L, int idx, const char *fn, const char *what)
{
    if (lua_type(L, idx) == LUA_TBOOLEAN)
        return attn_bool(lua_toboolean(L, idx));
    if (lua_type(L, idx) != LUA_TNUMBER)
        lt_error(L, "%s: %s must be a number, got %s", fn, what, lt_typename(L, idx));
    if (lua_isinteger(L, idx))
        return attn_int((int64_t)lua_tointeger(L, idx));
    return attn_float(lua_tonumber(L, idx));
}

int lt_test_dtype(lua_State *L, int idx)
{
    static const char *names[] = {"float32", "bool", "int64"}; /* in attn_dtype's order */
    if (lua_type(L, idx) != LUA_TTABLE || !lua_getmetatable(L, idx))
        return -1;
    luaL_getmetatable(L, ATTN_DTYPE_MT);
    int is_dtype = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    if (!is_dtype)
        return -1;
    lua_getfield(L, idx, "name");
    const char *name = lua_tostring(L, -1);
    int found = -1;
    for (int i = 0; i < 3 && name; i++)
        if (strcmp(name, names[i]) == 0)
            found = i;
    lua_pop(L, 1);
    return found;
}

int lt_check_dim(lua_State *L, int idx, int ndim, const char *fn)
{
    int64_t d = lt_check_integer(L, idx, fn, "dim");
    int n = ndim > 0 ? ndim : 1; /* a 0-d tensor accepts dim 1 / -1, as PyTorch accepts 0 / -1 */
    if (d == 0)
        lt_error(L, "%s: dim 0 is not valid: attn counts dims from 1 (PyTorch's dim=0 is dim=1 here)", fn);
    if (d < -n || d > n)
        lt_error(L, "%s: dim %lld is out of range for a %d-D tensor (use 1..%d, or -%d..-1 from the end)", fn,
                   (long long)d, ndim, n, n);
    return (int)(d > 0 ? d - 1 : d + n);
}

int lt_is_size(lua_State *L, int idx)
{
    if (lua_type(L, idx) != LUA_TTABLE || !lua_getmetatable(L, idx))
        return 0;
    luaL_getmetatable(L, ATTN_SIZE_MT);
    int same = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    return same;
}

static int64_t size_entry(lua_State *L, int idx, const char *fn, int i)
{
    char what[32];
    snprintf(what, sizeof what, "size %d", i);
    return lt_check_integer(L, idx, fn, what);
}

int lt_check_shape_table(lua_State *L, int idx, const char *fn, int64_t *shape)
{
    lua_Integer n = luaL_len(L, idx);
    if (n > ATTN_MAX_DIMS)
        lt_error(L, "%s: %d dimensions requested, attn supports at most %d", fn, (int)n, ATTN_MAX_DIMS);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_geti(L, idx, i);
        shape[i - 1] = size_entry(L, lua_gettop(L), fn, (int)i);
        lua_pop(L, 1);
    }
    return (int)n;
}

int lt_check_shape(lua_State *L, int idx, const char *fn, int64_t *shape)
{
    int top = lua_gettop(L);
    if (top >= idx && lt_is_options(L, top))
        top--;
    if (top >= idx && lua_type(L, idx) == LUA_TTABLE) {
        if (top > idx)
            lt_error(L, "%s: give the sizes either as numbers or as one table, not both", fn);
        return lt_check_shape_table(L, idx, fn, shape);
    }
    if (top - idx + 1 > ATTN_MAX_DIMS)
        lt_error(L, "%s: %d dimensions requested, attn supports at most %d", fn, top - idx + 1, ATTN_MAX_DIMS);
    int ndim = 0;
    for (int i = idx; i <= top; i++)
        shape[ndim++] = size_entry(L, i, fn, i - idx + 1);
    return ndim;
}

/* ---- the same rule for the Lua library (src/lua/errors.lua) ------------------------------------ */

/* where() -> "stdin:3: ", the position of the user's line above the Lua function that calls it (""
 * when that is C or there is none), to put before a message raised with error(msg, 0). */
static int l_where(lua_State *L)
{
    push_user_where(L);
    return 1;
}

/* is_library(f) -> whether the function f is the library's; is_library(level) -> whether the frame
 * at level is (counted as debug.getinfo counts: 1 is the function that calls is_library). */
static int l_is_library(lua_State *L)
{
    if (lua_type(L, 1) == LUA_TNUMBER) {
        lua_pushboolean(L, library_frame(L, (int)luaL_checkinteger(L, 1)));
        return 1;
    }
    lua_Debug ar;
    int library = 0;
    if (lua_type(L, 1) == LUA_TFUNCTION) {
        lua_pushvalue(L, 1);
        library = lua_getinfo(L, ">S", &ar) && library_source(&ar);
    }
    lua_pushboolean(L, library);
    return 1;
}

int luaopen_attn_errors(lua_State *L)
{
    static const luaL_Reg fns[] = {{"where", l_where}, {"is_library", l_is_library}, {NULL, NULL}};
    lua_newtable(L);
    lt_newpart(L, "errors", fns, NULL);
    return 1;
}
