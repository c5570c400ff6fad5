/* test_format.c — attn_format reproduces PyTorch's printed text character for character.
 *
 * Expected strings come from three places: outputs PyTorch printed (src/core/NOTES.md lists them),
 * every printed tensor of the book's chapter 3 (the Chinese edition; tests/data/book/ch3_tensors.txt,
 * grad_fn suffixes dropped with PyTorch's layout otherwise unchanged), and edge cases worked out from
 * torch/_tensor_str.py.
 * Tensors are built here by hand (a header and a malloc'd storage), so this test needs format.c only. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"

/* ---- building tensors ----------------------------------------------------------------------- */

/* A contiguous tensor over a private copy of data (n floats; the storage may be larger than the
 * view when a test sets strides or an offset afterwards). */
static attn_tensor *make(int ndim, const int64_t *shape, const float *data, int64_t n, attn_dtype dtype)
{
    attn_tensor *t = calloc(1, sizeof *t);
    attn_storage *s = calloc(1, sizeof *s);
    assert_non_null(t);
    assert_non_null(s);
    s->data = malloc((size_t)(n > 0 ? n : 1) * sizeof(float));
    assert_non_null(s->data);
    if (n > 0)
        memcpy(s->data, data, (size_t)n * sizeof(float));
    s->numel = n;
    s->refcount = 1;
    t->storage = s;
    t->ndim = ndim;
    t->dtype = dtype;
    int64_t stride = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        t->shape[d] = shape[d];
        t->stride[d] = stride;
        stride *= shape[d];
    }
    return t;
}

static attn_tensor *make1(const float *data, int64_t n)
{
    int64_t shape[1] = {n};
    return make(1, shape, data, n, ATTN_FLOAT32);
}

static void drop(attn_tensor *t)
{
    free(t->storage->data);
    free(t->storage);
    free(t);
}

/* Formats t, compares with expected, and frees t. */
static void expect_str(attn_tensor *t, const char *expected)
{
    attn_error err = {{0}};
    char *s = attn_format(t, &err);
    if (!s)
        fail_msg("attn_format failed: %s", err.msg);
    assert_string_equal(s, expected);
    free(s);
    drop(t);
}

static void expect_size(int ndim, const int64_t *shape, const char *expected)
{
    attn_error err = {{0}};
    char *s = attn_format_size(ndim, shape, &err);
    assert_non_null(s);
    assert_string_equal(s, expected);
    free(s);
}

/* The values PyTorch printed, read back from its text in order: numbers, inf, nan, True/False.
 * Returns how many were found. Words such as "tensor" are skipped. */
static int64_t parse_values(const char *text, float *out, int64_t max)
{
    int64_t n = 0;
    const char *p = strchr(text, '(');
    for (p = p ? p + 1 : text; *p && n < max;) {
        char *end = NULL;
        if (strncmp(p, "True", 4) == 0) {
            out[n++] = 1.0f, p += 4;
        } else if (strncmp(p, "False", 5) == 0) {
            out[n++] = 0.0f, p += 5;
        } else if (strchr("-0123456789in", *p) && (out[n] = strtof(p, &end), end != p)) {
            n++, p = end;
        } else {
            p++;
        }
    }
    return n;
}

/* Reset the print options after every test, so one test's options never leak into the next. */
static int reset_options(void **state)
{
    (void)state;
    attn_print_options o = {4, 1000, 3, 80, -1};
    attn_set_print_options(o);
    return 0;
}

static void set_options(int precision, int64_t threshold, int edgeitems, int linewidth, int sci_mode)
{
    attn_print_options o = {precision, threshold, edgeitems, linewidth, sci_mode};
    attn_set_print_options(o);
}

/* ---- outputs PyTorch printed (src/core/NOTES.md, "The printed text") ------------------------ */

static void test_ref_vector_int(void **state)
{
    (void)state;
    const float v[] = {1.0f, 2.0f, 3.0f};
    expect_str(make1(v, 3), "tensor([1., 2., 3.])");
}

static void test_ref_matrix_int(void **state)
{
    (void)state;
    const float v[] = {1.0f, -2.0f, 3.0f, 4.0f};
    const int64_t shape[] = {2, 2};
    expect_str(make(2, shape, v, 4, ATTN_FLOAT32), "tensor([[ 1., -2.],\n"
                                                   "        [ 3.,  4.]])");
}

static void test_ref_scalar(void **state)
{
    (void)state;
    const float v[] = {3.5f};
    expect_str(make(0, NULL, v, 1, ATTN_FLOAT32), "tensor(3.5000)");
}

static void test_ref_zeros(void **state)
{
    (void)state;
    const float v[] = {0.0f, 0.0f};
    expect_str(make1(v, 2), "tensor([0., 0.])");
}

static void test_ref_sci_small(void **state)
{
    (void)state;
    const float v[] = {1e-5f, 1.0f};
    expect_str(make1(v, 2), "tensor([1.0000e-05, 1.0000e+00])");
}

