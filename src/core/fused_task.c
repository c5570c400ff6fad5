/* fused_task.c — one task of attention.fused (see fused.c's comment for the algorithm): a block of query
 * rows of one batch·head, steps 1-4 over its key blocks, and the worker loop that takes tasks. */
#include "fused_plan.h"
#include "fused_rows.h"
#include "fused_tile.h"
#include "vector_kernels.h"

#include <math.h>
#include <string.h>

/* The loops over a row of scores (fused_rows.h) come from the vector table where this machine has them
 * (x86/fused_avx2.c: the same loops in AVX2's 8 floats per instruction instead of SSE2's 4, and exp with
 * fused multiply-adds); fused_exp_row_portable gives that exp's bits on every machine. */

/* ---- one task: a block of query rows of one batch·head --------------------------------------- */

static int64_t batch_offset(const plan *p, const int64_t *bstride, int64_t b)
{
    int64_t off = 0;
    for (int d = p->nbatch - 1; d >= 0; d--) {
        off += (b % p->bshape[d]) * bstride[d];
        b /= p->bshape[d];
    }
    return off;
}

/* w->qp = scale · Q (rows×d, then zero rows up to bqp): packed once per task, read for every key block */
static void pack_q(const plan *p, workspace *w, const float *q, int64_t rows)
{
    for (int64_t r = 0; r < rows; r++)
        for (int64_t l = 0; l < p->d; l++)
            w->qp[r * p->d + l] = p->scale * (p->q.trans ? q[r + l * p->q.ld] : q[r * p->q.ld + l]);
    memset(w->qp + rows * p->d, 0, sizeof(float) * (size_t)((p->bqp - rows) * p->d));
}

/* S (ld bkp) = scale · Q Kᵀ for keys [0, cols) of the block at k. Kᵀ is packed in panels of
 * FUSED_TILE_COLS keys (d × 32 floats each, zeros past cols): a stored row of K, or of Kᵀ, is read in
 * order and written within one panel, which stays in L1. */
static void scores(const plan *p, workspace *w, const float *k, int64_t cols, attn_fused_tile_fn tile)
{
    const int64_t P = FUSED_TILE_COLS, d = p->d;
    int64_t colsp = (cols + P - 1) / P * P;
    if (d == 0) { /* an empty sum: 0 · scale, nan for the default scale 1/sqrt(0), as staged */
        for (int64_t i = 0; i < p->bqp * p->bkp; i++)
            w->s[i] = 0.0f * p->scale;
        return;
    }
    if (!p->k.trans) {
        for (int64_t c = 0; c < colsp; c++) {
            float *dst = w->kt + c / P * P * d + c % P;
            const float *src = k + c * p->k.ld;
            for (int64_t l = 0; l < d; l++)
                dst[l * P] = c < cols ? src[l] : 0.0f;
        }
    } else {
        for (int64_t l = 0; l < d; l++)
            for (int64_t c = 0; c < colsp; c++)
                w->kt[c / P * P * d + l * P + c % P] = c < cols ? k[c + l * p->k.ld] : 0.0f;
    }
    tile(p->bqp, colsp, d, w->qp, d, w->kt, P, P * d, w->s, p->bkp, 0);
}

/* O += P V over keys [0, cols) of the block at v: V read in place when its rows are stored in order and
 * its width needs no padding, else packed cols × dvp (zeros past dv) */
static void weighted_sum(const plan *p, workspace *w, const float *v, int64_t cols, attn_fused_tile_fn tile)
{
    const float *b = v;
    int64_t ldb = p->v.ld;
    if (p->v.trans || p->dv != p->dvp) {
        for (int64_t j = 0; j < cols; j++)
            for (int64_t c = 0; c < p->dvp; c++)
                w->vp[j * p->dvp + c] = c >= p->dv ? 0.0f : p->v.trans ? v[j + c * p->v.ld] : v[j * p->v.ld + c];
        b = w->vp;
        ldb = p->dvp;
    }
    tile(p->bqp, p->dvp, cols, w->s, p->bkp, b, ldb, FUSED_TILE_COLS, w->o, p->dvp, 1);
}

/* Causal mask on a tile whose first query is `first` keys after its first key: key c of row r is
 * hidden when c > first + r. */
static void mask_tile(float *s, int64_t lds, int64_t rows, int64_t cols, int64_t first)
{
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = first + r + 1 < 0 ? 0 : first + r + 1; c < cols; c++)
            s[r * lds + c] = -INFINITY;
}

