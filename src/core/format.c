/* format.c — PyTorch's tensor print format, character for character.
 *
 * A port of torch/_tensor_str.py (the parts a float32/int64/bool strided CPU tensor reaches):
 *   _Formatter.__init__  -> formatter_init     decides int/sci mode and the column width
 *   _Formatter.format    -> format_value       one element, right-aligned to that width
 *   _vector_str          -> put_vector         the innermost dimension, wrapped at linewidth
 *   _tensor_str_with_formatter -> put_tensor   the outer dimensions, blank lines between slices
 *   get_summarized_data  -> visit_elements(summarize=1): the only elements the formatter sees
 *   _str_intern          -> attn_format        "tensor(" ... ")", the empty-tensor suffixes
 * Python formats the value as a double (tolist()/item()), so every float is widened first; glibc's
 * printf rounds the exact binary value as Python does, except that it spells a negative NaN "-nan",
 * which Python never does. An int64 tensor is not a floating dtype to _Formatter: every value is
 * '{}'.format(int), right-aligned to the widest one, with no int/sci mode. */
#include "format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static attn_print_options g_opts = {4, 1000, 3, 80, -1};

attn_print_options attn_get_print_options(void) { return g_opts; }

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

void attn_set_print_options(attn_print_options o)
{
    /* precision is capped so one formatted number always fits NUMBUF; edgeitems 0 would make
     * PyTorch's own self[-0:] slicing print the whole tensor, so at least one item is kept. */
    g_opts.precision = (int)clamp64(o.precision, 0, 40);
    g_opts.threshold = o.threshold < 0 ? 0 : o.threshold;
    g_opts.edgeitems = (int)clamp64(o.edgeitems, 1, 1 << 20);
    g_opts.linewidth = (int)clamp64(o.linewidth, 1, 1 << 20);
    g_opts.sci_mode = o.sci_mode < 0 ? -1 : o.sci_mode > 0 ? 1 : 0;
}

/* Our own failure helper: format.c depends on tensor.h's types only, not on tensor.c. */
static void *format_fail(attn_error *err, const char *msg)
{
    if (err)
        snprintf(err->msg, sizeof err->msg, "%s", msg);
    return NULL;
}

/* ---- a growing string ----------------------------------------------------------------------- */

typedef struct sbuf {
    char *s;
    size_t len, cap;
    int oom; /* once set, appends are ignored and the caller reports "out of memory" */
} sbuf;

