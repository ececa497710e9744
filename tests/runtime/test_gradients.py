"""GradientTape: every differentiable op's vjp against central finite differences (float64).

Each case is (id, fn, inputs): fn maps float64 tensors to a tensor; the check differentiates
sum(fn(*inputs) * w) for a fixed random w, eagerly and inside tf.function, and compares with
central differences computed on plain numpy values through the same fn run eagerly.
"""
import numpy as np
import pytest

import runtime as tf
from runtime.ops import gradient_ops
from runtime.ops import registry

R = np.random.RandomState(0)


def first_derivative(f):
    """x -> the gradient of f at x: differentiating it again runs the gradient ops' own vjps."""
    def grad(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        return tape.gradient(y, x)

    return grad


def _zeros(*shape):
    return tf.zeros(shape, tf.float64)


def a(*shape, low=-2.0, high=2.0):
    return R.uniform(low, high, size=shape).astype(np.float64)


def pos(*shape):
    return a(*shape, low=0.5, high=2.0)


CASES = [
    ("add_broadcast", tf.add, [a(2, 3), a(3)]),
    ("subtract_broadcast_both", tf.subtract, [a(2, 1), a(1, 3)]),
    ("multiply_scalar_tensor", tf.multiply, [a(), a(2, 3)]),
    ("divide", tf.divide, [a(2, 3), pos(2, 3)]),
    ("pow", tf.pow, [pos(2, 3), a(3)]),
    ("maximum", tf.maximum, [a(3, 4), a(4)]),
    ("minimum", tf.minimum, [a(3, 4), a(3, 1)]),
    ("squared_difference", tf.math.squared_difference, [a(2, 3), a(3)]),
    ("operators", lambda x, y: (x * y - x / (y * y + 1.0)) ** 2 + (-x), [a(2, 2), a(2, 2)]),
    ("negative", tf.negative, [a(4)]),
    ("abs", tf.abs, [a(4)]),
    ("square", tf.square, [a(2, 3)]),
    ("sqrt", tf.sqrt, [pos(3)]),
    ("rsqrt", tf.math.rsqrt, [pos(3)]),
    ("exp", tf.exp, [a(3)]),
    ("log", tf.math.log, [pos(3)]),
    ("tanh", tf.tanh, [a(2, 3)]),
    ("sigmoid", tf.sigmoid, [a(2, 3)]),
    ("sin", tf.math.sin, [a(3)]),
    ("cos", tf.math.cos, [a(3)]),
    ("reciprocal", tf.math.reciprocal, [pos(3)]),
    ("identity", tf.identity, [a(2)]),
    ("matmul", tf.matmul, [a(2, 3), a(3, 4)]),
    ("matmul_transpose_a", lambda x, y: tf.matmul(x, y, transpose_a=True), [a(3, 2), a(3, 4)]),
    ("matmul_transpose_b", lambda x, y: tf.matmul(x, y, transpose_b=True), [a(2, 3), a(4, 3)]),
    ("matmul_transpose_both", lambda x, y: tf.matmul(x, y, transpose_a=True,
                                                     transpose_b=True), [a(3, 2), a(4, 3)]),
    ("matmul_batch_broadcast", tf.matmul, [a(2, 2, 3), a(3, 4)]),
    ("reshape", lambda x: tf.reshape(x, [3, 2]), [a(2, 3)]),
    ("reshape_minus_one", lambda x: tf.reshape(x, [-1]), [a(2, 3)]),
    ("transpose_default", tf.transpose, [a(2, 3)]),
    ("transpose_perm", lambda x: tf.transpose(x, [1, 2, 0]), [a(2, 3, 4)]),
    ("expand_dims", lambda x: tf.expand_dims(x, 1), [a(2, 3)]),
    ("squeeze", lambda x: tf.squeeze(x, 1), [a(2, 1, 3)]),
    ("concat_axis1", lambda x, y: tf.concat([x, y, x], axis=1), [a(2, 1), a(2, 3)]),
    ("concat_negative_axis", lambda x, y: tf.concat([x, y], axis=-1), [a(2, 2), a(2, 3)]),
    ("stack_axis1", lambda x, y: tf.stack([x, y], axis=1), [a(2, 3), a(2, 3)]),
    ("unstack", lambda x: tf.unstack(x)[0] * 2.0 + tf.unstack(x)[2], [a(3, 2)]),
    ("where_broadcast", lambda x, y: tf.where(tf.constant([True, False, True]), x, y),
     [a(2, 3), a(3)]),
    ("gather_axis1_duplicates", lambda x: tf.gather(x, tf.constant([2, 0, 2]), axis=1),
     [a(2, 3)]),
    ("slice_steps", lambda x: x[1:, ::2], [a(3, 4)]),
    ("index_int", lambda x: x[:, 0], [a(3, 4)]),
    ("index_newaxis_ellipsis", lambda x: x[..., None, 1], [a(2, 3)]),
    ("index_tensor", lambda x: x[tf.constant(1)], [a(3, 2)]),
    ("reduce_sum_all", tf.reduce_sum, [a(2, 3)]),
    ("reduce_sum_axis", lambda x: tf.reduce_sum(x, axis=1), [a(2, 3)]),
    ("reduce_sum_axes_keepdims", lambda x: tf.reduce_sum(x, axis=[0, 2], keepdims=True),
     [a(2, 3, 4)]),
    ("reduce_mean_axis0", lambda x: tf.reduce_mean(x, axis=0), [a(2, 3)]),
    ("reduce_mean_negative_axis", lambda x: tf.reduce_mean(x, axis=-1), [a(2, 3)]),
    ("reduce_max_axis", lambda x: tf.reduce_max(x, axis=1), [a(3, 4)]),
    ("reduce_min_all", tf.reduce_min, [a(3, 4)]),
    ("reduce_prod_axis", lambda x: tf.reduce_prod(x, axis=0), [pos(3, 2)]),
    ("einsum_matmul", lambda x, y: tf.einsum("ij,jk->ik", x, y), [a(2, 3), a(3, 4)]),
    ("einsum_sum_only_letter", lambda x, y: tf.einsum("ij,k->k", x, y), [a(2, 3), a(4)]),
    ("einsum_batch_outer", lambda x, y: tf.einsum("bi,bj->bij", x, y), [a(2, 3), a(2, 2)]),
    # values kept away from the bounds (the clip has kinks there)
    ("clip_by_value", lambda x: tf.clip_by_value(x, -1.0, 1.0),
     [np.array([[-1.7, -0.4, 0.3], [0.9, 1.6, -0.2]])]),
    ("clip_by_value_tensor_bounds", lambda x, lo: tf.clip_by_value(x, lo, 0.5),
     [np.array([-1.2, 0.1, 0.9]), np.array([-0.6, -0.5, 0.0])]),
    ("one_hot_times_x", lambda x: tf.one_hot(tf.constant([2, 0]), 3, dtype=tf.float64) * x,
     [a(2, 3)]),
    ("floormod", tf.math.floormod, [np.array([[2.3, -1.7, 0.4]]), np.array([0.9, 0.8, 1.3])]),
    ("sign_times_x", lambda x: tf.sign(x) * x, [a(3)]),
    # the ops gradients are built from, differentiated directly and as second derivatives
    ("unbroadcast", lambda x: gradient_ops.unbroadcast(x, _zeros(3)), [a(2, 3)]),
    ("broadcast_like", lambda x: gradient_ops.broadcast_like(x, _zeros(2, 3)), [a(3)]),
    ("reshape_like", lambda x: gradient_ops.reshape_like(x, _zeros(3, 2)), [a(2, 3)]),
    ("reduce_grad", lambda x: gradient_ops.reduce_grad(x, _zeros(2, 3), 1, False), [a(2)]),
    ("second_derivative_slicing",
     first_derivative(lambda y: tf.reduce_sum(y[1:, ::2] ** 3)), [a(3, 4)]),
    ("second_derivative_gather",
     first_derivative(lambda y: tf.reduce_sum(tf.gather(y, tf.constant([2, 0, 2]), axis=1) ** 3)),
     [a(2, 3)]),
    ("second_derivative_concat",
     first_derivative(lambda y: tf.reduce_sum(tf.concat([y, y * y], axis=1) ** 2)), [a(2, 2)]),
    # issue #34's names (values kept away from kinks and ties)
    ("relu", tf.nn.relu, [np.array([[-1.3, 0.4], [2.2, -0.6]])]),
    ("softmax", lambda x: tf.nn.softmax(x, axis=0), [a(3, 2)]),
    ("log_softmax", tf.nn.log_softmax, [a(2, 4)]),
    ("sigmoid_cross_entropy", lambda z, x: tf.nn.sigmoid_cross_entropy_with_logits(
        labels=z, logits=x), [a(2, 3, low=0.0, high=1.0), a(2, 3)]),
    ("softmax_cross_entropy", lambda z, x: tf.nn.softmax_cross_entropy_with_logits(z, x),
     [a(2, 3, low=0.0, high=1.0), a(2, 3)]),
    ("conv2d_same_strided", lambda x, w: tf.nn.conv2d(x, w, 2, "SAME"),
     [a(2, 5, 4, 3), a(3, 2, 3, 2)]),
    ("conv2d_valid_dilated", lambda x, w: tf.nn.conv2d(x, w, 1, "VALID", dilations=2),
     [a(1, 5, 5, 2), a(2, 2, 2, 3)]),
    ("conv1d", lambda x, w: tf.nn.conv1d(x, w, 1, "SAME"), [a(2, 6, 2), a(3, 2, 2)]),
    ("max_pool2d", lambda x: tf.nn.max_pool2d(x, 2, 2, "SAME"), [R.permutation(30).reshape(
        1, 5, 3, 2).astype(np.float64)]),
    ("sort_descending", lambda x: tf.sort(x, axis=0, direction="DESCENDING"), [a(4, 2)]),
    ("top_k_values", lambda x: tf.math.top_k(x, 2).values, [a(2, 5)]),
    ("tile", lambda x: tf.tile(x, [2, 3]), [a(2, 2)]),
    ("pad_constant", lambda x: tf.pad(x, [[1, 0], [2, 1]], constant_values=3.0), [a(2, 2)]),
    ("pad_reflect", lambda x: tf.pad(x, [[1, 1], [2, 0]], "REFLECT"), [a(3, 3)]),
    ("cumsum_exclusive_reverse", lambda x: tf.cumsum(x, 1, exclusive=True, reverse=True),
     [a(2, 4)]),
    ("cumprod", lambda x: tf.math.cumprod(x, axis=0), [pos(3, 2)]),
    ("gather_nd", lambda x: tf.gather_nd(x, tf.constant([[1, 0], [0, 2], [1, 0]])), [a(2, 3)]),
    ("boolean_mask", lambda x: tf.boolean_mask(x, tf.constant([True, False, True])), [a(3, 2)]),
    ("inv", tf.linalg.inv, [a(3, 3) + 3 * np.eye(3)]),
    ("det", tf.linalg.det, [a(2, 3, 3)]),
    ("solve", tf.linalg.solve, [a(3, 3) + 3 * np.eye(3), a(3, 2)]),
    ("cholesky_of_a_gram_matrix", lambda x: tf.linalg.cholesky(
        tf.matmul(x, x, transpose_b=True) + 3 * tf.eye(3, dtype=tf.float64)), [a(3, 3)]),
    ("diag_and_diag_part", lambda x: tf.linalg.diag(tf.linalg.diag_part(x) ** 2), [a(3, 3)]),
    ("band_part", lambda x: tf.linalg.band_part(x, 1, 0), [a(3, 4)]),
    ("norm_matrix_axes", lambda x: tf.linalg.norm(x, axis=[0, 1]), [a(2, 3)]),
    ("vectorized_map", lambda x: tf.vectorized_map(lambda r: r * tf.reduce_sum(r), x),
     [a(3, 2)]),
    ("second_derivative_sort",
     first_derivative(lambda y: tf.reduce_sum(tf.sort(y) ** 3)), [a(5)]),
    ("second_derivative_tile",
     first_derivative(lambda y: tf.reduce_sum(tf.tile(y, [2, 1]) ** 3)), [a(2, 2)]),
    ("second_derivative_pad",
     first_derivative(lambda y: tf.reduce_sum(tf.pad(y, [[1, 1]], "SYMMETRIC") ** 3)), [a(3)]),
    ("second_derivative_gather_nd",
     first_derivative(lambda y: tf.reduce_sum(tf.gather_nd(y, tf.constant([[1], [1]])) ** 3)),
     [a(2, 2)]),
]


def _loss(fn, w, xs):
    return tf.reduce_sum(fn(*xs) * w)


def _weights(fn, inputs):
    out = np.asarray(fn(*[tf.constant(x) for x in inputs]))
    return np.random.RandomState(1).uniform(-1, 1, size=out.shape)


def numeric_gradients(fn, inputs, w, eps=1e-6):
    grads = []
    for i, x in enumerate(inputs):
        g = np.zeros_like(x)
        for idx in np.ndindex(*x.shape):
            plus = [v.copy() for v in inputs]
            minus = [v.copy() for v in inputs]
            plus[i][idx] += eps
            minus[i][idx] -= eps
            hi = float(_loss(fn, w, [tf.constant(v) for v in plus]))
            lo = float(_loss(fn, w, [tf.constant(v) for v in minus]))
            g[idx] = (hi - lo) / (2 * eps)
        grads.append(g)
    return grads


def tape_gradients(fn, inputs, w):
    xs = [tf.constant(x) for x in inputs]
    with tf.GradientTape() as tape:
        tape.watch(xs)
        loss = _loss(fn, w, xs)
    return [g.numpy() for g in tape.gradient(loss, xs)]


def traced_gradients(fn, inputs, w):
    @tf.function
    def grads(*xs):
        with tf.GradientTape() as tape:
            tape.watch(xs)
            loss = _loss(fn, w, xs)
        return tape.gradient(loss, list(xs))

    return [g.numpy() for g in grads(*[tf.constant(x) for x in inputs])]


@pytest.mark.parametrize("fn,inputs", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_gradient_matches_finite_differences(fn, inputs):
    w = _weights(fn, inputs)
    expected = numeric_gradients(fn, inputs, w)
    for got in (tape_gradients(fn, inputs, w), traced_gradients(fn, inputs, w)):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            assert g.shape == e.shape
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-7)


def _ops_of(graph):
    for node in graph.get_operations():
        yield node.op
        for _, sub in node.subgraphs():
            yield from _ops_of(sub)


def test_every_differentiable_op_is_checked():
    # Structured ops are checked in test_control_flow_gradients.py and test_switch_case.py,
    # the TensorArray ops in test_tensor_array_gradients.py, and cast (which changes
    # precision, so finite differences cannot see it) below.
    from tests.runtime import test_tensor_array_gradients as tensor_arrays
    exercised = set()
    cases = [(fn, inputs) for _, fn, inputs in CASES]
    cases += [(fn, [tensor_arrays.X]) for fn in tensor_arrays.CASES]
    for fn, inputs in cases:
        traced = tf.function(fn).get_concrete_function(*[tf.constant(x) for x in inputs])
        exercised.update(_ops_of(traced.graph))
    differentiable = {name for name, op in registry.OPS.items()
                      if op.vjp is not None and not op.structured}
    # (cast may appear in a case incidentally, on a constant or a mask)
    assert differentiable - exercised <= {"cast"}


def test_cast_between_floats_passes_the_gradient_back_in_the_source_dtype():
    x = tf.constant(np.array([0.1, -2.5, 3.0]))
    w = np.array([2.0, -1.0, 0.5], np.float32)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.cast(x, tf.float32) * w)
    g = tape.gradient(y, x)
    assert g.dtype == tf.float64
    np.testing.assert_array_equal(g.numpy(), w.astype(np.float64))
    # Casting to an integer cuts the gradient, as in TensorFlow.
    with tf.GradientTape() as tape:
        tape.watch(x)
        z = tf.reduce_sum(tf.cast(tf.cast(x, tf.int32), tf.float64) * 3.0)
    assert tape.gradient(z, x) is None


