/* rows.h — element-wise loops over tensors of any strides, row by row, split among threads.
 *
 * A walk covers the row-major index space of a shape for up to three operands (each with its own
 * storage offset and strides, 0 where it broadcasts) and hands the innermost dim out in pieces: a
 * piece is a stretch of one row, its first element's storage offset in each operand and the operands'
 * strides along the row. The loop over a piece is the caller's: flat, so that the compiler vectorises
 * it. Each element belongs to exactly one piece, computed by one thread, so the results never depend
 * on the number of threads. */
#ifndef ATTN_ROWS_H
#define ATTN_ROWS_H

#include "tensor.h"

typedef struct attn_rows {
    int ndim; /* >= 1: a 0-d shape walks as [1] */
    int64_t shape[ATTN_MAX_DIMS];
    int nops;
    int64_t offset[3];
    int64_t stride[3][ATTN_MAX_DIMS];
} attn_rows;

/* A walk over shape (ndim 0: one element), no operands yet. */
void attn_rows_init(attn_rows *w, int ndim, const int64_t *shape);
/* Adds t as the next operand (at most three), broadcast to the walk's shape by PyTorch's rules (its
 * dims aligned at the right; a size-1 or missing dim gets stride 0). */
void attn_rows_add(attn_rows *w, const attn_tensor *t);

/* piece(ctx, at, step, n): n elements, operand k's first at storage offset at[k], the next ones step[k]
 * apart. Returns 0, or -1 to stop. */
typedef int (*attn_piece_fn)(void *ctx, const int64_t *at, const int64_t *step, int64_t n);

/* Calls piece over the whole walk, on several threads when it is large. -1 when a piece returned -1 or
 * Ctrl-C was pressed (pieces are at most ATTN_ROWS_PIECE elements, checked between them). */
int attn_rows_run(const attn_rows *w, attn_piece_fn piece, void *ctx);

#define ATTN_ROWS_PIECE 65536

#endif
