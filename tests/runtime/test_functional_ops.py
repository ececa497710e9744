"""tf.map_fn, tf.scan, TensorArray.concat, tf.nest.map_structure and GraphDef.library.

Each runs eagerly and inside tf.function on both executors; expected values are worked out
by hand.
"""
import collections

import numpy as np
import pytest

import runtime as tf

EXECUTORS = ["compiled", "interpreter"]


def _three_ways(fn, *args):
    """fn's results eagerly and traced on each executor, as numpy (nested like fn's)."""
    out = [tf.nest.map_structure(np.asarray, fn(*args))]
    for executor in EXECUTORS:
        traced = tf.function(fn, executor=executor)
        out.append(tf.nest.map_structure(np.asarray, traced(*args)))
    return out


def _assert_all(results, expected):
    for got in results:
        tf.nest.assert_same_structure(got, expected)
        for g, e in zip(tf.nest.flatten(got), tf.nest.flatten(expected)):
            assert g.dtype == e.dtype, (g.dtype, e.dtype)
            np.testing.assert_array_equal(g, e)


def _square_or_negate(x):
    # Python control flow on a tensor: converted by autograph inside map_fn.
    if x > 2:
        return x * x
    return -x


def test_map_fn_converts_control_flow_in_fn():
    results = _three_ways(lambda v: tf.map_fn(_square_or_negate, v),
                          tf.constant([1, 2, 3, 4]))
    _assert_all(results, np.array([-1, -2, 9, 16], np.int32))


def test_map_fn_nested_elems_and_output_signature():
    def pairs(a, b):
        return tf.map_fn(lambda row: {'sum': row[0] + tf.cast(row[1], tf.float32),
                                      'first': row[1]},
                         (a, b),
                         fn_output_signature={'sum': tf.float32, 'first': tf.int32})
    results = _three_ways(pairs, tf.constant([[0.5, 1.0], [2.0, 3.0]]), tf.constant([1, 2]))
    # row 0: [0.5, 1.0] + 1 = [1.5, 2.0]; row 1: [2.0, 3.0] + 2 = [4.0, 5.0]
    _assert_all(results, {'sum': np.array([[1.5, 2.0], [4.0, 5.0]], np.float32),
                          'first': np.array([1, 2], np.int32)})


def test_map_fn_zero_rows_and_scalar_error():
    results = _three_ways(lambda v: tf.map_fn(lambda x: x + 1.0, v), tf.zeros([0, 2]))
    for got in results:
        assert got.shape[0] == 0 and got.dtype == np.float32
    with pytest.raises(ValueError, match='elems must be tensors of rank >= 1'):
        tf.map_fn(lambda x: x, tf.constant(3))


def test_scan_running_sum_and_product():
    results = _three_ways(lambda v: tf.scan(lambda acc, x: acc + x, v),
                          tf.constant([1, 2, 3, 4]))
    _assert_all(results, np.array([1, 3, 6, 10], np.int32))
    results = _three_ways(lambda v: tf.scan(lambda acc, x: acc * x, v, initializer=2.0),
                          tf.constant([1.0, 2.0, 3.0]))
    _assert_all(results, np.array([2.0, 4.0, 12.0], np.float32))


def test_scan_reverse_and_nested_accumulator():
    results = _three_ways(lambda v: tf.scan(lambda acc, x: acc + x, v, reverse=True),
                          tf.constant([1, 2, 3, 4]))
    # from the end: 4, 4+3, 7+2, 9+1, written at their own row positions
    _assert_all(results, np.array([10, 9, 7, 4], np.int32))

    def fib(v):
        return tf.scan(lambda acc, _: (acc[1], acc[0] + acc[1]), v,
                       initializer=(tf.constant(0), tf.constant(1)))
    results = _three_ways(fib, tf.zeros([5], tf.int32))
    _assert_all(results, (np.array([1, 1, 2, 3, 5], np.int32),
                          np.array([1, 2, 3, 5, 8], np.int32)))


