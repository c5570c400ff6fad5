/* ops.c — element-wise arithmetic with broadcasting and PyTorch's type promotion: binary operations,
 * comparisons, where, unary functions and pow. Reductions are in reductions.c, tril/triu and
 * masked_fill in masks.c, matmul in matmul.c, softmax in softmax.c.
 *
 * Each operation picks the dtype it computes in (attn_promote of its operands; true division and the
 * float functions always float32), converts the operands that are not in it, and runs one of two
 * explicit kernels: float (float32, and bool stored as 0/1 floats) or int64 (exact, wrapping on
 * overflow as PyTorch's integers do). */
#include "binary_loops.h"
#include "fmaf_exact.h"
#include "ops.h"
#include "reduce.h"
#include "rows.h"
#include "vmath.h"
#include "vunary.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- broadcasting -------------------------------------------------------------------------- */

int attn_broadcast_shape(const char *fn, const attn_tensor *a, const attn_tensor *b, int *ndim, int64_t *shape,
                         attn_error *err)
{
    int n = a->ndim > b->ndim ? a->ndim : b->ndim;
    for (int d = 0; d < n; d++) {
        int da = d - (n - a->ndim), db = d - (n - b->ndim);
        int64_t sa = da >= 0 ? a->shape[da] : 1, sb = db >= 0 ? b->shape[db] : 1;
        if (sa != sb && sa != 1 && sb != 1) {
            char as[160], bs[160];
            attn_fail(err, "%s: shapes %s and %s cannot be broadcast (dim %d: %lld vs %lld)", fn,
                      attn_shape_str(a, as, sizeof as), attn_shape_str(b, bs, sizeof bs), d + 1, (long long)sa,
                      (long long)sb);
            return -1;
        }
        shape[d] = sa == 1 ? sb : sa;
    }
    *ndim = n;
    return 0;
}

/* Comparisons and logical operations give bool tensors. */
static int gives_bool(attn_binop op)
{
    return op >= ATTN_EQ;
}

static attn_tensor *interrupted(attn_tensor *partial, attn_error *err)
{
    attn_free(partial);
    return attn_interrupted(err);
}

/* t as the kernel of `compute` reads it: itself when its storage already holds that type (bool is
 * stored as floats, so it feeds the float kernel as it is), else a converted copy. */
static attn_tensor *as_compute(const attn_tensor *t, attn_dtype compute, attn_error *err)
{
    int same_storage = (t->dtype == ATTN_INT64) == (compute == ATTN_INT64);
    return same_storage ? attn_alias(t, err) : attn_to_dtype(t, compute, err);
}

/* The dtype binary op computes in and the dtype of its result; -1 for an operation PyTorch refuses. On
 * two bool tensors + is logical or and * logical and (PyTorch's bool arithmetic); - with a bool on
 * either side, and bool ** bool, are refused. */
static int binary_dtypes(const char *fn, attn_binop *op, attn_dtype a, attn_dtype b, attn_dtype *compute,
                         attn_dtype *result, attn_error *err)
{
    *compute = attn_promote(a, b);
    if (*op == ATTN_DIV || *op == ATTN_LOGICAL_AND || *op == ATTN_LOGICAL_OR)
        *compute = ATTN_FLOAT32; /* true division of integers is a float division; logic tests nonzero */
    if (*op == ATTN_SUB && (a == ATTN_BOOL || b == ATTN_BOOL)) {
        attn_fail(err, "%s: subtracting with a bool tensor or value is not supported (PyTorch refuses it too); use "
                       "logical_and / logical_or, or convert with :long()", fn);
        return -1;
    }
    if (*op == ATTN_POW && *compute == ATTN_BOOL) {
        attn_fail(err, "%s: a bool raised to a bool power is not supported (PyTorch refuses it too)", fn);
        return -1;
    }
    if (*compute == ATTN_BOOL && (*op == ATTN_ADD || *op == ATTN_MUL))
        *op = *op == ATTN_ADD ? ATTN_LOGICAL_OR : ATTN_LOGICAL_AND;
    *result = gives_bool(*op) || *compute == ATTN_BOOL ? ATTN_BOOL : *compute;
    return 0;
}

/* Runs op over the broadcast walk of A and B (already of dtype compute) into out, piece by piece
 * (rows.h: on several threads for a large tensor; each element computed alone, so the same bits). */
