/* binary_loops.h — the inner loops of element-wise binary operations (ops.c's attn_binary): one stretch
 * of a row, each operand with its own step. */
#ifndef ATTN_BINARY_LOOPS_H
#define ATTN_BINARY_LOOPS_H

#include "ops.h"

/* o[i] = a[i * sa] op b[i * sb] for i < n, in float (bool results as 0/1). */
void attn_binary_loop_f32(attn_binop op, const float *a, int64_t sa, const float *b, int64_t sb, float *o,
                          int64_t so, int64_t n);
/* The same in int64, wrapping on overflow; into an int64 result, or into a float one (comparisons). */
void attn_binary_loop_i64(attn_binop op, const int64_t *a, int64_t sa, const int64_t *b, int64_t sb, int64_t *o,
                          int64_t so, int64_t n);
void attn_binary_loop_i64_f32(attn_binop op, const int64_t *a, int64_t sa, const int64_t *b, int64_t sb,
                              float *o, int64_t so, int64_t n);

#endif
