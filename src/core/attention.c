/* attention.c — the stages of attention, each its own function (see attention.h for the shapes).
 *
 * The stages are composed from the core's general operations (matmul over a transposed view, the
 * element-wise ops, masked fill, softmax) so that each gives exactly the numbers the book's PyTorch
 * line gives: attention.scores(q, k) is the same sgemm as q @ k.T, attention.scale(s, d) the same
 * division as s / d**0.5. What this file adds is the checking: each stage says, in its own name, which
 * shapes do not fit, before the general operation would report it in its own terms. */
#include "attention.h"
#include "ops.h"
#include "rng.h"

#include <math.h>
#include <string.h>

/* A shape as text, for messages. */
#define SHAPE(t, buf) attn_shape_str((t), (buf), sizeof(buf))

static attn_tensor *last_two_swapped(const attn_tensor *t, attn_error *err)
{
    return t->ndim < 2 ? attn_alias(t, err) : attn_transpose(t, t->ndim - 2, t->ndim - 1, err);
}

/* ---- scores -------------------------------------------------------------------------------- */

/* Pass 1: check that q and k share the feature dim d. Pass 2: q·kᵀ, with kᵀ a view BLAS reads
 * transposed (no copy), batch dims broadcast by matmul. */
attn_tensor *attn_scores(const attn_tensor *q, const attn_tensor *k, attn_error *err)
{
    char qs[160], ks[160];
    if (attn_check_float("attention.scores", "q", q, err) || attn_check_float("attention.scores", "k", k, err))
        return NULL;
    if (q->ndim < 1 || k->ndim < 1)
        return attn_fail(err, "attention.scores: q and k need at least 1 dim ([n, d] and [m, d]), got %s and %s",
                         SHAPE(q, qs), SHAPE(k, ks));
    int64_t dq = q->shape[q->ndim - 1], dk = k->shape[k->ndim - 1];
    if (dq != dk)
        return attn_fail(err, "attention.scores: q %s and k %s must have the same last dim d (%lld ≠ %lld)",
                         SHAPE(q, qs), SHAPE(k, ks), (long long)dq, (long long)dk);
    attn_tensor *kt = last_two_swapped(k, err);
    attn_tensor *s = kt ? attn_matmul("attention.scores", q, kt, err) : NULL;
    attn_free(kt);
    return s;
}

attn_tensor *attn_scale(const attn_tensor *s, double d_k, attn_error *err)
{
    if (!(d_k > 0) || isinf(d_k))
        return attn_fail(err, "attention.scale: d_k must be a positive number (the key dim), got %g", d_k);
    if (attn_check_float("attention.scale", "the scores", s, err))
        return NULL;
    /* the book's  attn_scores / keys.shape[-1]**0.5 : a float32 division by the rounded root */
    return attn_binary_scalar("attention.scale", ATTN_DIV, s, attn_float(sqrt(d_k)), 0, err);
}

/* ---- masks --------------------------------------------------------------------------------- */

attn_tensor *attn_causal_mask(int64_t n, int64_t m, attn_error *err)
{
    if (n < 0 || m < 0)
        return attn_fail(err, "attention.causal_mask: sizes must be non-negative, got %lld and %lld", (long long)n,
                         (long long)m);
    int64_t shape[2] = {n, m};
    attn_tensor *mask = attn_empty("attention.causal_mask", 2, shape, ATTN_BOOL, err);
    if (!mask)
        return NULL;
    /* triu(ones(n, m), diagonal=1): query i may not see keys j > i. With m = 0 there is nothing to fill,
     * and n may be as large as an int64 (an empty [n, 0] mask): no loop over its rows. */
    for (int64_t i = 0; i < n && m > 0; i++) {
        if (attn_interrupt_requested) { /* once a row */
            attn_free(mask);
            return attn_interrupted(err);
        }
        for (int64_t j = 0; j < m; j++)
            mask->storage->data[i * m + j] = j > i ? 1.0f : 0.0f;
    }
    return mask;
}

/* d2l's sequence_mask, as a mask of what is hidden: key position j (0-based) is hidden from query row
 * r of batch b when j >= lens[b] (1-D lens) or j >= lens[b, r] (2-D lens). */
