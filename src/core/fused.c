/* fused.c — attention in one pass: softmax(q·kᵀ·scale, causal mask)·v, as FlashAttention computes it.
 *
 *   q [..., n, d], k [..., m, d], v [..., m, dv] -> out [..., n, dv]     (see fused.h)
 *
 * The staged path (attention.scores, mask, softmax, weighted_sum) holds the whole n×m matrix of scores,
 * 400 MB at batch 8, 12 heads, 1024 tokens. Here the queries are cut into blocks of BQ rows and the keys
 * into blocks of BK, and each (batch·head, query block) is one task for a worker thread:
 *   1. S = scale · Q Kᵀ for one BQ×BK tile (fused_tile.h's kernel; the tile stays in L2)
 *   2. causal: tiles wholly above the diagonal are never computed; a tile crossing it gets -inf there
 *   3. online softmax, per query row: the running max m grows to m' = max(m, max S), what was summed
 *      so far is rescaled by α = exp(m - m'), P = exp(S - m'), the running sum l = α·l + Σ P
 *   4. O = α·O + P V (the same kernel)
 * after the last key block, out = O / l. Every exp(x - max) has x <= max, as in a stable softmax.
 *
 * Threads: the workers take tasks from one atomic counter, longest first (causal query blocks near the
 * end see the most keys); a tile is computed by the one thread that owns it (splitting a 128×64 tile
 * across threads costs more than it gains).
 *
 * This file plans a call; fused_task.c runs its tasks. */
#include "cache_size.h"
#include "fused_plan.h"
#include "parallel.h"

#include "fused_tile.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FN "attention.fused"
#define MAX_THREADS 64

static int cfg_threads, cfg_bq, cfg_bk;

void attn_fused_config(int threads, int block_q, int block_k)
{
    cfg_threads = threads > 0 ? threads : 0;
    cfg_bq = block_q > 0 ? block_q : 0;
    cfg_bk = block_k > 0 ? block_k : 0;
}

/* ---- setup: shapes, layouts, blocks, threads ------------------------------------------------- */

/* How the tile packing reads the last two dims of t (rows×cols): row-major (ld = row stride) or column-major
 * (trans, ld = column stride). -1 when neither (a broadcast or strided view): the caller copies. */
static int layout(const attn_tensor *t, operand *op)
{
    int64_t rows = t->shape[t->ndim - 2], cols = t->shape[t->ndim - 1];
    int64_t rs = t->stride[t->ndim - 2], cs = t->stride[t->ndim - 1];
    op->trans = 0;
    op->rs = rs;
    op->ld = 1;
    if (rows == 0 || cols == 0) /* never read: d = 0 (the scores are 0) */
        return 0;
    if (rows == 1) /* the stride of a size-1 dim never matters */
        rs = 1;
    if (cols == 1)
        cs = 1;
    if (cs == 1 && rs >= (cols > 1 ? cols : 1) && rs <= INT_MAX)
        op->ld = (int)rs;
    else if (rs == 1 && cs >= (rows > 1 ? rows : 1) && cs <= INT_MAX)
        op->trans = 1, op->ld = (int)cs;
    else
        return -1;
    op->rs = rs;
    return 0;
}

static int prepare(operand *op, const attn_tensor *t, const plan *p, attn_error *err)
{
    op->copy = NULL;
    if (layout(t, op)) {
        op->copy = attn_clone(t, err);
        if (!op->copy)
            return -1;
        t = op->copy;
        if (layout(t, op))
            return attn_fail(err, "attention.fused: rows of %lld elements are too long for attn's kernels",
                             (long long)t->shape[t->ndim - 1]), -1;
    }
    op->data = t->storage->data + t->offset;
    int tb = t->ndim - 2;
    for (int d = 0; d < p->nbatch; d++) {
        int td = d - (p->nbatch - tb);
        op->bstride[d] = td >= 0 && t->shape[td] != 1 ? t->stride[td] : 0;
    }
    return 0;
}

