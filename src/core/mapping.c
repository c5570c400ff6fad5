/* mapping.c — tensors whose elements live in a memory-mapped file (safetensors.c maps a weights file
 * once and each float32 or int64 tensor in it points at its bytes, so a 500 MB model is neither read
 * nor copied: pages come in from the page cache as the model touches them). The mapping is private
 * (copy-on-write): an in-place change to a loaded tensor never writes to the file. */
#include "tensor.h"

#include <stdlib.h>
#include <sys/mman.h>

attn_tensor *attn_mapped(attn_mapping *m, size_t offset, attn_dtype dtype, int ndim, const int64_t *shape,
                         attn_error *err)
{
    if (dtype != ATTN_FLOAT32 && dtype != ATTN_INT64)
        return attn_fail(err, "mapped: only float32 and int64 tensors can point into a file");
    attn_tensor *t = calloc(1, sizeof *t);
    attn_storage *s = calloc(1, sizeof *s);
    if (!t || !s) {
        free(t);
        free(s);
        return attn_fail(err, "out of memory");
    }
    int64_t numel = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        t->shape[d] = shape[d];
        t->stride[d] = numel;
        numel *= shape[d] > 0 ? shape[d] : 1;
    }
    for (int d = 0; d < ndim; d++)
        if (shape[d] == 0)
            numel = 0;
    char *at = (char *)m->addr + offset;
    if (dtype == ATTN_INT64)
        s->i64 = (int64_t *)(void *)at;
    else
        s->data = (float *)(void *)at;
    s->numel = numel;
    s->refcount = 1;
    s->version = 0;
    s->mapping = m;
    m->refcount++;
    t->storage = s;
    t->ndim = ndim;
    t->dtype = dtype;
    return t;
}

void attn_mapping_release(attn_mapping *m)
{
    if (!m || --m->refcount > 0)
        return;
    munmap(m->addr, m->length);
    free(m);
}