static void test_ref_sci_large(void **state)
{
    (void)state;
    const float v[] = {123456789.0f, 1.5f};
    expect_str(make1(v, 2), "tensor([1.2346e+08, 1.5000e+00])");
}

static void test_ref_nan_inf(void **state)
{
    (void)state;
    const float v[] = {1.0f, NAN, -INFINITY};
    expect_str(make1(v, 3), "tensor([1., nan, -inf])");
}

static void test_ref_arange30_div7(void **state)
{
    (void)state;
    float v[30];
    for (int i = 0; i < 30; i++)
        v[i] = (float)i / 7.0f;
    expect_str(make1(v, 30), "tensor([0.0000, 0.1429, 0.2857, 0.4286, 0.5714, 0.7143, 0.8571, 1.0000, 1.1429,\n"
                             "        1.2857, 1.4286, 1.5714, 1.7143, 1.8571, 2.0000, 2.1429, 2.2857, 2.4286,\n"
                             "        2.5714, 2.7143, 2.8571, 3.0000, 3.1429, 3.2857, 3.4286, 3.5714, 3.7143,\n"
                             "        3.8571, 4.0000, 4.1429])");
}

static void test_ref_arange2000(void **state)
{
    (void)state;
    static float v[2000];
    for (int i = 0; i < 2000; i++)
        v[i] = (float)i;
    expect_str(make1(v, 2000), "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n"
                               "        1.9990e+03])");
}

static void test_ref_int_widths(void **state)
{
    (void)state;
    const float v[] = {-1.0f, 10.0f, 100.0f};
    expect_str(make1(v, 3), "tensor([ -1.,  10., 100.])");
}

static void test_ref_bool(void **state)
{
    (void)state;
    const float v[] = {1.0f, 0.0f};
    const int64_t shape[] = {1, 2};
    expect_str(make(2, shape, v, 2, ATTN_BOOL), "tensor([[ True, False]])");
}

static void test_ref_size(void **state)
{
    (void)state;
    const int64_t shape[] = {2, 6, 3};
    expect_size(3, shape, "torch.Size([2, 6, 3])");
}

/* ---- the book's chapter 3 (tests/data/book/ch3_tensors.txt): the 32 distinct printed tensors -- */

typedef struct book_case {
    const char *cell; /* the notebook cell that printed it */
    int ndim;
    int64_t shape[4];
    const char *text;
    const float *data; /* NULL: the printed values themselves */
} book_case;

/* Sums PyTorch printed as 1.0000 rather than 1.: float32 sums a rounding step away from 1. */
static const float SUM_NOT_ONE[] = {0.99999994f};
static const float ROW_SUMS[] = {1.0f, 0.99999994f, 1.0f, 1.0000001f, 1.0f, 0.99999994f};

