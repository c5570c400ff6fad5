/* tensor.h — the attn tensor core: float32 N-d tensors with shape, strides and offset.
 *
 * Plain C11. No Lua header here or in any src/core file, and nothing in the core aborts, exits or
 * prints: every function that can fail takes an attn_error* and returns NULL (or -1) with a message
 * worded for the user, e.g. "matmul: cannot multiply [6, 3] by [2, 3] (3 ≠ 2)".
 *
 * Dimensions are 0-based here; the Lua bindings translate the user's 1-based dims and negative dims.
 * Element (i0, i1, ...) of t lives at t->storage->data[t->offset + i0*t->stride[0] + i1*t->stride[1] + ...].
 * Views (transpose, select, narrow, view, ...) share storage; the storage is freed when its last
 * tensor is freed. */
#ifndef ATTN_TENSOR_H
#define ATTN_TENSOR_H

#include <stddef.h>
#include <stdint.h>
#include <signal.h>

#define ATTN_MAX_DIMS 8

typedef struct attn_error {
    char msg[512];
} attn_error;

/* Sets err->msg (printf-style) and returns NULL, so a failing path can `return attn_fail(err, ...)`. */
void *attn_fail(attn_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

typedef enum attn_dtype {
    ATTN_FLOAT32 = 0, /* the one numeric dtype */
    ATTN_BOOL = 1     /* masks: stored as 0.0f / 1.0f floats, printed True/False */
} attn_dtype;

typedef struct attn_storage {
    float *data;
    int64_t numel;
    long refcount;
} attn_storage;

typedef struct attn_tensor {
    attn_storage *storage;
    int64_t offset;
    int ndim; /* 0 .. ATTN_MAX_DIMS; 0 is a scalar (one element) */
    int64_t shape[ATTN_MAX_DIMS];
    int64_t stride[ATTN_MAX_DIMS];
    attn_dtype dtype;
} attn_tensor;

/* ---- memory -------------------------------------------------------------------------------- */
/* Storage memory goes through one allocator with the signature of Lua's allocator (ptr == NULL: allocate
 * nsize bytes; nsize == 0: free ptr). The Lua bindings install the Lua state's allocator so the
 * memory is Lua's; the default is malloc/free. */
typedef void *(*attn_alloc_fn)(void *ud, void *ptr, size_t osize, size_t nsize);
void attn_set_allocator(attn_alloc_fn fn, void *ud);
int64_t attn_live_bytes(void);     /* bytes of tensor storage currently allocated */
int64_t attn_take_new_bytes(void); /* bytes allocated since the last call (for GC accounting) */

/* Set from a signal handler (Ctrl-C); long-running core loops check it and fail with "interrupted".
 * The caller clears it. */
extern volatile sig_atomic_t attn_interrupt_requested;

/* ---- creation and lifetime ----------------------------------------------------------------- */
/* fn names the user-facing function for error messages ("zeros", "rand", ...). Sizes must be
 * non-negative and the total must fit in this machine's memory. */
attn_tensor *attn_empty(const char *fn, int ndim, const int64_t *shape, attn_dtype dtype, attn_error *err);
attn_tensor *attn_full(const char *fn, int ndim, const int64_t *shape, float value, attn_error *err);
attn_tensor *attn_scalar(float value, attn_error *err); /* 0-d tensor */
attn_tensor *attn_arange(double start, double end, double step, attn_error *err);
attn_tensor *attn_eye(int64_t n, int64_t m, attn_error *err);
void attn_free(attn_tensor *t); /* NULL is fine */

/* ---- inspection ---------------------------------------------------------------------------- */
int64_t attn_numel(const attn_tensor *t);
int attn_is_contiguous(const attn_tensor *t);
float *attn_ptr(const attn_tensor *t, const int64_t *index); /* address of element index[0..ndim) */
float attn_get_flat(const attn_tensor *t, int64_t i);       /* i-th element in row-major order */
/* Writes "[6, 3]" into buf (always NUL-terminated); returns buf. */
char *attn_shape_str(const attn_tensor *t, char *buf, size_t size);
/* Copies all elements in row-major order into out (numel floats). */
void attn_copy_out(const attn_tensor *t, float *out);

/* ---- views (share storage; no copy) -------------------------------------------------------- */
attn_tensor *attn_alias(const attn_tensor *t, attn_error *err); /* a new header on the same data */
attn_tensor *attn_transpose(const attn_tensor *t, int d0, int d1, attn_error *err);
attn_tensor *attn_permute(const attn_tensor *t, const int *dims, attn_error *err);
attn_tensor *attn_select(const attn_tensor *t, int dim, int64_t index, attn_error *err);
attn_tensor *attn_narrow(const attn_tensor *t, int dim, int64_t start, int64_t length, attn_error *err);
attn_tensor *attn_unsqueeze(const attn_tensor *t, int dim, attn_error *err);
attn_tensor *attn_squeeze(const attn_tensor *t, int dim /* -1: all size-1 dims */, attn_error *err);
attn_tensor *attn_expand(const attn_tensor *t, int ndim, const int64_t *shape, attn_error *err);
/* view: shape may hold one -1 (inferred). Fails when the strides do not allow a view. */
attn_tensor *attn_view(const char *fn, const attn_tensor *t, int ndim, const int64_t *shape, attn_error *err);
/* reshape: a view when possible, otherwise a contiguous copy. */
attn_tensor *attn_reshape(const char *fn, const attn_tensor *t, int ndim, const int64_t *shape, attn_error *err);

/* ---- copies -------------------------------------------------------------------------------- */
attn_tensor *attn_contiguous(const attn_tensor *t, attn_error *err); /* alias if already contiguous */
attn_tensor *attn_clone(const attn_tensor *t, attn_error *err);
attn_tensor *attn_to_dtype(const attn_tensor *t, attn_dtype dtype, attn_error *err); /* bool: x != 0 */
int attn_copy_(attn_tensor *dst, const attn_tensor *src, attn_error *err); /* src broadcast to dst */
void attn_fill_(attn_tensor *t, float value);
attn_tensor *attn_stack(const char *fn, attn_tensor *const *ts, int n, int dim, attn_error *err);
attn_tensor *attn_cat(const char *fn, attn_tensor *const *ts, int n, int dim, attn_error *err);

#endif
