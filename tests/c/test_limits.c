/* test_limits.c — the core's guards against what a hostile user can type: checked size arithmetic
 * (size.c), and the views that must refuse sizes that do not fit. The expected values are the exact
 * integers (2^63 - 1 is INT64_MAX); no float result is involved. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "size.h"
#include "tensor.h"

static void test_size_arithmetic(void **state)
{
    (void)state;
    int64_t r;
    assert_int_equal(attn_size_mul(3037000499, 3037000499, &r), 0); /* floor(sqrt(2^63 - 1)) squared fits */
    assert_true(r == INT64_C(9223372030926249001));
    assert_int_equal(attn_size_mul(3037000500, 3037000500, &r), -1);
    assert_int_equal(attn_size_mul(INT64_C(0x5555555555555558), 3, &r), -1); /* the robustness examples' view */
    assert_int_equal(attn_size_add(INT64_MAX, 0, &r), 0);
    assert_int_equal(attn_size_add(INT64_MAX, 1, &r), -1);
    assert_int_equal(attn_size_add(2, INT64_MAX - 1, &r), -1);
}

static void test_shape_fits(void **state)
{
    (void)state;
    int64_t ok[3] = {INT64_C(1) << 31, INT64_C(1) << 31, 1}, just_over[3] = {INT64_C(1) << 31, INT64_C(1) << 31, 2};
    int64_t wraps[2] = {INT64_C(1) << 32, INT64_C(1) << 32};
    int64_t empty_huge[3] = {0, INT64_C(1) << 62, INT64_C(1) << 62}, negative[2] = {2, -1};
    int64_t empty_fits[3] = {INT64_C(1) << 62, 0, 1};
    assert_true(attn_shape_fits(3, ok));
    assert_true(attn_shape_numel(3, ok) == INT64_C(1) << 62);
    assert_false(attn_shape_fits(3, just_over)); /* 2^63 is one more than int64 holds */
    assert_false(attn_shape_fits(2, wraps));
    assert_false(attn_shape_fits(3, empty_huge)); /* the non-zero sizes must multiply within int64 */
    assert_false(attn_shape_fits(2, negative));
    assert_true(attn_shape_fits(3, empty_fits));
    assert_true(attn_shape_numel(3, empty_fits) == 0);
    assert_true(attn_shape_fits(0, NULL));
    assert_true(attn_shape_numel(0, NULL) == 1);
}

static void test_view_in_bounds(void **state)
{
    (void)state;
    int64_t shape[2] = {2, 3}, stride[2] = {3, 1}, zero_stride[2] = {0, 1}, empty[2] = {0, 5};
    assert_true(attn_view_in_bounds(0, 2, shape, stride, 6));
    assert_false(attn_view_in_bounds(1, 2, shape, stride, 6)); /* the last element would be at 6 */
    assert_true(attn_view_in_bounds(3, 2, shape, zero_stride, 6));
    assert_true(attn_view_in_bounds(100, 2, empty, stride, 6)); /* no elements, nothing to reach */
    int64_t huge[1] = {INT64_C(1) << 62}, huge_stride[1] = {4};
    assert_false(attn_view_in_bounds(0, 1, huge, huge_stride, 8)); /* (2^62 - 1) * 4 overflows */
    assert_false(attn_view_in_bounds(-1, 2, shape, stride, 6));
}

static void test_views_refuse_wrapping_sizes(void **state)
{
    (void)state;
    attn_error err;
    int64_t eight = 8;
    attn_tensor *t = attn_full("zeros", 1, &eight, 0.0f, &err);
    assert_non_null(t);
    int64_t wraps[2] = {INT64_C(0x5555555555555558), 3};
    assert_null(attn_view("view", t, 2, wraps, &err));
    assert_string_equal(err.msg, "view: the shape [6148914691236517208, 3] is too large: the product of its "
                                 "sizes does not fit in a 64-bit integer");
    assert_null(attn_narrow(t, 0, 1, INT64_MAX, &err));
    assert_string_equal(err.msg, "narrow: 9223372036854775807 elements from element 2 are out of range for "
                                 "dim 1 of size 8");
    int64_t one = 1;
    attn_tensor *o = attn_full("ones", 1, &one, 1.0f, &err);
    int64_t big[2] = {INT64_C(1) << 32, INT64_C(1) << 32};
    assert_null(attn_expand(o, 2, big, &err));
    assert_non_null(strstr(err.msg, "expand: cannot expand [1] to [4294967296, 4294967296]"));
    int64_t fits[2] = {INT64_C(1) << 31, INT64_C(1) << 31};
    attn_tensor *e = attn_expand(o, 2, fits, &err);
    assert_non_null(e);
    assert_true(attn_numel(e) == INT64_C(1) << 62);
    attn_free(e);
    attn_free(o);
    attn_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_size_arithmetic),
        cmocka_unit_test(test_shape_fits),
        cmocka_unit_test(test_view_in_bounds),
        cmocka_unit_test(test_views_refuse_wrapping_sizes),
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
