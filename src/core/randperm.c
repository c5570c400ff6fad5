/* randperm.c — torch.randperm(n) in PyTorch 1.13's order for a seed (aten/src/ATen/native/
 * TensorFactories.cpp, randperm_cpu): 0, 1, ..., n-1, then for i = 0 .. n-2 a swap of element i with
 * element i + z, z = generator->random() % (n - i), random() being one 32-bit draw of the Mersenne
 * Twister (rng.c). A DataLoader's shuffle is this permutation (src/lua/data). */
#include "learn.h"
#include "rng.h"

attn_tensor *attn_randperm(int64_t n, attn_error *err)
{
    if (n < 0)
        return attn_fail(err, "randperm: n must be non-negative, got %lld", (long long)n);
    attn_tensor *out = attn_empty("randperm", 1, &n, ATTN_INT64, err);
    if (!out)
        return NULL;
    int64_t *r = out->storage->i64;
    for (int64_t i = 0; i < n; i++)
        r[i] = i;
    for (int64_t i = 0; i + 1 < n; i++) {
        if (attn_poll(i)) {
            attn_free(out);
            return attn_interrupted(err);
        }
        int64_t z = (int64_t)(attn_rng_u32() % (uint64_t)(n - i));
        int64_t sav = r[i];
        r[i] = r[z + i];
        r[z + i] = sav;
    }
    return out;
}
