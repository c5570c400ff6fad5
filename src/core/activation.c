/* activation.c — gelu, silu, erf, sin and cos as PyTorch 1.13 computes them on the CPU (Debian's build:
 * AVX2 kernels, oneDNN 2.6 for gelu), bit for bit.
 *
 * Which code runs depends on the function and the tensor:
 *   gelu (erf form)   a contiguous float tensor of 2+ elements goes to oneDNN's eltwise_gelu_erf JIT kernel
 *                     (aten/src/ATen/native/Activation.cpp: use_mkldnn), emulated by onednn_gelu below; any
 *                     other tensor runs ATen's GeluKernelImpl: x * 0.5 * (1 + erf(x * M_SQRT1_2)).
 *   gelu (tanh form), silu
 *                     ATen's cpu_kernel_vec: the vector lambda on blocks of 16, the scalar lambda (libm's
 *                     expf/tanhf/erff) on the last numel % 16 elements of a contiguous tensor.
 *   erf, sin, cos     vml's vec::map over the whole tensor in groups of 8 (SLEEF's u10 functions).
 * SLEEF's sinf8/cosf8 pick their argument reduction once per vector: if any of the 8 lanes has
 * |x| >= 125, every lane takes the slow path, which can differ in the last bit. So sin and cos run on the
 * same groups of 8 PyTorch uses: through the vector table's 8-wide function where the machine has one
 * (x86/trig_avx2.c: SLEEF's AVX2 function), else through attn's own (exactmath_trigf8), which groups the
 * same way. (All checked against Debian's torch: tests/c/test_layers.c.) */
#include "layers.h"
#include "exactmath.h"
#include "sleefmath.h"
#include "vector_kernels.h"
#include "vmath.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LANES 8

static float bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* One group of 8 as Sleef_sinf8_u10 / Sleef_cosf8_u10 compute it (see the top of this file). */
static void trig8(int cosine, const float *in, float *out)
{
    void (*vector)(int, const float *, float *) = attn_vector_kernels_now()->trig8;
    if (vector) {
        vector(cosine, in, out);
        return;
    }
    exactmath_trigf8(cosine, in, out);
}

/* vec::map(sin/cos) over n contiguous floats in place: groups of 8, the last one padded with zeros (as
 * Vectorized::loadu(ptr, count) pads). */
static void map_trig(int cosine, float *x, int64_t n)
{
    for (int64_t d = 0; d < n; d += LANES) {
        float group[LANES] = {0};
        int64_t k = n - d < LANES ? n - d : LANES;
        memcpy(group, x + d, sizeof(float) * (size_t)k);
        trig8(cosine, group, group);
        memcpy(x + d, group, sizeof(float) * (size_t)k);
    }
}

/* ---- oneDNN's gelu_erf (jit_uni_eltwise_injector, avx2) --------------------------------------- */

/* exp_compute_vector_fwd: x clamped to [ln FLT_MIN, ln FLT_MAX], n = floor(x log2 e + 0.5), a degree-5
 * polynomial of r = x - n ln 2, times 2^(n-1) times 2; inputs below ln FLT_MIN give 0. */
static float onednn_exp(float x)
{
    const float ln_flt_max = bits_float(0x42b17218), ln_flt_min = bits_float(0xc2aeac50);
    int below = x < ln_flt_min;
    x = x < ln_flt_max ? x : ln_flt_max; /* vminps: the second operand when x is nan */
    x = x > ln_flt_min ? x : ln_flt_min;
    float fx = x * bits_float(0x3fb8aa3b) + 0.5f; /* log2(e); a multiply, then an add */
    float n = floorf(fx);
    float r = fmaf(-n, bits_float(0x3f317218), x); /* ln 2 */
    int32_t e = (int32_t)(n - 1.0f) + 127;
    float scale = below || e <= 0 ? 0.0f : bits_float((uint32_t)e << 23);
    float p = bits_float(0x3c07cfce);
    p = fmaf(p, r, bits_float(0x3d2b9d0d));
    p = fmaf(p, r, bits_float(0x3e2aad40));
    p = fmaf(p, r, bits_float(0x3efffee3));
    p = fmaf(p, r, bits_float(0x3f7ffffb));
    p = fmaf(p, r, 1.0f);
    return p * scale * 2.0f;
}

/* gelu_erf_compute_vector_fwd: erf by Abramowitz and Stegun 7.1.26 with the exp above, then
 * S + S * erf with S = s / 2. */
static float onednn_gelu(float s)
{
    float x = s * bits_float(0x3f3504f3); /* 1 / sqrt(2) */
    float t = 1.0f / fmaf(bits_float(0x3ea7ba05), fabsf(x), 1.0f);
    float e = -onednn_exp(-(x * x)) * t;
    float r = bits_float(0x3f87dc22);
    r = fmaf(r, t, bits_float(0xbfba00e3));
    r = fmaf(r, t, bits_float(0x3fb5f0e3));
    r = fmaf(r, t, bits_float(0xbe91a98e));
    r = fmaf(r, t, bits_float(0x3e827906));
    float erf = bits_float(float_bits(fmaf(e, r, 1.0f)) ^ (float_bits(x) & 0x80000000u));
    float half_s = s * 0.5f;
    return fmaf(erf, half_s, half_s);
}

