"""TensorArrays held as preallocated buffers by the generated code (runtime/executor/array_buffers).

Every case runs the graph through the reference interpreter (the kernels' Python lists) and the
compiled code, which must agree in values, dtypes and errors; the source shows which form the
code took.
"""
import numpy as np
import pytest

import runtime as tf
from runtime.executor import array_buffers
from runtime.executor import codegen
from runtime.executor import interpret
from runtime.ops import registry
from tests.runtime.test_codegen_fastpaths import _errors_agree
from tests.runtime.test_codegen_fastpaths import _graph

pytestmark = pytest.mark.filterwarnings("ignore::runtime.function.RetracingWarning")


def _both(graph, *feeds):
    expected = interpret(graph, graph.inputs, graph.outputs)(*feeds)
    actual = codegen.compile(graph)(*feeds)
    for e, a in zip(expected, actual):
        assert np.asarray(e).dtype == np.asarray(a).dtype
        assert np.shape(e) == np.shape(a)
        np.testing.assert_array_equal(np.asarray(e), np.asarray(a))
    return actual


def test_bindings_name_structured_ops():
    for op in array_buffers._BINDINGS:
        assert registry.get_op(op).structured


def _counts(ns):
    steps = tf.TensorArray(tf.int32, size=tf.shape(ns)[0])
    for k in tf.range(tf.shape(ns)[0]):
        n = ns[k]
        count = 0
        while n > 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            count += 1
        steps = steps.write(k, count)
    return steps.stack(), steps.read(1), steps.size()


def test_int_scalars_are_a_python_list_converted_once():
    graph = _graph(_counts, tf.TensorSpec((None,), tf.int32))
    source = codegen.generate(graph).source
    assert "[0] * " in source and "_np_array(" in source
    assert "_k_tensor_array" not in source  # no kernel call left
    stacked, second, size = _both(graph, np.arange(1, 9, dtype=np.int32))
    assert stacked.tolist() == [0, 1, 7, 2, 5, 8, 16, 3]
    assert int(second) == 1 and int(size) == 8
    assert "array size is: 0" in _errors_agree(graph, np.zeros(0, np.int32))


def _rows(xs, state):
    outputs = tf.TensorArray(tf.float32, size=xs.shape[0])
    for i in tf.range(xs.shape[0]):
        state = tf.tanh(xs[i] * 0.5 + state)
        outputs = outputs.write(i, state)
    return outputs.stack(), state


def test_rows_are_written_into_one_array_returned_by_its_last_stack():
    graph = _graph(_rows, tf.TensorSpec((6, 3), tf.float32), tf.TensorSpec((3,), tf.float32))
    source = codegen.generate(graph).source
    assert "_np_zeros((6, 3), _float32)" in source
    assert ".copy()" not in source and "_k_tensor_array" not in source
    assert "if not 0 <=" not in source  # the counter is known to be in range(6)
    xs = np.linspace(-1, 1, 18, dtype=np.float32).reshape(6, 3)
    _both(graph, xs, np.zeros(3, np.float32))


def test_a_stack_read_later_is_a_copy_and_reads_keep_their_values():
    def snapshots(x):
        ta = tf.TensorArray(tf.float32, 2)
        ta = ta.write(0, x)
        first = ta.stack()
        old = ta.read(0)
        ta = ta.write(0, x * 2.0)
        ta = ta.write(1, x * 3.0)
        return first, old, ta.stack()

    graph = _graph(snapshots, tf.TensorSpec((2,), tf.float32))
    assert "_np_zeros((2, 2), _float32)" in codegen.generate(graph).source
    first, old, last = _both(graph, np.array([1.0, 2.0], np.float32))
    assert first.tolist() == [[1.0, 2.0], [0.0, 0.0]]  # the unwritten row reads as zeros
    assert old.tolist() == [1.0, 2.0] and last.tolist() == [[2.0, 4.0], [3.0, 6.0]]


def _indexed(x, i, j):
    ta = tf.TensorArray(tf.float32, 3)
    ta = ta.write(i, x)
    return ta.read(j), ta.stack()


def test_indices_out_of_range_raise_the_kernels_errors():
    graph = _graph(_indexed, tf.TensorSpec((), tf.float32), tf.TensorSpec((), tf.int32),
                   tf.TensorSpec((), tf.int32))
    assert "_np_zeros((3,), _float32)" in codegen.generate(graph).source
    x = np.float32(2.5)
    read, stacked = _both(graph, x, np.int32(2), np.int32(2))
    assert float(read) == 2.5 and stacked.tolist() == [0.0, 0.0, 2.5]
    assert "not resizeable" in _errors_agree(graph, x, np.int32(3), np.int32(0))
    assert "must be non-negative" in _errors_agree(graph, x, np.int32(-1), np.int32(0))
    assert "array size is: 3" in _errors_agree(graph, x, np.int32(0), np.int32(3))
    assert "must be non-negative" in _errors_agree(graph, x, np.int32(0), np.int32(-2))


def test_a_negative_size_makes_an_empty_array_as_the_kernel_does():
    def empty(n):
        ta = tf.TensorArray(tf.float32, n, element_shape=(2,))
        return ta.stack(), ta.size()

    graph = _graph(empty, tf.TensorSpec((), tf.int32))
    assert "max(" in codegen.generate(graph).source
    stacked, size = _both(graph, np.int32(-1))
    assert stacked.shape == (0, 2) and int(size) == 0


def test_bools_through_a_cond():
    def flags(x):
        ta = tf.TensorArray(tf.bool, 4)
        for i in tf.range(4):
            if x[i] > 0:
                ta = ta.write(i, x[i] > 1)
        return ta.stack()

    graph = _graph(flags, tf.TensorSpec((4,), tf.float32))
    source = codegen.generate(graph).source
    assert "[False] * 4" in source and "_k_tensor_array" not in source
    _both(graph, np.array([-1.0, 2.0, 0.5, 3.0], np.float32))


@pytest.mark.parametrize("case", ["dynamic", "unstack", "concat", "unknown_shape", "two_arrays"])
def test_other_arrays_keep_the_kernels_list(case):
    def fn(x, flag):
        ta = tf.TensorArray(tf.float32, 2, dynamic_size=case == "dynamic")
        if case == "unstack":
            ta = ta.unstack(tf.stack([x, x]))
        ta = ta.write(0, x if case != "unknown_shape" else x[:tf.shape(x)[0] - 1])
        if case == "two_arrays":
            other = tf.TensorArray(tf.float32, 2).write(1, x)
            ta = tf.cond(flag, lambda: ta, lambda: other)
        if case == "concat":
            return ta.concat()
        return ta.stack()

    graph = _graph(fn, tf.TensorSpec((3,), tf.float32), tf.TensorSpec((), tf.bool))
    source = codegen.generate(graph).source
    assert "_np_zeros" not in source and "_k_tensor_array" in source
    x = np.array([1.0, 2.0, 3.0], np.float32)
    _both(graph, x, np.bool_(True))
    if case == "two_arrays":
        _both(graph, x, np.bool_(False))


def test_scan_writes_its_outputs_into_a_buffer():
    graph = _graph(lambda x: tf.scan(lambda a, v: a + v, x), tf.TensorSpec((5, 2), tf.float32))
    assert "_np_zeros(" in codegen.generate(graph).source
    _both(graph, np.arange(10, dtype=np.float32).reshape(5, 2))
