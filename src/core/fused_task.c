/* fused_task.c — one task of attention.fused (see fused.c's comment for the algorithm): a block of query
 * rows of one batch·head, steps 1-4 over its key blocks, and the worker loop that takes tasks. */
#include "fused_plan.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

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

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* exp_nonpositive on 8 lanes with fused multiply-adds (x86-64 with AVX2 and FMA): the same reduction and
 * polynomial, each a·b + c rounded once: a third fewer instructions than gcc makes of the loop below,
 * and as accurate (checked on every float in [-87.3, 0]: at most 1.01 ulp from the exact value, 14
 * floats at 1 ulp or more). The softmax rows of this pass took ~13% of its time before. */
__attribute__((target("avx2,fma"))) static __m256 exp8_nonpositive(__m256 x)
{
    const __m256 magic = _mm256_set1_ps(12582912.0f);
    __m256 t = _mm256_fmadd_ps(x, _mm256_set1_ps(1.44269504088896341f), magic);
    __m256 n = _mm256_sub_ps(t, magic);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
    __m256 p = _mm256_set1_ps(1.9875691500e-4f);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
    __m256 y = _mm256_add_ps(_mm256_fmadd_ps(p, _mm256_mul_ps(r, r), r), _mm256_set1_ps(1.0f));
    __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_sub_epi32(_mm256_castps_si256(t),
                                                                     _mm256_set1_epi32(0x4B400000)),
                                                   _mm256_set1_epi32(127)), 23);
    __m256 keep = _mm256_cmp_ps(x, _mm256_set1_ps(-87.3f), _CMP_NLT_UQ); /* x < -87.3 gives +0; nan stays */
    return _mm256_and_ps(_mm256_mul_ps(y, _mm256_castsi256_ps(e)), keep);
}

__attribute__((target("avx2,fma"))) static float exp_row_fma(float *s, int64_t n, float max)
{
    const __m256 m = _mm256_set1_ps(max);
    __m256 acc = _mm256_setzero_ps();
    int64_t j = 0;
    for (; j + 8 <= n; j += 8) {
        __m256 e = exp8_nonpositive(_mm256_sub_ps(_mm256_loadu_ps(s + j), m));
        _mm256_storeu_ps(s + j, e);
        acc = _mm256_add_ps(acc, e);
    }
    float lanes[8], tail = 0.0f;
    _mm256_storeu_ps(lanes, acc);
    for (; j < n; j++) {
        s[j] = exp_nonpositive(s[j] - max);
        tail += s[j];
    }
    return ((lanes[0] + lanes[4]) + (lanes[2] + lanes[6])) + ((lanes[1] + lanes[5]) + (lanes[3] + lanes[7])) + tail;
}

static int has_fma(void) /* reads what libgcc found out at start-up: cheap, and safe from any thread */
{
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#else
static float exp_row_fma(float *s, int64_t n, float max)
{
    (void)s, (void)n, (void)max;
    return 0.0f;
}

static int has_fma(void)
{
    return 0;
}
#endif

/* s[j] = exp(s[j] - max); returns their sum. */
VECTOR_CLONES
static float exp_row_plain(float *s, int64_t n, float max)
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

static float exp_row(float *s, int64_t n, float max)
{
    return has_fma() ? exp_row_fma(s, n, max) : exp_row_plain(s, n, max);
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