attn_tensor *attn_valid_len_mask(int64_t n, const attn_tensor *lens, attn_error *err)
{
    char ls[160];
    if (n < 0)
        return attn_fail(err, "attention.valid_len_mask: the sequence length n must be non-negative, got %lld",
                         (long long)n);
    if (lens->ndim != 1 && lens->ndim != 2)
        return attn_fail(err, "attention.valid_len_mask: lens must be 1-D [batch] or 2-D [batch, queries], got %s",
                         SHAPE(lens, ls));
    int64_t b = lens->shape[0], q = lens->ndim == 2 ? lens->shape[1] : 1;
    for (int64_t i = 0; i < b * q; i++) {
        if (attn_poll(i)) /* lens can be an expanded view of 2^40 entries */
            return attn_interrupted(err);
        double len = attn_get_flat_f64(lens, i);
        if (!(len >= 0 && len <= (double)n) || len != floor(len))
            return attn_fail(err, "attention.valid_len_mask: valid length %g (entry %lld of lens %s) must be a "
                                  "whole number from 0 to the sequence length %lld",
                             (double)len, (long long)i + 1, SHAPE(lens, ls), (long long)n);
    }
    int64_t shape[3] = {b, q, n};
    attn_tensor *mask = attn_empty("attention.valid_len_mask", 3, shape, ATTN_BOOL, err);
    if (!mask)
        return NULL;
    for (int64_t i = 0; i < b * q; i++) {
        if (attn_interrupt_requested) { /* once a row */
            attn_free(mask);
            return attn_interrupted(err);
        }
        int64_t len = (int64_t)attn_get_flat_f64(lens, i);
        for (int64_t j = 0; j < n; j++)
            mask->storage->data[i * n + j] = j >= len ? 1.0f : 0.0f;
    }
    return mask;
}

attn_tensor *attn_mask(const attn_tensor *s, const attn_tensor *hidden, float fill, attn_error *err)
{
    char ss[160], hs[160];
    if (hidden->dtype != ATTN_BOOL)
        return attn_fail(err, "attention.mask: hidden must be a bool tensor (true = hidden), got a %s tensor "
                              "of shape %s; use mask:bool()", attn_dtype_name(hidden->dtype) + 6, SHAPE(hidden, hs));
    if (attn_check_float("attention.mask", "the scores", s, err))
        return NULL;
    int ndim;
    int64_t shape[ATTN_MAX_DIMS];
    if (attn_broadcast_shape("attention.mask", s, hidden, &ndim, shape, err))
        return attn_fail(err, "attention.mask: the mask %s does not fit the scores %s (they cannot be broadcast)",
                         SHAPE(hidden, hs), SHAPE(s, ss));
    return attn_masked_fill(s, hidden, attn_float(fill), err);
}

/* ---- weights and values -------------------------------------------------------------------- */

attn_tensor *attn_weighted_sum(const attn_tensor *w, const attn_tensor *v, attn_error *err)
{
    char ws[160], vs[160];
    if (attn_check_float("attention.weighted_sum", "w", w, err) ||
        attn_check_float("attention.weighted_sum", "v", v, err))
        return NULL;
    if (w->ndim < 1 || v->ndim < 2)
        return attn_fail(err, "attention.weighted_sum: expected weights [..., n, m] and values [..., m, dv], "
                              "got %s and %s", SHAPE(w, ws), SHAPE(v, vs));
    int64_t mw = w->shape[w->ndim - 1], mv = v->shape[v->ndim - 2];
    if (mw != mv)
        return attn_fail(err, "attention.weighted_sum: weights %s are over %lld keys but values %s have %lld rows",
                         SHAPE(w, ws), (long long)mw, SHAPE(v, vs), (long long)mv);
    return attn_matmul("attention.weighted_sum", w, v, err);
}

attn_tensor *attn_dropout(const char *fn, const attn_tensor *x, double p, attn_error *err)
{
    if (!(p >= 0 && p <= 1))
        return attn_fail(err, "%s: p must be between 0 and 1, got %g", fn, p);
    if (attn_check_float(fn, "the input", x, err))
        return NULL;
    if (p == 0 || attn_numel(x) == 0)
        return attn_alias(x, err);
    attn_tensor *noise = attn_empty(fn, x->ndim, x->shape, ATTN_FLOAT32, err);
    if (!noise)
        return NULL;
    /* PyTorch's noise is empty_like(input, LEGACY_CONTIGUOUS_MEMORY_FORMAT): contiguous whatever x's
     * layout, so the draws land in row-major order even for a transposed x (fills.txt checks it). */
    int64_t n = attn_numel(noise);
    if (p == 1) {
        memset(noise->storage->data, 0, sizeof(float) * (size_t)n);
    } else {
        if (attn_bernoulli_fill(noise->storage->data, n, 1 - p)) {
            attn_free(noise);
            return attn_interrupted(err);
        }
        float keep = (float)(1 - p); /* PyTorch divides by the scalar cast to float32 */
        for (int64_t i = 0; i < n; i++)
            noise->storage->data[i] /= keep;
    }
    attn_tensor *out = attn_binary(fn, ATTN_MUL, x, noise, err);
    attn_free(noise);
    return out;
}

