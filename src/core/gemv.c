/* gemv.c — attn_sgemv_n and attn_sgemv_t (gemv.h): matrix times vector, each element added in the order of
 * OpenBLAS 0.3.21's Haswell sgemv on one thread (kernel/x86_64/sgemv_n_4.c, sgemv_t_4.c and their
 * *_microk_haswell-4.c; the C parts as Debian compiled them, with no fused multiply-add: read in its
 * disassembly, checked by tests/c/test_gemv.c against libopenblas bit for bit).
 *
 * Both cut the m rows of A into blocks: blocks of 4096, then one of the rest of m rounded down to 4 (NB
 * below), then the last m % 4 rows (the tail). fma(a, b, c) is one rounding, a*b + c two; every sum
 * starts from +0.
 *
 * 'N', y[i] = sum over j of A[i,j] x[j]. y[i] = +0, then for each group of columns in turn y[i] += g, with
 *   the groups: with incx 1, eights, then a four (n & 4), a two (n & 2), a one (n & 1); otherwise fours, then
 *   ones (n & 3). Row i at position p of its block is an edge row when p < (NB & 12), a main row otherwise.
 *     group of 8 or 4, main row:  g = fma chain over the group's columns in order, from +0; y = y + g
 *     group of 8 or 4, edge row:  e, o = fma chains over the even and odd columns; y = (e + o) + y
 *     group of 2:                 y = (y + A[i,j]*x[j]) + A[i,j+1]*x[j+1]
 *     group of 1:                 y = y + A[i,j]*x[j]
 *     tail row:                   t = +0; t += A[i,j]*x[j] for each j; y = +0 + t; except when lda equals
 *                                 m % 4 (then m = lda) and incx is 1: t += p0 + p1, t += p2 + p3 for each
 *                                 four columns (m % 4 of 2, 3) or t += ((p0 + p1) + p2) + p3 (m = 1).
 * 'T', y[j] = sum over i of A[i,j] x[i]. y[j] = +0, then y[j] = y[j] + d for each block's dot d, then
 *   y[j] = y[j] + ((A[r,j]x[r] + A[r+1,j]x[r+1]) + A[r+2,j]x[r+2]) over the tail's rows r.. (as many as
 *   it has). Block element p (from 0) goes to a lane; each lane is a chain in order, from +0:
 *     columns j < n & ~3 ("4"):   8 lanes, fused: lane p for p < (NB & 4), then lane (p - (NB & 4)) % 8;
 *                                 h[l] = L[l] + L[l+4]; d = (h0 + h1) + (h2 + h3)
 *     a two of columns (n & 2):   4 lanes, L[p % 4] += A*x; d = (L0 + L1) + (L2 + L3)
 *     the last column (n & 1):    4 lanes in two sets: p < (NB & 4), or (p - (NB & 4)) % 8 < 4, in the
 *                                 first, the rest in the second, both L[p % 4] += A*x; c = first + second;
 *                                 d = (c0 + c1) + (c2 + c3)
 *
 * Vectors run across output elements ('N': 8 or 16 rows; 'T': a column's 8 lanes, which are the order's
 * own), threads across rows ('N') or columns ('T'): each element's order is the same at every width and
 * thread count. */
#include "gemv.h"

#include "fmaf_exact.h"
#include "isa.h"
#include "parallel.h"

#include <string.h>

#define NBMAX 4096

/* ---- the portable kernels (any CPU; WebAssembly through attn_fmaf) ---- */

/* 'N' rows of one kind, whole: y[0, rows) from the column groups in turn (columns outer, so that a chunk of
 * y stays in the first-level cache while the columns stream past) */
