/* fused.c — attention in one pass: softmax(q·kᵀ·scale, causal mask)·v, as FlashAttention computes it.
 *
 *   q [..., n, d], k [..., m, d], v [..., m, dv] -> out [..., n, dv]     (see fused.h)
 *
 * The staged path (attention.scores, mask, softmax, weighted_sum) holds the whole n×m matrix of scores,
 * 400 MB at batch 8, 12 heads, 1024 tokens. Here the queries are cut into blocks of BQ rows and the keys
 * into blocks of BK, and each (batch·head, query block) is one task for a worker thread:
 *   1. S = scale · Q Kᵀ for one BQ×BK tile (cblas_sgemm; the tile stays in L2)
 *   2. causal: tiles wholly above the diagonal are never computed; a tile crossing it gets -inf there
 *   3. online softmax, per query row: the running max m grows to m' = max(m, max S), what was summed
 *      so far is rescaled by α = exp(m - m'), P = exp(S - m'), the running sum l = α·l + Σ P
 *   4. O = α·O + P V (cblas_sgemm)
 * after the last key block, out = O / l. Every exp(x - max) has x <= max, as in a stable softmax.
 *
 * Threads: the workers take tasks from one atomic counter, longest first (causal query blocks near the
 * end see the most keys), and each calls a single-threaded sgemm: OpenBLAS's own threads are set to 1
 * for the duration (splitting a 128×64 tile across threads costs more than it gains). */
#include "fused.h"

#include <cblas.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define FN "attention.fused"
#define MAX_THREADS 64
#define TILE_BYTES (288 * 1024) /* S (128×512) and O (128×64) of one task, in a 512 KB L2 */

static int cfg_threads, cfg_bq, cfg_bk;

void attn_fused_config(int threads, int block_q, int block_k)
{
    cfg_threads = threads > 0 ? threads : 0;
    cfg_bq = block_q > 0 ? block_q : 0;
    cfg_bk = block_k > 0 ? block_k : 0;
}

/* The loops over a row of scores: on x86-64 gcc also builds an AVX2 copy of each (8 floats per
 * instruction instead of SSE2's 4) and the program picks one when it starts, so that the binary still
 * runs on any x86-64. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define VECTOR_CLONES
#endif

/* ---- exp ----------------------------------------------------------------------------------- */

/* exp(x) for x <= 0 (nan stays nan), less than 1 ulp from the exact value (checked on every float in
 * [-87.3, 0]): Cephes expf's polynomial after Cody-Waite reduction x = n·ln2 + r. Plain float arithmetic
 * and bit operations, so that gcc vectorizes the loops that call it. Results below 2^-126 (x < -87.3)
 * are flushed to 0, which moves a softmax weight by less than 1e-37. */
static inline float exp_nonpositive(float x)
{
    const float magic = 12582912.0f; /* 1.5·2^23: adding it rounds to an integer kept in the low bits */
    float t = x * 1.44269504088896341f + magic;
    float n = t - magic;
    float r = x - n * 0.693359375f; /* ln2 in two parts: n·hi is exact for |n| < 2^9 */
    r = r - n * -2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    float y = p * r * r + r + 1.0f;
    uint32_t tb, sb;
    memcpy(&tb, &t, sizeof tb);
    sb = (tb - 0x4B400000u + 127u) << 23; /* 2^n for n in [-126, 0] */
    float two_n;
    memcpy(&two_n, &sb, sizeof two_n);
    /* x < -87.3 (-inf included) gives +0: a mask rather than a branch, so the loops stay vectorized */
    float e = y * two_n;
    uint32_t eb, keep = 0u - (uint32_t)!(x < -87.3f);
    memcpy(&eb, &e, sizeof eb);
    eb &= keep;
    memcpy(&e, &eb, sizeof e);
    return e;
}

/* ---- one task: a block of query rows of one batch·head --------------------------------------- */

/* One input matrix stream as BLAS reads it: the matrix of batch b starts at data + offset(b), row r
 * of it at + r·rs; trans says it is stored column-major (then ld is the column stride). */
typedef struct operand {
    const float *data;
    int64_t bstride[ATTN_MAX_DIMS]; /* per batch dim of the result; 0 where this input broadcasts */
    int64_t rs;
    int trans, ld;
    attn_tensor *copy; /* the contiguous copy read instead of the input, or NULL */
} operand;

typedef struct plan {
    operand q, k, v;
    int nbatch;
    int64_t bshape[ATTN_MAX_DIMS], batches;
    int64_t n, m, d, dv, bq, bk, nqb, ntasks;
    float scale;
    int causal;
    float *out;
    int64_t out_bstride[ATTN_MAX_DIMS], out_rs;
    atomic_llong next; /* the next task to take */
    atomic_int stop;   /* set on interrupt: the other workers stop at their next block */
} plan;

typedef struct workspace {
    plan *p;
    float *s, *o, *max, *sum; /* S: bq×bk, O: bq×dv, m and l: bq */
    int failed;
    pthread_t thread;
} workspace;