static void sb_putn(sbuf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = realloc(b->s, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->s = p;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void sb_puts(sbuf *b, const char *s) { sb_putn(b, s, strlen(s)); }

static void sb_repeat(sbuf *b, char c, int n)
{
    for (int i = 0; i < n; i++)
        sb_putn(b, &c, 1);
}

/* ---- walking the elements ------------------------------------------------------------------- */

/* A visitor sees the tensor and the storage offset of one element; it reads the element by dtype. */
typedef void (*visit_fn)(void *ctx, const attn_tensor *t, int64_t at);

/* Calls fn on every element in row-major order, or, when summarize is set, only on the elements
 * get_summarized_data keeps: the first and last edgeitems along every dimension longer than
 * 2*edgeitems. dim is the dimension being walked, off the storage offset reached so far. */
static void visit_elements(const attn_tensor *t, int dim, int64_t off, int summarize, visit_fn fn, void *ctx)
{
    if (dim == t->ndim) {
        fn(ctx, t, off);
        return;
    }
    int64_t n = t->shape[dim], edge = g_opts.edgeitems;
    int cut = summarize && n > 2 * edge;
    for (int64_t i = 0; i < n && !attn_interrupt_requested; i++) { /* Ctrl-C: attn_format reports it */
        if (cut && i == edge)
            i = n - edge; /* skip the middle */
        visit_elements(t, dim + 1, off + i * t->stride[dim], summarize, fn, ctx);
    }
}

/* ---- _Formatter ----------------------------------------------------------------------------- */

typedef struct formatter {
    int is_bool;
    int is_int64;
    int int_mode;
    int sci_mode;
    int max_width;
} formatter;

#define NUMBUF 128 /* "%.40f" of FLT_MAX is 81 characters */

/* Python's '{:.{p}f}' / '{:.{p}e}' of a double. NaN is always "nan" in Python, whatever its sign
 * bit; printf would write "-nan". inf and -inf come out the same from both. */
static int fmt_double(char *buf, double v, char conv, int precision)
{
    if (isnan(v))
        return snprintf(buf, NUMBUF, "nan");
    return snprintf(buf, NUMBUF, conv == 'e' ? "%.*e" : "%.*f", precision, v);
}

/* Pass 1 over the values the formatter sees: the nonzero finite ones decide everything. */
typedef struct scan_ctx {
    int64_t count;
    double min_abs, max_abs;
    int int_mode;
    int bool_width;
} scan_ctx;

static void scan_value(void *vctx, const attn_tensor *t, int64_t at)
{
    scan_ctx *c = vctx;
    float f = t->storage->data[at];
    int w = f != 0.0f ? 4 : 5; /* len("True"), len("False") */
    if (w > c->bool_width)
        c->bool_width = w;
    if (!isfinite(f) || f == 0.0f)
        return;
    double a = fabs((double)f);
    if (c->count == 0 || a < c->min_abs)
        c->min_abs = a;
    if (c->count == 0 || a > c->max_abs)
        c->max_abs = a;
    if (f != ceilf(f))
        c->int_mode = 0;
    c->count++;
}

/* Pass 2: the widest nonzero finite value, formatted the way the chosen mode will format it. */
static void width_value(void *vctx, const attn_tensor *t, int64_t at)
{
    formatter *fm = vctx;
    float f = t->storage->data[at];
    char buf[NUMBUF];
    int len;
    if (!isfinite(f) || f == 0.0f)
        return;
    if (fm->sci_mode)
        len = fmt_double(buf, f, 'e', g_opts.precision);
    else if (fm->int_mode)
        len = fmt_double(buf, f, 'f', 0) + 1; /* room for the "." int mode appends */
    else
        len = fmt_double(buf, f, 'f', g_opts.precision);
    if (len > fm->max_width)
        fm->max_width = len;
}

/* The int64 formatter's width: len('{}'.format(value)) of the widest value it sees. */
static void width_int64(void *vctx, const attn_tensor *t, int64_t at)
{
    formatter *fm = vctx;
    char buf[NUMBUF];
    int len = snprintf(buf, sizeof buf, "%lld", (long long)t->storage->i64[at]);
    if (len > fm->max_width)
        fm->max_width = len;
}

static void formatter_init(formatter *fm, const attn_tensor *t, int summarize)
{
    scan_ctx sc = {0, 0.0, 0.0, 1, 1};
    fm->is_bool = t->dtype == ATTN_BOOL;
    fm->is_int64 = t->dtype == ATTN_INT64;
    fm->int_mode = 1;
    fm->sci_mode = 0;
    fm->max_width = 1;
    if (fm->is_int64) {
        visit_elements(t, 0, t->offset, summarize, width_int64, fm);
        return;
    }
    visit_elements(t, 0, t->offset, summarize, scan_value, &sc);
    if (fm->is_bool) {
        fm->max_width = sc.bool_width;
        return;
    }
    /* No nonzero finite value: PyTorch returns early, before even the sci_mode option applies. */
    if (sc.count == 0)
        return;
    fm->int_mode = sc.int_mode;
    /* The ratio is taken in double, as tensor_totype does; int mode skips the small-value test. */
    double ratio = sc.max_abs / sc.min_abs;
    fm->sci_mode = ratio > 1000.0 || sc.max_abs > 1.0e8 || (!sc.int_mode && sc.min_abs < 1.0e-4);
    visit_elements(t, 0, t->offset, summarize, width_value, fm);
    /* The width stays the one measured in the automatic mode, as in PyTorch. */
    if (g_opts.sci_mode >= 0)
        fm->sci_mode = g_opts.sci_mode;
}

/* _Formatter.format: the element at storage offset at, padded on the left to max_width. */
static void format_value(sbuf *b, const formatter *fm, const attn_tensor *t, int64_t at)
{
    char buf[NUMBUF];
    int len;
    float f = fm->is_int64 ? 0.0f : t->storage->data[at];
    double v = f;
    if (fm->is_int64) {
        len = snprintf(buf, sizeof buf, "%lld", (long long)t->storage->i64[at]);
    } else if (fm->is_bool) {
        len = snprintf(buf, sizeof buf, "%s", f != 0.0f ? "True" : "False");
    } else if (fm->sci_mode) {
        len = fmt_double(buf, v, 'e', g_opts.precision);
    } else if (fm->int_mode) {
        len = fmt_double(buf, v, 'f', 0);
        if (isfinite(v))
            buf[len++] = '.', buf[len] = '\0';
    } else {
        len = fmt_double(buf, v, 'f', g_opts.precision);
    }
    sb_repeat(b, ' ', fm->max_width - len);
    sb_putn(b, buf, (size_t)len);
}

/* ---- _tensor_str_with_formatter ------------------------------------------------------------- */

/* Starts element i of a line-wrapped list: ", " or, every per_line elements, a new line. */
static void put_separator(sbuf *b, int64_t i, int64_t per_line, int indent)
{
    if (i == 0)
        return;
    if (i % per_line == 0) {
        sb_puts(b, ",\n");
        sb_repeat(b, ' ', indent + 1);
    } else {
        sb_puts(b, ", ");
    }
}

/* _vector_str: the last dimension. " ..." counts as one element when the row is summarised. */
static void put_vector(sbuf *b, const attn_tensor *t, const formatter *fm, int64_t off, int indent, int summarize)
{
    int dim = t->ndim - 1;
    int64_t n = t->shape[dim], edge = g_opts.edgeitems;
    int cut = summarize && n > 2 * edge;
    /* floor((linewidth - indent) / (width + 2)), at least 1; a negative numerator gives 1 too. */
    int64_t per_line = (g_opts.linewidth - indent) / (fm->max_width + 2);
    int64_t k = 0; /* position in the printed list, counting " ..." */
    if (per_line < 1)
        per_line = 1;
    sb_puts(b, "[");
    for (int64_t i = 0; i < n && !attn_interrupt_requested; i++) { /* Ctrl-C: attn_format reports it */
        if (cut && i == edge) {
            put_separator(b, k++, per_line, indent);
            sb_puts(b, " ...");
            i = n - edge;
        }
        put_separator(b, k++, per_line, indent);
        format_value(b, fm, t, off + i * t->stride[dim]);
    }
    sb_puts(b, "]");
}

/* The separator between slices of dimension dim: "," + one newline per inner dimension + indent. */
static void put_slice_separator(sbuf *b, const attn_tensor *t, int dim, int indent)
{
    sb_puts(b, ",");
    sb_repeat(b, '\n', t->ndim - dim - 1);
    sb_repeat(b, ' ', indent + 1);
}

/* The outer dimensions; "..." stands in for the summarised middle slices. */
static void put_tensor(sbuf *b, const attn_tensor *t, const formatter *fm, int dim, int64_t off, int indent,
                       int summarize)
{
    if (t->ndim == 0) {
        format_value(b, fm, t, off);
        return;
    }
    if (dim == t->ndim - 1) {
        put_vector(b, t, fm, off, indent, summarize);
        return;
    }
    int64_t n = t->shape[dim], edge = g_opts.edgeitems;
    int cut = summarize && n > 2 * edge;
    sb_puts(b, "[");
    for (int64_t i = 0; i < n; i++) {
        if (i > 0)
            put_slice_separator(b, t, dim, indent);
        if (cut && i == edge) {
            sb_puts(b, "...");
            put_slice_separator(b, t, dim, indent);
            i = n - edge;
        }
        put_tensor(b, t, fm, dim + 1, off + i * t->stride[dim], indent + 1, summarize);
    }
    sb_puts(b, "]");
}

/* ---- _str_intern ---------------------------------------------------------------------------- */

/* _add_suffixes: ", suffix" on the same line while it fits in linewidth, else on a new line at the
 * prefix's indent. *last_len mirrors PyTorch's bookkeeping, including its "+ 1". */
static void add_suffix(sbuf *b, const char *suffix, int indent, int64_t *last_len)
{
    int64_t n = (int64_t)strlen(suffix);
    if (*last_len + n + 2 > g_opts.linewidth) {
        sb_puts(b, ",\n");
        sb_repeat(b, ' ', indent);
        *last_len = indent + n;
    } else {
        sb_puts(b, ", ");
        *last_len += n + 2;
    }
    sb_puts(b, suffix);
}

/* PyTorch's last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1, for what b holds so far
 * (rfind gives -1 when there is no newline, hence the + 2 of a one-line text). */
static int64_t last_line_len(const sbuf *b)
{
    for (size_t i = b->len; i > 0; i--)
        if (b->s[i - 1] == '\n')
            return (int64_t)(b->len - (i - 1)) + 1;
    return (int64_t)b->len + 2;
}

/* An empty tensor: "tensor([]", plus size=(...) unless it is 1-d and the dtype unless float32, then
 * the caller's suffix; the closing ")" is the caller's. */
static void put_empty(sbuf *b, const attn_tensor *t, int indent, const char *extra)
{
    sb_puts(b, "tensor([]");
    int64_t last_len = last_line_len(b);
    if (t->ndim != 1) {
        char size[32 + 24 * ATTN_MAX_DIMS];
        size_t pos = (size_t)snprintf(size, sizeof size, "size=(");
        for (int d = 0; d < t->ndim; d++)
            pos += (size_t)snprintf(size + pos, sizeof size - pos, d ? ", %lld" : "%lld", (long long)t->shape[d]);
        snprintf(size + pos, sizeof size - pos, ")"); /* never 1-d here, so no "(0,)" */
        add_suffix(b, size, indent, &last_len);
    }
    if (t->dtype != ATTN_FLOAT32) /* "In an empty tensor, there are no elements to infer if the dtype should be int64" */
        add_suffix(b, t->dtype == ATTN_BOOL ? "dtype=torch.bool" : "dtype=torch.int64", indent, &last_len);
    if (extra)
        add_suffix(b, extra, indent, &last_len);
}

/* Rejects a header whose elements would fall outside its storage, so a bad view cannot crash.
 * The reach is computed in double so that absurd sizes or strides cannot overflow. */
static const char *check_tensor(const attn_tensor *t, int64_t *numel)
{
    double lo = (double)t->offset, hi = (double)t->offset;
    *numel = 1;
    if (t->ndim < 0 || t->ndim > ATTN_MAX_DIMS)
        return "print: tensor has an invalid number of dimensions";
    for (int d = 0; d < t->ndim; d++) {
        if (t->shape[d] < 0)
            return "print: tensor has a negative size";
        if (t->shape[d] > 0 && *numel > INT64_MAX / t->shape[d])
            return "print: tensor is too large";
        *numel *= t->shape[d];
    }
    if (*numel == 0)
        return NULL;
    for (int d = 0; d < t->ndim; d++) {
        double span = (double)(t->shape[d] - 1) * (double)t->stride[d];
        if (span < 0)
            lo += span;
        else
            hi += span;
    }
    if (!t->storage || !(t->dtype == ATTN_INT64 ? (void *)t->storage->i64 : (void *)t->storage->data) || lo < 0 ||
        hi >= (double)t->storage->numel)
        return "print: tensor view lies outside its storage";
    return NULL;
}

char *attn_format(const attn_tensor *t, attn_error *err)
{
    return attn_format_suffix(t, NULL, err);
}

char *attn_format_suffix(const attn_tensor *t, const char *extra, attn_error *err)
{
    const int indent = 7; /* len("tensor(") */
    sbuf b = {NULL, 0, 0, 0};
    int64_t numel;
    const char *bad;
    if (!t)
        return format_fail(err, "print: no tensor");
    if ((bad = check_tensor(t, &numel)))
        return format_fail(err, bad);
    if (numel == 0) {
        put_empty(&b, t, indent, extra);
        sb_puts(&b, ")");
    } else {
        int summarize = numel > g_opts.threshold;
        formatter fm;
        formatter_init(&fm, t, summarize);
        sb_puts(&b, "tensor(");
        put_tensor(&b, t, &fm, 0, t->offset, indent, summarize);
        if (extra) {
            int64_t last_len = last_line_len(&b);
            add_suffix(&b, extra, indent, &last_len);
        }
        sb_puts(&b, ")");
    }
    if (attn_interrupt_requested) { /* a tensor printed in full can be long (threshold up to 1e9) */
        free(b.s);
        return format_fail(err, "interrupted");
    }
    if (b.oom) {
        free(b.s);
        return format_fail(err, "print: out of memory");
    }
    return b.s;
}

char *attn_format_size(int ndim, const int64_t *shape, attn_error *err)
{
    sbuf b = {NULL, 0, 0, 0};
    char num[24];
    if (ndim < 0 || ndim > ATTN_MAX_DIMS || (ndim > 0 && !shape))
        return format_fail(err, "print: invalid shape");
    sb_puts(&b, "torch.Size([");
    for (int d = 0; d < ndim; d++) {
        snprintf(num, sizeof num, d ? ", %lld" : "%lld", (long long)shape[d]);
        sb_puts(&b, num);
    }
    sb_puts(&b, "])");
    if (b.oom) {
        free(b.s);
        return format_fail(err, "print: out of memory");
    }
    return b.s;
}