static const book_case BOOK[] = {
    {"In [3]", 1, {6},
     "tensor([0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865])", NULL},
    {"In [4]", 0, {0},
     "tensor(0.9544)", NULL},
    {"In [5]", 1, {6},
     "tensor([0.1455, 0.2278, 0.2249, 0.1285, 0.1077, 0.1656])", NULL},
    {"In [5] sum", 0, {0},
     "tensor(1.0000)", SUM_NOT_ONE},
    {"In [6]", 1, {6},
     "tensor([0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581])", NULL},
    {"In [6] sum", 0, {0},
     "tensor(1.)", NULL},
    {"In [8]", 1, {3},
     "tensor([0.4419, 0.6515, 0.5683])", NULL},
    {"In [9]", 2, {6, 6},
     "tensor([[0.9995, 0.9544, 0.9422, 0.4753, 0.4576, 0.6310],\n"
     "        [0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865],\n"
     "        [0.9422, 1.4754, 1.4570, 0.8296, 0.7154, 1.0605],\n"
     "        [0.4753, 0.8434, 0.8296, 0.4937, 0.3474, 0.6565],\n"
     "        [0.4576, 0.7070, 0.7154, 0.3474, 0.6654, 0.2935],\n"
     "        [0.6310, 1.0865, 1.0605, 0.6565, 0.2935, 0.9450]])", NULL},
    {"In [11]", 2, {6, 6},
     "tensor([[0.2098, 0.2006, 0.1981, 0.1242, 0.1220, 0.1452],\n"
     "        [0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581],\n"
     "        [0.1390, 0.2369, 0.2326, 0.1242, 0.1108, 0.1565],\n"
     "        [0.1435, 0.2074, 0.2046, 0.1462, 0.1263, 0.1720],\n"
     "        [0.1526, 0.1958, 0.1975, 0.1367, 0.1879, 0.1295],\n"
     "        [0.1385, 0.2184, 0.2128, 0.1420, 0.0988, 0.1896]])", NULL},
    {"In [57]", 1, {6},
     "tensor([1.0000, 1.0000, 1.0000, 1.0000, 1.0000, 1.0000])", ROW_SUMS},
    {"In [13]", 2, {6, 3},
     "tensor([[0.4421, 0.5931, 0.5790],\n"
     "        [0.4419, 0.6515, 0.5683],\n"
     "        [0.4431, 0.6496, 0.5671],\n"
     "        [0.4304, 0.6298, 0.5510],\n"
     "        [0.4671, 0.5910, 0.5266],\n"
     "        [0.4177, 0.6503, 0.5645]])", NULL},
    {"In [18]", 1, {2},
     "tensor([0.4306, 1.4551])", NULL},
    {"In [20]", 0, {0},
     "tensor(1.8524)", NULL},
    {"In [21]", 1, {6},
     "tensor([1.2705, 1.8524, 1.8111, 1.0795, 0.5577, 1.5440])", NULL},
    {"In [25]", 1, {6},
     "tensor([0.1500, 0.2264, 0.2199, 0.1311, 0.0906, 0.1820])", NULL},
    {"In [26]", 1, {2},
     "tensor([0.3061, 0.8210])", NULL},
    {"In [28]", 2, {6, 2},
     "tensor([[0.2996, 0.8053],\n"
     "        [0.3061, 0.8210],\n"
     "        [0.3058, 0.8203],\n"
     "        [0.2948, 0.7939],\n"
     "        [0.2927, 0.7891],\n"
     "        [0.2990, 0.8040]])", NULL},
    {"In [33]", 2, {6, 2},
     "tensor([[-0.0739,  0.0713],\n"
     "        [-0.0748,  0.0703],\n"
     "        [-0.0749,  0.0702],\n"
     "        [-0.0760,  0.0685],\n"
     "        [-0.0763,  0.0679],\n"
     "        [-0.0754,  0.0693]])", NULL},
    {"In [34]", 2, {6, 6},
     "tensor([[0.1921, 0.1646, 0.1652, 0.1550, 0.1721, 0.1510],\n"
     "        [0.2041, 0.1659, 0.1662, 0.1496, 0.1665, 0.1477],\n"
     "        [0.2036, 0.1659, 0.1662, 0.1498, 0.1664, 0.1480],\n"
     "        [0.1869, 0.1667, 0.1668, 0.1571, 0.1661, 0.1564],\n"
     "        [0.1830, 0.1669, 0.1670, 0.1588, 0.1658, 0.1585],\n"
     "        [0.1935, 0.1663, 0.1666, 0.1542, 0.1666, 0.1529]])", NULL},
    {"In [35]", 2, {6, 6},
     "tensor([[1., 0., 0., 0., 0., 0.],\n"
     "        [1., 1., 0., 0., 0., 0.],\n"
     "        [1., 1., 1., 0., 0., 0.],\n"
     "        [1., 1., 1., 1., 0., 0.],\n"
     "        [1., 1., 1., 1., 1., 0.],\n"
     "        [1., 1., 1., 1., 1., 1.]])", NULL},
    {"In [36]", 2, {6, 6},
     "tensor([[0.1921, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],\n"
     "        [0.2041, 0.1659, 0.0000, 0.0000, 0.0000, 0.0000],\n"
     "        [0.2036, 0.1659, 0.1662, 0.0000, 0.0000, 0.0000],\n"
     "        [0.1869, 0.1667, 0.1668, 0.1571, 0.0000, 0.0000],\n"
     "        [0.1830, 0.1669, 0.1670, 0.1588, 0.1658, 0.0000],\n"
     "        [0.1935, 0.1663, 0.1666, 0.1542, 0.1666, 0.1529]])", NULL},
    {"In [37]", 2, {6, 6},
     "tensor([[1.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],\n"
     "        [0.5517, 0.4483, 0.0000, 0.0000, 0.0000, 0.0000],\n"
     "        [0.3800, 0.3097, 0.3103, 0.0000, 0.0000, 0.0000],\n"
     "        [0.2758, 0.2460, 0.2462, 0.2319, 0.0000, 0.0000],\n"
     "        [0.2175, 0.1983, 0.1984, 0.1888, 0.1971, 0.0000],\n"
     "        [0.1935, 0.1663, 0.1666, 0.1542, 0.1666, 0.1529]])", NULL},
    {"In [38]", 2, {6, 6},
     "tensor([[0.2899,   -inf,   -inf,   -inf,   -inf,   -inf],\n"
     "        [0.4656, 0.1723,   -inf,   -inf,   -inf,   -inf],\n"
     "        [0.4594, 0.1703, 0.1731,   -inf,   -inf,   -inf],\n"
     "        [0.2642, 0.1024, 0.1036, 0.0186,   -inf,   -inf],\n"
     "        [0.2183, 0.0874, 0.0882, 0.0177, 0.0786,   -inf],\n"
     "        [0.3408, 0.1270, 0.1290, 0.0198, 0.1290, 0.0078]])", NULL},
    {"In [40]", 2, {6, 2},
     "tensor([[0.1855, 0.8812],\n"
     "        [0.2795, 0.9361],\n"
     "        [0.3133, 0.9508],\n"
     "        [0.2994, 0.8595],\n"
     "        [0.2702, 0.7554],\n"
     "        [0.2772, 0.7618]])", NULL},
    {"In [43]", 2, {6, 6},
     "tensor([[2., 2., 2., 2., 2., 2.],\n"
     "        [0., 2., 0., 0., 0., 0.],\n"
     "        [0., 0., 2., 0., 2., 0.],\n"
     "        [2., 2., 0., 0., 0., 2.],\n"
     "        [2., 0., 0., 0., 0., 2.],\n"
     "        [0., 2., 0., 0., 0., 0.]])", NULL},
    {"In [42]", 2, {6, 6},
     "tensor([[2.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],\n"
     "        [0.0000, 0.8966, 0.0000, 0.0000, 0.0000, 0.0000],\n"
     "        [0.0000, 0.0000, 0.6206, 0.0000, 0.0000, 0.0000],\n"
     "        [0.5517, 0.4921, 0.0000, 0.0000, 0.0000, 0.0000],\n"
     "        [0.4350, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],\n"
     "        [0.0000, 0.3327, 0.0000, 0.0000, 0.0000, 0.0000]])", NULL},
    {"In [58]", 3, {2, 6, 2},
     "tensor([[[-0.4519,  0.2216],\n"
     "         [-0.5874,  0.0058],\n"
     "         [-0.6300, -0.0632],\n"
     "         [-0.5675, -0.0843],\n"
     "         [-0.5526, -0.0981],\n"
     "         [-0.5299, -0.1081]],\n"
     "\n"
     "        [[-0.4519,  0.2216],\n"
     "         [-0.5874,  0.0058],\n"
     "         [-0.6300, -0.0632],\n"
     "         [-0.5675, -0.0843],\n"
     "         [-0.5526, -0.0981],\n"
     "         [-0.5299, -0.1081]]])", NULL},
    {"In [49]", 3, {2, 6, 4},
     "tensor([[[-0.4519,  0.2216,  0.4772,  0.1063],\n"
     "         [-0.5874,  0.0058,  0.5891,  0.3257],\n"
     "         [-0.6300, -0.0632,  0.6202,  0.3860],\n"
     "         [-0.5675, -0.0843,  0.5478,  0.3589],\n"
     "         [-0.5526, -0.0981,  0.5321,  0.3428],\n"
     "         [-0.5299, -0.1081,  0.5077,  0.3493]],\n"
     "\n"
     "        [[-0.4519,  0.2216,  0.4772,  0.1063],\n"
     "         [-0.5874,  0.0058,  0.5891,  0.3257],\n"
     "         [-0.6300, -0.0632,  0.6202,  0.3860],\n"
     "         [-0.5675, -0.0843,  0.5478,  0.3589],\n"
     "         [-0.5526, -0.0981,  0.5321,  0.3428],\n"
     "         [-0.5299, -0.1081,  0.5077,  0.3493]]])", NULL},
    {"In [52]", 4, {1, 2, 3, 3},
     "tensor([[[[1.3208, 1.1631, 1.2879],\n"
     "          [1.1631, 2.2150, 1.8424],\n"
     "          [1.2879, 1.8424, 2.0402]],\n"
     "\n"
     "         [[0.4391, 0.7003, 0.5903],\n"
     "          [0.7003, 1.3737, 1.0620],\n"
     "          [0.5903, 1.0620, 0.9912]]]])", NULL},
    {"In [53] first head", 2, {3, 3},
     "tensor([[1.3208, 1.1631, 1.2879],\n"
     "        [1.1631, 2.2150, 1.8424],\n"
     "        [1.2879, 1.8424, 2.0402]])", NULL},
    {"In [53] second head", 2, {3, 3},
     "tensor([[0.4391, 0.7003, 0.5903],\n"
     "        [0.7003, 1.3737, 1.0620],\n"
     "        [0.5903, 1.0620, 0.9912]])", NULL},
    {"In [54]", 3, {2, 6, 2},
     "tensor([[[0.3190, 0.4858],\n"
     "         [0.2943, 0.3897],\n"
     "         [0.2856, 0.3593],\n"
     "         [0.2693, 0.3873],\n"
     "         [0.2639, 0.3928],\n"
     "         [0.2575, 0.4028]],\n"
     "\n"
     "        [[0.3190, 0.4858],\n"
     "         [0.2943, 0.3897],\n"
     "         [0.2856, 0.3593],\n"
     "         [0.2693, 0.3873],\n"
     "         [0.2639, 0.3928],\n"
     "         [0.2575, 0.4028]]])", NULL}
};

