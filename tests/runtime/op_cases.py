"""The shared table of op cases: every op gives equal results eagerly and from graphs.

Import it as `tests.runtime.op_cases`. Each case lists the op, its arguments and the
expected value (worked out by hand). numpy arrays among the arguments become graph inputs
(placeholders); other arguments are passed as they are. Executors are plugged in by the
caller: `run_graph(case, interpret)` or `run_graph(case, compile)`.
"""
import numpy as np

import runtime as tf
from runtime import context
from runtime.graph import Graph

from tests.runtime.op_case_helpers import Case  # noqa: F401 - re-exported
from tests.runtime.op_case_helpers import ErrorCase
from tests.runtime.op_case_helpers import b
from tests.runtime.op_case_helpers import case
from tests.runtime.op_case_helpers import f32
from tests.runtime.op_case_helpers import f64
from tests.runtime.op_case_helpers import i32
from tests.runtime.op_case_helpers import i64
from tests.runtime.op_case_helpers import s
from tests.runtime.op_case_helpers import u8
from tests.runtime.op_cases_new import NEW_NAMES_CASES
from tests.runtime.op_cases_new import NEW_NAMES_ERROR_CASES


M = [[1, 2, 3], [4, 5, 6]]
CASES = [
    # -- arithmetic, broadcasting, Python scalars, empty tensors
    case("add_int32", tf.add, (i32([1, 2, 3]), i32([10, 20, 30])), i32([11, 22, 33])),
    case("add_broadcast", tf.add, (f32([[1], [2]]), f32([10, 20, 30])),
         f32([[11, 21, 31], [12, 22, 32]])),
    case("add_python_scalar_adopts_dtype", tf.add, (i64([1, 2]), 5), i64([6, 7])),
    case("add_float_python_scalar", tf.add, (2.5, f64([1, 2])), f64([3.5, 4.5])),
    case("add_empty", tf.add, (f32(np.zeros((0, 3))), f32([1, 2, 3])), f32(np.zeros((0, 3)))),
    case("add_strings", tf.add, (s(["a", "b"]), s(["c", "d"])), s(["ac", "bd"])),
    case("add_uint8_wraps", tf.add, (u8([250]), u8([10])), u8([4])),
    case("subtract", tf.subtract, (i32([5, 3]), i32([1, 7])), i32([4, -4])),
    case("multiply", tf.multiply, (f64([1.5, 2]), f64([2, 3])), f64([3, 6])),
    case("divide_int32_gives_float64", tf.divide, (i32([7, -7]), i32([2, 2])),
         f64([3.5, -3.5])),
    case("divide_float32", tf.divide, (f32([1, 3]), f32([2, 4])), f32([0.5, 0.75])),
    case("divide_float_by_zero", tf.divide, (f32([1, -1]), f32([0, 0])), f32([np.inf, -np.inf])),
    case("floordiv_negative", tf.math.floordiv, (i32([7, -7, 7, -7]), i32([2, 2, -2, -2])),
         i32([3, -4, -4, 3])),
    case("floormod_negative", tf.math.floormod, (i32([7, -7, 7, -7]), i32([2, 2, -2, -2])),
         i32([1, 1, -1, -1])),
    case("floordiv_float", tf.math.floordiv, (f32([7.5, -7.5]), f32([2, 2])), f32([3, -4])),
    case("floormod_float", tf.math.floormod, (f32([7.5, -7.5]), f32([2, 2])), f32([1.5, 0.5])),
    case("pow_int", tf.math.pow, (i32([2, 3]), i32([3, 2])), i32([8, 9])),
    case("maximum", tf.maximum, (i32([1, 5]), i32([3, 2])), i32([3, 5])),
    case("minimum", tf.minimum, (i32([1, 5]), i32([3, 2])), i32([1, 2])),
    case("abs", tf.abs, (i32([-3, 0, 2]),), i32([3, 0, 2])),
    case("negative", tf.math.negative, (f32([1, -2]),), f32([-1, 2])),
    # TensorFlow 2's top-level aliases of tf.math (tf.sin is tf.math.sin, ...)
    case("sin_top_level", tf.sin, (f64([0, np.pi / 2]),), f64([0, 1])),
    case("cos_top_level", tf.cos, (f64([0, np.pi]),), f64([1, -1])),
    case("floor_top_level", tf.floor, (f32([1.7, -1.2, 3]),), f32([1, -2, 3])),
    case("round_half_to_even", tf.round, (f32([0.5, 1.5, 2.5, -0.5, -1.7]),),
         f32([0, 2, 2, -0.0, -2])),
    case("square", tf.square, (i32([3, -4]),), i32([9, 16])),
    case("sqrt", tf.sqrt, (f32([4, 9, 0]),), f32([2, 3, 0])),
    case("exp", tf.exp, (f64([0, 1]),), f64([1, np.e])),
    case("tanh", tf.tanh, (f32([0]),), f32([0])),
    case("sigmoid", tf.sigmoid, (f32([0]),), f32([0.5])),
    case("log", tf.math.log, (f64([1, np.e]),), f64([0, 1])),
    case("sqrt_empty", tf.sqrt, (f32(np.zeros((0,))),), f32(np.zeros((0,)))),
    # -- comparison and logic
    case("equal", tf.equal, (i32([1, 2]), i32([1, 3])), b([True, False])),
    case("equal_strings", tf.equal, (s(["a", "b"]), s(["a", "c"])), b([True, False])),
    case("not_equal", tf.math.not_equal, (i32([1, 2]), i32([1, 3])), b([False, True])),
    case("less_scalar", tf.less, (i32([1, 2]), 2), b([True, False])),
    case("less_equal", tf.math.less_equal, (i32([1, 2, 3]), 2), b([True, True, False])),
    case("greater", tf.greater, (f32([1, 3]), f32([2, 2])), b([False, True])),
    case("greater_equal", tf.math.greater_equal, (f32([1, 2]), f32([2, 2])), b([False, True])),
    case("logical_and", tf.logical_and, (b([True, True, False]), b([True, False, False])),
         b([True, False, False])),
    case("logical_or", tf.logical_or, (b([True, False]), b([False, False])), b([True, False])),
    case("logical_not", tf.logical_not, (b([True, False]),), b([False, True])),
    case("bitwise_and", tf.bitwise.bitwise_and, (i32([12, 10]), i32([10, 6])), i32([8, 2])),
    case("right_shift_negative", tf.bitwise.right_shift, (i32([16, -16]), i32([2, 2])),
         i32([4, -4])),
    # -- cast
    case("cast_float_to_int_truncates", tf.cast, (f32([1.7, -1.7]), tf.int32), i32([1, -1])),
    case("cast_bool_to_float", tf.cast, (b([True, False]), tf.float32), f32([1, 0])),
    case("cast_int_to_int64", tf.cast, (i32([3]), tf.int64), i64([3])),
    # -- array ops
    case("reshape", tf.reshape, (i32(range(6)), [2, 3]), i32(M) - 1),
    case("reshape_infer", tf.reshape, (i32(range(6)), [-1, 2]), i32([[0, 1], [2, 3], [4, 5]])),
    case("reshape_empty", tf.reshape, (f32(np.zeros((0, 4))), [-1, 2]), f32(np.zeros((0, 2)))),
    case("transpose", tf.transpose, (i32(M),), i32([[1, 4], [2, 5], [3, 6]])),
    case("transpose_perm", tf.transpose, (i32(np.zeros((2, 3, 4))),), i32(np.zeros((4, 3, 2)))),
    case("expand_dims", tf.expand_dims, (i32([1, 2]), 0), i32([[1, 2]])),
    case("expand_dims_last", tf.expand_dims, (i32([1, 2]), -1), i32([[1], [2]])),
    case("squeeze", tf.squeeze, (i32([[1, 2]]),), i32([1, 2]), relax=False),
    case("squeeze_axis", tf.squeeze, (i32([[1], [2]]),), i32([1, 2]), axis=1),
    case("concat_axis0", lambda a, c: tf.concat([a, c], 0), (i32([[1, 2]]), i32([[3, 4]])),
         i32([[1, 2], [3, 4]])),
    case("concat_axis1", lambda a, c: tf.concat([a, c], axis=1), (i32([[1, 2]]), i32([[3]])),
         i32([[1, 2, 3]])),
    case("stack_axis1", lambda a, c: tf.stack([a, c], axis=1), (f32([1, 2]), f32([3, 4])),
         f32([[1, 3], [2, 4]])),
    case("unstack", lambda a: tf.unstack(a), (i32(M),), [i32([1, 2, 3]), i32([4, 5, 6])],
         relax=False),
    case("zeros", lambda: tf.zeros([2, 1]), (), f32([[0], [0]])),
    case("ones_int", lambda: tf.ones([3], tf.int32), (), i32([1, 1, 1])),
    case("fill", lambda: tf.fill([2], 7), (), i32([7, 7])),
    case("zeros_like", tf.zeros_like, (f64([1, 2]),), f64([0, 0])),
    case("ones_like_dtype", lambda a: tf.ones_like(a, dtype=tf.int64), (f32([1, 2]),),
         i64([1, 1])),
    case("identity", tf.identity, (s(["x"]),), s(["x"])),
    case("matmul", tf.matmul, (i32([[1, 2], [3, 4]]), i32([[5, 6], [7, 8]])),
         i32([[19, 22], [43, 50]])),
    case("matmul_transpose_b", lambda a, c: tf.matmul(a, c, transpose_b=True),
         (f32([[1, 2]]), f32([[3, 4]])), f32([[11]])),
    case("shape", tf.shape, (f32(np.zeros((2, 3))),), i32([2, 3])),
    case("size", tf.size, (f32(np.zeros((2, 3))),), np.int32(6)),
    case("size_empty", tf.size, (f32(np.zeros((0, 3))),), np.int32(0)),
    case("range_limit", lambda: tf.range(5), (), i32([0, 1, 2, 3, 4])),
    case("range_step", lambda: tf.range(1, 10, 3), (), i32([1, 4, 7])),
    case("range_negative_delta", lambda: tf.range(5, 0, -2), (), i32([5, 3, 1])),
    case("range_float", lambda: tf.range(0, 1, 0.25), (), f32([0, 0.25, 0.5, 0.75])),
    case("range_empty", lambda: tf.range(3, 3), (), i32([])),
    case("range_tensor_limit", tf.range, (np.int32(4),), i32([0, 1, 2, 3])),
    case("where_select", tf.where, (b([True, False, True]), i32([1, 2, 3]), i32([10, 20, 30])),
         i32([1, 20, 3])),
    case("where_indices", tf.where, (b([[True, False], [False, True]]),), i64([[0, 0], [1, 1]]),
         relax=False),
    case("gather", tf.gather, (i32([10, 20, 30]), i32([2, 0])), i32([30, 10])),
    case("getitem_slice", lambda a: a[1:], (i32([1, 2, 3]),), i32([2, 3])),
    case("getitem_reverse", lambda a: a[::-1], (i32([1, 2, 3]),), i32([3, 2, 1])),
    case("getitem_newaxis_index", lambda a: a[None, 1], (i32(M),), i32([[4, 5, 6]])),
    case("getitem_ellipsis", lambda a: a[..., 0], (i32(M),), i32([1, 4])),
    case("getitem_negative", lambda a: a[-1, -2], (i32(M),), np.int32(5)),
    case("getitem_tensor_index", lambda a, i: a[i], (i32([5, 6, 7]), np.int32(2)), np.int32(7)),
    # -- reductions
    case("reduce_sum_all", tf.reduce_sum, (i32([[1, 2], [3, 4]]),), np.int32(10)),
    case("reduce_sum_axis0", tf.reduce_sum, (i32([[1, 2], [3, 4]]), 0), i32([4, 6])),
    case("reduce_sum_keepdims", tf.reduce_sum, (i32([[1, 2], [3, 4]]), 1), i32([[3], [7]]),
         keepdims=True),
    case("reduce_sum_empty", tf.reduce_sum, (f32(np.zeros((0,))),), np.float32(0)),
    case("reduce_mean_int_truncates", tf.reduce_mean, (i32([1, 2]),), np.int32(1)),
    case("reduce_mean_int_negative", tf.reduce_mean, (i32([-1, -2]),), np.int32(-1)),
    case("reduce_mean_float", tf.reduce_mean, (f32([1, 2]),), np.float32(1.5)),
    case("reduce_max_axis1", tf.reduce_max, (i32([[1, 5], [3, 2]]), 1), i32([5, 3])),
    case("reduce_max_empty", tf.reduce_max, (f32(np.zeros((0,))),), np.float32(-np.inf)),
    case("reduce_min", tf.reduce_min, (f32([[1, 5], [3, 2]]),), np.float32(1)),
    case("reduce_prod", tf.reduce_prod, (i32([1, 2, 3, 4]),), np.int32(24)),
    case("reduce_any", tf.reduce_any, (b([[False, True], [False, False]]), 1), b([True, False])),
    case("reduce_all", tf.reduce_all, (b([True, True]),), np.bool_(True)),
    case("reduce_all_empty", tf.reduce_all, (b(np.zeros((0,))),), np.bool_(True)),
    case("argmax_axis1", tf.argmax, (i32([[1, 5], [3, 2]]), 1), i64([1, 0])),
    case("argmax_default_axis0", tf.argmax, (f32([[1, 5], [3, 2]]),), i64([1, 0])),
    case("argmax_int32_output", tf.argmax, (f32([1, 9, 3]),), np.int32(1),
         output_type=tf.int32),
    # -- one_hot, einsum, clip_by_value (expected values worked out by hand)
    case("one_hot", tf.one_hot, (i32([0, 2, -1, 3]), 3),
         f32([[1, 0, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0]])),
    case("one_hot_axis0_on_off", tf.one_hot, (i64([1, 0]), 2), i32([[9, 5], [5, 9]]),
         on_value=5, off_value=9, axis=0),
    case("one_hot_matrix_dtype", tf.one_hot, (i32([[1], [0]]), 2),
         np.array([[[False, True]], [[True, False]]]), dtype=tf.bool),
    case("einsum_matmul", lambda a, b2: tf.einsum("ij,jk->ik", a, b2),
         (f32([[1, 2], [3, 4]]), f32([[5, 6], [7, 8]])), f32([[19, 22], [43, 50]])),
    case("einsum_implicit_transpose", lambda a: tf.einsum("ji", a), (i32(M),),
         i32([[1, 4], [2, 5], [3, 6]])),
    case("einsum_trace_and_sum", lambda a: tf.einsum("ii->", a), (i32([[1, 2], [3, 4]]),),
         np.int32(5)),
    case("einsum_outer", lambda a, b2: tf.einsum("i,j->ij", a, b2), (i32([1, 2]), i32([3, 4, 5])),
         i32([[3, 4, 5], [6, 8, 10]])),
    case("einsum_batch_dot", lambda a, b2: tf.einsum("bi,bi->b", a, b2),
         (f32([[1, 2], [3, 4]]), f32([[1, 1], [2, 0]])), f32([3, 6])),
    case("clip_by_value", tf.clip_by_value, (f32([-2, 0.5, 3]), -1.0, 1.0), f32([-1, 0.5, 1])),
    case("clip_by_value_int_tensor_bounds", tf.clip_by_value,
         (i32([[1, 5], [9, -3]]), i32([[2, 2], [2, 2]]), 6), i32([[2, 5], [6, 2]])),
] + NEW_NAMES_CASES

