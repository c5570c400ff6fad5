/* gemm.c — attn_sgemm (gemm.h): the order in which OpenBLAS 0.3.21's Haswell sgemm, one thread, sums each
 * element, and a driver that computes every element in that order, whatever tiles, vector widths and
 * threads compute it. Established by reading OpenBLAS's driver/level3/level3.c and
 * kernel/x86_64/sgemm_kernel_8x4_haswell_2.c, and checked bit for bit against libopenblas by
 * tests/c/test_gemm.c.
 *
 * The order (P = 320, Q = 320, R = 104512: Haswell's SGEMM_DEFAULT_P/Q and the sgemm_r its 128 MB buffer
 * gives; all blocks below are of op(A) rows i, op(B) columns j and the sum's index l):
 *
 *   beta = 0        C = +0 first (then C = C + s per k-block below; beta = 1: C as it is)
 *   k-blocks        l in blocks from 0: Q while 2Q or more remain; between Q and 2Q remaining, the first
 *                   half rounded up to 8 (then the rest); otherwise all that remain.
 *                   For each block in turn, C = C + s (one rounding), s the block's sum:
 *   one chain       s = +0, then s = fma(A(i,l), B(l,j), s) for each l of the block in order
 *   two chains      e = o = +0; over the first K8 = kl & ~7 of the block's kl terms, even ones into e,
 *                   odd ones into o (each an fma); the last kl - K8 terms into e; s = e + o
 *
 * Which elements take two chains: rows are cut into i-blocks (P while 2P or more remain, between P and
 * 2P the first half rounded up to 8, else the rest; each a multiple of 8 but the last), each i-block into
 * groups of 8 rows from its start; G = its number of whole groups. Rows after the last whole group take
 * one chain. Columns are cut into R-blocks, then into n-chunks: for the first i-block, chunks of 12
 * while 12 or more remain, then 4 while more than 4 remain, then the rest; for the other i-blocks,
 * chunks of 12 while 12 or more remain, then one chunk of what is left. A group of 8 rows takes:
 *
 *   chunk of 12, G >= 2   columns 0-5: groups 0 and, when G is even, G-1; columns 6-11: group G-1 when
 *                         G is odd (the kernel's COMPUTE_n12: H_m8n6, then R/L_m16n6, then T_m8n6)
 *   chunk of 12, G < 2    none
 *   chunk of 4 to 7       its first 4 columns: every whole group (COMPUTE_m8n4); the rest: none
 *   chunk of 8 to 11      none (COMPUTE_m8n8 and smaller are one chain)
 *   chunk of 1 to 3       none
 *
 * Everything else is one chain. Vectors and threads run across elements only: the driver below cuts the
 * output into jobs (an i-block by a stripe of columns) and each job into tiles of rows by runs of
 * columns whose groups all take the same chains. */
#include "gemm.h"
#include "isa.h"
#include "parallel.h"
#include "tensor.h"

#include <string.h>

enum {
    GEMM_P = 320,
    GEMM_Q = 320,
    GEMM_R = 104512,
    UNROLL_M = 8,
    STRIPE = 96,   /* columns per job */
    MAX_W = 6,     /* columns per tile */
    MAX_PANEL = 32 /* rows packed at a time: a tile kernel's wide_rows at most */
};

/* Which whole groups of an i-block take two chains, for one column */
typedef enum { TWO_NONE, TWO_ALL, TWO_FIRST, TWO_LAST, TWO_FIRST_LAST } two_chain_groups;

static int64_t round_up(int64_t x, int64_t to)
{
    return (x + to - 1) / to * to;
}

/* OpenBLAS's min_l and min_i: the next block of `rest` (k for Q, rows for P) */
static int64_t next_block(int64_t rest, int64_t size)
{
    if (rest >= 2 * size)
        return size;
    if (rest > size)
        return round_up(rest / 2, UNROLL_M);
    return rest;
}

/* Column jl of an R-block of min_j columns, in i-block number ib of G whole groups */
static two_chain_groups two_chain_groups_of(int64_t jl, int64_t min_j, int first_iblock, int64_t G)
{
    int64_t twelves = min_j / 12 * 12;
    if (jl < twelves) {
        if (G < 2)
            return TWO_NONE;
        if (jl % 12 < 6)
            return G % 2 == 0 ? TWO_FIRST_LAST : TWO_FIRST;
        return G % 2 == 1 ? TWO_LAST : TWO_NONE;
    }
    int64_t rest = min_j - twelves, rl = jl - twelves;
    if (first_iblock) /* chunks of 4 while more than 4 remain, then the rest (1 to 4) */
        return rest - rl / 4 * 4 >= 4 ? TWO_ALL : TWO_NONE;
    return rest >= 4 && rest < 8 && rl < 4 ? TWO_ALL : TWO_NONE;
}