static void test_book(void **state)
{
    const book_case *c = *state;
    int64_t numel = 1;
    for (int d = 0; d < c->ndim; d++)
        numel *= c->shape[d];
    float *v = malloc((size_t)numel * sizeof(float));
    assert_non_null(v);
    if (c->data)
        memcpy(v, c->data, (size_t)numel * sizeof(float));
    else
        assert_int_equal(parse_values(c->text, v, numel + 1), numel);
    expect_str(make(c->ndim, c->shape, v, numel, ATTN_FLOAT32), c->text);
    free(v);
}

/* Named after the notebook cell that printed the tensor. */
#define BOOK_TEST(i) {BOOK[i].cell, test_book, NULL, reset_options, (void *)&BOOK[i]}

static void test_book_sizes(void **state)
{
    (void)state;
    const int64_t s62[] = {6, 2}, s263[] = {2, 6, 3}, s262[] = {2, 6, 2}, s264[] = {2, 6, 4};
    expect_size(2, s62, "torch.Size([6, 2])");
    expect_size(3, s263, "torch.Size([2, 6, 3])");
    expect_size(3, s262, "torch.Size([2, 6, 2])");
    expect_size(3, s264, "torch.Size([2, 6, 4])");
}

/* ---- edge cases, worked out from torch/_tensor_str.py ---------------------------------------- */

