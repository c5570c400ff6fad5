/* rows.c — the walk of rows.h. The rows are numbered in row-major order; a thread given rows
 * [begin, end) finds the first one's offsets from its index (one division per dim) and steps from
 * there. */
#include "rows.h"
#include "parallel.h"

#include <string.h>

/* Below this many elements a loop stays on one thread: starting one costs ~50 µs, the time of
 * ~100,000 element operations. */
#define PARALLEL_MIN ((int64_t)1 << 17)

void attn_rows_init(attn_rows *w, int ndim, const int64_t *shape)
{
    memset(w, 0, sizeof *w);
    w->ndim = ndim > 0 ? ndim : 1;
    if (ndim == 0)
        w->shape[0] = 1;
    else
        memcpy(w->shape, shape, sizeof(int64_t) * (size_t)ndim);
}

void attn_rows_add(attn_rows *w, const attn_tensor *t)
{
    int k = w->nops++;
    w->offset[k] = t->offset;
    int lead = w->ndim - t->ndim;
    for (int d = 0; d < w->ndim; d++) {
        int src = d - lead;
        w->stride[k][d] = (src >= 0 && t->shape[src] != 1) ? t->stride[src] : 0;
    }
}

typedef struct rows_job {
    const attn_rows *w;
    attn_piece_fn piece;
    void *ctx;
} rows_job;

static int run_rows(void *arg, int64_t begin, int64_t end)
{
    const rows_job *j = arg;
    const attn_rows *w = j->w;
    int last = w->ndim - 1;
    int64_t len = w->shape[last], at[3] = {0}, step[3] = {0}, index[ATTN_MAX_DIMS] = {0};
    /* the offsets of row `begin` */
    int64_t r = begin;
    for (int d = last - 1; d >= 0; d--) {
        index[d] = r % w->shape[d];
        r /= w->shape[d];
    }
    for (int k = 0; k < w->nops; k++) {
        at[k] = w->offset[k];
        step[k] = w->stride[k][last];
        for (int d = 0; d < last; d++)
            at[k] += index[d] * w->stride[k][d];
    }
    for (int64_t row = begin; row < end; row++) {
        for (int64_t j0 = 0; j0 < len; j0 += ATTN_ROWS_PIECE) {
            if (attn_interrupt_requested)
                return -1;
            int64_t n = len - j0 < ATTN_ROWS_PIECE ? len - j0 : ATTN_ROWS_PIECE, piece_at[3];
            for (int k = 0; k < w->nops; k++)
                piece_at[k] = at[k] + j0 * step[k];
            if (j->piece(j->ctx, piece_at, step, n))
                return -1;
        }
        /* the next row: the odometer over dims last-1 .. 0 */
        for (int d = last - 1; d >= 0; d--) {
            for (int k = 0; k < w->nops; k++)
                at[k] += w->stride[k][d];
            if (++index[d] < w->shape[d])
                break;
            for (int k = 0; k < w->nops; k++)
                at[k] -= w->shape[d] * w->stride[k][d];
            index[d] = 0;
        }
    }
    return 0;
}

int attn_rows_run(const attn_rows *w, attn_piece_fn piece, void *ctx)
{
    int64_t len = w->shape[w->ndim - 1], rows = 1;
    for (int d = 0; d < w->ndim - 1; d++)
        rows *= w->shape[d];
    if (len == 0 || rows == 0)
        return 0;
    rows_job j = {w, piece, ctx};
    int64_t grain = PARALLEL_MIN / len; /* rows enough for one thread's share */
    return attn_parallel_for(rows, grain > 0 ? grain : 1, run_rows, &j);
}