static int takes_two_chains(two_chain_groups t, int64_t g, int64_t G)
{
    switch (t) {
    case TWO_ALL:
        return g < G;
    case TWO_FIRST:
        return g == 0;
    case TWO_LAST:
        return g == G - 1;
    case TWO_FIRST_LAST:
        return g == 0 || g == G - 1;
    default:
        return 0;
    }
}

typedef struct gemm_job_ctx {
    char ta, tb;
    int64_t m, n, k, lda, ldb, ldc;
    const float *a, *b;
    float *c;
    float beta;
    const attn_gemm_kernels *kern;
    int64_t full_iblocks, iblocks; /* i-blocks of P rows, then 0 to 2 more */
    int64_t stripes_full, stripes_last, rblocks;
} gemm_job_ctx;

/* Row i0 and size of i-block ib */
static void iblock(const gemm_job_ctx *x, int64_t ib, int64_t *i0, int64_t *mi)
{
    int64_t start = ib < x->full_iblocks ? ib * GEMM_P : x->full_iblocks * GEMM_P;
    int64_t size = next_block(x->m - start, GEMM_P);
    if (ib > x->full_iblocks) { /* the second of the last two */
        start += size;
        size = x->m - start;
    }
    *i0 = start;
    *mi = size;
}

/* rows [i0, i0 + rows) of op(A), l in [ls, ls + kl), into panels of pw rows (zeros past the end) */
static void pack_a(const gemm_job_ctx *x, int64_t i0, int64_t rows, int64_t ls, int64_t kl, int pw, float *pa)
{
    int64_t panels = (rows + pw - 1) / pw;
    for (int64_t p = 0; p < panels; p++) {
        float *dst = pa + p * pw * kl;
        int64_t r_end = rows - p * pw < pw ? rows - p * pw : pw;
        for (int64_t r = 0; r < pw; r++) {
            if (r >= r_end) {
                for (int64_t l = 0; l < kl; l++)
                    dst[l * pw + r] = 0.0f;
                continue;
            }
            int64_t i = i0 + p * pw + r;
            if (x->ta == 'N') {
                const float *src = x->a + i + ls * x->lda;
                for (int64_t l = 0; l < kl; l++)
                    dst[l * pw + r] = src[l * x->lda];
            } else {
                const float *src = x->a + ls + i * x->lda;
                for (int64_t l = 0; l < kl; l++)
                    dst[l * pw + r] = src[l];
            }
        }
    }
}

/* columns [j0, j0 + w) of op(B), l in [ls, ls + kl), as pb[l w + j] */
static void pack_b(const gemm_job_ctx *x, int64_t j0, int w, int64_t ls, int64_t kl, float *pb)
{
    for (int j = 0; j < w; j++) {
        if (x->tb == 'N') {
            const float *src = x->b + ls + (j0 + j) * x->ldb;
            for (int64_t l = 0; l < kl; l++)
                pb[l * w + j] = src[l];
        } else {
            const float *src = x->b + j0 + j + ls * x->ldb;
            for (int64_t l = 0; l < kl; l++)
                pb[l * w + j] = src[l * x->ldb];
        }
    }
}

/* A run: columns [j0, j0 + w) whose groups take the same chains */
typedef struct {
    int64_t j0;
    int w;
    two_chain_groups t;
} column_run;

