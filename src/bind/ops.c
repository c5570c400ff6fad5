/* ops.c (bindings) — arithmetic and operators, comparisons, reductions, matmul and the attention
 * stages, each as torch.f(t, ...) and t:f(...). Arguments are checked here; the work is in core. */
#include <math.h>
#include <string.h>

#include "bind.h"
#include "overlap.h"

static int push_result(lua_State *L, attn_tensor *t, attn_error *err)
{
    attn_tensor **slot = lt_newslot(L);
    return lt_finish(L, slot, t, err);
}

/* ---- element-wise binary ------------------------------------------------------------------- */

static int is_scalar(lua_State *L, int idx)
{
    return lua_type(L, idx) == LUA_TNUMBER || lua_type(L, idx) == LUA_TBOOLEAN;
}

static int binary(lua_State *L, const char *fn, attn_binop op)
{
    if (lt_binary_options(L, fn, op == ATTN_ADD || op == ATTN_SUB, op == ATTN_SUB))
        return 1; /* add(b, {alpha = s}), sub: computed there */
    attn_tensor *a = lt_test(L, 1), *b = lt_test(L, 2);
    attn_error err;
    attn_tensor *r;
    if (a && b)
        r = attn_binary(fn, op, a, b, &err);
    else if (a && is_scalar(L, 2))
        r = op == ATTN_POW ? attn_pow_scalar(a, lt_check_value(L, 2, fn, "exponent"), &err)
                           : attn_binary_scalar(fn, op, a, lt_check_value(L, 2, fn, "other"), 0, &err);
    else if (b && is_scalar(L, 1))
        r = attn_binary_scalar(fn, op, b, lt_check_value(L, 1, fn, "input"), 1, &err);
    else
        return lt_error(L, "%s: expected tensors or numbers, got %s and %s", fn, lt_typename(L, 1),
                          lt_typename(L, 2));
    return push_result(L, r, &err);
}

/* add(input, other, {alpha = a}): bind/alpha.c (PyTorch's rounding of input + a * other) */
static int f_add(lua_State *L) { return binary(L, "add", ATTN_ADD); }
static int f_sub(lua_State *L) { return binary(L, "sub", ATTN_SUB); }
static int f_mul(lua_State *L) { return binary(L, "mul", ATTN_MUL); }
static int f_div(lua_State *L) { return binary(L, "div", ATTN_DIV); }
static int f_pow(lua_State *L) { return binary(L, "pow", ATTN_POW); }
static int f_maximum(lua_State *L) { return binary(L, "maximum", ATTN_MAXIMUM); }
static int f_minimum(lua_State *L) { return binary(L, "minimum", ATTN_MINIMUM); }
static int f_eq(lua_State *L) { return binary(L, "eq", ATTN_EQ); }
static int f_ne(lua_State *L) { return binary(L, "ne", ATTN_NE); }
static int f_lt(lua_State *L) { return binary(L, "lt", ATTN_LT); }
static int f_le(lua_State *L) { return binary(L, "le", ATTN_LE); }
static int f_gt(lua_State *L) { return binary(L, "gt", ATTN_GT); }
static int f_ge(lua_State *L) { return binary(L, "ge", ATTN_GE); }
static int f_logical_and(lua_State *L) { return binary(L, "logical_and", ATTN_LOGICAL_AND); }
static int f_logical_or(lua_State *L) { return binary(L, "logical_or", ATTN_LOGICAL_OR); }

/* In-place variants: compute, then copy into self (whose shape must not change). The result's dtype
 * must cast to self's as PyTorch allows: not a float into an int64 tensor, not a number into a bool one. */
static int inplace(lua_State *L, int (*f)(lua_State *), const char *fn)
{
    attn_tensor *self = lt_check(L, 1, fn, "input");
    attn_error err;
    if (attn_check_inplace(fn, self, lt_test(L, 2), &err))
        return lt_raise(L, &err);
    f(L);
    attn_tensor *r = lt_test(L, -1);
    if (attn_promote(r->dtype, self->dtype) != self->dtype)
        return lt_error(L, "%s: the result is %s, which cannot be stored in the %s tensor in place (PyTorch refuses "
                           "it too); use the out-of-place form", fn, attn_dtype_name(r->dtype),
                        attn_dtype_name(self->dtype));
    if (r->ndim != self->ndim || memcmp(r->shape, self->shape, sizeof(int64_t) * (size_t)self->ndim) != 0) {
        char a[160], b[160];
        return lt_error(L, "%s: the result has shape %s but the tensor has shape %s; in-place operations "
                             "cannot change the shape", fn, attn_shape_str(r, a, sizeof a),
                          attn_shape_str(self, b, sizeof b));
    }
    if (attn_copy_(self, r, &err))
        return lt_raise(L, &err);
    lua_settop(L, 1);
    return 1;
}

