/* gemm_n1.c — attn_sgemm_n1 (gemm_n1.h): one column of a product in OpenBLAS 0.3.21 Haswell sgemm's order.
 *
 * With n = 1 OpenBLAS's level-3 driver (driver/level3/level3.c) cuts k into blocks, and its micro-kernel
 * (sgemm_kernel_8x4_haswell_2.c, COMPUTE_NORMAL(1): tiles of 8, 4, 2, 1 rows by one column) adds each
 * block as one fused chain; measured against libopenblas for both transpositions of a (tests/c/test_gemv.c):
 *
 *   blocks of k:   from t = 0, each block min(left, Q) long when left >= 2Q, else, when left > Q, left / 2
 *                  rounded up to a multiple of 8, else all that is left (Q = 320: 768 = 320 + 224 + 224)
 *   c[i]:          c = +0 when beta is 0, beta·c otherwise (c when beta is 1); then for each block in turn
 *                  g = +0, g = fma(op(a)[i, t], b[t], g) for t along the block; c = c + g (one rounding:
 *                  the kernel's fma with alpha 1)
 *
 * Vectors and threads run across i only. */
#include "gemm_n1.h"

#include "gemv.h"

#include "fmaf_exact.h"
#include "isa.h"
#include "parallel.h"

/* c[0, rows) += one block's chains, portable (the rows of a 'T' matrix are contiguous: one at a time; an
 * 'N' one is read down its columns, a few rows at once) */
static void block_portable(char ta, int64_t rows, int64_t len, const float *a, int64_t lda, const float *b,
                           int64_t incb, float *c)
{
    if (ta != 'N') {
        for (int64_t i = 0; i < rows; i++) {
            const float *ai = a + i * lda;
            float g = 0.0f;
            for (int64_t t = 0; t < len; t++)
                g = attn_fmaf(ai[t], b[t * incb], g);
            c[i] = c[i] + g;
        }
        return;
    }
    enum { ROWS = 64 };
    for (int64_t i0 = 0; i0 < rows; i0 += ROWS) {
        int64_t n = rows - i0 < ROWS ? rows - i0 : ROWS;
        float g[ROWS] = {0};
        for (int64_t t = 0; t < len; t++)
            for (int64_t i = 0; i < n; i++)
                g[i] = attn_fmaf(a[i0 + i + t * lda], b[t * incb], g[i]);
        for (int64_t i = 0; i < n; i++)
            c[i0 + i] = c[i0 + i] + g[i];
    }
}

typedef struct {
    char ta;
    int64_t k, lda, incb;
    const float *a, *b;
    float beta;
    float *c;
    attn_isa isa;
} job;

static int rows_range(void *ctx, int64_t begin, int64_t end)
{
    const job *j = ctx;
    float *c = j->c + begin;
    int64_t rows = end - begin;
    for (int64_t i = 0; i < rows; i++)
        c[i] = j->beta == 0.0f ? 0.0f : j->beta == 1.0f ? c[i] : j->beta * c[i];
    const float *a = j->a + begin * (j->ta == 'N' ? 1 : j->lda);
    int64_t vec_rows = 0;
#if defined(__x86_64__) && defined(__GNUC__)
    if (j->isa != ATTN_ISA_PORTABLE) {
        vec_rows = rows / 8 * 8;
        (j->isa == ATTN_ISA_AVX512 ? attn_gemm_n1_rows_avx512 : attn_gemm_n1_rows_avx2)(j->ta, vec_rows, j->k, a,
                                                                                        j->lda, j->b, j->incb, c);
    }
#endif
    if (vec_rows == rows)
        return 0;
    a += vec_rows * (j->ta == 'N' ? 1 : j->lda);
    for (int64_t t = 0, len; t < j->k; t += len) {
        len = attn_gemm_n1_block_len(j->k - t);
        block_portable(j->ta, rows - vec_rows, len, a + t * (j->ta == 'N' ? j->lda : 1), j->lda,
                       j->b + t * j->incb, j->incb, c + vec_rows);
    }
    return 0;
}

void attn_sgemm_n1(char ta, int64_t m, int64_t k, const float *a, int64_t lda, const float *b, int64_t incb,
                   float beta, float *c)
{
    if (m <= 0)
        return;
    ta = ta == 'n' ? 'N' : ta == 'N' ? 'N' : 'T';
    job j = {ta, k, lda, incb, a, b, beta, c, attn_isa_current()};
    /* rows in multiples of 8 per thread, at least 2^20 multiply-adds each (gemv.c says why) */
    int64_t grain = k > 0 ? attn_gemv_thread_work / k : m;
    grain = (grain + 7) / 8 * 8;
    attn_parallel_for(m, grain < 8 ? 8 : grain, rows_range, &j);
}
