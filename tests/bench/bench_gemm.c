/* bench_gemm.c — attn's exact sgemm (src/core/gemm.c) against OpenBLAS's sgemm_ in the same run, on the
 * calls GPT-2 small's Linear layers and the MHA benchmark (batch 8, 1024 tokens, 768 dims, 12 heads) make,
 * on 1 and 2 threads: GFLOP/s of each (best of a few runs), attn's rate over OpenBLAS's and whether it
 * reaches the target (0.9x); the portable C path's rate for one product (it is what a browser gets).
 *   bench-gemm [quick] [ISA]    attn under ISA (portable, avx2, avx512; default the widest), OpenBLAS with
 *                               the kernels OPENBLAS_CORETYPE names (else its own choice); quick: without
 *                               the 50257-column logits product
 * scripts/bench-gemm.sh pairs them (attn's widest against OpenBLAS's widest, AVX2 against Haswell's);
 * `make bench` runs it. Timings are printed, never asserted. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gemm.h"
#include "isa.h"

void sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k, const float *alpha,
            const float *a, const int *lda, const float *b, const int *ldb, const float *beta, float *c,
            const int *ldc);
void openblas_set_num_threads(int n);
char *openblas_get_corename(void);

typedef struct {
    const char *what;
    char ta, tb;
    int m, n, k;
    int big; /* skipped by `quick` */
} call;

/* The column-major calls PyTorch makes: nn.Linear(in, out) on [rows, in] is sgemm_('T', 'N', out, rows, in)
 * (the weight [out, in] read transposed); the attention's scores Q Kᵀ per head ('T', 'N', 1024, 1024, 64)
 * and weights times V ('N', 'N', 64, 1024, 1024). */
static const call CALLS[] = {
    {"GPT-2 Linear 768->2304 (qkv), 1024 rows", 'T', 'N', 2304, 1024, 768, 0},
    {"GPT-2 Linear 768->3072 (mlp up), 1024 rows", 'T', 'N', 3072, 1024, 768, 0},
    {"GPT-2 Linear 3072->768 (mlp down), 1024 rows", 'T', 'N', 768, 1024, 3072, 0},
    {"GPT-2 Linear 768->50257 (logits), 1024 rows", 'T', 'N', 50257, 1024, 768, 1},
    {"MHA projection 768->768, 8x1024 rows", 'T', 'N', 768, 8192, 768, 0},
    {"MHA scores Q K^T, one head (1024x64x1024)", 'T', 'N', 1024, 1024, 64, 0},
    {"MHA weights x V, one head (1024x1024x64)", 'N', 'N', 64, 1024, 1024, 0},
};

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct {
    const call *c;
    float *a, *b, *out;
} operands;

/* Seconds of one run: OpenBLAS's (attn 0) or attn's under the current ISA */
static double seconds(const operands *o, int attn)
{
    const call *c = o->c;
    int lda = c->ta == 'N' ? c->m : c->k, ldb = c->tb == 'N' ? c->k : c->n;
    double t0 = now();
    if (attn) {
        attn_sgemm(c->ta, c->tb, c->m, c->n, c->k, o->a, lda, o->b, ldb, 0.0f, o->out, c->m);
    } else {
        float one = 1.0f, zero = 0.0f;
        sgemm_(&c->ta, &c->tb, &c->m, &c->n, &c->k, &one, o->a, &lda, o->b, &ldb, &zero, o->out, &c->m);
    }
    return now() - t0;
}

/* GFLOP/s of OpenBLAS ([0]) and of attn under its current ISA ([1]): the best of `runs` taken in turns
 * (a machine whose load changes treats both alike) */
static void rates(const operands *o, int runs, double *gflops)
{
    double best[2] = {1e30, 1e30};
    for (int r = 0; r < runs; r++)
        for (int v = 0; v < 2; v++)
            best[v] = fmin(best[v], seconds(o, v));
    for (int v = 0; v < 2; v++)
        gflops[v] = 2.0 * o->c->m * o->c->n * (double)o->c->k / best[v] * 1e-9;
}

int main(int argc, char **argv)
{
    int quick = 0;
    attn_isa isa = attn_isa_current();
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "quick") == 0)
            quick = 1;
        else if (attn_isa_from_name(argv[i]) < 0 || attn_isa_set((attn_isa)attn_isa_from_name(argv[i]))) {
            fprintf(stderr, "bench-gemm: this CPU does not run %s\n", argv[i]);
            return 2;
        } else
            isa = (attn_isa)attn_isa_from_name(argv[i]);
    }
    printf("attn's exact sgemm (%s) against OpenBLAS's sgemm_ (its %s kernels), GFLOP/s, best of 5 in turns\n",
           attn_isa_name(isa), openblas_get_corename());
    int met = 0, measured = 0;
    for (size_t i = 0; i < sizeof CALLS / sizeof CALLS[0]; i++) {
        const call *c = &CALLS[i];
        if (quick && c->big)
            continue;
        size_t na = (size_t)c->m * c->k, nb = (size_t)c->k * c->n, nc = (size_t)c->m * c->n;
        operands o = {c, malloc(na * sizeof(float)), malloc(nb * sizeof(float)), malloc(nc * sizeof(float))};
        if (!o.a || !o.b || !o.out) {
            printf("  %-46s  not measured (no memory)\n", c->what);
            free(o.a), free(o.b), free(o.out);
            continue;
        }
        for (size_t j = 0; j < na; j++)
            o.a[j] = (float)((j * 7919) % 1000) / 1000.0f - 0.5f;
        for (size_t j = 0; j < nb; j++)
            o.b[j] = (float)((j * 104729) % 1000) / 1000.0f - 0.5f;
        int runs = c->big ? 2 : 5;
        for (int threads = 1; threads <= 2; threads++) {
            openblas_set_num_threads(threads);
            double g[2];
            rates(&o, runs, g);
            printf("  %-46s %d thread%s  OpenBLAS %6.1f  attn %6.1f  %.2fx (target >= 0.9x: %s)\n", c->what, threads,
                   threads > 1 ? "s" : " ", g[0], g[1], g[1] / g[0], g[1] >= 0.9 * g[0] ? "met" : "not met");
            measured++, met += g[1] >= 0.9 * g[0];
        }
        /* the portable C path on one product (it is what a browser gets; slow, so once) */
        if (strstr(c->what, "scores") && attn_isa_set(ATTN_ISA_PORTABLE) == 0) {
            openblas_set_num_threads(1);
            printf("  %-46s portable C, 1 thread: %.2f GFLOP/s\n", c->what,
                   2.0 * c->m * c->n * (double)c->k / seconds(&o, 1) * 1e-9);
            attn_isa_set(isa);
        }
        free(o.a), free(o.b), free(o.out);
    }
    printf("  attn %s >= 0.9x OpenBLAS %s: %d of %d met\n", attn_isa_name(isa), openblas_get_corename(), met,
           measured);
    return 0;
}