static int f_add_(lua_State *L) { return inplace(L, f_add, "add_"); }
static int f_sub_(lua_State *L) { return inplace(L, f_sub, "sub_"); }
static int f_mul_(lua_State *L) { return inplace(L, f_mul, "mul_"); }
static int f_div_(lua_State *L) { return inplace(L, f_div, "div_"); }

/* ---- unary --------------------------------------------------------------------------------- */

static int unary(lua_State *L, const char *fn, attn_unop op)
{
    attn_tensor *t = lt_check(L, 1, fn, "input");
    attn_error err;
    return push_result(L, attn_unary(op, t, &err), &err);
}

static int f_neg(lua_State *L) { return unary(L, "neg", ATTN_NEG); }
static int f_exp(lua_State *L) { return unary(L, "exp", ATTN_EXP); }
static int f_log(lua_State *L) { return unary(L, "log", ATTN_LOG); }
static int f_sqrt(lua_State *L) { return unary(L, "sqrt", ATTN_SQRT); }
static int f_tanh(lua_State *L) { return unary(L, "tanh", ATTN_TANH); }
static int f_abs(lua_State *L) { return unary(L, "abs", ATTN_ABS); }
static int f_sigmoid(lua_State *L) { return unary(L, "sigmoid", ATTN_SIGMOID); }
static int f_relu(lua_State *L) { return unary(L, "relu", ATTN_RELU); }
static int f_logical_not(lua_State *L) { return unary(L, "logical_not", ATTN_LOGICAL_NOT); }

static int f_where(lua_State *L)
{
    attn_tensor *cond = lt_check(L, 1, "where", "condition");
    attn_tensor *ab[2];
    attn_error err;
    for (int i = 0; i < 2; i++) { /* numbers become 0-d tensors */
        ab[i] = lt_test(L, 2 + i);
        if (!ab[i]) {
            attn_number v = lt_check_value(L, 2 + i, "where", i ? "other" : "input");
            attn_tensor **slot = lt_newslot(L);
            lt_finish(L, slot, attn_scalar_number(v, &err), &err);
            lua_replace(L, 2 + i);
            ab[i] = *slot;
        }
    }
    return push_result(L, attn_where(cond, ab[0], ab[1], &err), &err);
}

/* x:where(condition, other): PyTorch's Tensor.where keeps x where the condition holds, so it is
 * torch.where(condition, x, other). */
static int m_where(lua_State *L)
{
    lt_check(L, 1, "where", "input");
    lua_settop(L, 3);
    lua_pushvalue(L, 1);
    lua_copy(L, 2, 1); /* condition first */
    lua_copy(L, 4, 2); /* then x */
    lua_settop(L, 3);
    return f_where(L);
}

/* ---- reductions ---------------------------------------------------------------------------- */

/* Reads (dim, keepdim) given positionally or as {dim = d, keepdim = true}; dim -1 inside core means all. */
static void reduce_args(lua_State *L, const attn_tensor *t, const char *fn, int *dim, int *keepdim)
{
    static const char *const known[] = {"dim", "keepdim", NULL};
    int opts = lt_options(L, 2, fn, known);
    *dim = -1;
    if (lt_arg(L, 2, opts, "dim") != LUA_TNIL)
        *dim = lt_check_dim(L, -1, t->ndim, fn);
    lua_pop(L, 1);
    *keepdim = 0;
    int type = lt_arg(L, 3, opts, "keepdim");
    if (type != LUA_TNIL && type != LUA_TBOOLEAN)
        lt_error(L, "%s: keepdim must be true or false, got %s", fn, lt_typename(L, -1));
    *keepdim = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (t->ndim == 0 && *dim == 0)
        *dim = -1; /* a 0-d tensor reduced over its only "dim" */
}

static int f_sum(lua_State *L)
{
    attn_tensor *t = lt_check(L, 1, "sum", "input");
    int dim, keepdim;
    reduce_args(L, t, "sum", &dim, &keepdim);
    attn_error err;
    return push_result(L, attn_sum(t, dim, keepdim, &err), &err);
}

static int f_mean(lua_State *L)
{
    attn_tensor *t = lt_check(L, 1, "mean", "input");
    int dim, keepdim;
    reduce_args(L, t, "mean", &dim, &keepdim);
    attn_error err;
    return push_result(L, attn_mean(t, dim, keepdim, &err), &err);
}

