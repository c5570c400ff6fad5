/* binary_loops.c — see binary_loops.h. The four arithmetic operations of attention's stages (scaling
 * the scores, adding a bias, residual sums) get a loop of their own for each way the operands lie in
 * memory (both contiguous, or one a broadcast number): plain loops that gcc turns into vector
 * instructions, with the same IEEE operation per element, so the same bits. Everything else goes
 * through one switch per element. */
#include "binary_loops.h"

#include <math.h>

static float apply_binary(attn_binop op, float x, float y)
{
    switch (op) {
    case ATTN_ADD: return x + y;
    case ATTN_SUB: return x - y;
    case ATTN_MUL: return x * y;
    case ATTN_DIV: return x / y;
    case ATTN_POW: return powf(x, y);
    case ATTN_MAXIMUM: return (isnan(x) || x > y) ? x : y;
    case ATTN_MINIMUM: return (isnan(x) || x < y) ? x : y;
    case ATTN_EQ: return x == y;
    case ATTN_NE: return x != y;
    case ATTN_LT: return x < y;
    case ATTN_LE: return x <= y;
    case ATTN_GT: return x > y;
    case ATTN_GE: return x >= y;
    case ATTN_LOGICAL_AND: return x != 0 && y != 0;
    case ATTN_LOGICAL_OR: return x != 0 || y != 0;
    }
    return 0;
}

/* x ** y for int64: by squaring, wrapping on overflow. A negative exponent gives what PyTorch's integer
 * pow gives (1 for base 1, +-1 for base -1, else 0); pow with a negative scalar exponent is refused
 * before this (attn_pow_scalar). */
static int64_t pow_i64(int64_t x, int64_t y)
{
    if (y < 0)
        return x == 1 ? 1 : x == -1 ? ((y & 1) ? -1 : 1) : 0;
    uint64_t result = 1, base = (uint64_t)x;
    for (uint64_t e = (uint64_t)y; e; e >>= 1) {
        if (e & 1)
            result *= base;
        base *= base;
    }
    return (int64_t)result;
}

static int64_t apply_binary_i64(attn_binop op, int64_t x, int64_t y)
{
    uint64_t ux = (uint64_t)x, uy = (uint64_t)y; /* unsigned: overflow wraps around, as in PyTorch */
    switch (op) {
    case ATTN_ADD: return (int64_t)(ux + uy);
    case ATTN_SUB: return (int64_t)(ux - uy);
    case ATTN_MUL: return (int64_t)(ux * uy);
    case ATTN_POW: return pow_i64(x, y);
    case ATTN_MAXIMUM: return x > y ? x : y;
    case ATTN_MINIMUM: return x < y ? x : y;
    case ATTN_EQ: return x == y;
    case ATTN_NE: return x != y;
    case ATTN_LT: return x < y;
    case ATTN_LE: return x <= y;
    case ATTN_GT: return x > y;
    case ATTN_GE: return x >= y;
    case ATTN_DIV: case ATTN_LOGICAL_AND: case ATTN_LOGICAL_OR: break; /* computed in float */
    }
    return 0;
}

/* One flat loop per operand layout: both contiguous, a broadcast number on the right or on the left. */
#define ARITH_LOOPS(EXPR)                                                                                     \
    do {                                                                                                      \
        if (sa == 1 && sb == 1) {                                                                             \
            for (int64_t i = 0; i < n; i++) {                                                                 \
                float x = a[i], y = b[i];                                                                     \
                o[i] = EXPR;                                                                                  \
            }                                                                                                 \
        } else if (sa == 1 && sb == 0) {                                                                      \
            const float y = b[0];                                                                             \
            for (int64_t i = 0; i < n; i++) {                                                                 \
                float x = a[i];                                                                               \
                o[i] = EXPR;                                                                                  \
            }                                                                                                 \
        } else if (sa == 0 && sb == 1) {                                                                      \
            const float x = a[0];                                                                             \
            for (int64_t i = 0; i < n; i++) {                                                                 \
                float y = b[i];                                                                               \
                o[i] = EXPR;                                                                                  \
            }                                                                                                 \
        } else {                                                                                              \
            for (int64_t i = 0; i < n; i++) {                                                                 \
                float x = a[i * sa], y = b[i * sb];                                                           \
                o[i] = EXPR;                                                                                  \
            }                                                                                                 \
        }                                                                                                     \
    } while (0)

void attn_binary_loop_f32(attn_binop op, const float *a, int64_t sa, const float *b, int64_t sb, float *o,
                          int64_t so, int64_t n)
{
    if (so == 1) {
        switch (op) {
        case ATTN_ADD: ARITH_LOOPS(x + y); return;
        case ATTN_SUB: ARITH_LOOPS(x - y); return;
        case ATTN_MUL: ARITH_LOOPS(x * y); return;
        case ATTN_DIV: ARITH_LOOPS(x / y); return;
        default: break;
        }
    }
    for (int64_t i = 0; i < n; i++)
        o[i * so] = apply_binary(op, a[i * sa], b[i * sb]);
}

void attn_binary_loop_i64(attn_binop op, const int64_t *a, int64_t sa, const int64_t *b, int64_t sb, int64_t *o,
                          int64_t so, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        o[i * so] = apply_binary_i64(op, a[i * sa], b[i * sb]);
}

void attn_binary_loop_i64_f32(attn_binop op, const int64_t *a, int64_t sa, const int64_t *b, int64_t sb,
                              float *o, int64_t so, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        o[i * so] = (float)apply_binary_i64(op, a[i * sa], b[i * sb]);
}
