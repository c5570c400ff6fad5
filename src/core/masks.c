/* masks.c — tril/triu and masked_fill: the masking operations of attention, for every dtype. */
#include "ops.h"
#include "rows.h"

#include <string.h>

attn_tensor *attn_tril(const char *fn, const attn_tensor *t, int64_t diagonal, int upper, attn_error *err)
{
    if (t->ndim < 2)
        return attn_fail(err, "%s: expected a tensor with at least 2 dimensions (a matrix), got %d-D", fn, t->ndim);
    attn_tensor *out = attn_clone(t, err);
    if (!out)
        return NULL;
    int64_t rows = t->shape[t->ndim - 2], cols = t->shape[t->ndim - 1];
    int64_t mats = (rows > 0 && cols > 0) ? attn_numel(t) / (rows * cols) : 0;
    for (int64_t m = 0; m < mats; m++) {
        int64_t at = m * rows * cols;
        for (int64_t i = 0; i < rows; i++) {
            if (attn_interrupt_requested) { /* once a row: the row is work enough */
                attn_free(out);
                return attn_interrupted(err);
            }
            for (int64_t j = 0; j < cols; j++, at++) {
                /* tril keeps j - i <= diagonal; triu keeps j - i >= diagonal */
                int keep = upper ? (j - i >= diagonal) : (j - i <= diagonal);
                if (keep)
                    continue;
                if (out->dtype == ATTN_INT64)
                    out->storage->i64[at] = 0;
                else
                    out->storage->data[at] = 0.0f;
            }
        }
    }
    return out;
}

/* One stretch of a row: t's elements where the (broadcast) mask is set get the value. Row by row, on
 * several threads for a large tensor (rows.h); a loop gcc vectorises for floats. */
typedef struct fill_job {
    attn_tensor *t;
    const attn_tensor *m, *v;
} fill_job;

static int masked_fill_piece(void *ctx, const int64_t *at, const int64_t *step, int64_t n)
{
    const fill_job *j = ctx;
    const float *m = j->m->storage->data + at[1];
    int64_t st = step[0], sm = step[1];
    if (j->t->dtype == ATTN_INT64) {
        int64_t *x = j->t->storage->i64 + at[0], value = j->v->storage->i64[0];
        for (int64_t i = 0; i < n; i++)
            if (m[i * sm] != 0.0f)
                x[i * st] = value;
        return 0;
    }
    float *x = j->t->storage->data + at[0], value = j->v->storage->data[0];
    if (st == 1 && sm == 1)
        for (int64_t i = 0; i < n; i++)
            x[i] = m[i] != 0.0f ? value : x[i];
    else
        for (int64_t i = 0; i < n; i++)
            if (m[i * sm] != 0.0f)
                x[i * st] = value;
    return 0;
}

int attn_masked_fill_(attn_tensor *t, const attn_tensor *mask, attn_number value, attn_error *err)
{
    char ts[160], ms[160];
    if (mask->dtype != ATTN_BOOL) {
        attn_fail(err, "masked_fill: the mask must be a bool tensor (true = fill), got a %s tensor; "
                       "use mask:bool() or a comparison such as mask:eq(0)", attn_dtype_name(mask->dtype) + 6);
        return -1;
    }
    /* The value, cast to t's dtype once, as a 0-d tensor that fills each masked element. */
    attn_tensor *v = attn_empty("masked_fill", 0, NULL, t->dtype, err);
    if (!v || attn_fill_number_("masked_fill", v, value, err)) {
        attn_free(v);
        return -1;
    }
    attn_tensor *m = attn_expand(mask, t->ndim, t->shape, err);
    if (!m) {
        attn_free(v);
        attn_fail(err, "masked_fill: mask of shape %s does not broadcast to the tensor's shape %s",
                  attn_shape_str(mask, ms, sizeof ms), attn_shape_str(t, ts, sizeof ts));
        return -1;
    }
    attn_rows w;
    attn_rows_init(&w, t->ndim, t->shape);
    attn_rows_add(&w, t);
    attn_rows_add(&w, m);
    fill_job j = {t, m, v};
    if (attn_rows_run(&w, masked_fill_piece, &j)) {
        attn_free(m);
        attn_free(v);
        attn_interrupted(err);
        return -1;
    }
    attn_free(m);
    attn_free(v);
    return 0;
}

attn_tensor *attn_masked_fill(const attn_tensor *t, const attn_tensor *mask, attn_number value, attn_error *err)
{
    int ndim;
    int64_t shape[ATTN_MAX_DIMS];
    if (attn_broadcast_shape("masked_fill", t, mask, &ndim, shape, err))
        return NULL;
    attn_tensor *e = attn_expand(t, ndim, shape, err);
    attn_tensor *out = e ? attn_clone(e, err) : NULL;
    attn_free(e);
    if (out && attn_masked_fill_(out, mask, value, err)) {
        attn_free(out);
        return NULL;
    }
    return out;
}