static int64_t batch_offset(const plan *p, const int64_t *bstride, int64_t b)
{
    int64_t off = 0;
    for (int d = p->nbatch - 1; d >= 0; d--) {
        off += (b % p->bshape[d]) * bstride[d];
        b /= p->bshape[d];
    }
    return off;
}

/* S (rows×cols, ld cols) = scale · Q Kᵀ */
static void scores(const plan *p, const float *q, const float *k, int64_t rows, int64_t cols, float *s)
{
    if (p->d == 0) { /* an empty sum: 0 · scale, nan for the default scale 1/sqrt(0), as staged */
        for (int64_t i = 0; i < rows * cols; i++)
            s[i] = 0.0f * p->scale;
        return;
    }
    cblas_sgemm(CblasRowMajor, p->q.trans ? CblasTrans : CblasNoTrans, p->k.trans ? CblasNoTrans : CblasTrans,
                (int)rows, (int)cols, (int)p->d, p->scale, q, p->q.ld, k, p->k.ld, 0.0f, s, (int)cols);
}

/* Causal mask on a tile whose first query is `first` keys after its first key: key c of row r is
 * hidden when c > first + r. */
static void mask_tile(float *s, int64_t rows, int64_t cols, int64_t first)
{
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = first + r + 1 < 0 ? 0 : first + r + 1; c < cols; c++)
            s[r * cols + c] = -INFINITY;
}

/* The largest of n floats (-inf for none; a nan never wins: it spreads through exp instead). Eight
 * accumulators so that the compiler can keep them in one vector register. */
VECTOR_CLONES
static float row_max(const float *s, int64_t n)
{
    float acc[8] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY};
    int64_t j = 0;
    for (; j + 8 <= n; j += 8)
        for (int l = 0; l < 8; l++)
            acc[l] = s[j + l] > acc[l] ? s[j + l] : acc[l];
    for (; j < n; j++)
        acc[0] = s[j] > acc[0] ? s[j] : acc[0];
    float mx = acc[0];
    for (int l = 1; l < 8; l++)
        mx = acc[l] > mx ? acc[l] : mx;
    return mx;
}

/* s[j] = exp(s[j] - max); returns their sum. */
VECTOR_CLONES
static float exp_row(float *s, int64_t n, float max)
{
    float acc[8] = {0};
    int64_t j = 0;
    for (; j + 8 <= n; j += 8)
        for (int l = 0; l < 8; l++) {
            float e = exp_nonpositive(s[j + l] - max);
            s[j + l] = e;
            acc[l] += e;
        }
    for (; j < n; j++) {
        s[j] = exp_nonpositive(s[j] - max);
        acc[0] += s[j];
    }
    return ((acc[0] + acc[4]) + (acc[2] + acc[6])) + ((acc[1] + acc[5]) + (acc[3] + acc[7]));
}

/* o[j] *= a: the row of O rescaled by α */
VECTOR_CLONES
static void scale_row(float *o, int64_t n, float a)
{
    int64_t j = 0;
    for (; j + 8 <= n; j += 8)
        for (int l = 0; l < 8; l++)
            o[j + l] *= a;
    for (; j < n; j++)
        o[j] *= a;
}

/* Step 3 on a tile: S becomes P, the running max and sum move on, O rows are rescaled by α. */
static void online_softmax(const plan *p, workspace *w, int64_t rows, int64_t cols)
{
    for (int64_t r = 0; r < rows; r++) {
        float *s = w->s + r * cols, *o = w->o + r * p->dv;
        float mx = row_max(s, cols), old = w->max[r];
        float max = mx > old ? mx : old;
        if (max == -INFINITY) { /* nothing visible yet: P = 0, O and l stay 0 */
            memset(s, 0, sizeof(float) * (size_t)cols);
            continue;
        }
        float alpha = exp_nonpositive(old - max); /* 0 on the first tile (old = -inf) */
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
    memset(w->o, 0, sizeof(float) * (size_t)(rows * p->dv));
    for (int64_t j0 = 0; j0 < kend; j0 += p->bk) {
        if (attn_interrupt_requested || atomic_load_explicit(&p->stop, memory_order_relaxed))
            return -1;
        int64_t cols = kend - j0 < p->bk ? kend - j0 : p->bk;
        scores(p, q, k + j0 * p->k.rs, rows, cols, w->s);
        if (p->causal && j0 + cols - 1 > i0)
            mask_tile(w->s, rows, cols, i0 - j0);
        online_softmax(p, w, rows, cols);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, p->v.trans ? CblasTrans : CblasNoTrans, (int)rows, (int)p->dv,
                    (int)cols, 1.0f, w->s, (int)cols, v + j0 * p->v.rs, p->v.ld, 1.0f, w->o, (int)p->dv);
    }

    float *out = p->out + batch_offset(p, p->out_bstride, b) + i0 * p->out_rs;
    for (int64_t r = 0; r < rows; r++) {
        /* m = 0 keys: the weighted sum of nothing is 0 (the staged matmul gives zeros too) */
        float inv = p->m == 0 ? 0.0f : 1.0f / w->sum[r];
        for (int64_t c = 0; c < p->dv; c++)
            out[r * p->out_rs + c] = w->o[r * p->dv + c] * inv;
    }
    return 0;
}

