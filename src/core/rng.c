/* rng.c — PyTorch's CPU random numbers, bit for bit. The facts are in NOTES.md ("Random streams");
 * each function below names the PyTorch source it mirrors (paths under aten/src/ATen/).
 *
 * A note on rounding: PyTorch's CPU kernels (in native/cpu/) are compiled once per CPU capability, and
 * the AVX2/AVX512 builds, which current x86-64 machines run, fuse `x * (to - from) + from` and
 * `r * cos * std + mean` into one multiply-add. So this file calls fmaf()/fma() there: one rounding, as
 * on the machines that printed the books' numbers. (Forced to its scalar kernels with
 * ATEN_CPU_CAPABILITY=default, PyTorch rounds twice and its own uniform_ changes in the last bit.) */
#include "rng.h"
#include "boxmuller.h"
#include "vmath.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define MT_N 624
#define MT_M 397
#define PI 3.14159265358979323846 /* c10/util/MathConstants.h: c10::pi<double> */
#define DEFAULT_SEED UINT64_C(67280421310721) /* c10/core/GeneratorImpl.h: default_rng_seed_val */

/* The generator: core/CPUGeneratorImpl.{h,cpp}. The engine is core/MT19937RNGEngine.h; PyTorch keeps
 * the second Box-Muller sample of normal_distribution<double> in the generator (next_double_normal_sample). */
static struct {
    uint32_t mt[MT_N];
    int index; /* next word of mt[] to temper; MT_N means "twist first" */
    uint64_t seed;
    int normal_cached;
    double normal_next;
} G;
static int G_ready; /* 0 until the first use: then seeded with DEFAULT_SEED, as torch's default generator */
static attn_bernoulli_flavor bernoulli_flavor = ATTN_BERNOULLI_MKL;

static int fail(attn_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(attn_error *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, attn_tr(fmt), ap);
        va_end(ap);
    }
    return -1;
}

/* ---- engine: MT19937 (core/MT19937RNGEngine.h, init_with_uint32 / next_state / operator()) ---- */

void attn_manual_seed(uint64_t seed)
{
    /* Only the low 32 bits reach the engine; initial_seed() still reports the full value. */
    G.mt[0] = (uint32_t)(seed & 0xffffffffu);
    for (int i = 1; i < MT_N; i++)
        G.mt[i] = 1812433253u * (G.mt[i - 1] ^ (G.mt[i - 1] >> 30)) + (uint32_t)i;
    G.index = MT_N;
    G.seed = seed;
    G.normal_cached = 0; /* CPUGeneratorImpl::set_current_seed resets the cached normals */
    G_ready = 1;
}

static void ensure_seeded(void)
{
    if (!G_ready)
        attn_manual_seed(DEFAULT_SEED);
}

uint64_t attn_initial_seed(void)
{
    ensure_seeded();
    return G.seed;
}

static void twist(void)
{
    for (int i = 0; i < MT_N; i++) {
        uint32_t y = (G.mt[i] & 0x80000000u) | (G.mt[(i + 1) % MT_N] & 0x7fffffffu);
        G.mt[i] = G.mt[(i + MT_M) % MT_N] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
    }
    G.index = 0;
}

