/* boxmuller.h — the vectorised Box-Muller step of PyTorch's randn/normal_ (see boxmuller.c). */
#ifndef ATTN_BOXMULLER_H
#define ATTN_BOXMULLER_H

/* normal_fill_16_AVX2 on one block of 16 uniforms in [0, 1): d[0..8) become radius * cos(theta) * std + mean
 * and d[8..16) radius * sin(theta) * std + mean, with radius = sqrt(-2 log(1 - d[j])) and
 * theta = 2 pi d[j + 8], computed as avx_mathfun computes them in Debian's torch, bit for bit. */
void attn_boxmuller16_avx2(float *d, float mean, float std);

#endif
