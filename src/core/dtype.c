/* dtype.c — what attn knows about its three dtypes (float32, int64, bool; see tensor.h for how each is
 * stored): names, sizes, PyTorch's promotion between them, the float -> int64 cast, numbers as the user
 * wrote them (attn_number), and the tensors made from int64 values. */
#include "tensor.h"

#include <math.h>

attn_number attn_int(int64_t v)
{
    return (attn_number){ATTN_INT64, v, 0.0};
}

attn_number attn_float(double v)
{
    return (attn_number){ATTN_FLOAT32, 0, v};
}

attn_number attn_bool(int v)
{
    return (attn_number){ATTN_BOOL, v != 0, 0.0};
}

const char *attn_dtype_name(attn_dtype dtype)
{
    switch (dtype) {
    case ATTN_FLOAT32: return "torch.float32";
    case ATTN_BOOL: return "torch.bool";
    case ATTN_INT64: return "torch.int64";
    }
    return "torch.float32";
}

size_t attn_dtype_size(attn_dtype dtype)
{
    return dtype == ATTN_INT64 ? sizeof(int64_t) : sizeof(float);
}

/* PyTorch's result_type sorts its operands into tensors with dims, 0-d tensors and Python scalars, and
 * lets a lower group decide only when it is of a higher category (bool < integer < floating point); a
 * Python float then counts as the default dtype, float32. With one dtype per category, every case comes
 * down to the higher category: int64 tensor + 2.5 is float32, bool tensor + 1 is int64. */
static int category(attn_dtype d)
{
    return d == ATTN_BOOL ? 0 : d == ATTN_INT64 ? 1 : 2;
}

attn_dtype attn_promote(attn_dtype a, attn_dtype b)
{
    return category(a) >= category(b) ? a : b;
}

int64_t attn_f64_to_i64(double v)
{
    if (!(v >= -0x1p63 && v < 0x1p63))
        return INT64_MIN;
    return (int64_t)v;
}

int attn_check_float(const char *fn, const char *what, const attn_tensor *t, attn_error *err)
{
    if (t->dtype != ATTN_INT64)
        return 0;
    attn_fail(err, "%s: %s must be a floating-point tensor, got torch.int64 (convert it with :float())", fn, what);
    return -1;
}

attn_tensor *attn_scalar_number(attn_number v, attn_error *err)
{
    return attn_full_number("tensor", 0, NULL, v, err);
}

attn_tensor *attn_full_number(const char *fn, int ndim, const int64_t *shape, attn_number v, attn_error *err)
{
    attn_tensor *t = attn_empty(fn, ndim, shape, v.dtype, err);
    if (t && attn_fill_number_(fn, t, v, err)) {
        attn_free(t);
        return NULL;
    }
    return t;
}

/* torch.arange with integer arguments: int64 values start, start + step, ... below end (above, for a
 * negative step). The count is ceil((end - start) / step), computed without overflow. */
attn_tensor *attn_arange_i64(int64_t start, int64_t end, int64_t step, attn_error *err)
{
    if (step == 0)
        return attn_fail(err, "arange: step must be nonzero, got 0");
    if ((step > 0 && end < start) || (step < 0 && end > start))
        return attn_fail(err, "arange: upper bound and larger bound inconsistent with step sign "
                              "(start %lld, end %lld, step %lld)", (long long)start, (long long)end, (long long)step);
    uint64_t span = step > 0 ? (uint64_t)end - (uint64_t)start : (uint64_t)start - (uint64_t)end;
    uint64_t stride = step > 0 ? (uint64_t)step : 0 - (uint64_t)step;
    uint64_t count = span / stride + (span % stride != 0);
    int64_t n = count > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)count;
    attn_tensor *t = attn_empty("arange", 1, &n, ATTN_INT64, err);
    if (!t)
        return NULL;
    uint64_t v = (uint64_t)start;
    for (int64_t i = 0; i < n; i++, v += (uint64_t)step) {
        if (attn_poll(i)) {
            attn_free(t);
            return attn_interrupted(err);
        }
        t->storage->i64[i] = (int64_t)v;
    }
    return t;
}
