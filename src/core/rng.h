/* rng.h — PyTorch's CPU random numbers, bit for bit (see NOTES.md, "Random streams").
 *
 * One global generator, like torch's default CPU generator: a 32-bit Mersenne Twister plus the cached
 * second normal sample. Plain C11; nothing here prints, aborts or allocates.
 *
 * Every *_fill function writes out[0], out[1], ... in that order, consuming the stream exactly as
 * PyTorch does when it fills a contiguous float32 tensor of n elements; the caller maps the buffer
 * to the tensor's row-major order. They return 0, or -1 when a Ctrl-C stopped them (tensor.h's
 * attn_interrupt_requested; out is then incomplete and the stream has moved on by what was drawn). */
#ifndef ATTN_RNG_H
#define ATTN_RNG_H

#include <stddef.h>
#include <stdint.h>

#include "tensor.h" /* attn_error */

/* torch.manual_seed(seed): reseeds the engine with seed & 0xffffffff and forgets the cached normal. */
void attn_manual_seed(uint64_t seed);
/* torch.initial_seed(): the last seed given, or PyTorch's default 67280421310721 before any. */
uint64_t attn_initial_seed(void);

uint32_t attn_rng_u32(void);
uint64_t attn_rng_u64(void); /* (u32() << 32) | u32(), the first draw is the high half */

int attn_rand_fill(float *out, int64_t n);                            /* torch.rand */
int attn_uniform_fill(float *out, int64_t n, double a, double b);     /* t:uniform_(a, b) */
int attn_randn_fill(float *out, int64_t n);                           /* torch.randn */
int attn_normal_fill(float *out, int64_t n, double mean, double std); /* t:normal_(mean, std) */
/* One normal_distribution<double> draw per element, what normal_ does on fewer than 16 elements or on a
 * tensor that is not contiguous (drawn in memory order, see attn_memory_order). */
int attn_normal_fill_serial(float *out, int64_t n, double mean, double std);
/* torch.randint(low, high, size): the values of an int64 tensor.
 * Returns 0, or -1 with err->msg set when high <= low or when interrupted. */
int attn_randint_fill(int64_t *out, int64_t n, int64_t low, int64_t high, attn_error *err);

/* Bernoulli draws (dropout) depend on how PyTorch was built: with Intel MKL (the usual x86-64
 * wheels) or without (macOS, Arm, Debian's python3-torch). Both are offered; MKL is the default. */
typedef enum { ATTN_BERNOULLI_MKL = 0, ATTN_BERNOULLI_DEFAULT = 1 } attn_bernoulli_flavor;
attn_bernoulli_flavor attn_get_bernoulli_flavor(void);
void attn_set_bernoulli_flavor(attn_bernoulli_flavor f);
/* t:bernoulli_(p): out[i] = 1.0f with probability p, else 0.0f. Dropout passes p = 1 - drop_p. */
int attn_bernoulli_fill(float *out, int64_t n, double p);

/* The whole generator state (engine, seed, cached normal) as an opaque byte string of a fixed size.
 * This is attn's own format, not torch.get_rng_state()'s. */
size_t attn_rng_state_size(void);
void attn_rng_get_state(unsigned char *buf); /* buf holds attn_rng_state_size() bytes */
/* Returns 0, or -1 with err->msg set (wrong size, or not a state from attn_rng_get_state). */
int attn_rng_set_state(const unsigned char *buf, size_t len, attn_error *err);

#endif