/* The 0-based row-major position of the first maximum (minimum) of t, as a 0-d int64 tensor. */
static attn_tensor *argmax_all(const attn_tensor *t, int want_min, attn_error *err)
{
    int64_t n = attn_numel(t), best = 0;
    for (int64_t i = 1; i < n; i++) {
        if (attn_poll(i))
            return attn_interrupted(err);
        if (t->dtype == ATTN_INT64) {
            int64_t x = attn_get_flat_i64(t, i), b = attn_get_flat_i64(t, best);
            if (want_min ? x < b : x > b)
                best = i;
            continue;
        }
        float x = attn_get_flat(t, i), b = attn_get_flat(t, best);
        if (!isnan(b) && (isnan(x) || (want_min ? x < b : x > b)))
            best = i;
    }
    return attn_scalar_number(attn_int(best), err);
}

/* max/min: over everything -> one 0-d tensor; along dim -> values, indices (int64, 1-based, as attn
 * counts). */
static int extreme(lua_State *L, const char *fn, int want_min, int want_values, int want_indices)
{
    attn_tensor *t = lt_check(L, 1, fn, "input");
    if (lt_test(L, 2)) /* torch.max(a, b) is the element-wise maximum in PyTorch */
        return want_min ? f_minimum(L) : f_maximum(L);
    int dim, keepdim;
    reduce_args(L, t, fn, &dim, &keepdim);
    attn_error err;
    attn_tensor **vslot = lt_newslot(L);
    attn_tensor **islot = lt_newslot(L);
    attn_tensor *idx = NULL;
    attn_tensor *v = attn_max(fn, t, dim, keepdim, want_min, &idx, &err);
    if (!v)
        return lt_raise(L, &err);
    *vslot = v;
    *islot = idx;
    lt_account(L);
    if (want_indices && !idx) { /* argmax over everything: the flat (row-major) position */
        *islot = argmax_all(t, want_min, &err);
        if (!*islot)
            return lt_raise(L, &err);
        idx = *islot;
    }
    if (idx) { /* 1-based, as attn counts */
        int64_t n = attn_numel(idx);
        for (int64_t i = 0; i < n; i++)
            idx->storage->i64[i] += 1;
    }
    if (!want_values)
        return 1; /* the indices slot is on top */
    if (!idx)
        lua_pop(L, 1);
    else
        return 2;
    return 1;
}

static int f_max(lua_State *L) { return extreme(L, "max", 0, 1, 0); }
static int f_min(lua_State *L) { return extreme(L, "min", 1, 1, 0); }
static int f_argmax(lua_State *L) { return extreme(L, "argmax", 0, 0, 1); }
static int f_argmin(lua_State *L) { return extreme(L, "argmin", 1, 0, 1); }

/* ---- products ------------------------------------------------------------------------------ */

static int f_matmul(lua_State *L)
{
    attn_tensor *a = lt_check(L, 1, "matmul", "input");
    attn_tensor *b = lt_check(L, 2, "matmul", "other");
    attn_error err;
    return push_result(L, attn_matmul("matmul", a, b, &err), &err);
}

static int f_mm(lua_State *L)
{
    attn_tensor *a = lt_check(L, 1, "mm", "input");
    attn_tensor *b = lt_check(L, 2, "mm", "other");
    if (a->ndim != 2 || b->ndim != 2) {
        char as[160], bs[160];
        return lt_error(L, "mm: expected two matrices (2-D), got %s and %s; matmul handles other shapes",
                          attn_shape_str(a, as, sizeof as), attn_shape_str(b, bs, sizeof bs));
    }
    attn_error err;
    return push_result(L, attn_matmul("mm", a, b, &err), &err);
}

static int f_bmm(lua_State *L)
{
    attn_tensor *a = lt_check(L, 1, "bmm", "input");
    attn_tensor *b = lt_check(L, 2, "bmm", "other");
    if (a->ndim != 3 || b->ndim != 3 || a->shape[0] != b->shape[0]) {
        char as[160], bs[160];
        return lt_error(L, "bmm: expected two 3-D tensors with the same batch size, got %s and %s",
                          attn_shape_str(a, as, sizeof as), attn_shape_str(b, bs, sizeof bs));
    }
    attn_error err;
    return push_result(L, attn_matmul("bmm", a, b, &err), &err);
}

