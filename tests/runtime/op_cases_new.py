"""Op cases of issue #34's names (tf.nn, tf.linalg, sort, tile, pad, ...), part of op_cases.

Expected values are worked out by hand (the windows of a convolution summed, a 2x2 inverse
by its adjugate, ...), so that an op and its executors cannot agree on a wrong value."""
import numpy as np

import runtime as tf
from tests.runtime.op_case_helpers import ErrorCase
from tests.runtime.op_case_helpers import b
from tests.runtime.op_case_helpers import case
from tests.runtime.op_case_helpers import f32
from tests.runtime.op_case_helpers import f64
from tests.runtime.op_case_helpers import i32

LN3 = np.log(3.0)
IMAGE = f32(np.arange(1, 10).reshape(1, 3, 3, 1))  # 1..9 in a 3x3 single-channel image
ONES_2X2 = f32(np.ones((2, 2, 1, 1)))


def _case_fn(x):
    return tf.case([(x > 0, lambda: x * 2), (x < 0, lambda: -x)], default=lambda: x + 100)


NEW_NAMES_CASES = [
    # -- tf.nn
    case("relu", tf.nn.relu, (f32([-1, 0, 2.5]),), f32([0, 0, 2.5])),
    case("softmax", tf.nn.softmax, (f64([[0, LN3], [1, 1]]),), f64([[0.25, 0.75], [0.5, 0.5]])),
    case("log_softmax", tf.nn.log_softmax, (f64([0, LN3]),), f64(np.log([0.25, 0.75]))),
    case("sigmoid_cross_entropy_with_logits",
         lambda z, x: tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x),
         (f32([1, 0, 1]), f32([0, 0, 100])), f32([np.log(2), np.log(2), 0])),
    case("softmax_cross_entropy_with_logits", tf.nn.softmax_cross_entropy_with_logits,
         (f64([[0, 1]]), f64([[0, LN3]])), f64([-np.log(0.75)])),
    # 2x2 windows of ones sum the image: [[1+2+4+5, 2+3+5+6], [4+5+7+8, 5+6+8+9]]
    case("conv2d_valid", lambda x, w: tf.nn.conv2d(x, w, 1, "VALID"), (IMAGE, ONES_2X2),
         f32([[[[12], [16]], [[24], [28]]]])),
    # SAME, stride 2: two outputs per axis, the shortfall padded after ([1+2+4+5, 3+6], ...)
    case("conv2d_same_stride2", lambda x, w: tf.nn.conv2d(x, w, 2, "SAME"), (IMAGE, ONES_2X2),
         f32([[[[12], [9]], [[15], [9]]]])),
    case("conv1d", lambda x, w: tf.nn.conv1d(x, w, 1, "VALID"),
         (f32([[[1], [2], [3], [4]]]), f32([[[1]], [[-1]]])), f32([[[-1], [-1], [-1]]])),
    case("max_pool2d_valid", lambda x: tf.nn.max_pool2d(x, 2, 2, "VALID"),
         (f32(np.arange(16).reshape(1, 4, 4, 1)),), f32([[[[5], [7]], [[13], [15]]]])),
    case("max_pool2d_same", lambda x: tf.nn.max_pool2d(x, 2, 2, "SAME"), (IMAGE,),
         f32([[[[5], [6]], [[8], [9]]]])),
    case("dropout_rate0_is_identity", lambda x: tf.nn.dropout(x, 0.0), (f32([1, 2]),),
         f32([1, 2])),
    # -- sort, argsort, top_k (ties keep the lower index first)
    case("sort", tf.sort, (i32([3, 1, 2]),), i32([1, 2, 3])),
    case("sort_descending_rows", lambda x: tf.sort(x, direction="DESCENDING"),
         (f32([[1, 3], [2, 0]]),), f32([[3, 1], [2, 0]])),
    case("argsort", tf.argsort, (i32([3, 1, 2]),), i32([1, 2, 0])),
    case("argsort_descending_ties", lambda x: tf.argsort(x, direction="DESCENDING"),
         (i32([1, 3, 3, 0]),), i32([1, 2, 0, 3])),
    case("top_k", lambda x: tf.math.top_k(x, 2), (f32([1, 5, 3, 5]),),
         [f32([5, 5]), i32([1, 3])]),
    # -- tile, pad, cumsum, cumprod
    case("tile", lambda x: tf.tile(x, [2, 2]), (i32([[1, 2]]),), i32([[1, 2, 1, 2],
                                                                     [1, 2, 1, 2]])),
    case("pad_constant", lambda x: tf.pad(x, [[1, 0], [0, 1]], constant_values=9),
         (i32([[1, 2]]),), i32([[9, 9, 9], [1, 2, 9]])),
    case("pad_reflect", lambda x: tf.pad(x, [[2, 1]], "REFLECT"), (i32([1, 2, 3]),),
         i32([3, 2, 1, 2, 3, 2])),
    case("pad_symmetric", lambda x: tf.pad(x, [[2, 1]], "SYMMETRIC"), (i32([1, 2, 3]),),
         i32([2, 1, 1, 2, 3, 3])),
    case("cumsum", tf.cumsum, (i32([1, 2, 3]),), i32([1, 3, 6])),
    case("cumsum_exclusive_reverse", lambda x: tf.cumsum(x, exclusive=True, reverse=True),
         (i32([1, 2, 3]),), i32([5, 3, 0])),
    case("cumsum_axis1", lambda x: tf.math.cumsum(x, axis=1), (f32([[1, 2], [3, 4]]),),
         f32([[1, 3], [3, 7]])),
    case("cumprod_exclusive", lambda x: tf.math.cumprod(x, exclusive=True), (i32([2, 3, 4]),),
         i32([1, 2, 6])),
    # -- gather_nd, boolean_mask
    case("gather_nd_elements", lambda p: tf.gather_nd(p, [[1, 0], [0, 1]]),
         (i32([[1, 2], [3, 4]]),), i32([3, 2])),
    # (with unknown index dims the result's rank is unknown, as in TensorFlow)
    case("gather_nd_rows", lambda p, i: tf.gather_nd(p, i), (i32([[1, 2], [3, 4]]),
                                                             i32([[1]])), i32([[3, 4]]),
         relax=False),
    case("boolean_mask", tf.boolean_mask, (i32([1, 2, 3]), b([True, False, True])), i32([1, 3])),
    case("boolean_mask_2d", tf.boolean_mask, (i32([[1, 2], [3, 4]]),
                                              b([[True, False], [False, True]])), i32([1, 4])),
    case("boolean_mask_axis1", lambda x, m: tf.boolean_mask(x, m, axis=1),
         (i32([[1, 2, 3], [4, 5, 6]]), b([False, True, True])), i32([[2, 3], [5, 6]])),
    case("is_nan", tf.math.is_nan, (f32([1, np.nan, np.inf]),), b([False, True, False])),
    case("is_finite", tf.math.is_finite, (f32([1, np.nan, -np.inf]),), b([True, False, False])),
    # -- tf.linalg (2x2 inverses by the adjugate)
    case("linalg_matmul", tf.linalg.matmul, (i32([[1, 2]]), i32([[3], [4]])), i32([[11]])),
    case("inv", tf.linalg.inv, (f64([[1, 2], [3, 4]]),), f64([[-2, 1], [1.5, -0.5]])),
    case("det_batch", tf.linalg.det, (f64([[[1, 2], [3, 4]], [[2, 0], [0, 3]]]),), f64([-2, 6])),
    case("solve", tf.linalg.solve, (f64([[2, 0], [0, 4]]), f64([[2], [8]])), f64([[1], [2]])),
    case("cholesky", tf.linalg.cholesky, (f64([[4, 2], [2, 3]]),),
         f64([[2, 0], [1, np.sqrt(2)]])),
    case("diag", tf.linalg.diag, (i32([1, 2]),), i32([[1, 0], [0, 2]])),
    case("diag_part", tf.linalg.diag_part, (i32([[1, 2], [3, 4]]),), i32([1, 4])),
    case("band_part_lower_bidiagonal", lambda x: tf.linalg.band_part(x, 1, 0),
         (i32(np.ones((3, 3))),), i32([[1, 0, 0], [1, 1, 0], [0, 1, 1]])),
    case("band_part_upper_triangle", lambda x: tf.linalg.band_part(x, 0, -1),
         (i32(np.ones((2, 3))),), i32([[1, 1, 1], [0, 1, 1]])),
    case("eye", lambda: tf.eye(2, 3), (), f32([[1, 0, 0], [0, 1, 0]])),
    case("norm_euclidean", tf.norm, (f32([3, 4]),), np.float32(5)),
    case("norm_1_and_inf", lambda x: [tf.norm(x, 1), tf.linalg.norm(x, np.inf)],
         (f32([3, -4]),), [np.float32(7), np.float32(4)]),
    case("norm_matrix_1_and_inf", lambda x: [tf.norm(x, 1, axis=[0, 1]),
                                             tf.norm(x, np.inf, axis=[0, 1])],
         (f32([[1, -2], [3, 4]]),), [np.float32(6), np.float32(7)]),
    # -- tf.case, tf.vectorized_map, tf.debugging
    case("case_first_true", _case_fn, (i32(3),), i32(6)),
    case("case_second_true", _case_fn, (i32(-3),), i32(3)),
    case("case_default", _case_fn, (i32(0),), i32(100)),
    case("vectorized_map", lambda x: tf.vectorized_map(lambda r: r * tf.reduce_sum(r), x),
         (i32([[1, 2], [3, 4]]),), i32([[3, 6], [21, 28]])),
    case("assert_less_holds", lambda x, y: [tf.debugging.assert_less(x, y), x][1],
         (i32([1, 2]), i32([2, 3])), i32([1, 2])),
]