# Cases whose result length depends on input values: their static shape has None dims.
# (vectorized_map runs as a map_fn loop, whose stacked result has an unknown row count.)
DYNAMIC_SHAPE = {"range_tensor_limit", "where_indices", "boolean_mask", "boolean_mask_2d",
                 "boolean_mask_axis1", "vectorized_map"}

ERROR_CASES = [
    ErrorCase("add_int32_float32", tf.add, (i32([1]), f32([1])), {},
              tf.errors.InvalidArgumentError,
              r"cannot compute AddV2 as input #1\(zero-based\) was expected to be a int32 "
              r"tensor but is a float32 tensor"),
    ErrorCase("multiply_float32_float64", tf.multiply, (f32([1]), f64([1])), {},
              tf.errors.InvalidArgumentError,
              r"cannot compute Mul as input #1\(zero-based\) was expected to be a float32 "
              r"tensor but is a float64 tensor"),
    ErrorCase("sqrt_int", tf.sqrt, (i32([4]),), {}, tf.errors.InvalidArgumentError,
              r"Value for attr 'T' of int32 is not in the list of allowed values for Sqrt"),
    ErrorCase("floordiv_by_zero", tf.math.floordiv, (i32([1]), i32([0])), {},
              tf.errors.InvalidArgumentError, r"Integer division by zero"),
    ErrorCase("floormod_by_zero", tf.math.floormod, (i64([1]), i64([0])), {},
              tf.errors.InvalidArgumentError, r"Integer division by zero"),
    ErrorCase("broadcast_mismatch", tf.add, (i32([1, 2, 3]), i32([1, 2])), {},
              tf.errors.InvalidArgumentError, r"Incompatible shapes: \[3\] vs. \[2\]"),
    ErrorCase("reshape_mismatch", tf.reshape, (i32([1, 2, 3]), [2, 2]), {},
              tf.errors.InvalidArgumentError, r"Input to reshape is a tensor with 3 values"),
    ErrorCase("matmul_inner_mismatch", tf.matmul, (f32([[1, 2]]), f32([[1, 2]])), {},
              tf.errors.InvalidArgumentError, r"Matrix size-incompatible"),
    ErrorCase("logical_and_int", tf.logical_and, (i32([1]), i32([1])), {},
              tf.errors.InvalidArgumentError, r"of int32 is not in the list of allowed"),
    ErrorCase("float_scalar_with_int_tensor", tf.add, (i32([1]), 1.5), {}, TypeError,
              r"Cannot convert 1.5 to a tensor of dtype int32"),
    ErrorCase("getitem_out_of_range", lambda a: a[5], (i32([1, 2]),), {},
              tf.errors.InvalidArgumentError, r"out of"),
    ErrorCase("one_hot_float_indices", tf.one_hot, (f32([1]), 2), {},
              tf.errors.InvalidArgumentError, r"one_hot expects int32, int64 or uint8"),
    ErrorCase("einsum_wrong_rank", lambda a: tf.einsum("ij->i", a), (i32([1, 2]),), {},
              tf.errors.InvalidArgumentError, r"einsum: operand with subscripts 'ij' has rank 2"),
    ErrorCase("einsum_operand_count", lambda a: tf.einsum("i,i->", a), (i32([1, 2]),), {},
              tf.errors.InvalidArgumentError, r"has 2 operand\(s\) but 1 input\(s\)"),
    ErrorCase("clip_by_value_dtype", tf.clip_by_value, (i32([1]), 0.5, 2), {}, TypeError,
              r"Cannot convert 0.5 to a tensor of dtype int32"),
] + NEW_NAMES_ERROR_CASES