static void test_empty(void **state)
{
    (void)state;
    const int64_t s0[] = {0}, s03[] = {0, 3}, s204[] = {2, 0, 4};
    expect_str(make(1, s0, NULL, 0, ATTN_FLOAT32), "tensor([])");
    expect_str(make(2, s03, NULL, 0, ATTN_FLOAT32), "tensor([], size=(0, 3))");
    expect_str(make(3, s204, NULL, 0, ATTN_FLOAT32), "tensor([], size=(2, 0, 4))");
    /* _str_intern shows the dtype of an empty tensor: there is no value to tell it by. */
    expect_str(make(1, s0, NULL, 0, ATTN_BOOL), "tensor([], dtype=torch.bool)");
}

static void test_empty_suffix_wraps(void **state)
{
    (void)state;
    const int64_t s03[] = {0, 3};
    set_options(4, 1000, 3, 20, -1); /* _add_suffixes: 11 + 11 + 2 > 20 */
    expect_str(make(2, s03, NULL, 0, ATTN_FLOAT32), "tensor([],\n"
                                                    "       size=(0, 3))");
}

static void test_all_zero(void **state)
{
    (void)state;
    const float v[] = {0.0f, 0.0f, 0.0f, 0.0f};
    const int64_t shape[] = {2, 2};
    expect_str(make(2, shape, v, 4, ATTN_FLOAT32), "tensor([[0., 0.],\n"
                                                   "        [0., 0.]])");
}

static void test_all_nan_and_inf(void **state)
{
    (void)state;
    const float nans[] = {NAN, -NAN, NAN};
    const float infs[] = {INFINITY, -INFINITY};
    expect_str(make1(nans, 3), "tensor([nan, nan, nan])"); /* never "-nan" */
    expect_str(make1(infs, 2), "tensor([inf, -inf])");
}

static void test_nan_padded(void **state)
{
    (void)state;
    const float v[] = {-NAN, -1.5f};
    const float m[] = {1.5f, -INFINITY, NAN, 2.25f};
    const int64_t shape[] = {2, 2};
    expect_str(make1(v, 2), "tensor([    nan, -1.5000])");
    expect_str(make(2, shape, m, 4, ATTN_FLOAT32), "tensor([[1.5000,   -inf],\n"
                                                   "        [   nan, 2.2500]])");
}

static void test_negative_zero(void **state)
{
    (void)state;
    const float a[] = {-0.0f}, b[] = {-0.0f, 1.0f}, c[] = {-0.0f, 0.5f};
    expect_str(make1(a, 1), "tensor([-0.])");
    expect_str(make1(b, 2), "tensor([-0., 1.])"); /* width 2 comes from "1." alone */
    expect_str(make1(c, 2), "tensor([-0.0000, 0.5000])");
    expect_str(make(0, NULL, a, 1, ATTN_FLOAT32), "tensor(-0.)");
}

static void test_sci_with_inf_nan(void **state)
{
    (void)state;
    const float v[] = {1e-5f, INFINITY, NAN, -INFINITY};
    expect_str(make1(v, 4), "tensor([1.0000e-05,        inf,        nan,       -inf])");
}

static void test_sci_int_mode(void **state)
{
    (void)state;
    const float ratio[] = {1.0f, 10000.0f}, big[] = {2e8f, 3e8f};
    expect_str(make1(ratio, 2), "tensor([1.0000e+00, 1.0000e+04])");
    expect_str(make1(big, 2), "tensor([2.0000e+08, 3.0000e+08])");
}

