/* storage.h — the tensor storage allocator, for the core's own files (tensor.c). Not part of the core's
 * public API (tensor.h): a tensor's storage is reached through the tensor. */
#ifndef ATTN_STORAGE_H
#define ATTN_STORAGE_H

#include "tensor.h"

/* A storage of numel elements of elem_size bytes, refcount 1. want is the element count as a double,
 * which may be beyond int64 for an absurd shape: the refusal then says how much was asked for. NULL with
 * err set ("<fn>: ... more than this machine can hold", "... out of memory"). */
attn_storage *attn_storage_new(const char *fn, int64_t numel, double want, size_t elem_size, attn_error *err);

/* Drops one reference; frees the storage with the last. NULL is allowed. */
void attn_storage_release(attn_storage *s);

#endif