/* ---- heads --------------------------------------------------------------------------------- */

/* The book's  x.view(b, n, h, d/h).transpose(1, 2) : the result is a view of x. */
attn_tensor *attn_split_heads(const attn_tensor *x, int64_t h, attn_error *err)
{
    char xs[160];
    if (x->ndim < 2 || x->ndim + 1 > ATTN_MAX_DIMS)
        return attn_fail(err, "attention.split_heads: expected x [..., n, d] (at least 2-D), got %s", SHAPE(x, xs));
    int64_t d = x->shape[x->ndim - 1];
    if (h < 1)
        return attn_fail(err, "attention.split_heads: the number of heads must be at least 1, got %lld",
                         (long long)h);
    if (d % h != 0)
        return attn_fail(err, "attention.split_heads: d = %lld (x %s) is not divisible by %lld heads", (long long)d,
                         SHAPE(x, xs), (long long)h);
    int64_t shape[ATTN_MAX_DIMS];
    memcpy(shape, x->shape, sizeof(int64_t) * (size_t)x->ndim);
    shape[x->ndim - 1] = h;
    shape[x->ndim] = d / h;
    /* a view whenever x's strides allow one (always for a contiguous x); a copy otherwise */
    attn_tensor *v = attn_reshape("attention.split_heads", x, x->ndim + 1, shape, err);
    attn_tensor *out = v ? attn_transpose(v, x->ndim - 2, x->ndim - 1, err) : NULL;
    attn_free(v);
    return out;
}

/* The book's  x.transpose(1, 2).contiguous().view(b, n, h*dh) . */
attn_tensor *attn_merge_heads(const attn_tensor *x, attn_error *err)
{
    char xs[160];
    if (x->ndim < 3)
        return attn_fail(err, "attention.merge_heads: expected x [..., h, n, dh] (at least 3-D), got %s",
                         SHAPE(x, xs));
    attn_tensor *t = attn_transpose(x, x->ndim - 3, x->ndim - 2, err);
    attn_tensor *c = t ? attn_clone(t, err) : NULL;
    attn_free(t);
    if (!c)
        return NULL;
    int64_t shape[ATTN_MAX_DIMS];
    memcpy(shape, c->shape, sizeof(int64_t) * (size_t)c->ndim);
    shape[c->ndim - 2] = c->shape[c->ndim - 2] * c->shape[c->ndim - 1];
    attn_tensor *out = attn_view("attention.merge_heads", c, c->ndim - 1, shape, err);
    attn_free(c);
    return out;
}

/* ---- other score functions ----------------------------------------------------------------- */

/* Luong's "general" score s·W·hᵀ: pass 1 s·W [..., n, dh], pass 2 the dot-product scores with h. */
attn_tensor *attn_general(const attn_tensor *s, const attn_tensor *W, const attn_tensor *h, attn_error *err)
{
    char ss[160], ws[160], hs[160];
    if (attn_check_float("attention.general", "s", s, err) || attn_check_float("attention.general", "W", W, err))
        return NULL;
    if (s->ndim < 1 || W->ndim != 2 || h->ndim < 1)
        return attn_fail(err, "attention.general: expected s [..., n, ds], W [ds, dh], h [..., m, dh], "
                              "got %s, %s and %s", SHAPE(s, ss), SHAPE(W, ws), SHAPE(h, hs));
    if (s->shape[s->ndim - 1] != W->shape[0] || h->shape[h->ndim - 1] != W->shape[1])
        return attn_fail(err, "attention.general: W %s must be [ds, dh] for s %s and h %s (ds = %lld, dh = %lld)",
                         SHAPE(W, ws), SHAPE(s, ss), SHAPE(h, hs), (long long)s->shape[s->ndim - 1],
                         (long long)h->shape[h->ndim - 1]);
    attn_tensor *sw = attn_matmul("attention.general", s, W, err);
    attn_tensor *out = sw ? attn_scores(sw, h, err) : NULL;
    attn_free(sw);
    return out;
}