static void test_bool_2d_and_scalar(void **state)
{
    (void)state;
    const float v[] = {1.0f, 0.0f, 0.0f, 1.0f};
    const int64_t shape[] = {2, 2};
    expect_str(make(2, shape, v, 4, ATTN_BOOL), "tensor([[ True, False],\n"
                                                "        [False,  True]])");
    expect_str(make(0, NULL, v, 1, ATTN_BOOL), "tensor(True)");
    expect_str(make(1, (const int64_t[]){2}, v, 2, ATTN_BOOL), "tensor([ True, False])");
    expect_str(make(1, (const int64_t[]){1}, v, 1, ATTN_BOOL), "tensor([True])");
}

static void test_bool_summarized(void **state)
{
    (void)state;
    static float v[1001];
    for (int i = 0; i < 1001; i++)
        v[i] = i % 3 == 0 ? 1.0f : 0.0f;
    expect_str(make(1, (const int64_t[]){1001}, v, 1001, ATTN_BOOL),
               "tensor([ True, False, False,  ..., False,  True, False])");
}

static void test_summarized_2d(void **state)
{
    (void)state;
    static float v[1600];
    const int64_t shape[] = {40, 40};
    for (int k = 0; k < 1600; k++)
        v[k] = 1.0f + (float)k / 1600.0f;
    expect_str(make(2, shape, v, 1600, ATTN_FLOAT32),
               "tensor([[1.0000, 1.0006, 1.0013,  ..., 1.0231, 1.0237, 1.0244],\n"
               "        [1.0250, 1.0256, 1.0263,  ..., 1.0481, 1.0488, 1.0494],\n"
               "        [1.0500, 1.0506, 1.0512,  ..., 1.0731, 1.0738, 1.0744],\n"
               "        ...,\n"
               "        [1.9250, 1.9256, 1.9262,  ..., 1.9481, 1.9488, 1.9494],\n"
               "        [1.9500, 1.9506, 1.9513,  ..., 1.9731, 1.9737, 1.9744],\n"
               "        [1.9750, 1.9756, 1.9762,  ..., 1.9981, 1.9987, 1.9994]])");
}

static void test_summarized_3d(void **state)
{
    (void)state;
    static float v[8 * 2 * 70];
    const int64_t shape[] = {8, 2, 70};
    for (int k = 0; k < 8 * 2 * 70; k++)
        v[k] = (float)(k % 17) - 8.0f;
    expect_str(make(3, shape, v, 8 * 2 * 70, ATTN_FLOAT32),
               "tensor([[[-8., -7., -6.,  ...,  8., -8., -7.],\n"
               "         [-6., -5., -4.,  ..., -7., -6., -5.]],\n"
               "\n"
               "        [[-4., -3., -2.,  ..., -5., -4., -3.],\n"
               "         [-2., -1.,  0.,  ..., -3., -2., -1.]],\n"
               "\n"
               "        [[ 0.,  1.,  2.,  ..., -1.,  0.,  1.],\n"
               "         [ 2.,  3.,  4.,  ...,  1.,  2.,  3.]],\n"
               "\n"
               "        ...,\n"
               "\n"
               "        [[-5., -4., -3.,  ..., -6., -5., -4.],\n"
               "         [-3., -2., -1.,  ..., -4., -3., -2.]],\n"
               "\n"
               "        [[-1.,  0.,  1.,  ..., -2., -1.,  0.],\n"
               "         [ 1.,  2.,  3.,  ...,  0.,  1.,  2.]],\n"
               "\n"
               "        [[ 3.,  4.,  5.,  ...,  2.,  3.,  4.],\n"
               "         [ 5.,  6.,  7.,  ...,  4.,  5.,  6.]]])");
}

static void test_summarized_4d_threshold(void **state)
{
    (void)state;
    const float v[] = {0, 1, 2, 3, 4, 5, 6};
    const int64_t shape[] = {7, 1, 1, 1};
    set_options(4, 5, 3, 80, -1);
    expect_str(make(4, shape, v, 7, ATTN_FLOAT32), "tensor([[[[0.]]],\n\n\n"
                                                   "        [[[1.]]],\n\n\n"
                                                   "        [[[2.]]],\n\n\n"
                                                   "        ...,\n\n\n"
                                                   "        [[[4.]]],\n\n\n"
                                                   "        [[[5.]]],\n\n\n"
                                                   "        [[[6.]]]])");
}

static void test_threshold_edgeitems(void **state)
{
    (void)state;
    float v[100];
    const int64_t shape[] = {10, 10};
    for (int k = 0; k < 100; k++)
        v[k] = (float)k;
    set_options(4, 50, 2, 80, -1);
    expect_str(make(2, shape, v, 100, ATTN_FLOAT32), "tensor([[ 0.,  1.,  ...,  8.,  9.],\n"
                                                     "        [10., 11.,  ..., 18., 19.],\n"
                                                     "        ...,\n"
                                                     "        [80., 81.,  ..., 88., 89.],\n"
                                                     "        [90., 91.,  ..., 98., 99.]])");
}