def _scan_loss_gradient(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(tf.scan(lambda acc, v: acc + v * v, x))
    return tape.gradient(loss, x)


def _map_loss_gradient(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(tf.map_fn(lambda v: v * v, x))
    return tape.gradient(loss, x)


def test_scan_and_map_fn_gradients():
    # scan without initializer: outputs x0, x0 + x1^2, x0 + x1^2 + x2^2, so the loss is
    # 3 x0 + 2 x1^2 + x2^2 and its gradient (3, 4 x1, 2 x2) = (3, 8, 6) at (1, 2, 3).
    results = _three_ways(_scan_loss_gradient, tf.constant([1.0, 2.0, 3.0]))
    _assert_all(results, np.array([3.0, 8.0, 6.0], np.float32))
    # map_fn of v*v: the gradient of sum(x^2) is 2x.
    results = _three_ways(_map_loss_gradient, tf.constant([1.0, 2.0, 3.0]))
    _assert_all(results, np.array([2.0, 4.0, 6.0], np.float32))


def test_tensor_array_concat():
    def concat(a, b):
        ta = tf.TensorArray(tf.int32, size=3, infer_shape=False)
        ta = ta.write(0, a).write(1, b).write(2, a)
        return ta.concat()
    results = _three_ways(concat, tf.constant([[1, 2]]), tf.constant([[3, 4], [5, 6]]))
    _assert_all(results, np.array([[1, 2], [3, 4], [5, 6], [1, 2]], np.int32))
    with pytest.raises(tf.errors.InvalidArgumentError, match='requires at least vectors'):
        tf.TensorArray(tf.float32, size=1).write(0, 1.0).concat()


def test_tensor_array_concat_in_a_staged_loop():
    @tf.function
    def pieces(n):
        ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True, infer_shape=False)
        for i in tf.range(n):
            ta = ta.write(i, tf.fill([i + 1], i))
        return ta.concat()
    assert pieces(tf.constant(3)).numpy().tolist() == [0, 1, 1, 2, 2, 2]


Pair = collections.namedtuple('Pair', 'left right')


def test_nest_map_structure_several_structures():
    added = tf.nest.map_structure(lambda a, b, c: a + b * c, {'x': 1, 'y': [2, 3]},
                                  {'x': 10, 'y': [20, 30]}, {'x': 2, 'y': [1, 0]})
    assert added == {'x': 21, 'y': [22, 3]}
    assert tf.nest.map_structure(lambda a, b: a - b, Pair(5, 7), Pair(1, 2)) == Pair(4, 5)
    with pytest.raises(ValueError, match="don't have the same nested structure"):
        tf.nest.map_structure(lambda a, b: a, [1, 2], [1, 2, 3])
    with pytest.raises(TypeError, match="don't have the same sequence type"):
        tf.nest.map_structure(lambda a, b: a, [1, 2], (1, 2))
    assert tf.nest.map_structure(lambda a, b: a + b, [1, 2], (3, 4),
                                 check_types=False) == [4, 6]
    with pytest.raises(ValueError, match='at least one structure'):
        tf.nest.map_structure(lambda: 0)


def test_nest_map_structure_on_tensors_in_a_function():
    def scaled(x, y):
        return tf.nest.map_structure(lambda a, b: a * b, {'p': x, 'q': (x, y)},
                                     {'p': y, 'q': (y, y)})
    results = _three_ways(scaled, tf.constant(2.0), tf.constant(3.0))
    _assert_all(results, {'p': np.float32(6.0), 'q': (np.float32(6.0), np.float32(9.0))})


def test_graph_def_library_lists_every_subgraph():
    @tf.function
    def f(x):
        while x > 1:
            if x % 2 == 0:
                x = x // 2
            else:
                x = 3 * x + 1
        return x
    graph_def = f.get_concrete_function(tf.constant(6)).graph.as_graph_def()
    names = [fn.signature.name for fn in graph_def.library.function]
    # the if inside the body, the body, and the loop condition, all with unique names
    assert len(names) == len(set(names)) and len(names) >= 4, names
    loop = next(n for n in graph_def.node if n.op in ('While', 'StatelessWhile'))
    assert loop.attr['cond_graph_name'] in names and loop.attr['body_graph_name'] in names
    body = next(fn for fn in graph_def.library.function
                if fn.signature.name == loop.attr['body_graph_name'])
    assert any(n.op in ('If', 'StatelessIf') for n in body.node_def)
    assert [a.type for a in body.signature.input_arg][:1] == [tf.int32]
    assert set(body.ret) == {a.name for a in body.signature.output_arg}
    plain = tf.function(lambda x: x + 1).get_concrete_function(tf.constant(1))
    assert plain.graph.as_graph_def().library.function == []


def test_top_level_math_aliases_are_tf_math():
    # TensorFlow 2 exposes these tf.math ops at the top level too (tf.sin, tf.round, ...).
    for name in ("sin", "cos", "floor", "round", "exp", "sqrt", "tanh", "sigmoid", "sign"):
        assert getattr(tf, name) is getattr(tf.math, name), name
        assert name in tf.__all__
