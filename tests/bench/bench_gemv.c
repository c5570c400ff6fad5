/* bench_gemv.c — attn's one-row products against OpenBLAS's, measured in the same run (scripts/bench-gemv.sh):
 *
 *   1. the one-column sgemm (gemm_n1.c) on the products of a GPT-2 small decode step (one token: the 12
 *      blocks' qkv, out, fc1 and fc2 weights and the output layer, each read once), against OpenBLAS's
 *      sgemm_ with n = 1 (it packs every weight first) and against reading those weights once at the
 *      memory bandwidth measured here (a 400 MB copy); target: within 1.5x of that
 *   2. sgemv 'N' and 'T' and sdot (gemv.c, dot.c) against OpenBLAS's sgemv_ and cblas_sdot
 *
 * Both sides on as many threads as attn uses (attn_threads()). Prints the fastest of several runs and the
 * ratios, the target's with "met" or "not met"; asserts nothing (timings are not tests). */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gemm.h"
#include "gemm_n1.h"
#include "gemv.h"
#include "isa.h"
#include "parallel.h"

void sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k, const float *alpha,
            const float *a, const int *lda, const float *b, const int *ldb, const float *beta, float *c,
            const int *ldc);
void sgemv_(const char *trans, const int *m, const int *n, const float *alpha, const float *a, const int *lda,
            const float *x, const int *incx, const float *beta, float *y, const int *incy);

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* GPT-2 small's one-token products, y [out] = W [out, in] x [in] as PyTorch hands them to BLAS:
 * sgemm_('T', 'N', out, 1, in, W, in, x, in) (repeated 12 times but the output layer) */
static const struct {
    int out, in, times;
} LAYERS[] = {{2304, 768, 12}, {768, 768, 12}, {3072, 768, 12}, {768, 3072, 12}, {50257, 768, 1}};
#define NLAYERS (sizeof LAYERS / sizeof LAYERS[0])
#define REPS 5

enum { OPENBLAS, ATTN_N1, ATTN_SGEMM };

/* one decode step's products, each weight its own memory (as a model's are), in seconds */
static double decode_step(int who, float *const *w, const float *x, float *y)
{
    double t = now();
    for (size_t l = 0; l < NLAYERS; l++)
        for (int r = 0; r < LAYERS[l].times; r++) {
            const float *wl = w[l] + (size_t)r * (size_t)LAYERS[l].out * (size_t)LAYERS[l].in;
            int m = LAYERS[l].out, k = LAYERS[l].in, one = 1;
            float alpha = 1.0f, beta = 0.0f;
            if (who == OPENBLAS)
                sgemm_("T", "N", &m, &one, &k, &alpha, wl, &k, x, &k, &beta, y, &m);
            else if (who == ATTN_N1)
                attn_sgemm_n1('T', m, k, wl, k, x, 1, 0.0f, y);
            else
                attn_sgemm('T', 'N', m, 1, k, wl, k, x, k, 0.0f, y, m);
        }
    return now() - t;
}

static double best(double *runs, int n)
{
    double b = runs[0];
    for (int i = 1; i < n; i++)
        b = runs[i] < b ? runs[i] : b;
    return b;
}

/* bytes read and written by copying 400 MB, over the fastest copy's time */
static double bandwidth(void)
{
    size_t n = (size_t)100 * 1000 * 1000;
    float *a = malloc(n * sizeof(float)), *b = malloc(n * sizeof(float));
    if (!a || !b)
        return 0.0;
    memset(a, 1, n * sizeof(float));
    memset(b, 0, n * sizeof(float));
    double runs[REPS];
    for (int i = 0; i < REPS; i++) {
        double t = now();
        memcpy(b, a, n * sizeof(float));
        runs[i] = now() - t;
    }
    free(a);
    free(b);
    return 2.0 * (double)(n * sizeof(float)) / best(runs, REPS);
}

