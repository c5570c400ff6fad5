/* TEMPORARY — this file goes when src/core/fused_task.c, fused.c and parallel.c no longer call OpenBLAS
 * (issue 34: the coordinator moves fused_task.c onto attn_sgemm), and with it the temporary rules at the end
 * of src/web/web.mk. Until then it lets the WebAssembly build link: the OpenBLAS functions the core still
 * calls (the products, the dot product and the SLEEF functions are attn's own already), as a plain loop over
 * the C library's fmaf. Its bits are NOT OpenBLAS's (attention.fused's, which attn promises no bits for):
 * tests/web compares the wasm build's output with ./attn's and reports what differs. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

/* C = alpha·op(A)·op(B) + beta·C, column-major (as Fortran's sgemm_): one fused chain over k per element, over
 * copies of op(A)'s rows and op(B)'s columns made contiguous first (the cache). */
static void loop_sgemm(const char *ta, const char *tb, const int *m, const int *n, const int *k, const float *alpha,
            const float *a, const int *lda, const float *b, const int *ldb, const float *beta, float *c,
            const int *ldc) {
    int at = *ta == 'T' || *ta == 't' || *ta == 'C' || *ta == 'c';
    int bt = *tb == 'T' || *tb == 't' || *tb == 'C' || *tb == 'c';
    size_t K = (size_t)(*k > 0 ? *k : 1);
    float *ar = malloc(sizeof(float) * (size_t)(*m > 0 ? *m : 1) * K);
    float *bc = malloc(sizeof(float) * (size_t)(*n > 0 ? *n : 1) * K);
    if (ar == NULL || bc == NULL) abort(); /* temporary code: see the top of the file */
    for (int i = 0; i < *m; i++)
        for (int p = 0; p < *k; p++) ar[i * K + p] = at ? a[p + (size_t)i * *lda] : a[i + (size_t)p * *lda];
    for (int j = 0; j < *n; j++)
        for (int p = 0; p < *k; p++) bc[j * K + p] = bt ? b[j + (size_t)p * *ldb] : b[p + (size_t)j * *ldb];
    for (int j = 0; j < *n; j++)
        for (int i = 0; i < *m; i++) {
            float acc = 0.0f;
            const float *x = ar + i * K, *y = bc + j * K;
            for (int p = 0; p < *k; p++) acc = fmaf(x[p], y[p], acc);
            float *out = &c[i + (size_t)j * *ldc];
            *out = (*beta == 0.0f ? 0.0f : *beta * *out) + *alpha * acc;
        }
    free(ar);
    free(bc);
}

/* Row-major CBLAS (src/core/fused_task.c): the column-major routine on the transposed problem. */
void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda,
                 const float *b, int ldb, float beta, float *c, int ldc) {
    char tra = ta == 112 /* CblasNoTrans is 111 */ || ta == 113 ? 'T' : 'N';
    char trb = tb == 112 || tb == 113 ? 'T' : 'N';
    (void)order; /* always CblasRowMajor in attn */
    loop_sgemm(&trb, &tra, &n, &m, &k, &alpha, b, &ldb, a, &lda, &beta, c, &ldc);
}

/* OpenBLAS's threads: there are none here. */
int openblas_get_num_threads(void) { return 1; }
void openblas_set_num_threads(int n) { (void)n; }
void openblas_read_env(void) {}
int blas_thread_init(void) { return 0; }
int blas_thread_shutdown_(void) { return 0; }