/* x·Wᵀ as nn.Linear without bias computes it (W in nn.Linear's [out, in] layout). */
static attn_tensor *project(const attn_tensor *x, const attn_tensor *W, attn_error *err)
{
    attn_tensor *wt = attn_transpose(W, 0, 1, err);
    attn_tensor *out = wt ? attn_matmul("attention.additive", x, wt, err) : NULL;
    attn_free(wt);
    return out;
}

/* Bahdanau / d2l's MLPAttention:
 *   pass 1  qp = q·W_qᵀ [..., n, u],  kp = k·W_kᵀ [..., m, u]
 *   pass 2  features = tanh(qp[..., n, 1, u] + kp[..., 1, m, u])   [..., n, m, u]
 *   pass 3  scores = features·vᵀ  [..., n, m, 1] -> [..., n, m]     (w_v is Linear(u, 1, bias=False)) */
attn_tensor *attn_additive(const attn_tensor *q, const attn_tensor *k, const attn_tensor *W_q,
                           const attn_tensor *W_k, const attn_tensor *v, attn_error *err)
{
    char qs[160], ks[160], wq[160], wk[160], vs[160];
    const attn_tensor *all[] = {q, k, W_q, W_k, v};
    for (int i = 0; i < 5; i++)
        if (attn_check_float("attention.additive", "every input", all[i], err))
            return NULL;
    if (q->ndim < 2 || k->ndim < 2 || W_q->ndim != 2 || W_k->ndim != 2 || v->ndim < 1 || v->ndim > 2 ||
        q->ndim + 1 > ATTN_MAX_DIMS || k->ndim + 1 > ATTN_MAX_DIMS)
        return attn_fail(err, "attention.additive: expected q [..., n, dq], k [..., m, dk], W_q [u, dq], "
                              "W_k [u, dk], v [u] or [1, u]; got %s, %s, %s, %s, %s",
                         SHAPE(q, qs), SHAPE(k, ks), SHAPE(W_q, wq), SHAPE(W_k, wk), SHAPE(v, vs));
    int64_t u = W_q->shape[0];
    int64_t vu = v->shape[v->ndim - 1];
    if (W_q->shape[1] != q->shape[q->ndim - 1] || W_k->shape[1] != k->shape[k->ndim - 1] ||
        W_k->shape[0] != u || vu != u || (v->ndim == 2 && v->shape[0] != 1))
        return attn_fail(err, "attention.additive: shapes do not fit: q %s, k %s need W_q [u, %lld], "
                              "W_k [u, %lld], v [u]; got W_q %s, W_k %s, v %s",
                         SHAPE(q, qs), SHAPE(k, ks), (long long)q->shape[q->ndim - 1],
                         (long long)k->shape[k->ndim - 1], SHAPE(W_q, wq), SHAPE(W_k, wk), SHAPE(v, vs));
    attn_tensor *qp = project(q, W_q, err), *kp = qp ? project(k, W_k, err) : NULL;
    attn_tensor *qe = kp ? attn_unsqueeze(qp, qp->ndim - 1, err) : NULL; /* [..., n, 1, u] */
    attn_tensor *ke = qe ? attn_unsqueeze(kp, kp->ndim - 2, err) : NULL; /* [..., 1, m, u] */
    attn_tensor *sum = ke ? attn_binary("attention.additive", ATTN_ADD, qe, ke, err) : NULL;
    attn_tensor *feat = sum ? attn_unary(ATTN_TANH, sum, err) : NULL;
    int64_t col[2] = {u, 1};
    attn_tensor *vc = feat ? attn_reshape("attention.additive", v, 2, col, err) : NULL;
    attn_tensor *sc = vc ? attn_matmul("attention.additive", feat, vc, err) : NULL;
    attn_tensor *out = sc ? attn_squeeze(sc, sc->ndim - 1, err) : NULL;
    attn_free(qp);
    attn_free(kp);
    attn_free(qe);
    attn_free(ke);
    attn_free(sum);
    attn_free(feat);
    attn_free(vc);
    attn_free(sc);
    return out;
}