static int check_shapes(const attn_tensor *q, const attn_tensor *k, const attn_tensor *v, plan *p, attn_error *err)
{
    char qs[160], ks[160], vs[160];
    attn_shape_str(q, qs, sizeof qs);
    attn_shape_str(k, ks, sizeof ks);
    attn_shape_str(v, vs, sizeof vs);
    const attn_tensor *in[3] = {q, k, v};
    const char *name[3] = {"q", "k", "v"}, *shape[3] = {qs, ks, vs};
    const char *form[3] = {"[..., n, d]", "[..., m, d]", "[..., m, dv]"};
    for (int i = 0; i < 3; i++) {
        if (in[i]->ndim < 2)
            return attn_fail(err, "attention.fused: %s must be %s with at least 2 dims, got %s", name[i], form[i], shape[i]), -1;
        if (in[i]->dtype != ATTN_FLOAT32)
            return attn_fail(err, "attention.fused: %s must be a float tensor, got a %s tensor %s", name[i],
                             attn_dtype_name(in[i]->dtype) + 6, shape[i]), -1;
    }
    p->n = q->shape[q->ndim - 2];
    p->d = q->shape[q->ndim - 1];
    p->m = k->shape[k->ndim - 2];
    p->dv = v->shape[v->ndim - 1];
    if (k->shape[k->ndim - 1] != p->d)
        return attn_fail(err, "attention.fused: q %s and k %s must have the same last dim d (%lld ≠ %lld)", qs, ks,
                         (long long)p->d, (long long)k->shape[k->ndim - 1]), -1;
    if (v->shape[v->ndim - 2] != p->m)
        return attn_fail(err, "attention.fused: k %s and v %s must have the same number of keys m, their dim -2 (%lld ≠ %lld)",
                         ks, vs, (long long)p->m, (long long)v->shape[v->ndim - 2]), -1;
    if (p->n > INT_MAX || p->m > INT_MAX || p->d > INT_MAX || p->dv > INT_MAX)
        return attn_fail(err, "attention.fused: q %s, k %s, v %s: sizes over %d are too large for attn's kernels", qs, ks, vs, INT_MAX), -1;
    /* batch dims: right-aligned, each 1 or the common size */
    p->nbatch = 0;
    for (int i = 0; i < 3; i++)
        if (in[i]->ndim - 2 > p->nbatch)
            p->nbatch = in[i]->ndim - 2;
    p->batches = 1;
    for (int d = 0; d < p->nbatch; d++) {
        int64_t size = 1;
        for (int i = 0; i < 3; i++) {
            int td = d - (p->nbatch - (in[i]->ndim - 2));
            int64_t s = td >= 0 ? in[i]->shape[td] : 1;
            if (s != 1 && size != 1 && s != size)
                return attn_fail(err, "attention.fused: the leading (batch) dims of q %s, k %s and v %s cannot be broadcast "
                                      "(dim %d: %lld ≠ %lld)", qs, ks, vs, d + 1, (long long)size, (long long)s), -1;
            if (s != 1)
                size = s;
        }
        p->bshape[d] = size;
        p->batches *= size;
    }
    return 0;
}

/* The result [batch..., n, dv], stored as [batch[..-1], n, batch[-1], dv] (see fused.h). */
static attn_tensor *make_out(plan *p, attn_error *err)
{
    int nb = p->nbatch;
    int64_t mem[ATTN_MAX_DIMS];
    for (int d = 0; d < nb; d++)
        mem[d] = p->bshape[d];
    mem[nb] = p->n;
    mem[nb + 1] = p->dv;
    if (nb > 0) {
        mem[nb - 1] = p->n;
        mem[nb] = p->bshape[nb - 1];
    }
    attn_tensor *t = attn_empty(FN, nb + 2, mem, ATTN_FLOAT32, err);
    if (!t || nb == 0)
        return t;
    attn_tensor *out = attn_transpose(t, nb - 1, nb, err);
    attn_free(t);
    return out;
}

static int64_t round_up(int64_t x, int64_t to)
{
    return (x + to - 1) / to * to;
}

static int64_t round_down_pow2(int64_t x)
{
    int64_t r = 1;
    while (r * 2 <= x)
        r *= 2;
    return r;
}

/* BK = 512 keys per tile and BQ = 128 query rows, fewer when S (BQ×BK) and O (BQ×dv) would not fit in
 * 9/16 of this machine's L2 (cache_size.h; 288 KB of a 512 KB L2 hold S and O at d = 64, with room left
 * for the packed K and the rows of V). Measured on the ch. 3 workload (d = dv = 64, 1024 tokens, one
 * thread, causal; AVX-512, 1 MB L2): 128×512 101 ms, 64×512 102, 128×256 103, 128×1024 105, 128×128
 * 108, 256×256 114, 32×512 116: flat near the choice. Long key blocks mean fewer rescalings of O;
 * 128 rows keep the waste on the causal diagonal small. Blocks never exceed the input by more
 * than the kernels' padding (fused_tile.h). */