/* ---- ATen's lambdas: vector (v) and scalar (s) ------------------------------------------------ */

static const float GELU_BETA = (float)(M_SQRT2 * M_2_SQRTPI * 0.5), GELU_KAPPA = 0.044715f;

static float gelu_v(float x) { return x * 0.5f * (1.0f + sleefmath_erff(x * (float)M_SQRT1_2)); }
static float gelu_s(float x) { return x * 0.5f * (1.0f + erff(x * (float)M_SQRT1_2)); }

/* x + kappa x^3 is one fused multiply-add in Debian's build, in both lambdas */
static float gelu_tanh_v(float x)
{
    float inner = GELU_BETA * fmaf(GELU_KAPPA, x * x * x, x);
    return 0.5f * x * (1.0f + vmath_tanh(inner));
}

static float gelu_tanh_s(float x)
{
    float inner = GELU_BETA * fmaf(GELU_KAPPA, x * x * x, x);
    return 0.5f * x * (1.0f + tanhf(inner));
}

static float silu_v(float x) { return x / (1.0f + vmath_exp(-x)); }
static float silu_s(float x) { return x / (1.0f + expf(-x)); }

/* ---- TensorIterator's loop order ---------------------------------------------------------------- */

/* For one input and a fresh output, PyTorch (one thread) loops over the input's dims sorted by stride,
 * smallest innermost (TensorIterator::reorder_dimensions; size-1 and stride-0 dims never swap), merges the
 * innermost dims that are contiguous with each other into one row (coalesce_dimensions), and calls the
 * kernel's inner loop once per row: vectorised only when the row's stride is 1. So a transposed tensor is
 * computed in memory order, as one row. */
typedef struct loop_order {
    int ndim;                      /* sorted dims, innermost first */
    int64_t shape[ATTN_MAX_DIMS];
    int64_t stride[ATTN_MAX_DIMS]; /* the input's strides */
    int64_t out[ATTN_MAX_DIMS];    /* row-major strides of the (contiguous) result */
    int64_t row;                   /* elements per row */
} loop_order;

/* should_swap: 1 when dim a should go inside dim b */
static int goes_inside(const attn_tensor *x, int a, int b)
{
    int64_t sa = x->stride[a], sb = x->stride[b];
    if (sa == 0 || sb == 0)
        return 0;
    return sa < sb || (sa == sb && x->shape[b] > x->shape[a]);
}

static void order_loop(const attn_tensor *x, loop_order *lo)
{
    int perm[ATTN_MAX_DIMS], n = 0;
    for (int d = x->ndim - 1; d >= 0; d--) /* innermost first: the last dim, unless strides say otherwise */
        perm[n++] = d;
    for (int i = 1; i < n; i++) /* insertion sort, as reorder_dimensions */
        for (int j = i; j > 0 && goes_inside(x, perm[j], perm[j - 1]); j--) {
            int t = perm[j];
            perm[j] = perm[j - 1];
            perm[j - 1] = t;
        }
    int64_t out_stride[ATTN_MAX_DIMS], s = 1;
    for (int d = x->ndim - 1; d >= 0; d--) {
        out_stride[d] = s;
        s *= x->shape[d];
    }
    lo->ndim = 0;
    for (int i = 0; i < n; i++) {
        if (x->shape[perm[i]] == 1)
            continue; /* size-1 dims coalesce with anything */
        lo->shape[lo->ndim] = x->shape[perm[i]];
        lo->stride[lo->ndim] = x->stride[perm[i]];
        lo->out[lo->ndim] = out_stride[perm[i]];
        lo->ndim++;
    }
    lo->row = lo->ndim ? lo->shape[0] : 1;
    for (int i = 1; i < lo->ndim && lo->stride[i] == lo->stride[i - 1] * lo->shape[i - 1]; i++)
        lo->row *= lo->shape[i];
}

/* The input's elements in loop order into v, and where each goes in the result into at. -1 when
 * interrupted. */
static int gather_in_order(const attn_tensor *x, const loop_order *lo, float *v, int64_t *at, int64_t n)
{
    int64_t idx[ATTN_MAX_DIMS] = {0}, in = x->offset, out = 0;
    const float *data = x->storage->data;
    for (int64_t k = 0; k < n; k++) {
        if (attn_poll(k))
            return -1;
        v[k] = data[in];
        at[k] = out;
        for (int d = 0; d < lo->ndim; d++) {
            in += lo->stride[d];
            out += lo->out[d];
            if (++idx[d] < lo->shape[d])
                break;
            in -= lo->stride[d] * lo->shape[d];
            out -= lo->out[d] * lo->shape[d];
            idx[d] = 0;
        }
    }
    return 0;
}

