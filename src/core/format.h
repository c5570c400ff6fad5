/* format.h — PyTorch's tensor print format, character for character (torch/_tensor_str.py).
 * The rules, in short, are in NOTES.md ("The printed text"). The autograd suffix (grad_fn=<...>,
 * requires_grad=True) is the caller's: the core knows no autograd, it only places the text. */
#ifndef ATTN_FORMAT_H
#define ATTN_FORMAT_H

#include "tensor.h"

typedef struct attn_print_options {
    int precision;     /* digits after the point; PyTorch default 4 */
    int64_t threshold; /* summarise when numel > threshold; default 1000 */
    int edgeitems;     /* items kept at each end when summarising; default 3 */
    int linewidth;     /* default 80 */
    int sci_mode;      /* -1: decide automatically (default); 0: never; 1: always */
} attn_print_options;

attn_print_options attn_get_print_options(void);
void attn_set_print_options(attn_print_options opts); /* values are clamped to sane ranges */

/* "tensor([0.9544, 1.4950])" — returns a malloc'd NUL-terminated string, or NULL with err set. */
char *attn_format(const attn_tensor *t, attn_error *err);
/* The same with one more suffix after the tensor's own, e.g. "grad_fn=<MmBackward0>", placed as
 * _add_suffixes places it (same line while it fits in linewidth, else a new line at the indent).
 * suffix may be NULL (then it is attn_format). */
char *attn_format_suffix(const attn_tensor *t, const char *suffix, attn_error *err);
/* "torch.Size([2, 6, 3])" for t's shape — malloc'd, or NULL with err set. */
char *attn_format_size(int ndim, const int64_t *shape, attn_error *err);

#endif