static void choose_blocks(plan *p)
{
    int64_t tile_bytes = attn_l2_cache_bytes() / 16 * 9;
    int64_t bk = cfg_bk ? cfg_bk : 512;
    int64_t bq = cfg_bq ? cfg_bq : round_down_pow2(tile_bytes / 4 / (bk + (p->dv > 1 ? p->dv : 1)));
    if (!cfg_bq && bq > 128)
        bq = 128;
    if (!cfg_bq && bq < FUSED_TILE_ROWS)
        bq = FUSED_TILE_ROWS;
    p->bk = p->m < bk ? (p->m > 0 ? p->m : 1) : bk;
    p->bq = p->n < bq ? (p->n > 0 ? p->n : 1) : bq;
    p->bqp = round_up(p->bq, FUSED_TILE_ROWS);
    p->bkp = round_up(p->bk, FUSED_TILE_COLS);
    p->dvp = round_up(p->dv > 0 ? p->dv : 1, FUSED_TILE_COLS);
}

static int choose_threads(const plan *p)
{
    int t = cfg_threads ? cfg_threads : attn_threads();
    double flops = 2.0 * (double)p->batches * (double)p->n * (double)p->m * (double)(p->d + p->dv);
    if (flops < 4e6) /* less than ~50 µs of work: starting a thread would cost about as much */
        t = 1;
    if (t > p->ntasks)
        t = (int)p->ntasks;
    if (t > MAX_THREADS)
        t = MAX_THREADS;
    return t < 1 ? 1 : t;
}

static void free_workspaces(workspace *w, int n)
{
    for (int i = 0; i < n; i++) {
        free(w[i].s);
        free(w[i].o);
        free(w[i].max);
        free(w[i].sum);
        free(w[i].qp);
        free(w[i].kt);
        free(w[i].vp);
    }
}

static int run(plan *p, attn_error *err)
{
    workspace w[MAX_THREADS];
    int nt = choose_threads(p);
    memset(w, 0, sizeof w);
    for (int i = 0; i < nt; i++) {
        w[i].p = p;
        int64_t d = p->d > 0 ? p->d : 1;
        w[i].s = malloc(sizeof(float) * (size_t)(p->bqp * p->bkp));
        w[i].o = malloc(sizeof(float) * (size_t)(p->bqp * p->dvp));
        w[i].max = malloc(sizeof(float) * (size_t)p->bq);
        w[i].sum = malloc(sizeof(float) * (size_t)p->bq);
        w[i].qp = malloc(sizeof(float) * (size_t)(p->bqp * d));
        w[i].kt = malloc(sizeof(float) * (size_t)(d * p->bkp));
        w[i].vp = malloc(sizeof(float) * (size_t)(p->bk * p->dvp));
        if (!w[i].s || !w[i].o || !w[i].max || !w[i].sum || !w[i].qp || !w[i].kt || !w[i].vp) {
            free_workspaces(w, i + 1);
            return attn_fail(err, "attention.fused: out of memory for the working tiles (%lld×%lld and %lld×%lld floats)",
                             (long long)p->bq, (long long)p->bk, (long long)p->bq, (long long)p->dv), -1;
        }
    }
    atomic_init(&p->next, 0);
    atomic_init(&p->stop, 0);
    int started = 1; /* worker 0 is this thread; a thread that cannot start leaves its share to the rest */
    while (started < nt && pthread_create(&w[started].thread, NULL, attn_fused_worker, &w[started]) == 0)
        started++;
    attn_fused_worker(&w[0]);
    int failed = w[0].failed;
    for (int i = 1; i < started; i++) {
        pthread_join(w[i].thread, NULL);
        failed |= w[i].failed;
    }
    free_workspaces(w, nt);
    if (failed)
        return attn_interrupted(err), -1; /* the one message of a Ctrl-C */
    return 0;
}

attn_tensor *attn_fused(const attn_tensor *q, const attn_tensor *k, const attn_tensor *v, int causal, double scale,
                        attn_error *err)
{
    plan p;
    memset(&p, 0, sizeof p);
    if (check_shapes(q, k, v, &p, err))
        return NULL;
    p.causal = causal;
    p.scale = (float)(isnan(scale) ? 1.0 / sqrt((double)p.d) : scale);
    attn_tensor *out = make_out(&p, err);
    if (!out)
        return NULL;
    if (attn_numel(out) == 0)
        return out;
    if (prepare(&p.q, q, &p, err) || prepare(&p.k, k, &p, err) || prepare(&p.v, v, &p, err))
        goto fail;
    p.out = out->storage->data + out->offset;
    for (int d = 0; d < p.nbatch; d++)
        p.out_bstride[d] = out->stride[d];
    p.out_rs = out->stride[p.nbatch];
    choose_blocks(&p);
    p.nqb = (p.n + p.bq - 1) / p.bq;
    p.ntasks = p.nqb * p.batches;
    if (run(&p, err))
        goto fail;
    attn_free(p.q.copy);
    attn_free(p.k.copy);
    attn_free(p.v.copy);
    return out;
fail:
    attn_free(p.q.copy);
    attn_free(p.k.copy);
    attn_free(p.v.copy);
    attn_free(out);
    return NULL;
}
