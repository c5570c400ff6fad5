/* tensor.h — the attn tensor core: N-d tensors (float32, int64, bool) with shape, strides and offset.
 *
 * Plain C11. No Lua header here or in any src/core file, and nothing in the core aborts, exits or
 * prints: every function that can fail takes an attn_error* and returns NULL (or -1) with a message
 * worded for the user, e.g. "matmul: cannot multiply [6, 3] by [2, 3] (3 ≠ 2)".
 *
 * Dimensions are 0-based here; the Lua bindings translate the user's 1-based dims and negative dims.
 * Element (i0, i1, ...) of t lives at t->storage->data[t->offset + i0*t->stride[0] + i1*t->stride[1] + ...].
 * Views (transpose, select, narrow, view, ...) share storage; the storage is freed when its last
 * tensor is freed.
 *
 * Dtypes, and how they are stored. attn has PyTorch's three dtypes of the books: float32 (the default),
 * int64 (token ids, indices, integer literals) and bool (masks). A storage holds one array, of one of
 * two C types, and says which by which pointer is set:
 *   data  float[numel]    float32 tensors, and bool tensors as 0.0f / 1.0f (masks feed float code paths
 *                         such as masked_fill and where, and printing tells them apart by the dtype)
 *   i64   int64_t[numel]  int64 tensors, exactly: no int64 value ever passes through a float or a double
 *                         (2^53 + 1 survives creation, arithmetic, indexing and printing).
 * The other pointer is NULL. Code that works on numbers checks the dtype and has one explicit function
 * (or loop) per storage type where the two differ; there are no generic-type macros. Mixed operations
 * promote as PyTorch does: bool < int64 < float32 (attn_promote); functions that PyTorch defines for
 * floating-point tensors only (softmax, mean, layer_norm, the attention stages) refuse int64 by name. */
#ifndef ATTN_TENSOR_H
#define ATTN_TENSOR_H

#include <stddef.h>
#include <stdint.h>
#include <signal.h>

#define ATTN_MAX_DIMS 8

typedef struct attn_error {
    char msg[512];
} attn_error;

/* Sets err->msg (printf-style) and returns NULL, so a failing path can `return attn_fail(err, ...)`.
 * The format is translated first (attn_tr), so fmt must be a string literal: scripts/po.sh extracts
 * every attn_fail format into the catalog src/po/<lang>/lib/core.po, and tests/i18n/test_error_formats.sh
 * fails on a format that is not a literal. */