/* ---- driver ----------------------------------------------------------------------------------- */

/* One inner-loop call on a row of n values, in place. vectorised: the row is contiguous in the input. */
static void run_row(attn_activation f, float *v, int64_t n, int vectorised, int onednn)
{
    if (f == ATTN_ACT_SIN || f == ATTN_ACT_COS) { /* vml: groups of 8 either way (via a buffer if strided) */
        map_trig(f == ATTN_ACT_COS, v, n);
        return;
    }
    /* cpu_kernel_vec: blocks of 16 through the vector lambda, the last n % 16 through the scalar one */
    int64_t tail = vectorised ? n - n % 16 : 0;
    for (int64_t i = 0; i < n; i++) {
        int vec = i < tail;
        switch (f) {
        case ATTN_ACT_GELU: v[i] = onednn ? onednn_gelu(v[i]) : vec ? gelu_v(v[i]) : gelu_s(v[i]); break;
        case ATTN_ACT_GELU_TANH: v[i] = vec ? gelu_tanh_v(v[i]) : gelu_tanh_s(v[i]); break;
        case ATTN_ACT_SILU: v[i] = vec ? silu_v(v[i]) : silu_s(v[i]); break;
        case ATTN_ACT_ERF: v[i] = sleefmath_erff(v[i]); break; /* vml, every element on the vector path */
        default: break;
        }
    }
}

/* Rows of `row` values; a long row goes in pieces of 64K (a multiple of 16, so the blocks stay PyTorch's),
 * checking for Ctrl-C between them. Returns -1 when interrupted. */
static int run_rows(attn_activation f, float *v, int64_t n, int64_t row, int vectorised, int onednn)
{
    const int64_t piece = (int64_t)1 << 16;
    for (int64_t r = 0; r < n; r += row)
        for (int64_t d = 0; d < row; d += piece) {
            if (attn_interrupt_requested)
                return -1;
            /* the last piece of the row carries the row's scalar tail */
            int64_t len = row - d > piece ? piece : row - d;
            run_row(f, v + r + d, len, vectorised, onednn);
        }
    return 0;
}

/* erf, sin and cos of an int64 tensor are those of its float32 values, as in PyTorch; gelu and silu are
 * not defined for integers there, so not here either. */
static attn_tensor *activate_int64(attn_activation f, const attn_tensor *x, attn_error *err)
{
    static const char *names[] = {"gelu", "gelu", "silu", "erf", "sin", "cos"};
    if (f == ATTN_ACT_GELU || f == ATTN_ACT_GELU_TANH || f == ATTN_ACT_SILU)
        return attn_check_float(names[f], "the input", x, err), NULL;
    attn_tensor *c = attn_to_dtype(x, ATTN_FLOAT32, err);
    attn_tensor *out = c ? attn_activate(f, c, err) : NULL;
    attn_free(c);
    return out;
}

attn_tensor *attn_activate(attn_activation f, const attn_tensor *x, attn_error *err)
{
    if (x->dtype == ATTN_INT64)
        return activate_int64(f, x, err);
    attn_tensor *out = attn_empty("activation", x->ndim, x->shape, ATTN_FLOAT32, err);
    if (!out)
        return NULL;
    int64_t n = attn_numel(x);
    if (n == 0)
        return out;
    float *o = out->storage->data;
    /* oneDNN takes gelu on a contiguous float tensor of more than one element (use_mkldnn) */
    int onednn = f == ATTN_ACT_GELU && attn_is_contiguous(x) && n > 1;
    loop_order lo;
    order_loop(x, &lo);
    int vectorised = lo.ndim == 0 || lo.stride[0] == 1;
    int status;
    if (attn_is_contiguous(x)) {
        status = attn_copy_out(x, o) ? -1 : run_rows(f, o, n, n, 1, onednn);
    } else {
        attn_error tmp;
        int64_t shape = n;
        attn_tensor *vals = attn_empty("activation", 1, &shape, ATTN_FLOAT32, &tmp);
        int64_t *at = vals ? malloc(sizeof(int64_t) * (size_t)n) : NULL;
        if (!at) {
            attn_free(vals);
            attn_free(out);
            return attn_fail(err, "activation: out of memory for %lld elements", (long long)n);
        }
        status = gather_in_order(x, &lo, vals->storage->data, at, n) ? -1
                 : run_rows(f, vals->storage->data, n, lo.row, vectorised, onednn);
        for (int64_t k = 0; k < n && !status; k++)
            o[at[k]] = vals->storage->data[k];
        free(at);
        attn_free(vals);
    }
    if (status) {
        attn_free(out);
        return attn_interrupted(err);
    }
    return out;
}