/* torch.addmm(input, mat1, mat2): input + mat1 · mat2 as PyTorch adds it (what F.linear runs) */
static int f_addmm(lua_State *L)
{
    attn_tensor *c = lt_check(L, 1, "addmm", "input");
    attn_tensor *a = lt_check(L, 2, "addmm", "mat1");
    attn_tensor *b = lt_check(L, 3, "addmm", "mat2");
    attn_error err;
    return push_result(L, attn_addmm("addmm", c, a, b, &err), &err);
}

static int f_dot(lua_State *L)
{
    attn_tensor *a = lt_check(L, 1, "dot", "input");
    attn_tensor *b = lt_check(L, 2, "dot", "other");
    attn_error err;
    return push_result(L, attn_dot(a, b, &err), &err);
}

/* ---- attention stages ---------------------------------------------------------------------- */

static int tri(lua_State *L, const char *fn, int upper)
{
    attn_tensor *t = lt_check(L, 1, fn, "input");
    static const char *const known[] = {"diagonal", NULL};
    int opts = lt_options(L, 2, fn, known);
    int64_t diagonal = 0;
    if (lt_arg(L, 2, opts, "diagonal") != LUA_TNIL)
        diagonal = lt_check_integer(L, -1, fn, "diagonal");
    attn_error err;
    return push_result(L, attn_tril(fn, t, diagonal, upper, &err), &err);
}

static int f_tril(lua_State *L) { return tri(L, "tril", 0); }
static int f_triu(lua_State *L) { return tri(L, "triu", 1); }

static int f_masked_fill(lua_State *L)
{
    attn_tensor *t = lt_check(L, 1, "masked_fill", "input");
    attn_tensor *mask = lt_check(L, 2, "masked_fill", "mask");
    attn_number value = lt_check_value(L, 3, "masked_fill", "value");
    attn_error err;
    return push_result(L, attn_masked_fill(t, mask, value, &err), &err);
}

static int f_masked_fill_(lua_State *L)
{
    attn_tensor *t = lt_check(L, 1, "masked_fill_", "input");
    attn_tensor *mask = lt_check(L, 2, "masked_fill_", "mask");
    attn_number value = lt_check_value(L, 3, "masked_fill_", "value");
    attn_error err;
    /* An expanded tensor: the masked elements' shared cell shows through the unmasked ones too.
     * PyTorch 1.13 writes it with a warning that this is deprecated; attn refuses it, as PyTorch
     * refuses it for add_ and copy_; and a mask that is a view of the tensor, as PyTorch does. */
    if (attn_check_inplace("masked_fill_", t, mask, &err) || attn_masked_fill_(t, mask, value, &err))
        return lt_raise(L, &err);
    lua_settop(L, 1);
    return 1;
}

static int softmax(lua_State *L, const char *fn, int log)
{
    attn_tensor *t = lt_check(L, 1, fn, "input");
    static const char *const known[] = {"dim", NULL};
    int opts = lt_options(L, 2, fn, known);
    if (lt_arg(L, 2, opts, "dim") == LUA_TNIL)
        return lt_error(L, "%s: dim is required, e.g. torch.%s(x, -1) for the last dim "
                             "(PyTorch's dim=0 is dim=1 here)", fn, fn);
    int dim = lt_check_dim(L, -1, t->ndim, fn);
    attn_error err;
    return push_result(L, attn_softmax(t, t->ndim == 0 ? 0 : dim, log, &err), &err);
}

static int f_softmax(lua_State *L) { return softmax(L, "softmax", 0); }
static int f_log_softmax(lua_State *L) { return softmax(L, "log_softmax", 1); }

/* ---- comparisons of whole tensors ---------------------------------------------------------- */

static int same_shape(const attn_tensor *a, const attn_tensor *b)
{
    return a->ndim == b->ndim && memcmp(a->shape, b->shape, sizeof(int64_t) * (size_t)a->ndim) == 0;
}

static int f_equal(lua_State *L)
{
    attn_tensor *a = lt_check(L, 1, "equal", "input");
    attn_tensor *b = lt_check(L, 2, "equal", "other");
    int eq = same_shape(a, b), ints = a->dtype == ATTN_INT64 && b->dtype == ATTN_INT64;
    for (int64_t i = 0, n = attn_numel(a); eq && i < n; i++) {
        if (attn_poll(i))
            return lt_interrupted(L);
        eq = ints ? attn_get_flat_i64(a, i) == attn_get_flat_i64(b, i) : attn_get_flat_f64(a, i) == attn_get_flat_f64(b, i);
    }
    lua_pushboolean(L, eq);
    return 1;
}