static void n_rows_portable(int edge, int64_t rows, int64_t n, const float *a, int64_t lda, const float *x,
                            int64_t incx, float *y)
{
    for (int64_t i = 0; i < rows; i++)
        y[i] = 0.0f;
    int64_t j = 0, wide = incx == 1 ? 8 : 4;
    for (; j + wide <= n; j += wide) {
        const float *aj = a + j * lda;
        for (int64_t i = 0; i < rows; i++) {
            float e = 0.0f, o = 0.0f;
            if (edge) {
                for (int64_t k = 0; k < wide; k += 2) {
                    e = attn_fmaf(aj[i + k * lda], x[(j + k) * incx], e);
                    o = attn_fmaf(aj[i + (k + 1) * lda], x[(j + k + 1) * incx], o);
                }
                y[i] = (e + o) + y[i];
            } else {
                for (int64_t k = 0; k < wide; k++)
                    e = attn_fmaf(aj[i + k * lda], x[(j + k) * incx], e);
                y[i] = y[i] + e;
            }
        }
    }
    if (incx == 1 && (n & 4)) {
        const float *aj = a + j * lda;
        for (int64_t i = 0; i < rows; i++) {
            float e = 0.0f, o = 0.0f;
            if (edge) {
                e = attn_fmaf(aj[i + 2 * lda], x[j + 2], attn_fmaf(aj[i], x[j], 0.0f));
                o = attn_fmaf(aj[i + 3 * lda], x[j + 3], attn_fmaf(aj[i + lda], x[j + 1], 0.0f));
                y[i] = (e + o) + y[i];
            } else {
                for (int64_t k = 0; k < 4; k++)
                    e = attn_fmaf(aj[i + k * lda], x[j + k], e);
                y[i] = y[i] + e;
            }
        }
        j += 4;
    }
    if (incx == 1 && (n & 2)) {
        const float *aj = a + j * lda;
        for (int64_t i = 0; i < rows; i++)
            y[i] = (y[i] + aj[i] * x[j]) + aj[i + lda] * x[j + 1];
        j += 2;
    }
    for (; j < n; j++) { /* the one of incx 1, the ones of n & 3 otherwise */
        const float *aj = a + j * lda;
        for (int64_t i = 0; i < rows; i++)
            y[i] = y[i] + aj[i] * x[j * incx];
    }
}

/* the tail's row, whose first element is a[0] (m rows in all, m % 4 of them in the tail) */
static float n_tail_row(int64_t m, int64_t n, const float *a, int64_t lda, const float *x, int64_t incx)
{
    float t = 0.0f;
    int64_t j = 0;
    if (lda == (m & 3) && incx == 1) {
        for (; j + 4 <= n; j += 4) {
            float p0 = a[j * lda] * x[j], p1 = a[(j + 1) * lda] * x[j + 1];
            float p2 = a[(j + 2) * lda] * x[j + 2], p3 = a[(j + 3) * lda] * x[j + 3];
            if (lda == 1) {
                t += ((p0 + p1) + p2) + p3;
            } else {
                t += p0 + p1;
                t += p2 + p3;
            }
        }
    }
    for (; j < n; j++)
        t += a[j * lda] * x[j * incx];
    return 0.0f + t;
}

/* 'T': one block's dot of the column a (its rows [0, nb), x contiguous), the kinds "2" and "1" */
static float t_dot_unfused(int two, int64_t nb, const float *a, const float *x)
{
    float first[4] = {0}, second[4] = {0};
    int64_t off = nb & 4;
    for (int64_t p = 0; p < nb; p++) {
        float *lane = (two || p < off || ((p - off) & 7) < 4) ? first : second;
        lane[p & 3] = lane[p & 3] + a[p] * x[p];
    }
    float c[4];
    for (int l = 0; l < 4; l++)
        c[l] = first[l] + second[l];
    return (c[0] + c[1]) + (c[2] + c[3]);
}

/* the same for the kind "4", 8 fused lanes */
static float t_dot_lanes8(int64_t nb, const float *a, const float *x)
{
    float lane[8] = {0};
    int64_t off = nb & 4;
    for (int64_t p = 0; p < off; p++)
        lane[p] = attn_fmaf(a[p], x[p], lane[p]);
    for (int64_t p = off; p < nb; p++)
        lane[(p - off) & 7] = attn_fmaf(a[p], x[p], lane[(p - off) & 7]);
    float h[4];
    for (int l = 0; l < 4; l++)
        h[l] = lane[l] + lane[l + 4];
    return (h[0] + h[1]) + (h[2] + h[3]);
}

static void t_cols_portable(int64_t nb, int64_t cols, const float *a, int64_t lda, const float *x, float *y)
{
    for (int64_t j = 0; j < cols; j++)
        y[j] = y[j] + t_dot_lanes8(nb, a + j * lda, x);
}

/* ---- choosing the kernels ---- */

static gemv_n_rows_fn n_rows_kernel(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    switch (attn_isa_current()) {
    case ATTN_ISA_AVX512:
        return attn_gemv_n_rows_avx512;
    case ATTN_ISA_AVX2:
        return attn_gemv_n_rows_avx2;
    default:
        break;
    }
#endif
    return n_rows_portable;
}

