/* check-exactmath.c — attn's own SLEEF functions (src/core/exactmath.h) against Debian's libsleef, bit for
 * bit, on every float (or every stride-th, and then the special values too). Built and run by
 * scripts/check-exactmath.sh; not part of attn.
 *
 * For each function it counts the inputs whose output bits differ from SLEEF's FMA build
 * (Sleef_*f1_u10purecfma), nans included (a nan must have SLEEF's bits too). On a CPU with AVX2 and FMA it also checks exactmath_trigf8 against the 8-wide Sleef_sinf8_u10avx2 and
 * Sleef_cosf8_u10avx2, on groups of 8 consecutive floats and on groups of 7 with a lane of 1000
 * (which sends the whole group down the slow reduction). Exit status 1 if anything differs. */
#define _GNU_SOURCE
#include "exactmath.h"

#include <immintrin.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

float Sleef_expf1_u10purecfma(float x);
float Sleef_logf1_u10purecfma(float x);
float Sleef_tanhf1_u10purecfma(float x);
float Sleef_erff1_u10purecfma(float x);
float Sleef_sinf1_u10purecfma(float x);
float Sleef_cosf1_u10purecfma(float x);
__m256 Sleef_sinf8_u10avx2(__m256 x);
__m256 Sleef_cosf8_u10avx2(__m256 x);

typedef float (*fn1)(float);

static const struct {
    const char *name;
    fn1 mine, sleef;
} FNS[] = {
    {"expf", exactmath_expf, Sleef_expf1_u10purecfma},   {"logf", exactmath_logf, Sleef_logf1_u10purecfma},
    {"tanhf", exactmath_tanhf, Sleef_tanhf1_u10purecfma}, {"erff", exactmath_erff, Sleef_erff1_u10purecfma},
    {"sinf", exactmath_sinf, Sleef_sinf1_u10purecfma},   {"cosf", exactmath_cosf, Sleef_cosf1_u10purecfma},
};
#define NFNS (int)(sizeof FNS / sizeof FNS[0])

static uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float float_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* the job of one thread: inputs lo, lo + step, ... below hi (as 64-bit counters over the bit patterns) */
typedef struct job {
    int fn;        /* index in FNS, or NFNS + 0/1 for sin8/cos8 in consecutive groups, + 2/3 with a slow lane */
    uint64_t lo, hi, step;
    uint64_t checked, differ;
    uint32_t first[5];
} job;

static void note(job *j, uint32_t in)
{
    if (j->differ < 5)
        j->first[j->differ] = in;
    j->differ++;
}

__attribute__((target("avx2,fma"))) static void sleef8(int cosine, const float *in, float *out)
{
    __m256 v = _mm256_loadu_ps(in);
    _mm256_storeu_ps(out, cosine ? Sleef_cosf8_u10avx2(v) : Sleef_sinf8_u10avx2(v));
}

static void *run(void *arg)
{
    job *j = arg;
    if (j->fn < NFNS) {
        fn1 mine = FNS[j->fn].mine, sleef = FNS[j->fn].sleef;
        for (uint64_t i = j->lo; i < j->hi; i += j->step) {
            float x = float_of((uint32_t)i), a = mine(x), b = sleef(x);
            j->checked++;
            if (bits_of(a) != bits_of(b))
                note(j, (uint32_t)i);
        }
        return NULL;
    }
    int cosine = (j->fn - NFNS) & 1, slow_lane = (j->fn - NFNS) >= 2;
    int width = slow_lane ? 7 : 8;
    for (uint64_t i = j->lo; i < j->hi; i += j->step * (uint64_t)width) {
        float in[8], a[8], b[8];
        int n = 0;
        for (; n < width && i + (uint64_t)n * j->step < j->hi; n++)
            in[n] = float_of((uint32_t)(i + (uint64_t)n * j->step));
        for (int l = n; l < 8; l++)
            in[l] = slow_lane ? 1000.0f : 0.0f;
        exactmath_trigf8(cosine, in, a);
        sleef8(cosine, in, b);
        for (int l = 0; l < n; l++) {
            j->checked++;
            if (bits_of(a[l]) != bits_of(b[l]))
                note(j, bits_of(in[l]));
        }
    }
    return NULL;
}

/* whether name is one of the comma-separated names in list */
static int listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : p + strlen(p))
        if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == '\0'))
            return 1;
    return 0;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    uint64_t stride = 1;
    int threads = 2;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--stride") == 0 && i + 1 < argc)
            stride = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--stride N] [--threads T] [--only NAME,NAME...]\n", argv[0]);
            return 2;
        }
    }
    if (stride < 1 || threads < 1 || threads > 64)
        return 2;
    int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    int checks = avx2 ? NFNS + 4 : NFNS;
    static const char *const names8[] = {"sinf8 groups", "cosf8 groups", "sinf8 slow lane", "cosf8 slow lane"};
    printf("attn's exactmath against libsleef 3.5.1 (purecfma, and avx2 for groups of 8), %s inputs\n",
           stride == 1 ? "all 2^32" : "every stride-th");
    uint64_t total_differ = 0;
    for (int f = 0; f < checks; f++) {
        const char *name = f < NFNS ? FNS[f].name : names8[f - NFNS];
        if (only && !listed(only, name))
            continue;
        double t0 = now();
        job jobs[64];
        pthread_t tid[64];
        uint64_t range = (uint64_t)1 << 32, chunk = (range / stride + (uint64_t)threads - 1) / (uint64_t)threads * stride;
        for (int t = 0; t < threads; t++) {
            jobs[t] = (job){.fn = f, .step = stride};
            jobs[t].lo = (uint64_t)t * chunk;
            jobs[t].hi = jobs[t].lo + chunk < range ? jobs[t].lo + chunk : range;
            pthread_create(&tid[t], NULL, run, &jobs[t]);
        }
        uint64_t checked = 0, differ = 0;
        uint32_t first[5];
        int nfirst = 0;
        for (int t = 0; t < threads; t++) {
            pthread_join(tid[t], NULL);
            checked += jobs[t].checked, differ += jobs[t].differ;
            for (uint64_t k = 0; k < jobs[t].differ && k < 5 && nfirst < 5; k++)
                first[nfirst++] = jobs[t].first[k];
        }
        printf("  %-16s %10llu inputs  %llu differ", name,
               (unsigned long long)checked, (unsigned long long)differ);
        printf("  %.0f s\n", now() - t0);
        for (int k = 0; k < nfirst; k++)
            printf("      e.g. input 0x%08x (%.9g)\n", first[k], (double)float_of(first[k]));
        fflush(stdout);
        total_differ += differ;
    }
    if (!avx2)
        printf("  (no AVX2 and FMA on this CPU: the groups of 8 were not checked)\n");
    printf("%s: %llu differing inputs in all\n", total_differ ? "FAILED" : "ok", (unsigned long long)total_differ);
    return total_differ ? 1 : 0;
}