typedef struct binary_job {
    attn_binop op;
    attn_dtype compute;
    const attn_tensor *a, *b, *out;
} binary_job;

static int binary_piece(void *ctx, const int64_t *at, const int64_t *step, int64_t n)
{
    const binary_job *j = ctx;
    if (j->compute != ATTN_INT64)
        attn_binary_loop_f32(j->op, j->a->storage->data + at[0], step[0], j->b->storage->data + at[1], step[1],
                             j->out->storage->data + at[2], step[2], n);
    else if (j->out->dtype == ATTN_INT64)
        attn_binary_loop_i64(j->op, j->a->storage->i64 + at[0], step[0], j->b->storage->i64 + at[1], step[1],
                             j->out->storage->i64 + at[2], step[2], n);
    else
        attn_binary_loop_i64_f32(j->op, j->a->storage->i64 + at[0], step[0], j->b->storage->i64 + at[1], step[1],
                                 j->out->storage->data + at[2], step[2], n);
    return 0;
}

static attn_tensor *binary_kernel(attn_binop op, attn_dtype compute, const attn_tensor *a, const attn_tensor *b,
                                  attn_tensor *out, attn_error *err)
{
    attn_rows w;
    attn_rows_init(&w, out->ndim, out->shape);
    attn_rows_add(&w, a);
    attn_rows_add(&w, b);
    attn_rows_add(&w, out);
    binary_job j = {op, compute, a, b, out};
    if (attn_rows_run(&w, binary_piece, &j))
        return interrupted(out, err);
    return out;
}

attn_tensor *attn_binary(const char *fn, attn_binop op, const attn_tensor *a, const attn_tensor *b, attn_error *err)
{
    int ndim;
    int64_t shape[ATTN_MAX_DIMS];
    attn_dtype compute, result;
    if (attn_broadcast_shape(fn, a, b, &ndim, shape, err) || binary_dtypes(fn, &op, a->dtype, b->dtype, &compute,
                                                                           &result, err))
        return NULL;
    attn_tensor *out = attn_empty(fn, ndim, shape, result, err);
    if (!out || attn_numel(out) == 0)
        return out;
    attn_tensor *ca = as_compute(a, compute, err);
    attn_tensor *cb = ca ? as_compute(b, compute, err) : NULL;
    if (!cb) {
        attn_free(ca);
        attn_free(out);
        return NULL;
    }
    out = binary_kernel(op, compute, ca, cb, out, err);
    attn_free(ca);
    attn_free(cb);
    return out;
}

attn_tensor *attn_binary_scalar(const char *fn, attn_binop op, const attn_tensor *a, attn_number s, int scalar_first,
                                attn_error *err)
{
    /* The number becomes a 0-d tensor of its own dtype (a Lua float: float32, as PyTorch casts a Python
     * float to the default dtype); promotion then decides as between tensors. */
    attn_tensor *st = attn_scalar_number(s, err);
    if (!st)
        return NULL;
    attn_tensor *out = scalar_first ? attn_binary(fn, op, st, a, err) : attn_binary(fn, op, a, st, err);
    attn_free(st);
    return out;
}

attn_tensor *attn_add_scaled(const char *fn, const attn_tensor *a, const attn_tensor *b, attn_number alpha,
                             attn_error *err)
{
    /* the shape, the dtype and every check of a + b; its values are then replaced */
    attn_tensor *out = attn_binary(fn, ATTN_ADD, a, b, err);
    if (!out || attn_numel(out) == 0)
        return out;
    if (out->dtype == ATTN_BOOL) {
        attn_free(out);
        attn_fail(err, "%s: alpha is supported for float32 and int64 results only", fn);
        return NULL;
    }
    if (out->dtype == ATTN_INT64 && alpha.dtype == ATTN_FLOAT32) {
        attn_free(out);
        attn_fail(err, "%s: for integral input tensors, argument alpha must not be a floating point number "
                       "(as in PyTorch)", fn);
        return NULL;
    }
    attn_tensor *ea = attn_expand(a, out->ndim, out->shape, err);
    attn_tensor *eb = ea ? attn_expand(b, out->ndim, out->shape, err) : NULL;
    if (!eb) {
        attn_free(ea);
        attn_free(out);
        return NULL;
    }
    int64_t n = attn_numel(out);
    /* out is new, so contiguous. PyTorch's kernel: vec::fmadd(b, alpha, a), one rounding in float32;
     * in int64, a + alpha * b wrapping as its integers do. */
    float af = (float)(alpha.dtype == ATTN_FLOAT32 ? alpha.f : (double)alpha.i);
    uint64_t ai = (uint64_t)alpha.i; /* an integer or boolean alpha (a float one never reaches int64) */
    for (int64_t i = 0; i < n; i++) {
        if (attn_poll(i)) {
            attn_free(ea);
            attn_free(eb);
            return interrupted(out, err);
        }
        if (out->dtype == ATTN_INT64)
            out->storage->i64[out->offset + i] =
                (int64_t)((uint64_t)attn_get_flat_i64(ea, i) + ai * (uint64_t)attn_get_flat_i64(eb, i));
        else
            out->storage->data[out->offset + i] = attn_fmaf(attn_get_flat(eb, i), af, attn_get_flat(ea, i));
    }
    attn_free(ea);
    attn_free(eb);
    return out;
}