static void *worker(void *arg)
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

/* ---- setup: shapes, layouts, blocks, threads ------------------------------------------------- */

/* How BLAS reads the last two dims of t (rows×cols): row-major (ld = row stride) or column-major
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
            return attn_fail(err, FN ": rows of %lld elements are too long for BLAS",
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
            return attn_fail(err, FN ": %s must be %s with at least 2 dims, got %s", name[i], form[i], shape[i]), -1;
        if (in[i]->dtype != ATTN_FLOAT32)
            return attn_fail(err, FN ": %s must be a float tensor, got a %s tensor %s", name[i],
                             attn_dtype_name(in[i]->dtype) + 6, shape[i]), -1;
    }
    p->n = q->shape[q->ndim - 2];
    p->d = q->shape[q->ndim - 1];
    p->m = k->shape[k->ndim - 2];
    p->dv = v->shape[v->ndim - 1];
    if (k->shape[k->ndim - 1] != p->d)
        return attn_fail(err, FN ": q %s and k %s must have the same last dim d (%lld ≠ %lld)", qs, ks,
                         (long long)p->d, (long long)k->shape[k->ndim - 1]), -1;
    if (v->shape[v->ndim - 2] != p->m)
        return attn_fail(err, FN ": k %s and v %s must have the same number of keys m, their dim -2 (%lld ≠ %lld)",
                         ks, vs, (long long)p->m, (long long)v->shape[v->ndim - 2]), -1;
    if (p->n > INT_MAX || p->m > INT_MAX || p->d > INT_MAX || p->dv > INT_MAX)
        return attn_fail(err, FN ": q %s, k %s, v %s: sizes over %d are too large for BLAS", qs, ks, vs, INT_MAX), -1;
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
                return attn_fail(err, FN ": the leading (batch) dims of q %s, k %s and v %s cannot be broadcast "
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

static int64_t round_down_pow2(int64_t x)
{
    int64_t r = 1;
    while (r * 2 <= x)
        r *= 2;
    return r;
}

/* BK = 512 keys per tile and BQ = 128 query rows (fewer when dv is large, so that S and O stay within
 * TILE_BYTES), measured on the ch. 3 workload (d = dv = 64, 1024 tokens): long key blocks mean fewer
 * sgemm calls, each of which copies its Q block again; 128 rows keep the waste on the causal diagonal
 * small. A block never exceeds the input: no padding, no work on rows or keys that are not there. */
static void choose_blocks(plan *p)
{
    int64_t bk = cfg_bk ? cfg_bk : 512;
    int64_t bq = cfg_bq ? cfg_bq : round_down_pow2(TILE_BYTES / 4 / (bk + (p->dv > 1 ? p->dv : 1)));
    if (!cfg_bq && bq > 128)
        bq = 128;
    p->bk = p->m < bk ? (p->m > 0 ? p->m : 1) : bk;
    p->bq = p->n < bq ? (p->n > 0 ? p->n : 1) : bq;
}

static int choose_threads(const plan *p)
{
    int t = cfg_threads ? cfg_threads : openblas_get_num_threads();
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
    }
}

static int run(plan *p, attn_error *err)
{
    workspace w[MAX_THREADS];
    int nt = choose_threads(p);
    memset(w, 0, sizeof w);
    for (int i = 0; i < nt; i++) {
        w[i].p = p;
        w[i].s = malloc(sizeof(float) * (size_t)(p->bq * p->bk));
        w[i].o = malloc(sizeof(float) * (size_t)(p->bq * (p->dv > 0 ? p->dv : 1)));
        w[i].max = malloc(sizeof(float) * (size_t)p->bq);
        w[i].sum = malloc(sizeof(float) * (size_t)p->bq);
        if (!w[i].s || !w[i].o || !w[i].max || !w[i].sum) {
            free_workspaces(w, i + 1);
            return attn_fail(err, FN ": out of memory for the working tiles (%lld×%lld and %lld×%lld floats)",
                             (long long)p->bq, (long long)p->bk, (long long)p->bq, (long long)p->dv), -1;
        }
    }
    atomic_init(&p->next, 0);
    atomic_init(&p->stop, 0);
    int blas_threads = openblas_get_num_threads();
    if (blas_threads != 1)
        openblas_set_num_threads(1);
    int started = 1; /* worker 0 is this thread; a thread that cannot start leaves its share to the rest */
    while (started < nt && pthread_create(&w[started].thread, NULL, worker, &w[started]) == 0)
        started++;
    worker(&w[0]);
    int failed = w[0].failed;
    for (int i = 1; i < started; i++) {
        pthread_join(w[i].thread, NULL);
        failed |= w[i].failed;
    }
    if (blas_threads != 1)
        openblas_set_num_threads(blas_threads);
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
