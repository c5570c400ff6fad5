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
 * Everything else is one chain. A nan result is a nan, its payload and sign not promised (they are the
 * hardware's choice among the operands' nans). Vectors and threads run across elements only: the driver
 * below cuts the output into jobs (a stripe of columns by a group of i-blocks) and each job into tiles of
 * rows by runs of columns whose groups of rows all take the same chains. */
#include "gemm.h"
#include "isa.h"
#include "parallel.h"
#include "tensor.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum {
    GEMM_P = 320,
    GEMM_Q = 320,
    GEMM_R = 104512,
    UNROLL_M = 8,
    MAX_THREADS = 256,
    MAX_W = 6,         /* columns per tile */
    MAX_STRIPE = 2040, /* columns per job at most (a multiple of 12) */
    SMALL_PRODUCT = 1 << 18, /* multiply-adds below which one thread computes a product */
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
    int64_t full_iblocks, iblocks; /* i-blocks of P rows, then 1 or 2 more */
    int64_t rblocks;               /* R-blocks of columns, each cut into stripes of stripe_width */
    int64_t stripes, stripe_width; /* (a multiple of 12), and the i-blocks into igroups groups */
    int64_t igroups;
    struct workspace *ws;          /* one per thread */
    int nws;
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

/* op(A)'s rows [i0, i0 + rows), l in [ls, ls + kl), in panels of pw rows (zeros past the end) */
static void pack_a(const gemm_job_ctx *x, int64_t i0, int64_t rows, int64_t ls, int64_t kl, int pw, float *pa)
{
    for (int64_t p = 0; p * pw < rows; p++) {
        float *dst = pa + p * pw * kl;
        int n = rows - p * pw < pw ? (int)(rows - p * pw) : pw;
        if (x->ta == 'N') {
            const float *src = x->a + i0 + p * pw + ls * x->lda;
            for (int64_t l = 0; l < kl; l++) {
                memcpy(dst + l * pw, src + l * x->lda, sizeof(float) * (size_t)n);
                memset(dst + l * pw + n, 0, sizeof(float) * (size_t)(pw - n));
            }
        } else { /* written in order, read from pw rows at once */
            const float *src = x->a + ls + (i0 + p * pw) * x->lda;
            for (int64_t l = 0; l < kl; l++) {
                for (int r = 0; r < n; r++)
                    dst[l * pw + r] = src[r * x->lda + l];
                for (int r = n; r < pw; r++)
                    dst[l * pw + r] = 0.0f;
            }
        }
    }
}

/* op(B)'s columns [j0, j0 + nj), l in [ls, ls + kl), column by column: B(l, j0 + j) at pb[j kl + l] */
static void pack_b(const gemm_job_ctx *x, int64_t j0, int64_t nj, int64_t ls, int64_t kl, float *pb)
{
    for (int64_t j = 0; j < nj; j++) {
        float *dst = pb + j * kl;
        if (x->tb == 'N') {
            memcpy(dst, x->b + ls + (j0 + j) * x->ldb, sizeof(float) * (size_t)kl);
        } else {
            const float *src = x->b + j0 + j + ls * x->ldb;
            for (int64_t l = 0; l < kl; l++)
                dst[l] = src[l * x->ldb];
        }
    }
}

/* Rows [r, mi) of an i-block of mi rows (G whole groups) by the w columns at c, one k-block (kl): whole
 * spans of groups that take one chain go to one_chain, as wide as it takes, a group that takes two to
 * two_chains. pa: the i-block's packed rows; pb, ldpb: the columns' packed values. */
static void tile_rows(const attn_gemm_kernels *kern, int64_t kl, const float *pa, int64_t r, int64_t mi, int64_t G,
                      two_chain_groups t, const float *pb, int ldpb, int w, float *c, int64_t ldc)
{
    while (r < mi) {
        int64_t g = r / 8;
        if (takes_two_chains(t, g, G)) {
            kern->two_chains(kl, pa + r / kern->pw * kern->pw * kl + r % kern->pw, 8, pb, ldpb, w, c + r, ldc);
            r += 8;
            continue;
        }
        /* one chain: to the end of the panel when r starts inside one, else as many whole panels as
         * one_chain takes, stopping before a group that takes two chains */
        int64_t limit = r % kern->pw ? r - r % kern->pw + kern->pw : r + kern->wide_rows, end = r + 8;
        while (end < limit && end < mi && !takes_two_chains(t, end / 8, G))
            end += 8;
        if (end > mi)
            end = mi;
        kern->one_chain(kl, pa + r / kern->pw * kern->pw * kl + r % kern->pw, (int)(end - r), pb, ldpb, w, c + r,
                        ldc);
        r = end;
    }
}