/* One job: i-block ib by the columns [j0, j0 + nj) of the R-block [js, js + min_j). -1 when interrupted. */
static int run_job(const gemm_job_ctx *x, int64_t ib, int64_t js, int64_t min_j, int64_t j0, int64_t nj)
{
    const attn_gemm_kernels *kern = x->kern;
    int64_t i0, mi;
    iblock(x, ib, &i0, &mi);
    int64_t G = mi / 8;
    for (int64_t j = j0; j < j0 + nj && x->beta != 1.0f; j++) { /* OpenBLAS's sgemm_beta */
        float *c = x->c + i0 + j * x->ldc;
        if (x->beta == 0.0f)
            memset(c, 0, sizeof(float) * (size_t)mi);
        else
            for (int64_t i = 0; i < mi; i++)
                c[i] *= x->beta;
    }
    column_run runs[STRIPE];
    int nruns = 0;
    for (int64_t j = j0; j < j0 + nj; j++) {
        two_chain_groups t = two_chain_groups_of(j - js, min_j, ib == 0, G);
        if (nruns > 0 && runs[nruns - 1].t == t && runs[nruns - 1].w < MAX_W)
            runs[nruns - 1].w++;
        else
            runs[nruns++] = (column_run){j, 1, t};
    }
    float pa[MAX_PANEL * GEMM_Q], pb[STRIPE * GEMM_Q];
    for (int64_t ls = 0, kl; ls < x->k; ls += kl) {
        if (attn_interrupt_requested)
            return -1;
        kl = next_block(x->k - ls, GEMM_Q);
        float *pbr[STRIPE];
        for (int r = 0, off = 0; r < nruns; off += runs[r].w * (int)kl, r++) {
            pbr[r] = pb + off;
            pack_b(x, runs[r].j0, runs[r].w, ls, kl, pbr[r]);
        }
        for (int64_t r0 = 0; r0 < mi; r0 += kern->wide_rows) {
            int rows = mi - r0 < kern->wide_rows ? (int)(mi - r0) : kern->wide_rows;
            pack_a(x, i0 + r0, rows, ls, kl, kern->pw, pa);
            for (int r = 0; r < nruns; r++) {
                float *c = x->c + i0 + r0 + runs[r].j0 * x->ldc;
                int mixed = 0;
                for (int64_t g = r0 / 8; g * 8 < r0 + rows; g++)
                    mixed |= takes_two_chains(runs[r].t, g, G);
                if (!mixed) {
                    kern->one_chain(kl, pa, rows, pbr[r], runs[r].w, c, x->ldc);
                    continue;
                }
                for (int g8 = 0; g8 < rows; g8 += 8) { /* group by group */
                    const float *pg = pa + g8 / kern->pw * kern->pw * kl + g8 % kern->pw;
                    int grows = rows - g8 < 8 ? rows - g8 : 8;
                    attn_gemm_tile_fn f =
                        takes_two_chains(runs[r].t, (r0 + g8) / 8, G) ? kern->two_chains : kern->one_chain;
                    f(kl, pg, grows, pbr[r], runs[r].w, c + g8, x->ldc);
                }
            }
        }
    }
    return 0;
}

/* Jobs in the order: R-block, stripe of columns, i-block */
static int run_jobs(void *ctx, int64_t begin, int64_t end)
{
    const gemm_job_ctx *x = ctx;
    int64_t per_rblock = x->stripes_full * x->iblocks;
    for (int64_t job = begin; job < end; job++) {
        if (attn_interrupt_requested)
            return -1;
        int64_t rb = job / per_rblock, rest = job % per_rblock;
        int64_t stripe = rest / x->iblocks, ib = rest % x->iblocks;
        int64_t js = rb * GEMM_R, min_j = x->n - js < GEMM_R ? x->n - js : GEMM_R;
        int64_t j0 = js + stripe * STRIPE, nj = js + min_j - j0 < STRIPE ? js + min_j - j0 : STRIPE;
        if (run_job(x, ib, js, min_j, j0, nj))
            return -1;
    }
    return 0;
}

static const attn_gemm_kernels *kernels(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    switch (attn_isa_current()) {
    case ATTN_ISA_AVX512:
        return &attn_gemm_avx512;
    case ATTN_ISA_AVX2:
        return &attn_gemm_avx2;
    default:
        break;
    }
#endif
    return &attn_gemm_portable;
}

int attn_sgemm(char ta, char tb, int64_t m, int64_t n, int64_t k, const float *a, int64_t lda, const float *b,
               int64_t ldb, float beta, float *c, int64_t ldc)
{
    if (m <= 0 || n <= 0)
        return 0;
    gemm_job_ctx x = {.ta = ta == 'n' ? 'N' : ta == 't' ? 'T' : ta, .tb = tb == 'n' ? 'N' : tb == 't' ? 'T' : tb,
                      .m = m, .n = n, .k = k, .lda = lda, .ldb = ldb, .ldc = ldc, .a = a, .b = b, .c = c,
                      .beta = beta, .kern = kernels()};
    x.full_iblocks = m >= 2 * GEMM_P ? (m - 2 * GEMM_P) / GEMM_P + 1 : 0;
    int64_t rest = m - x.full_iblocks * GEMM_P;
    x.iblocks = x.full_iblocks + (rest > GEMM_P ? 2 : 1);
    x.rblocks = (n + GEMM_R - 1) / GEMM_R;
    x.stripes_full = (n < GEMM_R ? n + STRIPE - 1 : GEMM_R + STRIPE - 1) / STRIPE;
    int64_t last_min_j = n - (x.rblocks - 1) * GEMM_R;
    x.stripes_last = (last_min_j + STRIPE - 1) / STRIPE;
    int64_t jobs = (x.rblocks - 1) * x.stripes_full * x.iblocks + x.stripes_last * x.iblocks;
    return attn_parallel_for(jobs, 1, run_jobs, &x);
}
