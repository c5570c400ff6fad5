/* sampling.c — torch.topk, the exponential fill and torch.multinomial (see sampling.h). */
#include "sampling.h"
#include "rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int attn_exponential_(attn_tensor *t, double lambd, attn_error *err)
{
    if (t->dtype != ATTN_FLOAT32) {
        attn_fail(err, "exponential_: expected a float32 tensor, got %s", attn_dtype_name(t->dtype));
        return -1;
    }
    if (!(lambd > 0) || isinf(lambd)) {
        attn_fail(err, "exponential_: lambd must be a positive number, got %g", lambd);
        return -1;
    }
    attn_tensor *order = attn_memory_order(t, err); /* PyTorch draws in memory order */
    if (!order)
        return -1;
    int64_t n = attn_numel(order);
    for (int64_t i = 0; i < n; i++) {
        if (attn_poll(i)) {
            attn_free(order);
            attn_interrupted(err);
            return -1;
        }
        uint64_t r = attn_rng_u64();
        double u = (double)(r & ((UINT64_C(1) << 53) - 1)) * ldexp(1.0, -53);
        order->storage->data[attn_flat_offset(order, i)] = (float)(-1.0 / lambd * log1p(-u));
    }
    attn_free(order);
    return 0;
}

typedef struct ranked {
    float v;
    int64_t i;
} ranked;

static int larger_first(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    int xn = isnan(x->v), yn = isnan(y->v);
    if (xn != yn)
        return xn ? -1 : 1;
    if (!xn && x->v != y->v)
        return x->v > y->v ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

static int smaller_first(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    int xn = isnan(x->v), yn = isnan(y->v);
    if (xn != yn)
        return xn ? 1 : -1;
    if (!xn && x->v != y->v)
        return x->v < y->v ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

int attn_topk(const attn_tensor *t, int64_t k, int largest, attn_tensor **values, attn_tensor **indices,
              attn_error *err)
{
    *values = *indices = NULL;
    if (attn_check_float("topk", "input", t, err))
        return -1;
    int64_t n = t->ndim ? t->shape[t->ndim - 1] : 1;
    if (k < 0 || k > n) {
        attn_fail(err, "topk: k (%lld) is out of range: the last dim has %lld elements", (long long)k, (long long)n);
        return -1;
    }
    int64_t shape[ATTN_MAX_DIMS];
    memcpy(shape, t->shape, sizeof shape);
    if (t->ndim)
        shape[t->ndim - 1] = k;
    attn_tensor *c = attn_contiguous(t, err);
    *values = c ? attn_empty("topk", t->ndim, shape, ATTN_FLOAT32, err) : NULL;
    *indices = *values ? attn_empty("topk", t->ndim, shape, ATTN_INT64, err) : NULL;
    ranked *row = *indices ? malloc(sizeof(ranked) * (size_t)(n ? n : 1)) : NULL;
    if (!row) {
        if (*indices)
            attn_fail(err, "topk: out of memory");
        goto fail;
    }
    int64_t rows = n ? attn_numel(c) / n : 0;
    for (int64_t r = 0; r < rows; r++) {
        if (attn_poll(r * n)) {
            attn_interrupted(err);
            free(row);
            goto fail;
        }
        const float *src = c->storage->data + c->offset + r * n;
        for (int64_t j = 0; j < n; j++)
            row[j] = (ranked){src[j], j};
        qsort(row, (size_t)n, sizeof *row, largest ? larger_first : smaller_first);
        for (int64_t j = 0; j < k; j++) {
            (*values)->storage->data[r * k + j] = row[j].v;
            (*indices)->storage->i64[r * k + j] = row[j].i;
        }
    }
    free(row);
    attn_free(c);
    return 0;
fail:
    attn_free(c);
    attn_free(*values);
    attn_free(*indices);
    *values = *indices = NULL;
    return -1;
}

attn_tensor *attn_multinomial(const attn_tensor *probs, int64_t num_samples, int replacement, attn_error *err)
{
    if (attn_check_float("multinomial", "input", probs, err))
        return NULL;
    if (probs->ndim < 1 || probs->ndim > 2)
        return attn_fail(err, "multinomial: prob_dist must be 1 or 2 dim, got %d", probs->ndim);
    int64_t n = probs->shape[probs->ndim - 1];
    if (num_samples <= 0)
        return attn_fail(err, "multinomial: cannot sample n_sample <= 0 samples");
    if (!replacement && num_samples > n)
        return attn_fail(err, "multinomial: cannot sample n_sample > prob_dist.size(-1) samples without "
                              "replacement (%lld > %lld)", (long long)num_samples, (long long)n);
    if (replacement && num_samples > 1)
        return attn_fail(err, "multinomial: attn draws one sample, or several without replacement; with "
                              "replacement=true and num_samples > 1 PyTorch uses another algorithm, which attn "
                              "does not have");
    attn_tensor *p = attn_contiguous(probs, err);
    if (!p)
        return NULL;
    int64_t total = attn_numel(p), rows = n ? total / n : 0;
    for (int64_t i = 0; i < total; i++) {
        float v = p->storage->data[p->offset + i];
        if (!(v >= 0) || isinf(v)) {
            attn_free(p);
            return attn_fail(err, "multinomial: probability tensor contains either inf, nan or element < 0");
        }
    }
    for (int64_t r = 0; r < rows; r++) {
        int any = 0;
        for (int64_t j = 0; j < n && !any; j++)
            any = p->storage->data[p->offset + r * n + j] != 0.0f;
        if (!any) {
            attn_free(p);
            return attn_fail(err, "multinomial: invalid multinomial distribution (sum of probabilities <= 0)");
        }
    }
    attn_tensor *q = attn_empty("multinomial", p->ndim, p->shape, ATTN_FLOAT32, err);
    if (!q || attn_exponential_(q, 1.0, err)) {
        attn_free(p);
        attn_free(q);
        return NULL;
    }
    for (int64_t i = 0; i < total; i++)
        q->storage->data[i] = p->storage->data[p->offset + i] / q->storage->data[i];
    attn_free(p);
    attn_tensor *values, *indices;
    /* argmax takes the first of equal maxima; so does topk's order here */
    int rc = attn_topk(q, num_samples, 1, &values, &indices, err);
    attn_free(q);
    if (rc)
        return NULL;
    attn_free(values);
    return indices;
}