/* One job: the columns [j0, j0 + nj) of the R-block [js, js + min_j) (j0 - js a multiple of 12) by
 * i-blocks [ib0, ib1), as OpenBLAS walks them: for each k-block, those columns packed (for every i-block),
 * then for each i-block its rows packed (they stay in the L2 cache), then column by column group (in L1)
 * every row tile. pa, pb: room for an i-block by a k-block, and for the stripe by a k-block (packed
 * in panels of 16 rows at most). -1 when interrupted. */
static int run_job(const gemm_job_ctx *x, float *pa, float *pb, int64_t ib0, int64_t ib1, int64_t js,
                   int64_t min_j, int64_t j0, int64_t nj)
{
    const attn_gemm_kernels *kern = x->kern;
    for (int64_t ib = ib0; ib < ib1 && x->beta != 1.0f; ib++) { /* OpenBLAS's sgemm_beta */
        int64_t i0, mi;
        iblock(x, ib, &i0, &mi);
        for (int64_t j = j0; j < j0 + nj; j++) {
            float *c = x->c + i0 + j * x->ldc;
            if (x->beta == 0.0f)
                memset(c, 0, sizeof(float) * (size_t)mi);
            else
                for (int64_t i = 0; i < mi; i++)
                    c[i] *= x->beta;
        }
    }
    for (int64_t ls = 0, kl; ls < x->k; ls += kl) {
        kl = next_block(x->k - ls, GEMM_Q);
        pack_b(x, j0, nj, ls, kl, pb);
        for (int64_t ib = ib0; ib < ib1; ib++) {
            if (attn_interrupt_requested)
                return -1;
            int64_t i0, mi;
            iblock(x, ib, &i0, &mi);
            int64_t G = mi / 8;
            pack_a(x, i0, mi, ls, kl, kern->pw, pa);
            /* 12 columns at a time (as OpenBLAS's kernel): each tile of rows of A, read from L2, serves
             * their runs (of columns whose groups of rows take the same chains) from L1 */
            for (int64_t j12 = 0; j12 < nj; j12 += 2 * MAX_W) {
                struct {
                    int64_t j;
                    int w;
                    two_chain_groups t;
                } runs[2 * MAX_W];
                int nruns = 0;
                for (int64_t j = j0 + j12, w; j < j0 + nj && j < j0 + j12 + 2 * MAX_W; j += w) {
                    int64_t group_end = j0 + (j - j0) / MAX_W * MAX_W + MAX_W; /* runs stay in their 6 */
                    two_chain_groups t = two_chain_groups_of(j - js, min_j, ib == 0, G);
                    for (w = 1; j + w < j0 + nj && j + w < group_end &&
                                two_chain_groups_of(j + w - js, min_j, ib == 0, G) == t;
                         w++)
                        ;
                    runs[nruns].j = j, runs[nruns].w = (int)w, runs[nruns++].t = t;
                }
                int64_t w12 = j0 + nj - (j0 + j12) < 2 * MAX_W ? nj - j12 : 2 * MAX_W;
                for (int64_t r0 = 0; r0 < mi; r0 += kern->wide_rows) {
                    int64_t r1 = mi - r0 < kern->wide_rows ? mi : r0 + kern->wide_rows;
                    int two = 0; /* all 12 columns in one tile when none of their rows here takes two chains */
                    for (int u = 0; u < nruns; u++)
                        for (int64_t g = r0 / 8; g * 8 < r1; g++)
                            two |= takes_two_chains(runs[u].t, g, G);
                    if (!two && w12 <= kern->wide_cols) {
                        kern->one_chain(kl, pa + r0 * kl, (int)(r1 - r0), pb + j12 * kl, (int)kl, (int)w12,
                                        x->c + i0 + r0 + (j0 + j12) * x->ldc, x->ldc);
                        continue;
                    }
                    for (int u = 0; u < nruns; u++)
                        tile_rows(kern, kl, pa, r0, r1, G, runs[u].t, pb + (runs[u].j - j0) * kl, (int)kl,
                                  runs[u].w, x->c + i0 + runs[u].j * x->ldc, x->ldc);
                }
            }
        }
    }
    return 0;
}

/* Each thread's packing room (taken by a run_jobs call, given back at its end) */
typedef struct workspace {
    float *pa, *pb;
    atomic_int busy;
} workspace;

