/* safetensors.h — reading and writing the safetensors format (weights as data, never code):
 *   8 bytes   N, the header's length, unsigned little-endian
 *   N bytes   a JSON object: for each tensor name {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]}
 *             (offsets into the data that follows), and optionally "__metadata__": {string: string}
 *   the rest  the tensors' bytes, little-endian, row-major, every byte belonging to exactly one tensor.
 * Each tensor is read into memory of its own (never mapped: safetensors.c's read_tensor says why); F32
 * and I64 as they are, the other dtypes converted (F64, F16, BF16 to float32; I32, I16, I8, U8 to
 * int64; BOOL to attn's bool). Every check
 * of the format fails with a message that names the file and what is wrong with it. */
#ifndef ATTN_SAFETENSORS_H
#define ATTN_SAFETENSORS_H

#include "tensor.h"

typedef struct attn_st_entry {
    char *name;
    attn_tensor *tensor; /* the caller may take it (and set this to NULL) */
} attn_st_entry;

typedef struct attn_st_file {
    int count;               /* tensors, in the order of their data in the file */
    attn_st_entry *entries;
    int meta_count;          /* "__metadata__" pairs */
    char **meta_keys, **meta_values;
} attn_st_file;

/* fn names the function the user called ("safetensors.load_file"). */
attn_st_file *attn_st_load(const char *fn, const char *path, attn_error *err);
void attn_st_free(attn_st_file *f); /* frees what it still holds */

/* Writes n tensors (float32 as F32, int64 as I64, bool as BOOL) under their names, in the order given,
 * and the metadata pairs, through safe_write.h (a new file renamed over path when complete). 0 on success, -1 on error. */
int attn_st_save(const char *fn, const char *path, int n, const char *const *names, attn_tensor *const *tensors,
                 int meta_count, const char *const *meta_keys, const char *const *meta_values, attn_error *err);

/* Fills t (made with the dtype and shape of the entry) from its bytes at `at` in the file's dtype dt
 * ("F16", ...), size bytes each (safetensors_dtypes.c). `at` may be the end of t's own memory when the
 * file's dtype is no wider than t's: the conversion runs front to back, reading each element first. */
void attn_st_convert(const char *dt, size_t size, const unsigned char *at, attn_tensor *t);

/* 1 when the n bytes at s are valid UTF-8 (what the format requires of names). */
int attn_utf8_valid(const char *s, size_t n);

#endif