# -- the tape's API ---------------------------------------------------------------------------

def test_unconnected_sources_give_none_or_zeros():
    x = tf.constant([1.0, 2.0])
    y = tf.constant([3.0, 4.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, y])
        z = x * 2.0
    assert tape.gradient(z, y) is None
    zero = tape.gradient(z, y, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    np.testing.assert_array_equal(zero.numpy(), [0.0, 0.0])
    np.testing.assert_array_equal(tape.gradient(z, x).numpy(), [2.0, 2.0])


def test_integer_and_boolean_ops_are_not_differentiable():
    x = tf.constant([1, 2, 3])
    f = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch([x, f])
        y = tf.cast(x * 2, tf.float32) * f + tf.cast(f > 1.5, tf.float32)
    gx, gf = tape.gradient(y, [x, f])
    assert gx is None
    np.testing.assert_array_equal(gf.numpy(), [2.0, 4.0, 6.0])


def test_trainable_variables_are_watched_by_default():
    v = tf.Variable(3.0)
    frozen = tf.Variable(5.0, trainable=False)
    with tf.GradientTape() as tape:
        y = v * v * frozen
    gv, gf = tape.gradient(y, [v, frozen])
    assert float(gv) == 30.0 and gf is None
    assert tape.watched_variables() == (v,)


def test_watch_accessed_variables_false():
    v = tf.Variable(3.0)
    w = tf.Variable(2.0)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(w)
        y = v * w
    gv, gw = tape.gradient(y, [v, w])
    assert gv is None and float(gw) == 3.0


def test_nested_sources_and_output_gradients():
    x = tf.constant(2.0)
    y = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch([x, y])
        a, b = x * y, x + y
    grads = tape.gradient([a, b], {"x": x, "pair": (y, x)}, output_gradients=[10.0, 1.0])
    assert float(grads["x"]) == 10.0 * 3.0 + 1.0
    assert float(grads["pair"][0]) == 10.0 * 2.0 + 1.0
    assert float(grads["pair"][1]) == 31.0


def test_persistent_and_non_persistent():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert float(tape.gradient(y, x)) == 6.0
    with pytest.raises(RuntimeError, match="non-persistent GradientTape"):
        tape.gradient(y, x)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * x
    assert float(tape.gradient(y, x)) == 6.0
    assert float(tape.gradient(z, x)) == 27.0


def test_nested_tapes_give_second_derivatives():
    x = tf.constant(3.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = x * x * x
        dy = inner.gradient(y, x)
    assert float(dy) == 27.0
    assert float(outer.gradient(dy, x)) == 18.0


def test_stop_gradient():
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * tf.stop_gradient(x * x)
    assert float(tape.gradient(y, x)) == 4.0


def test_custom_gradient():
    @tf.custom_gradient
    def clip_grad(x):
        def grad(dy):
            return tf.minimum(dy, 1.0)
        return x * 1.0, grad

    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)

        def grad(dy):
            return dy * (1 - 1 / (1 + e))
        return tf.math.log(1 + e), grad

    x = tf.constant(30.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = log1pexp(x)
        z = clip_grad(x) * 5.0
    assert float(tape.gradient(y, x)) == 1.0
    assert float(tape.gradient(z, x)) == 1.0


def test_gradients_inside_a_function_of_variables():
    w = tf.Variable([[1.0], [2.0]])

    @tf.function
    def step(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.matmul(x, w) ** 2)
        return tape.gradient(loss, w)

    x = tf.constant([[1.0, 1.0]])
    np.testing.assert_allclose(step(x).numpy(), [[6.0], [6.0]])


def test_tape_around_a_call_of_a_tf_function():
    v = tf.Variable(np.array([0.5, -1.0]))

    @tf.function
    def f(x, scale, steps):
        i = 0
        while i < steps:  # a staged loop inside the function
            x = tf.tanh(x * v) * scale
            i += 1
        return tf.reduce_sum(x * x)

    def plain(x, vv):
        for _ in range(3):
            x = np.tanh(x * vv) * 2.0
        return np.sum(x * x)

    x0 = np.array([0.3, 0.7])
    x = tf.constant(x0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = f(x, 2.0, tf.constant(3))
    gx, gv = tape.gradient(y, [x, v])
    eps = np.eye(2) * 1e-6
    v0 = v.numpy()
    np.testing.assert_allclose(gx.numpy(), [(plain(x0 + e, v0) - plain(x0 - e, v0)) / 2e-6
                                            for e in eps], rtol=1e-6)
    np.testing.assert_allclose(gv.numpy(), [(plain(x0, v0 + e) - plain(x0, v0 - e)) / 2e-6
                                            for e in eps], rtol=1e-6)
    # The trainable Variable read by the function was watched by the tape.
    assert [w is v for w in tape.watched_variables()] == [True]
    # Without a tape the call takes the fast path and records nothing.
    assert float(f(x, 2.0, tf.constant(3))) == float(y)