attn_tensor *attn_where(const attn_tensor *cond, const attn_tensor *a, const attn_tensor *b, attn_error *err)
{
    int n1, n2;
    int64_t s1[ATTN_MAX_DIMS], s2[ATTN_MAX_DIMS];
    if (attn_broadcast_shape("where", a, b, &n1, s1, err))
        return NULL;
    attn_tensor ab = {.ndim = n1};
    memcpy(ab.shape, s1, sizeof s1);
    if (attn_broadcast_shape("where", cond, &ab, &n2, s2, err))
        return NULL;
    attn_dtype dtype = attn_promote(a->dtype, b->dtype);
    attn_tensor *out = attn_empty("where", n2, s2, dtype, err);
    if (!out)
        return NULL;
    attn_tensor *ca = attn_to_dtype(a, dtype, err), *cb = ca ? attn_to_dtype(b, dtype, err) : NULL;
    attn_tensor *ec = cb ? attn_expand(cond, n2, s2, err) : NULL, *ea = ec ? attn_expand(ca, n2, s2, err) : NULL,
                *eb = ea ? attn_expand(cb, n2, s2, err) : NULL;
    attn_free(ca);
    attn_free(cb);
    if (ec && ea && eb) {
        int64_t n = attn_numel(out);
        for (int64_t i = 0; i < n && out; i++) {
            if (attn_poll(i)) {
                out = interrupted(out, err);
                break;
            }
            const attn_tensor *from = attn_get_flat(ec, i) != 0 ? ea : eb;
            if (dtype == ATTN_INT64)
                out->storage->i64[i] = attn_get_flat_i64(from, i);
            else
                out->storage->data[i] = attn_get_flat(from, i);
        }
    } else {
        attn_free(out);
        out = NULL;
    }
    attn_free(ec);
    attn_free(ea);
    attn_free(eb);
    return out;
}

/* ---- unary --------------------------------------------------------------------------------- */

/* relu = clamp_min(x, 0): negative, non-zero, not NaN gives 0; -0.0 and NaN come out as they are. Decided on
 * the bits, not with `x < 0 ? 0.0f : x`: clang 14 at -O2 turns that select into WebAssembly's f32.max, which
 * gives +0 for -0.0 (tests/web found relu(-0.0) printing 0. in the wasm build). An integer comparison is
 * one no compiler can turn into a float max or min. */
static float relu(float x)
{
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    return (b > 0x80000000u && b <= 0xff800000u) ? 0.0f : x; /* sign set, not -0.0, -inf at most */
}

static float apply_unary(attn_unop op, float x)
{
    switch (op) {
    case ATTN_NEG: return -x;
    case ATTN_EXP: return vmath_exp(x);
    case ATTN_LOG: return vmath_log(x);
    case ATTN_SQRT: return sqrtf(x);
    case ATTN_TANH: return vmath_tanh(x);
    case ATTN_ABS: return fabsf(x);
    case ATTN_SIGMOID: return vmath_sigmoid(x);
    case ATTN_RELU: return relu(x);
    case ATTN_LOGICAL_NOT: return x == 0;
    }
    return 0;
}

/* Applies f to every element of a into a new contiguous tensor of the given dtype. */
static attn_tensor *map_unary(const attn_tensor *a, attn_dtype dtype, attn_unop op, double exponent, int use_pow,
                              attn_error *err);

