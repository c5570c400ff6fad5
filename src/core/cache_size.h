/* cache_size.h — the size of this machine's per-core level-2 cache, for kernels that size their tiles to
 * it (attention.fused). The only place attn asks the system about its caches. */
#ifndef ATTN_CACHE_SIZE_H
#define ATTN_CACHE_SIZE_H

#include <stdint.h>

/* Bytes of L2 cache one core has: sysconf's answer, else Linux's /sys, else 512 KB (a common size, and
 * what attention.fused's tiles were first tuned for). Asked once, then remembered. */
int64_t attn_l2_cache_bytes(void);

#endif