uint32_t attn_rng_u32(void)
{
    ensure_seeded();
    if (G.index >= MT_N)
        twist();
    uint32_t y = G.mt[G.index++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

/* CPUGeneratorImpl::random64: two 32-bit draws, the first one is the high half. */
uint64_t attn_rng_u64(void)
{
    uint64_t hi = attn_rng_u32();
    uint64_t lo = attn_rng_u32();
    return (hi << 32) | lo;
}

/* ---- uniform (core/TransformationHelper.h: uniform_real; core/DistributionsHelper.h:
 * uniform_real_distribution, which draws random() for float and random64() for double) ---- */

/* float: the low 24 bits of one u32, times 2^-24. */
static float uniform01_float(void)
{
    return (float)(attn_rng_u32() & 0xffffffu) * 0x1p-24f;
}

/* double: the low 53 bits of one u64, times 2^-53. */
static double uniform01_double(void)
{
    return (double)(attn_rng_u64() & ((UINT64_C(1) << 53) - 1)) * 0x1p-53;
}

int attn_rand_fill(float *out, int64_t n)
{
    return attn_uniform_fill(out, n, 0.0, 1.0);
}

/* native/cpu/DistributionTemplates.h: uniform_kernel. from and to are cast to float first, so
 * `to - from` is a float subtraction; the rest is one fused multiply-add (see the top of the file). */
int attn_uniform_fill(float *out, int64_t n, double a, double b)
{
    float from = (float)a, to = (float)b;
    float range = to - from;
    for (int64_t i = 0; i < n; i++) {
        if (attn_poll(i))
            return -1;
        out[i] = fmaf(uniform01_float(), range, from);
    }
    return 0;
}

/* ---- normal (native/cpu/DistributionKernels.cpp: normal_kernel) ----
 * float32 tensors of 16 or more contiguous elements take normal_fill / normal_fill_AVX2; smaller ones
 * take one normal_distribution<double> draw per element (core/DistributionsHelper.h). */

/* normal_distribution<double>::operator(): Box-Muller on two float64 uniforms; returns r*cos and keeps
 * r*sin (without mean and std) for the next call, whatever mean and std that call has. */
static double normal_double(double mean, double std)
{
    double z;
    if (G.normal_cached) {
        G.normal_cached = 0;
        z = G.normal_next;
    } else {
        double u1 = uniform01_double();
        double u2 = uniform01_double();
        double r = sqrt(-2.0 * log1p(-u2));
        double theta = 2.0 * PI * u1;
        G.normal_next = r * sin(theta);
        G.normal_cached = 1;
        z = r * cos(theta);
    }
    return fma(z, std, mean); /* transformation::normal: val * std + mean, fused in the AVX2 build */
}

/* normal_fill_16: Box-Muller in float on one block of 16 uniforms; the first 8 give the radius
 * (u1 = 1 - u maps [0, 1) to (0, 1] for the log), the last 8 give the angle. attn computes it as PyTorch's
 * normal_fill_16_AVX2 does (its log and sincos are avx_mathfun's: boxmuller.c, bit for bit, in plain C),
 * on every machine: attn's reference is PyTorch's AVX2 kernels. */
static void normal_fill_16(float *d, float mean, float std)
{
    attn_boxmuller16_avx2(d, mean, std);
}

int attn_normal_fill_serial(float *out, int64_t n, double mean, double std)
{
    for (int64_t i = 0; i < n; i++) {
        if (attn_poll(i))
            return -1;
        out[i] = (float)normal_double(mean, std);
    }
    return 0;
}

int attn_normal_fill(float *out, int64_t n, double mean, double std)
{
    if (n < 16)
        return attn_normal_fill_serial(out, n, mean, std);
    /* normal_fill: every element gets a float uniform first, then each whole block of 16 is
     * transformed in place; a ragged tail is handled by redrawing the LAST 16 elements (which
     * overlaps the previous block) and transforming them again. */
    for (int64_t i = 0; i < n; i++) {
        if (attn_poll(i))
            return -1;
        out[i] = uniform01_float();
    }
    for (int64_t i = 0; i + 16 <= n; i += 16) {
        if (attn_poll(i))
            return -1;
        normal_fill_16(out + i, (float)mean, (float)std);
    }
    if (n % 16 != 0) {
        float *tail = out + n - 16;
        for (int i = 0; i < 16; i++)
            tail[i] = uniform01_float();
        normal_fill_16(tail, (float)mean, (float)std);
    }
    return 0;
}

int attn_randn_fill(float *out, int64_t n)
{
    return attn_normal_fill(out, n, 0.0, 1.0);
}

/* ---- randint (native/DistributionTemplates.h: random_from_to; core/DistributionsHelper.h:
 * uniform_int_from_to_distribution; core/TransformationHelper.h: uniform_int_from_to) ----
 * For an int64 tensor: range = high - low as uint64; ranges below 2^32 use u32 % range, larger ones
 * u64 % range; the value is (that + low). */
int attn_randint_fill(int64_t *out, int64_t n, int64_t low, int64_t high, attn_error *err)
{
    if (high <= low)
        return fail(err, "randint: low must be less than high, but got low=%lld >= high=%lld",
                    (long long)low, (long long)high);
    uint64_t range = (uint64_t)high - (uint64_t)low;
    for (int64_t i = 0; i < n; i++) {
        if (attn_poll(i))
            return attn_interrupted(err), -1;
        uint64_t v = range >= (UINT64_C(1) << 32) ? attn_rng_u64() : (uint64_t)attn_rng_u32();
        out[i] = (int64_t)(v % range + (uint64_t)low);
    }
    return 0;
}

/* ---- bernoulli (native/cpu/DistributionKernels.cpp: bernoulli_scalar_kernel) ---- */

attn_bernoulli_flavor attn_get_bernoulli_flavor(void)
{
    return bernoulli_flavor;
}

void attn_set_bernoulli_flavor(attn_bernoulli_flavor f)
{
    bernoulli_flavor = f == ATTN_BERNOULLI_DEFAULT ? ATTN_BERNOULLI_DEFAULT : ATTN_BERNOULLI_MKL;
}

/* MKL build: one u32 seeds an MKL VSL_BRNG_MCG31 stream (x' = 1132489760 x mod 2^31-1, u = x / (2^31-1),
 * the first u from the seed itself) and viRngBernoulli(ICDF) gives 1 when u < p. PyTorch splits the
 * tensor into chunks with vslSkipAheadStream, which is the same sequence as one pass. The seed is drawn
 * even for an empty tensor. */
static int bernoulli_mkl(float *out, int64_t n, double p)
{
    const uint64_t m = 0x7fffffffu;
    uint64_t x = attn_rng_u32() % m;
    if (x == 0)
        x = 1;
    for (int64_t i = 0; i < n; i++) {
        if (attn_poll(i))
            return -1;
        out[i] = (double)x / (double)m < p ? 1.0f : 0.0f;
        x = (UINT64_C(1132489760) * x) % m;
    }
    return 0;
}

/* Build without MKL: bernoulli_scalar_kernel_default -> templates::cpu::bernoulli_kernel, one
 * bernoulli_distribution<double> per element: a float64 uniform u, and 1 when u < p. */
static int bernoulli_default(float *out, int64_t n, double p)
{
    for (int64_t i = 0; i < n; i++) {
        if (attn_poll(i))
            return -1;
        out[i] = uniform01_double() < p ? 1.0f : 0.0f;
    }
    return 0;
}

int attn_bernoulli_fill(float *out, int64_t n, double p)
{
    if (bernoulli_flavor == ATTN_BERNOULLI_DEFAULT)
        return bernoulli_default(out, n, p);
    return bernoulli_mkl(out, n, p);
}

/* ---- state (torch.get_rng_state / set_rng_state, in attn's own little-endian layout) ----
 *   8 bytes  magic "attnRNG1"
 *   8 bytes  seed
 *   4 bytes  index (0..624)
 *   4 * 624  mt[]
 *   1 byte   normal cached (0 or 1)
 *   8 bytes  cached normal (IEEE-754 bits) */
static const char STATE_MAGIC[8] = {'a', 't', 't', 'n', 'R', 'N', 'G', '1'};
#define STATE_SIZE (8 + 8 + 4 + 4 * MT_N + 1 + 8)

size_t attn_rng_state_size(void)
{
    return STATE_SIZE;
}

static unsigned char *put_le(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        *p++ = (unsigned char)(v >> (8 * i));
    return p;
}

static uint64_t get_le(const unsigned char **p, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)(*p)[i] << (8 * i);
    *p += bytes;
    return v;
}

void attn_rng_get_state(unsigned char *buf)
{
    ensure_seeded();
    uint64_t normal_bits;
    memcpy(&normal_bits, &G.normal_next, sizeof normal_bits);
    memcpy(buf, STATE_MAGIC, sizeof STATE_MAGIC);
    unsigned char *p = buf + sizeof STATE_MAGIC;
    p = put_le(p, G.seed, 8);
    p = put_le(p, (uint64_t)G.index, 4);
    for (int i = 0; i < MT_N; i++)
        p = put_le(p, G.mt[i], 4);
    p = put_le(p, (uint64_t)(G.normal_cached != 0), 1);
    put_le(p, G.normal_cached ? normal_bits : 0, 8);
}

int attn_rng_set_state(const unsigned char *buf, size_t len, attn_error *err)
{
    if (buf == NULL || len != STATE_SIZE)
        return fail(err, "set_rng_state: expected a state of %d bytes, got %zu", STATE_SIZE,
                    buf == NULL ? (size_t)0 : len);
    if (memcmp(buf, STATE_MAGIC, sizeof STATE_MAGIC) != 0)
        return fail(err, "set_rng_state: this is not a state from get_rng_state");
    const unsigned char *p = buf + sizeof STATE_MAGIC;
    uint64_t seed = get_le(&p, 8);
    uint64_t index = get_le(&p, 4);
    uint32_t mt[MT_N];
    uint32_t any = 0;
    for (int i = 0; i < MT_N; i++)
        any |= mt[i] = (uint32_t)get_le(&p, 4);
    uint64_t cached = get_le(&p, 1);
    uint64_t normal_bits = get_le(&p, 8);
    if (index > MT_N || cached > 1 || any == 0)
        return fail(err, "set_rng_state: the state is corrupt");
    /* Validated: only now touch the generator, so a failed call changes nothing. */
    memcpy(G.mt, mt, sizeof mt);
    G.index = (int)index;
    G.seed = seed;
    G.normal_cached = (int)cached;
    memcpy(&G.normal_next, &normal_bits, sizeof normal_bits);
    G_ready = 1;
    return 0;
}