static float row_max(const float *s, int64_t n)
{
    float (*vector)(const float *, int64_t) = attn_vector_kernels_now()->fused_row_max;
    return (vector ? vector : attn_fused_row_max_loop)(s, n);
}

static float exp_row(float *s, int64_t n, float max)
{
    float (*vector)(float *, int64_t, float) = attn_vector_kernels_now()->fused_exp_row;
    return (vector ? vector : attn_fused_exp_row_portable)(s, n, max);
}

static void scale_row(float *o, int64_t n, float a)
{
    void (*vector)(float *, int64_t, float) = attn_vector_kernels_now()->fused_scale_row;
    (vector ? vector : attn_fused_scale_row_loop)(o, n, a);
}

/* Step 3 on a tile: S becomes P, the running max and sum move on, O rows are rescaled by α. */
static void online_softmax(const plan *p, workspace *w, int64_t rows, int64_t cols)
{
    for (int64_t r = 0; r < rows; r++) {
        float *s = w->s + r * p->bkp, *o = w->o + r * p->dvp;
        float mx = row_max(s, cols), old = w->max[r];
        float max = mx > old ? mx : old;
        if (max == -INFINITY) { /* nothing visible yet: P = 0, O and l stay 0 */
            memset(s, 0, sizeof(float) * (size_t)cols);
            continue;
        }
        float alpha = attn_exp_nonpositive(old - max); /* 0 on the first tile (old = -inf) */
        w->sum[r] = w->sum[r] * alpha + exp_row(s, cols, max);
        w->max[r] = max;
        if (alpha != 1.0f)
            scale_row(o, p->dv, alpha);
    }
}

/* Query block qb of batch·head b, steps 1-4 over its key blocks, then out = O / l. */
static int run_task(workspace *w, int64_t b, int64_t qb)
{
    const plan *p = w->p;
    int64_t i0 = qb * p->bq, rows = p->n - i0 < p->bq ? p->n - i0 : p->bq;
    const float *q = p->q.data + batch_offset(p, p->q.bstride, b) + i0 * p->q.rs;
    const float *k = p->k.data + batch_offset(p, p->k.bstride, b);
    const float *v = p->v.data + batch_offset(p, p->v.bstride, b);
    /* causal: the last row, i0 + rows - 1, sees keys 0 .. i0 + rows - 1 */
    int64_t kend = p->causal && i0 + rows < p->m ? i0 + rows : p->m;

    for (int64_t r = 0; r < rows; r++) {
        w->max[r] = -INFINITY;
        w->sum[r] = 0.0f;
    }
    memset(w->o, 0, sizeof(float) * (size_t)(p->bqp * p->dvp));
    attn_fused_tile_fn tile = attn_fused_tile_now();
    pack_q(p, w, q, rows);
    for (int64_t j0 = 0; j0 < kend; j0 += p->bk) {
        if (attn_interrupt_requested || atomic_load_explicit(&p->stop, memory_order_relaxed))
            return -1;
        int64_t cols = kend - j0 < p->bk ? kend - j0 : p->bk;
        scores(p, w, k + j0 * p->k.rs, cols, tile);
        if (p->causal && j0 + cols - 1 > i0)
            mask_tile(w->s, p->bkp, rows, cols, i0 - j0);
        online_softmax(p, w, rows, cols);
        weighted_sum(p, w, v + j0 * p->v.rs, cols, tile);
    }

    float *out = p->out + batch_offset(p, p->out_bstride, b) + i0 * p->out_rs;
    for (int64_t r = 0; r < rows; r++) {
        /* m = 0 keys: the weighted sum of nothing is 0 (the staged matmul gives zeros too) */
        float inv = p->m == 0 ? 0.0f : 1.0f / w->sum[r];
        for (int64_t c = 0; c < p->dv; c++)
            out[r * p->out_rs + c] = w->o[r * p->dvp + c] * inv;
    }
    return 0;
}

void *attn_fused_worker(void *arg)
{
    workspace *w = arg;
    plan *p = w->p;
    for (;;) {
        long long t = atomic_fetch_add(&p->next, 1);
        if (t >= p->ntasks)
            break;
        /* one batch·head after the other, so that its k and v stay in cache for all its query blocks
         * (taken longest first: causal blocks near the end see the most keys) */
        if (run_task(w, t / p->nqb, p->nqb - 1 - t % p->nqb)) {
            w->failed = 1;
            atomic_store(&p->stop, 1);
            break;
        }
    }
    return NULL;
}