void *attn_fail(attn_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The translation of error formats. The core knows no language: the bindings set a translator
 * (src/bind/i18n.c looks the format up in the current language's catalog) and attn_fail formats what
 * it returns, with the same arguments. The default, and a NULL translator, is the identity. A
 * translator returns a format with the same conversions in the same order (msgfmt --check sees to it). */
typedef const char *(*attn_translator)(const char *msgid);
void attn_set_translator(attn_translator f);
const char *attn_tr(const char *msgid) __attribute__((format_arg(1)));

typedef enum attn_dtype {
    ATTN_FLOAT32 = 0, /* PyTorch's default dtype: a Lua float makes one */
    ATTN_BOOL = 1,    /* masks: stored as 0.0f / 1.0f floats, printed True/False */
    ATTN_INT64 = 2    /* ids and indices: stored as int64_t; a Lua integer makes one */
} attn_dtype;

/* A file mapped into memory (safetensors.c): tensors loaded from it point into the mapping instead of
 * holding a copy, and the file is unmapped when the last of them is freed (mapping.c). */
typedef struct attn_mapping {
    void *addr;
    size_t length;
    long refcount;
} attn_mapping;

typedef struct attn_storage {
    float *data;  /* float32 and bool tensors; NULL for int64 */
    int64_t *i64; /* int64 tensors; NULL otherwise */
    int64_t numel;
    long refcount;
    attn_mapping *mapping; /* non-NULL: data or i64 points into this mapping, which owns the bytes */
    void *block;       /* what the allocator returned (data or i64 may start further in), or NULL: data/i64 */
    size_t block_size; /* its size in bytes */
    int64_t version;   /* bumped by every in-place write (autograd's version counter, as PyTorch's) */
} attn_storage;

/* A number as the user wrote it: a Lua integer stays an exact int64 (as a Python int makes an int64
 * tensor), a Lua float is a double (a Python float makes a float32 one), a boolean is a bool. */
typedef struct attn_number {
    attn_dtype dtype; /* ATTN_INT64, ATTN_FLOAT32 or ATTN_BOOL */
    int64_t i;        /* the value for ATTN_INT64, 0 or 1 for ATTN_BOOL */
    double f;         /* the value for ATTN_FLOAT32 */
} attn_number;

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
/* Gives the freed big blocks kept for reuse back to the allocator (storage.c says why they are kept):
 * called before the allocator changes or goes away (the bindings: when the state closes), and on
 * memory pressure. */
void attn_storage_flush_cache(void);
int64_t attn_live_bytes(void);     /* bytes of tensor storage currently allocated */
int64_t attn_take_new_bytes(void); /* bytes allocated since the last call (for GC accounting) */
/* Memory this process may still take (the tightest of MemAvailable, cgroup and ulimit -v: memlimit.h), or -1. */
double attn_available_bytes(void);
/* "381 MB": decimal units, three significant digits, for messages. */
void attn_human_bytes(double bytes, char *buf, size_t size);

/* mapping.c: a tensor whose elements are the bytes at `offset` of mapping m (which must be aligned for
 * dtype; float32 or int64), sharing it; m's refcount counts the storages that point into it. */
attn_tensor *attn_mapped(attn_mapping *m, size_t offset, attn_dtype dtype, int ndim, const int64_t *shape,
                         attn_error *err);
void attn_mapping_release(attn_mapping *m); /* unmaps when the last reference goes */

/* Set from a signal handler (Ctrl-C); long-running core loops check it and fail with "interrupted".
 * The caller clears it. A loop polls it every ATTN_POLL_EVERY elements (attn_poll(i) is true when the
 * i-th step should stop), so a Ctrl-C is seen within microseconds and the polling costs nothing
 * measurable; attn_interrupted(err) then sets the message and returns NULL. */
extern volatile sig_atomic_t attn_interrupt_requested;
#define ATTN_POLL_EVERY 4096
static inline int attn_poll(int64_t i)
{
    return (i & (ATTN_POLL_EVERY - 1)) == 0 && attn_interrupt_requested;
}
void *attn_interrupted(attn_error *err);

/* ---- creation and lifetime ----------------------------------------------------------------- */
/* fn names the user-facing function for error messages ("zeros", "rand", ...). Sizes must be
 * non-negative and the total must fit in this machine's memory. */
attn_tensor *attn_empty(const char *fn, int ndim, const int64_t *shape, attn_dtype dtype, attn_error *err);
attn_tensor *attn_full(const char *fn, int ndim, const int64_t *shape, float value, attn_error *err);
attn_tensor *attn_scalar(float value, attn_error *err); /* 0-d tensor */
attn_tensor *attn_arange(double start, double end, double step, attn_error *err);
attn_tensor *attn_eye(int64_t n, int64_t m, attn_error *err);
void attn_free(attn_tensor *t); /* NULL is fine */
/* dtype.c: int64 tensors, and tensors made from an attn_number (of the number's dtype) */
attn_tensor *attn_arange_i64(int64_t start, int64_t end, int64_t step, attn_error *err);
attn_tensor *attn_scalar_number(attn_number v, attn_error *err); /* 0-d, of v's dtype */
attn_tensor *attn_full_number(const char *fn, int ndim, const int64_t *shape, attn_number v, attn_error *err);

/* ---- dtypes (dtype.c) ------------------------------------------------------------------------ */
attn_number attn_int(int64_t v);
attn_number attn_float(double v);
attn_number attn_bool(int v);
const char *attn_dtype_name(attn_dtype dtype); /* "torch.int64" */
size_t attn_dtype_size(attn_dtype dtype);      /* bytes per element in storage */
/* The dtype of a result computed from both (PyTorch's type promotion, restricted to attn's dtypes:
 * a Python scalar, a 0-d tensor and a tensor with dims all promote alike here): bool < int64 < float32. */
attn_dtype attn_promote(attn_dtype a, attn_dtype b);
/* float -> int64 as PyTorch's CPU casts do (x86-64's cvttss2si): toward zero; NaN and values outside
 * int64's range give INT64_MIN. */
int64_t attn_f64_to_i64(double v);
/* Fails naming fn when t is int64: for the functions PyTorch defines only for floating-point tensors. */
int attn_check_float(const char *fn, const char *what, const attn_tensor *t, attn_error *err);

/* ---- inspection ---------------------------------------------------------------------------- */
int64_t attn_numel(const attn_tensor *t);
int attn_is_contiguous(const attn_tensor *t);
float *attn_ptr(const attn_tensor *t, const int64_t *index); /* address of element index[0..ndim) */
int64_t attn_offset_of(const attn_tensor *t, const int64_t *index); /* its storage offset */
int64_t attn_flat_offset(const attn_tensor *t, int64_t i);          /* storage offset of the i-th (row-major) */
/* The i-th element in row-major order, any dtype (an int64 one rounded to float, as t:float() does). */
float attn_get_flat(const attn_tensor *t, int64_t i);
double attn_get_flat_f64(const attn_tensor *t, int64_t i); /* the same, int64 exactly up to 2^53 */
int64_t attn_get_flat_i64(const attn_tensor *t, int64_t i); /* any dtype; a float converted by attn_f64_to_i64 */
/* Writes "[6, 3]" into buf (always NUL-terminated); returns buf. */
char *attn_shape_str(const attn_tensor *t, char *buf, size_t size);
/* Copies all elements in row-major order into out (numel floats; an int64 tensor's values converted).
 * -1 when interrupted (Ctrl-C). */
int attn_copy_out(const attn_tensor *t, float *out);
/* The same into numel int64s (a float32 or bool tensor's values converted by attn_f64_to_i64). */
int attn_copy_out_i64(const attn_tensor *t, int64_t *out);

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
/* A view of t (its dims permuted) whose row-major order is the order in which PyTorch's TensorIterator
 * walks t's memory: an operation that draws one random number per element of a non-contiguous tensor
 * (uniform_, normal_, bernoulli_) draws them in this order. For a contiguous t it is t's own order. */
attn_tensor *attn_memory_order(const attn_tensor *t, attn_error *err);
/* t with dim (0-based) moved to the end, the others in order: torch.movedim(t, dim, -1). A reduction
 * along dim reads the rows of its contiguous copy. */
attn_tensor *attn_dim_last(const attn_tensor *t, int dim, attn_error *err);

/* ---- copies -------------------------------------------------------------------------------- */
attn_tensor *attn_contiguous(const attn_tensor *t, attn_error *err); /* alias if already contiguous */
attn_tensor *attn_clone(const attn_tensor *t, attn_error *err);
attn_tensor *attn_to_dtype(const attn_tensor *t, attn_dtype dtype, attn_error *err); /* bool: x != 0 */
int attn_copy_(attn_tensor *dst, const attn_tensor *src, attn_error *err); /* src broadcast and cast to dst */
int attn_fill_(attn_tensor *t, float value, attn_error *err); /* -1 only when interrupted */
/* fill_ with a number as the user wrote it, cast to t's dtype: an int64 tensor takes a Lua integer exactly
 * and a finite float truncated (PyTorch refuses inf and NaN there: so does this, returning -1). */
int attn_fill_number_(const char *fn, attn_tensor *t, attn_number v, attn_error *err);
/* The result's dtype is the promotion of all the inputs' (stacking an int64 and a float32 tensor gives
 * float32), as torch.stack and torch.cat do. */
attn_tensor *attn_stack(const char *fn, attn_tensor *const *ts, int n, int dim, attn_error *err);
attn_tensor *attn_cat(const char *fn, attn_tensor *const *ts, int n, int dim, attn_error *err);

#endif