int main(void)
{
    attn_threads_init();
    printf("one-row products on %d threads, %s kernels (OpenBLAS: %s)\n", attn_threads(),
           attn_isa_name(attn_isa_current()), openblas_get_corename());
    double bw = bandwidth(); /* before the weights are allocated: 800 MB at a time is enough */
    float *w[NLAYERS], x[3072], y[50257];
    double bytes = 0.0;
    for (size_t l = 0; l < NLAYERS; l++) {
        size_t n = (size_t)LAYERS[l].times * (size_t)LAYERS[l].out * (size_t)LAYERS[l].in;
        w[l] = malloc(n * sizeof(float));
        if (!w[l]) {
            fprintf(stderr, "bench_gemv: out of memory\n");
            return 1;
        }
        for (size_t i = 0; i < n; i++)
            w[l][i] = (float)(i % 251) * 0.01f - 1.0f;
        bytes += 4.0 * (double)n;
    }
    for (int i = 0; i < 3072; i++)
        x[i] = (float)(i % 13) * 0.1f;
    double runs[3][REPS];
    for (int r = 0; r < REPS; r++) /* interleaved, so that a busy moment slows all three alike */
        for (int who = 0; who < 3; who++)
            runs[who][r] = decode_step(who, w, x, y);
    double floor = bytes / bw;
    double ob = best(runs[OPENBLAS], REPS), n1 = best(runs[ATTN_N1], REPS), sg = best(runs[ATTN_SGEMM], REPS);
    printf("GPT-2 small decode step's products (%.0f MB of weights): OpenBLAS sgemm n=1 %.1f ms, attn_sgemm %.1f ms, "
           "attn_sgemm_n1 %.1f ms\n",
           bytes / 1e6, 1e3 * ob, 1e3 * sg, 1e3 * n1);
    printf("  attn_sgemm_n1 over OpenBLAS: %.2fx; over attn_sgemm: %.2fx\n", n1 / ob, n1 / sg);
    printf("  reading the weights once at %.1f GB/s: %.1f ms; attn_sgemm_n1 %.2fx (target <= 1.5x): %s\n", bw / 1e9,
           1e3 * floor, n1 / floor, n1 / floor <= 1.5 ? "met" : "not met");
    for (size_t l = 0; l < NLAYERS; l++)
        free(w[l]);

    /* sgemv and sdot on GPT-2's largest one-row shape that is not the output layer */
    int m = 3072, n = 768, one = 1;
    float alpha = 1.0f, beta = 0.0f;
    float *a = malloc(sizeof(float) * (size_t)m * (size_t)n), *v = malloc(sizeof(float) * (size_t)m),
          *out = malloc(sizeof(float) * (size_t)m);
    if (!a || !v || !out)
        return 1;
    for (size_t i = 0; i < (size_t)m * (size_t)n; i++)
        a[i] = (float)(i % 97) * 0.02f - 1.0f;
    for (int i = 0; i < m; i++)
        v[i] = (float)(i % 7) * 0.3f;
    const char *kinds[] = {"sgemv 'N' 3072 x 768", "sgemv 'T' 3072 x 768", "sdot of 2.4 M"};
    for (int kind = 0; kind < 3; kind++) {
        double ours[20], theirs[20];
        for (int r = 0; r < 20; r++) {
            double t = now();
            if (kind == 0)
                sgemv_("N", &m, &n, &alpha, a, &m, v, &one, &beta, out, &one);
            else if (kind == 1)
                sgemv_("T", &m, &n, &alpha, a, &m, v, &one, &beta, out, &one);
            else
                out[0] = cblas_sdot(m * n, a, 1, a, 1);
            theirs[r] = now() - t;
            t = now();
            if (kind == 0)
                attn_sgemv_n(m, n, a, m, v, 1, out);
            else if (kind == 1)
                attn_sgemv_t(m, n, a, m, v, 1, out);
            else
                out[0] = attn_sdot((int64_t)m * n, a, 1, a, 1);
            ours[r] = now() - t;
        }
        printf("%s: OpenBLAS %.3f ms, attn %.3f ms: %.2fx\n", kinds[kind], 1e3 * best(theirs, 20), 1e3 * best(ours, 20),
               best(ours, 20) / best(theirs, 20));
    }
    free(a);
    free(v);
    free(out);
    return 0;
}