NEW_NAMES_ERROR_CASES = [
    ErrorCase("conv2d_depth_mismatch", lambda x, w: tf.nn.conv2d(x, w, 1, "VALID"),
              (f32(np.ones((1, 2, 2, 2))), f32(np.ones((1, 1, 3, 1)))), {},
              tf.errors.InvalidArgumentError, r"input depth 2 does not match"),
    ErrorCase("gather_nd_out_of_range", lambda p: tf.gather_nd(p, [[2]]), (i32([1, 2]),), {},
              tf.errors.InvalidArgumentError,
              r"indices\[0\] = \[2\] does not index into param shape \[2\]"),
    ErrorCase("inv_singular", tf.linalg.inv, (f64([[1, 2], [2, 4]]),), {},
              tf.errors.InvalidArgumentError, r"Input is not invertible"),
    ErrorCase("cholesky_not_positive_definite", tf.linalg.cholesky, (f64([[1, 2], [2, 1]]),),
              {}, tf.errors.InvalidArgumentError, r"Cholesky decomposition was not successful"),
    ErrorCase("top_k_too_large", lambda x: tf.math.top_k(x, 3), (f32([1, 2]),), {},
              tf.errors.InvalidArgumentError, r"input must have at least k=3 columns"),
    ErrorCase("tile_multiples_length", lambda x: tf.tile(x, [2]), (i32([[1]]),), {},
              tf.errors.InvalidArgumentError, r"multiples argument to be a vector of length 2"),
    ErrorCase("assert_less_fails", lambda x, y: [tf.debugging.assert_less(x, y), x][1],
              (i32([1, 5]), i32([2, 3])), {},
              tf.errors.InvalidArgumentError,
              r"Condition x < y did not hold element-wise: x = \[1 5\] y = \[2 3\]"),
    ErrorCase("assert_positive_fails",
              lambda x: [tf.debugging.assert_positive(x, "weights"), x][1],
              (f32([1, 0]),), {}, tf.errors.InvalidArgumentError,
              r"weights Condition x > 0 did not hold element-wise: x = \[1. 0.\]"),
    ErrorCase("case_without_default_none_true",
              lambda x: tf.case([(x > 0, lambda: x), (x < 0, lambda: -x)]), (i32(0),), {},
              tf.errors.InvalidArgumentError, r"Input error: None of conditions evaluated"),
    ErrorCase("case_exclusive_two_true",
              lambda x: tf.case([(x > 0, lambda: x), (x > 1, lambda: -x)],
                                default=lambda: x, exclusive=True), (i32(5),), {},
              tf.errors.InvalidArgumentError, r"exclusive=True: more than 1 conditions"),
]