def run_eager(case):
    """Runs a case eagerly; returns numpy value(s)."""
    args = [tf.constant(a) if isinstance(a, (np.ndarray, np.generic)) else a
            for a in case.args]
    return _to_numpy(case.fn(*args, **case.kwargs))


def trace_graph(name, specs, fn):
    """Traces `fn` on placeholders into a Graph whose outputs are what `fn` returns.

    Args:
        name: The graph's name.
        specs: (placeholder name, dtype, shape) of each argument, in order.
        fn: Called with the placeholders; returns a tensor or a list/tuple of tensors.

    Returns:
        The Graph, with `graph.outputs` set.
    """
    graph = Graph(name)
    with context.graph_scope(graph):
        inputs = [graph.placeholder(dtype, shape, name=n) for n, dtype, shape in specs]
        out = fn(*inputs)
    graph.outputs = list(out) if isinstance(out, (list, tuple)) else [out]
    return graph


def build_graph(case, relax=False):
    """Traces a case into a Graph; numpy arguments become placeholders.

    Args:
        case: A Case or ErrorCase.
        relax: Give placeholders unknown (None) dimensions.

    Returns:
        (graph, placeholders, feeds, outputs) where outputs is a list of tensors.
    """
    graph = Graph(case.id)
    placeholders, feeds, args = [], [], []
    with context.graph_scope(graph):
        for i, a in enumerate(case.args):
            if isinstance(a, (np.ndarray, np.generic)):
                shape = (None,) * np.ndim(a) if relax else np.shape(a)
                ph = graph.placeholder(tf.as_dtype(a.dtype), shape, name=f"arg{i}")
                placeholders.append(ph)
                feeds.append(a)
                args.append(ph)
            else:
                args.append(a)
        out = case.fn(*args, **case.kwargs)
    outputs = list(out) if isinstance(out, (list, tuple)) else [out]
    graph.outputs = outputs
    return graph, placeholders, feeds, outputs


def run_graph(case, executor, relax=False):
    """Traces a case and runs it with `executor` (e.g. runtime.executor.interpret).

    Returns:
        (numpy value(s), list of the symbolic outputs) so callers can check static shapes.
    """
    graph, placeholders, feeds, outputs = build_graph(case, relax)
    values = executor(graph, placeholders, outputs)(*feeds)
    result = list(values) if isinstance(case.expected, list) else values[0]
    return result, outputs


def _to_numpy(value):
    if isinstance(value, (list, tuple)):
        return [_to_numpy(v) for v in value]
    return value.numpy()


def assert_same(actual, expected):
    """Asserts equal values (NaN-aware, float tolerance) and identical dtypes and shapes."""
    if isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected)
        for a, e in zip(actual, expected):
            assert_same(a, e)
        return
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    if expected.dtype.kind == "f":
        np.testing.assert_allclose(actual, expected, rtol=1e-6)
    else:
        assert actual.tolist() == expected.tolist()