static void test_row_wraps_in_matrix(void **state)
{
    (void)state;
    float v[24];
    const int64_t shape[] = {2, 12};
    for (int k = 0; k < 24; k++)
        v[k] = (float)k / 7.0f;
    /* rows sit at indent 8: floor((80 - 8) / 8) = 9 per line, continued at 9 spaces */
    expect_str(make(2, shape, v, 24, ATTN_FLOAT32),
               "tensor([[0.0000, 0.1429, 0.2857, 0.4286, 0.5714, 0.7143, 0.8571, 1.0000, 1.1429,\n"
               "         1.2857, 1.4286, 1.5714],\n"
               "        [1.7143, 1.8571, 2.0000, 2.1429, 2.2857, 2.4286, 2.5714, 2.7143, 2.8571,\n"
               "         3.0000, 3.1429, 3.2857]])");
}

static void test_precision_option(void **state)
{
    (void)state;
    const float v[] = {0.12345f, 1.5f};
    set_options(2, 1000, 3, 80, -1);
    expect_str(make1(v, 2), "tensor([0.12, 1.50])");
    set_options(0, 1000, 3, 80, -1);
    expect_str(make1(v, 2), "tensor([0, 2])"); /* '{:.0f}': no "." outside int mode */
}

static void test_linewidth_option(void **state)
{
    (void)state;
    float v[30];
    for (int i = 0; i < 30; i++)
        v[i] = (float)i / 7.0f;
    set_options(4, 1000, 3, 40, -1);
    expect_str(make1(v, 30), "tensor([0.0000, 0.1429, 0.2857, 0.4286,\n"
                             "        0.5714, 0.7143, 0.8571, 1.0000,\n"
                             "        1.1429, 1.2857, 1.4286, 1.5714,\n"
                             "        1.7143, 1.8571, 2.0000, 2.1429,\n"
                             "        2.2857, 2.4286, 2.5714, 2.7143,\n"
                             "        2.8571, 3.0000, 3.1429, 3.2857,\n"
                             "        3.4286, 3.5714, 3.7143, 3.8571,\n"
                             "        4.0000, 4.1429])");
    set_options(4, 1000, 3, 1, -1); /* narrower than the indent: still one element per line */
    expect_str(make1(v, 3), "tensor([0.0000,\n"
                            "        0.1429,\n"
                            "        0.2857])");
}

/* sci_mode only overrides the mode; the width stays the one measured in the automatic mode. */
static void test_sci_mode_option(void **state)
{
    (void)state;
    const float fixed[] = {0.5f, 1.5f}, small[] = {1e-5f, 1.0f}, ints[] = {1.0f, 2.0f}, zeros[] = {0, 0};
    set_options(4, 1000, 3, 80, 1);
    expect_str(make1(fixed, 2), "tensor([5.0000e-01, 1.5000e+00])");
    expect_str(make1(ints, 2), "tensor([1.0000e+00, 2.0000e+00])");
    expect_str(make1(zeros, 2), "tensor([0., 0.])"); /* no nonzero value: the option is never read */
    set_options(4, 1000, 3, 80, 0);
    expect_str(make1(small, 2), "tensor([    0.0000,     1.0000])");
}

static void test_options_clamped(void **state)
{
    (void)state;
    set_options(-3, -1, 0, 0, 7);
    attn_print_options o = attn_get_print_options();
    assert_int_equal(o.precision, 0);
    assert_int_equal(o.threshold, 0);
    assert_int_equal(o.edgeitems, 1);
    assert_int_equal(o.linewidth, 1);
    assert_int_equal(o.sci_mode, 1);
    reset_options(NULL);
    o = attn_get_print_options();
    assert_int_equal(o.precision, 4);
    assert_int_equal(o.threshold, 1000);
    assert_int_equal(o.edgeitems, 3);
    assert_int_equal(o.linewidth, 80);
    assert_int_equal(o.sci_mode, -1);
}

/* ---- views: any strides, any offset --------------------------------------------------------- */

static const float INPUTS[] = {0.43f, 0.15f, 0.89f, 0.55f, 0.87f, 0.66f, 0.57f, 0.85f, 0.64f,
                               0.22f, 0.58f, 0.33f, 0.77f, 0.25f, 0.10f, 0.05f, 0.80f, 0.55f};

static void test_transposed_view(void **state)
{
    (void)state;
    const int64_t shape[] = {6, 3};
    attn_tensor *t = make(2, shape, INPUTS, 18, ATTN_FLOAT32);
    t->shape[0] = 3, t->shape[1] = 6; /* inputs.T */
    t->stride[0] = 1, t->stride[1] = 3;
    expect_str(t, "tensor([[0.4300, 0.5500, 0.5700, 0.2200, 0.7700, 0.0500],\n"
                  "        [0.1500, 0.8700, 0.8500, 0.5800, 0.2500, 0.8000],\n"
                  "        [0.8900, 0.6600, 0.6400, 0.3300, 0.1000, 0.5500]])");
}