/* |a - b| <= atol + rtol * |b| everywhere (PyTorch's allclose; nan never equals nan). */
static int f_allclose(lua_State *L)
{
    attn_tensor *a = lt_check(L, 1, "allclose", "input");
    attn_tensor *b = lt_check(L, 2, "allclose", "other");
    static const char *const known[] = {"rtol", "atol", NULL};
    int opts = lt_options(L, 3, "allclose", known);
    lua_settop(L, 4 > lua_gettop(L) ? 4 : lua_gettop(L)); /* lt_arg pushes: keep positions fixed */
    double rtol = 1e-5, atol = 1e-8;
    if (lt_arg(L, 3, opts, "rtol") != LUA_TNIL)
        rtol = lt_check_number(L, -1, "allclose", "rtol");
    if (lt_arg(L, 4, opts, "atol") != LUA_TNIL)
        atol = lt_check_number(L, -1, "allclose", "atol");
    attn_error err;
    int ndim;
    int64_t shape[ATTN_MAX_DIMS];
    if (attn_broadcast_shape("allclose", a, b, &ndim, shape, &err))
        return lt_raise(L, &err);
    attn_tensor *ea = attn_expand(a, ndim, shape, &err), *eb = ea ? attn_expand(b, ndim, shape, &err) : NULL;
    int close = ea && eb;
    for (int64_t i = 0, n = close ? attn_numel(ea) : 0; close && i < n; i++) {
        if (attn_poll(i)) {
            attn_free(ea);
            attn_free(eb);
            return lt_interrupted(L);
        }
        double x = attn_get_flat_f64(ea, i), y = attn_get_flat_f64(eb, i);
        close = (x == y) || fabs(x - y) <= atol + rtol * fabs(y);
    }
    attn_free(ea);
    attn_free(eb);
    lua_pushboolean(L, close);
    return 1;
}

/* ---- operators ----------------------------------------------------------------------------- */

static int op_unm(lua_State *L) { lua_settop(L, 1); return f_neg(L); }

static int op_idiv(lua_State *L)
{
    return lt_error(L, "//: integer division is not defined for tensors; use / for division");
}

static const luaL_Reg functions[] = {
    {"add", f_add}, {"sub", f_sub}, {"mul", f_mul}, {"div", f_div}, {"pow", f_pow},
    {"maximum", f_maximum}, {"minimum", f_minimum}, {"eq", f_eq}, {"ne", f_ne}, {"lt", f_lt},
    {"le", f_le}, {"gt", f_gt}, {"ge", f_ge}, {"logical_and", f_logical_and}, {"logical_or", f_logical_or},
    {"logical_not", f_logical_not}, {"neg", f_neg}, {"exp", f_exp}, {"log", f_log}, {"sqrt", f_sqrt},
    {"tanh", f_tanh}, {"abs", f_abs}, {"sigmoid", f_sigmoid}, {"relu", f_relu},
    {"sum", f_sum}, {"mean", f_mean}, {"max", f_max}, {"min", f_min}, {"argmax", f_argmax},
    {"argmin", f_argmin}, {"matmul", f_matmul}, {"mm", f_mm}, {"bmm", f_bmm}, {"addmm", f_addmm}, {"dot", f_dot},
    {"tril", f_tril}, {"triu", f_triu}, {"masked_fill", f_masked_fill}, {"softmax", f_softmax},
    {"log_softmax", f_log_softmax}, {"equal", f_equal}, {"allclose", f_allclose}, {NULL, NULL}};

static const luaL_Reg torch_only[] = {{"where", f_where}, {NULL, NULL}};

static const luaL_Reg methods_only[] = {
    {"where", m_where}, {"add_", f_add_}, {"sub_", f_sub_}, {"mul_", f_mul_}, {"div_", f_div_},
    {"masked_fill_", f_masked_fill_}, {NULL, NULL}};

/* The operators a + b, a - b, a * b, a / b, a ^ b, -a and a // b: metamethods of the Tensor type. */
static const luaL_Reg meta[] = {
    {"__add", f_add}, {"__sub", f_sub}, {"__mul", f_mul}, {"__div", f_div}, {"__pow", f_pow},
    {"__unm", op_unm}, {"__idiv", op_idiv}, {NULL, NULL}};

int luaopen_attn_ops(lua_State *L)
{
    lua_newtable(L);
    lt_newpart(L, "torch", functions, torch_only);
    lt_newpart(L, "methods", functions, methods_only);
    lt_newpart(L, "metatable", meta, NULL);
    return 1;
}