/* Jobs in the order: R-block, stripe of columns, group of i-blocks */
static int run_jobs(void *ctx, int64_t begin, int64_t end)
{
    const gemm_job_ctx *x = ctx;
    int slot = 0; /* a free one: there are as many as calls at once */
    while (atomic_exchange(&x->ws[slot].busy, 1))
        slot = (slot + 1) % x->nws;
    workspace *ws = &x->ws[slot];
    int status = 0;
    int64_t per_rblock = x->stripes * x->igroups;
    for (int64_t job = begin; job < end && status == 0; job++) {
        int64_t rb = job / per_rblock, rest = job % per_rblock;
        int64_t stripe = rest / x->igroups, ig = rest % x->igroups;
        int64_t js = rb * GEMM_R, min_j = x->n - js < GEMM_R ? x->n - js : GEMM_R;
        int64_t j0 = js + stripe * x->stripe_width;
        int64_t nj = js + min_j - j0 < x->stripe_width ? js + min_j - j0 : x->stripe_width;
        int64_t ib0 = ig * x->iblocks / x->igroups, ib1 = (ig + 1) * x->iblocks / x->igroups;
        if (nj > 0 && ib1 > ib0)
            status = run_job(x, ws->pa, ws->pb, ib0, ib1, js, min_j, j0, nj);
    }
    atomic_store(&ws->busy, 0);
    return status;
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
#elif defined(__aarch64__)
    if (attn_isa_current() == ATTN_ISA_NEON)
        return &attn_gemm_neon;
#elif defined(__wasm__)
    if (attn_isa_current() == ATTN_ISA_SIMD128)
        return &attn_gemm_simd128;
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
    x.iblocks = x.full_iblocks + (m - x.full_iblocks * GEMM_P > GEMM_P ? 2 : 1);
    x.rblocks = (n + GEMM_R - 1) / GEMM_R;
    /* Jobs: stripes of columns by groups of i-blocks. A job packs its columns once per k-block, and the
     * rows of each of its i-blocks: so one job on one thread, as OpenBLAS; on more threads, enough jobs
     * for each to have a few (for balance), cutting the larger of the two sides. A stripe is at most
     * MAX_STRIPE columns (its packed columns stay in the L3 cache). A small product takes less time than
     * starting a thread: one job. */
    int threads = (double)m * (double)n * (double)k < SMALL_PRODUCT ? 1 : attn_threads();
    int64_t min_j = n < GEMM_R ? n : GEMM_R, twelves = (min_j + 11) / 12, want = threads > 1 ? 4 * threads : 1;
    x.stripes = (min_j + MAX_STRIPE - 1) / MAX_STRIPE;
    x.igroups = 1;
    if (m >= n)
        x.igroups = want < x.iblocks ? want : x.iblocks;
    if (x.stripes * x.igroups < want)
        x.stripes = (want + x.igroups - 1) / x.igroups;
    if (x.stripes > (twelves + 3) / 4) /* at least 48 columns each */
        x.stripes = (twelves + 3) / 4;
    x.stripe_width = (twelves + x.stripes - 1) / x.stripes * 12;
    x.stripes = (min_j + x.stripe_width - 1) / x.stripe_width;
    int64_t jobs = x.rblocks * x.stripes * x.igroups;
    if (threads > jobs)
        threads = (int)jobs;
    /* packing room for an i-block and a k-block (at most P and Q), no more: small products are many (a
     * batch of heads), and a large allocation costs a system call and page faults */
    int64_t kmax = k < GEMM_Q ? (k > 0 ? k : 1) : GEMM_Q;
    size_t ab = (size_t)(round_up(m < GEMM_P ? m : GEMM_P, 16) * kmax), bb = (size_t)(x.stripe_width * kmax);
    workspace ws[MAX_THREADS];
    float *room = malloc(sizeof(float) * (ab + bb) * (size_t)threads);
    if (!room)
        return ATTN_GEMM_NO_MEMORY;
    for (int t = 0; t < threads; t++) {
        ws[t].pa = room + (ab + bb) * (size_t)t;
        ws[t].pb = ws[t].pa + ab;
        atomic_init(&ws[t].busy, 0);
    }
    x.ws = ws;
    x.nws = threads;
    /* one thread: all jobs in one call (attn_parallel_for would use attn_threads()) */
    int status = attn_parallel_for(jobs, threads == 1 ? jobs : 1, run_jobs, &x);
    free(room);
    return status;
}