static gemv_t_cols_fn t_cols_kernel(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    /* the lanes of 'T' are the order's own 8: AVX-512 runs the AVX2 kernel */
    if (attn_isa_current() != ATTN_ISA_PORTABLE)
        return attn_gemv_t_cols_avx2;
#endif
    return t_cols_portable;
}

/* ---- 'N': threads across rows ---- */

typedef struct {
    int64_t m, n, lda, incx;
    const float *a, *x;
    float *y;
    gemv_n_rows_fn rows;
} n_job;

static int n_range(void *ctx, int64_t begin, int64_t end)
{
    const n_job *g = ctx;
    int64_t mm = g->m & ~(int64_t)3;
    for (int64_t i = begin; i < end;) {
        if (i >= mm) {
            g->y[i] = n_tail_row(g->m, g->n, g->a + i, g->lda, g->x, g->incx);
            i++;
            continue;
        }
        /* the block of row i, and the end of its edge rows */
        int64_t start = i / NBMAX * NBMAX, nb = mm - start < NBMAX ? mm - start : NBMAX;
        int64_t edge_end = start + (nb & 12), stop = i < edge_end ? edge_end : start + nb;
        if (stop > end)
            stop = end;
        g->rows(i < edge_end, stop - i, g->n, g->a + i, g->lda, g->x, g->incx, g->y + i);
        i = stop;
    }
    return 0;
}

/* about 2^20 multiply-adds per thread at least (some 50 us): threads are started for each call (parallel.c),
 * and below that starting one costs more than it saves (a 3072 x 768 product took 5 times as long on 2
 * threads as on 1 with a grain of 2^15, on a busy machine) */
int64_t attn_gemv_thread_work = (int64_t)1 << 20;

static int64_t grain_for(int64_t per_item)
{
    int64_t least = attn_gemv_thread_work;
    return per_item >= least ? 1 : least / (per_item > 0 ? per_item : 1);
}

void attn_sgemv_n(int64_t m, int64_t n, const float *a, int64_t lda, const float *x, int64_t incx, float *y)
{
    if (m <= 0)
        return;
    if (n <= 0) {
        memset(y, 0, sizeof(float) * (size_t)m);
        return;
    }
    n_job g = {m, n, lda, incx, a, x, y, n_rows_kernel()};
    attn_parallel_for(m, grain_for(n), n_range, &g);
}

/* ---- 'T': threads across columns ---- */

typedef struct {
    int64_t m, n, lda, incx;
    const float *a, *x;
    float *y;
    gemv_t_cols_fn cols;
} t_job;

static int t_range(void *ctx, int64_t begin, int64_t end)
{
    const t_job *g = ctx;
    int64_t mm = g->m & ~(int64_t)3, n4 = g->n & ~(int64_t)3;
    float xbuf[NBMAX];
    for (int64_t j = begin; j < end; j++)
        g->y[j] = 0.0f;
    for (int64_t start = 0; start < mm; start += NBMAX) {
        int64_t nb = mm - start < NBMAX ? mm - start : NBMAX;
        const float *xb = g->x + start * g->incx;
        if (g->incx != 1) {
            for (int64_t p = 0; p < nb; p++)
                xbuf[p] = xb[p * g->incx];
            xb = xbuf;
        }
        const float *ab = g->a + start;
        int64_t j4 = end < n4 ? end : n4;
        if (begin < j4)
            g->cols(nb, j4 - begin, ab + begin * g->lda, g->lda, xb, g->y + begin);
        for (int64_t j = begin > n4 ? begin : n4; j < end; j++) /* the two (n & 2), then the one (n & 1) */
            g->y[j] = g->y[j] + t_dot_unfused((g->n & 2) && j < n4 + 2, nb, ab + j * g->lda, xb);
    }
    if (mm < g->m) {
        const float *xt = g->x + mm * g->incx;
        for (int64_t j = begin; j < end; j++) {
            const float *at = g->a + mm + j * g->lda;
            float t = at[0] * xt[0];
            for (int64_t r = 1; r < g->m - mm; r++)
                t = t + at[r] * xt[r * g->incx];
            g->y[j] = g->y[j] + t;
        }
    }
    return 0;
}

void attn_sgemv_t(int64_t m, int64_t n, const float *a, int64_t lda, const float *x, int64_t incx, float *y)
{
    if (n <= 0)
        return;
    if (m <= 0) {
        memset(y, 0, sizeof(float) * (size_t)n);
        return;
    }
    t_job g = {m, n, lda, incx, a, x, y, t_cols_kernel()};
    attn_parallel_for(n, grain_for(m), t_range, &g);
}