static void test_offset_views(void **state)
{
    (void)state;
    const int64_t shape[] = {6, 3};
    attn_tensor *row = make(2, shape, INPUTS, 18, ATTN_FLOAT32);
    row->ndim = 1, row->shape[0] = 3, row->stride[0] = 1, row->offset = 3; /* inputs[1] */
    expect_str(row, "tensor([0.5500, 0.8700, 0.6600])");

    attn_tensor *col = make(2, shape, INPUTS, 18, ATTN_FLOAT32);
    col->ndim = 1, col->shape[0] = 6, col->stride[0] = 3, col->offset = 2; /* inputs[:, 2] */
    expect_str(col, "tensor([0.8900, 0.6600, 0.6400, 0.3300, 0.1000, 0.5500])");

    attn_tensor *item = make(2, shape, INPUTS, 18, ATTN_FLOAT32);
    item->ndim = 0, item->offset = 4; /* inputs[1, 1] */
    expect_str(item, "tensor(0.8700)");
}

static void test_expanded_view(void **state)
{
    (void)state;
    const float v[] = {0.5f, 0.25f};
    attn_tensor *t = make1(v, 2);
    t->ndim = 2, t->shape[0] = 3, t->shape[1] = 2, t->stride[0] = 0, t->stride[1] = 1;
    expect_str(t, "tensor([[0.5000, 0.2500],\n"
                  "        [0.5000, 0.2500],\n"
                  "        [0.5000, 0.2500]])");
}

/* ---- errors ---------------------------------------------------------------------------------- */

static void test_errors(void **state)
{
    (void)state;
    attn_error err = {{0}};
    const float v[] = {1.0f, 2.0f};
    assert_null(attn_format(NULL, &err));
    assert_string_equal(err.msg, "print: no tensor");

    attn_tensor *t = make1(v, 2);
    t->offset = 1; /* two elements from offset 1 run past a storage of two */
    err.msg[0] = '\0';
    assert_null(attn_format(t, &err));
    assert_string_equal(err.msg, "print: tensor view lies outside its storage");
    t->offset = 0;
    t->shape[0] = -1;
    assert_null(attn_format(t, &err));
    assert_string_equal(err.msg, "print: tensor has a negative size");
    drop(t);

    assert_null(attn_format_size(-1, NULL, &err));
    assert_string_equal(err.msg, "print: invalid shape");
    expect_size(0, NULL, "torch.Size([])");
    expect_size(1, (const int64_t[]){0}, "torch.Size([0])");
}

#define TEST(f) cmocka_unit_test_teardown(f, reset_options)

int main(void)
{
    const struct CMUnitTest tests[] = {
        TEST(test_ref_vector_int),
        TEST(test_ref_matrix_int),
        TEST(test_ref_scalar),
        TEST(test_ref_zeros),
        TEST(test_ref_sci_small),
        TEST(test_ref_sci_large),
        TEST(test_ref_nan_inf),
        TEST(test_ref_arange30_div7),
        TEST(test_ref_arange2000),
        TEST(test_ref_int_widths),
        TEST(test_ref_bool),
        TEST(test_ref_size),
        BOOK_TEST(0), BOOK_TEST(1), BOOK_TEST(2), BOOK_TEST(3), BOOK_TEST(4), BOOK_TEST(5),
        BOOK_TEST(6), BOOK_TEST(7), BOOK_TEST(8), BOOK_TEST(9), BOOK_TEST(10), BOOK_TEST(11),
        BOOK_TEST(12), BOOK_TEST(13), BOOK_TEST(14), BOOK_TEST(15), BOOK_TEST(16), BOOK_TEST(17),
        BOOK_TEST(18), BOOK_TEST(19), BOOK_TEST(20), BOOK_TEST(21), BOOK_TEST(22), BOOK_TEST(23),
        BOOK_TEST(24), BOOK_TEST(25), BOOK_TEST(26), BOOK_TEST(27), BOOK_TEST(28), BOOK_TEST(29),
        BOOK_TEST(30), BOOK_TEST(31),
        TEST(test_book_sizes),
        TEST(test_empty),
        TEST(test_empty_suffix_wraps),
        TEST(test_all_zero),
        TEST(test_all_nan_and_inf),
        TEST(test_nan_padded),
        TEST(test_negative_zero),
        TEST(test_sci_with_inf_nan),
        TEST(test_sci_int_mode),
        TEST(test_bool_2d_and_scalar),
        TEST(test_bool_summarized),
        TEST(test_summarized_2d),
        TEST(test_summarized_3d),
        TEST(test_summarized_4d_threshold),
        TEST(test_threshold_edgeitems),
        TEST(test_row_wraps_in_matrix),
        TEST(test_precision_option),
        TEST(test_linewidth_option),
        TEST(test_sci_mode_option),
        TEST(test_options_clamped),
        TEST(test_transposed_view),
        TEST(test_offset_views),
        TEST(test_expanded_view),
        TEST(test_errors),
    };
    _Static_assert(sizeof BOOK / sizeof BOOK[0] == 32, "the chapter prints 32 distinct tensors");
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