/* neg, abs and relu of an int64 tensor stay int64 (wrapping: -INT64_MIN is INT64_MIN, as in PyTorch). */
static attn_tensor *unary_i64(attn_unop op, const attn_tensor *a, attn_error *err)
{
    attn_tensor *out = attn_clone(a, err);
    int64_t n = out ? attn_numel(out) : 0;
    for (int64_t i = 0; i < n; i++) {
        if (attn_poll(i))
            return interrupted(out, err);
        uint64_t x = (uint64_t)out->storage->i64[i];
        int negative = out->storage->i64[i] < 0;
        if (op == ATTN_NEG || (op == ATTN_ABS && negative))
            x = 0 - x;
        else if (op == ATTN_RELU && negative)
            x = 0;
        out->storage->i64[i] = (int64_t)x;
    }
    return out;
}

static const char *unary_name(attn_unop op)
{
    static const char *names[] = {"neg", "exp", "log", "sqrt", "tanh", "abs", "sigmoid", "relu", "logical_not"};
    return names[op];
}

attn_tensor *attn_unary(attn_unop op, const attn_tensor *a, attn_error *err)
{
    int keeps_dtype = op == ATTN_NEG || op == ATTN_ABS || op == ATTN_RELU;
    if (a->dtype == ATTN_BOOL && keeps_dtype)
        return attn_fail(err, "%s: not defined for a bool tensor (PyTorch refuses it too)%s", unary_name(op),
                         op == ATTN_NEG ? attn_tr("; to invert a mask use logical_not()") : "");
    if (a->dtype == ATTN_INT64 && keeps_dtype)
        return unary_i64(op, a, err);
    /* everything else computes in float32, converting an int64 or bool input first */
    return map_unary(a, op == ATTN_LOGICAL_NOT ? ATTN_BOOL : ATTN_FLOAT32, op, 0, 0, err);
}

/* PyTorch's pow(tensor, scalar) special-cases these exponents (pow_tensor_scalar_optimized_kernel). */
static float pow_scalar(float x, double e)
{
    if (e == 2)
        return x * x;
    if (e == 0.5)
        return sqrtf(x);
    if (e == 3)
        return x * x * x;
    if (e == -0.5)
        return 1.0f / sqrtf(x);
    if (e == -1)
        return 1.0f / x;
    if (e == -2)
        return 1.0f / (x * x);
    return powf(x, (float)e);
}

attn_tensor *attn_pow_scalar(const attn_tensor *a, attn_number exponent, attn_error *err)
{
    if (a->dtype != ATTN_FLOAT32 && exponent.dtype != ATTN_FLOAT32) { /* integer ** integer stays integer */
        if (exponent.i < 0)
            return attn_fail(err, "pow: integers to negative integer powers are not allowed (as in PyTorch); "
                                  "convert with :float() first");
        return attn_binary_scalar("pow", ATTN_POW, a, exponent, 0, err);
    }
    double e = exponent.dtype == ATTN_FLOAT32 ? exponent.f : (double)exponent.i;
    return map_unary(a, ATTN_FLOAT32, ATTN_NEG, e, 1, err);
}

static attn_tensor *map_unary(const attn_tensor *a, attn_dtype dtype, attn_unop op, double exponent, int use_pow,
                              attn_error *err)
{
    attn_tensor *out = attn_empty("unary", a->ndim, a->shape, dtype, err);
    if (!out)
        return NULL;
    int64_t n = attn_numel(a);
    float *O = out->storage->data;
    if (attn_copy_out(a, O))
        return interrupted(out, err);
    /* exp, log and tanh 8 at a time on every thread where the CPU allows: the same bits (vunary.h) */
    if (!use_pow) {
        int done = vunary_apply(op, O, n);
        if (done < 0)
            return interrupted(out, err);
        if (done)
            return out;
    }
    /* torch.sigmoid runs its scalar lambda on the last numel % 16 elements of a contiguous tensor */
    int64_t tail = (op == ATTN_SIGMOID && !use_pow && attn_is_contiguous(a)) ? n - n % 16 : n;
    for (int64_t i = 0; i < n; i++) {
        if (attn_poll(i))
            return interrupted(out, err);
        if (use_pow)
            O[i] = pow_scalar(O[i], exponent);
        else
            O[i] = i >= tail ? vmath_sigmoid_tail(O[i]) : apply_unary(op, O[i]);
    }
    return out;
}

