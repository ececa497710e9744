"""The generated code's buffers: an elementwise result written into a dead input's memory
(`out=`), and TensorArray writes, agreeing with the kernels and their errors.
"""
import numpy as np
import pytest

import runtime as tf
from runtime.executor import codegen
from tests.runtime.codegen_helpers import both as _both
from tests.runtime.codegen_helpers import errors_agree as _errors_agree
from tests.runtime.codegen_helpers import graph_of as _graph

# Warnings these tests trigger on purpose: each case traces a new function.
pytestmark = pytest.mark.filterwarnings("ignore::runtime.function.RetracingWarning")


# -- buffers: an elementwise result goes into a dead input's memory (out=) ----------------------

def test_elementwise_chain_reuses_dead_buffers_and_never_writes_inputs():
    def chain(x):
        for _ in range(3):
            x = tf.tanh(x * 0.5 + 0.25)
        return tf.maximum(x, -0.5)

    graph = _graph(chain, tf.TensorSpec((4, 5), tf.float32))
    source = codegen.generate(graph).source
    assert source.count("out=") == 9  # every op but the first writes over its dead input
    assert "out=x" not in source  # the caller's array is never written
    x = np.linspace(-2, 2, 20, dtype=np.float32).reshape(4, 5)
    before = x.copy()
    got = _both(graph, x)[0]
    np.testing.assert_array_equal(x, before)
    want = x
    for _ in range(3):
        want = np.tanh(want * np.float32(0.5) + np.float32(0.25))
    np.testing.assert_array_equal(got, np.maximum(want, np.float32(-0.5)))


def _shared(x, p):
    y = x * 2.0
    z = tf.cond(p, lambda: y, lambda: y + 1.0)  # z may be y's very array
    w = y + 3.0  # y's last read: but z shares it
    kept = x * 3.0
    out = kept + 1.0
    return z, w, kept, out  # kept is returned: its memory must survive


@pytest.mark.parametrize("p", [True, False])
def test_shared_or_returned_arrays_are_not_overwritten(p):
    graph = _graph(_shared, tf.TensorSpec((3,), tf.float32), tf.TensorSpec((), tf.bool))
    x = np.array([1.0, 2.0, 3.0], np.float32)
    z, w, kept, out = _both(graph, x, np.array(p))
    np.testing.assert_array_equal(z, x * 2 if p else x * 2 + 1)
    np.testing.assert_array_equal(w, x * 2 + 3)
    np.testing.assert_array_equal(kept, x * 3)
    np.testing.assert_array_equal(out, x * 3 + 1)


def _mixed_shapes_and_dtypes(x, m, i):
    y = x * 2.0
    wide = y + m  # broadcasts to m's shape: y's memory is too small
    n = i + 1
    flags = tf.cast(n, tf.float32) > y  # a bool result: no float buffer can hold it
    ta = tf.TensorArray(tf.float32, 1).write(0, wide)
    stored = ta.read(0)
    return wide * 1.5, flags, stored + 0.0, wide


def test_buffers_only_reused_for_the_same_shape_dtype_and_unshared_values():
    graph = _graph(_mixed_shapes_and_dtypes, tf.TensorSpec((3,), tf.float32),
                   tf.TensorSpec((2, 3), tf.float32), tf.TensorSpec((3,), tf.int32))
    x = np.array([1.0, 2.0, 3.0], np.float32)
    m = np.arange(6, dtype=np.float32).reshape(2, 3)
    i = np.array([1, 5, 7], np.int32)
    got = _both(graph, x, m, i)
    wide = x * 2 + m
    np.testing.assert_array_equal(got[0], wide * np.float32(1.5))
    np.testing.assert_array_equal(got[1], (i + 1).astype(np.float32) > x * 2)
    np.testing.assert_array_equal(got[2], wide)
    np.testing.assert_array_equal(got[3], wide)


# -- TensorArray writes: the index checked at run time, dtype and shape when the graph is built -

def _write_at(values, start, size, dynamic):
    ta = tf.TensorArray(tf.float32, size, dynamic_size=dynamic)
    i = start
    for k in tf.range(tf.shape(values)[0]):
        ta = ta.write(i, values[k])
        i += 1
    ta = ta.write(start, values[0] * 2.0)  # overwrites the first write
    return ta.stack(), ta.size()


@pytest.mark.parametrize("dynamic", [False, True])
def test_tensor_array_writes_agree_with_the_kernel(dynamic):
    graph = _graph(lambda v, s: _write_at(v, s, 3, dynamic), tf.TensorSpec((None, 2), tf.float32),
                   tf.TensorSpec((), tf.int32))
    source = codegen.generate(graph).source
    if dynamic:  # the in-range write is inline, into the kernels' list
        assert "items[" in source
    else:  # a buffer of the fixed size, written in place
        assert "_np_zeros((3, 2), _float32)" in source and "items[" not in source
    values = np.arange(6, dtype=np.float32).reshape(3, 2)
    stacked, size = _both(graph, values, np.int32(0))
    np.testing.assert_array_equal(stacked, np.stack([values[0] * 2, values[1], values[2]]))
    assert int(size) == 3
    assert "must be non-negative" in _errors_agree(graph, values, np.int32(-1))
    if dynamic:  # grows past its size, as the kernel does
        stacked, size = _both(graph, values, np.int32(2))
        assert int(size) == 5 and stacked.shape == (5, 2)
        np.testing.assert_array_equal(stacked[2:], np.stack([values[0] * 2, values[1],
                                                             values[2]]))
    else:
        assert "not resizeable" in _errors_agree(graph, values, np.int32(2))


def test_tensor_array_write_of_unknown_shape_keeps_the_kernel_check():
    def rows(x, n):
        ta = tf.TensorArray(tf.float32, 2, element_shape=(3,))
        ta = ta.write(0, x[:n])  # shape (None,): checked when it runs
        return ta.stack()

    graph = _graph(rows, tf.TensorSpec((5,), tf.float32), tf.TensorSpec((), tf.int32))
    assert "items[" not in codegen.generate(graph).source
    x = np.arange(5, dtype=np.float32)
    assert "not compatible" in _errors_agree(graph, x, np.int32(2))


def test_tensor_array_of_scalars_stores_numpy_values():
    def squares(n):
        ta = tf.TensorArray(tf.int32, n)
        for i in tf.range(n):
            ta = ta.write(i, i * i)
        return ta.stack(), ta.read(1)

    graph = _graph(squares, tf.TensorSpec((), tf.int32))
    stacked, second = _both(graph, np.int32(4))
    assert stacked.tolist() == [0, 1, 4, 9] and stacked.dtype == np.int32
    assert int(second) == 1 and np.asarray(second).dtype == np.int32


def _windows(x, n):
    ta = tf.TensorArray(tf.int32, n)
    for i in tf.range(n):
        ta = ta.write(i, tf.reduce_sum(x[i:i + 2]))  # a slice bounded by the Python-int counter
    total = 0
    for i in tf.range(n):
        total += ta.read(i)
    return ta.stack(), total, x[0][...], x[0][None], n[None]


def test_python_int_operands_reach_kernels_as_the_kernels_expect():
    graph = _graph(_windows, tf.TensorSpec((5,), tf.int32), tf.TensorSpec((), tf.int32))
    x = np.array([1, 2, 3, 4, 5], np.int32)
    stacked, total, item, lifted, n = _both(graph, x, np.int32(4))
    assert stacked.tolist() == [3, 5, 7, 9] and int(total) == 24
    assert int(item) == 1 and lifted.tolist() == [1] and n.tolist() == [4]
    assert np.asarray(item).dtype == np.int32 and n.dtype == np.int32


def _sets_its_own_predicate(b, x):
    f5 = x
    flag = False
    k = 0
    while k < b % 4:
        k += 1
        if flag:
            f5 = 2.0
        else:
            flag = True  # the select's predicate is one of its outputs
    return f5


def _reads_before_it_is_replaced(p, b):
    f5 = 2.0
    f8 = f5
    old = 0.0
    k = 0
    while k < b:
        k += 1
        if p:
            old = f8  # the old f8, which the same select also replaces
            f8 = 0.0
        f5 = old + f5
    return f5


@pytest.mark.parametrize("executor", ["compiled", "interpreter"])
def test_select_cond_outputs_are_assigned_in_parallel(executor):
    # Found by the 20,000-program fuzz run (seeds '20261125:12064' and '20261125:17932'): the
    # select-cond assigned its outputs one by one, so a later output read an earlier one's new
    # value (`flag = True if flag else True; f5 = 2.0 if flag else f5`): silently wrong.
    f = tf.function(_sets_its_own_predicate, executor=executor)
    for b in (0, 1, 2, 9):
        assert f(tf.constant(b), tf.constant(-0.25)).numpy() == _sets_its_own_predicate(
            b, -0.25)
    g = tf.function(_reads_before_it_is_replaced, executor=executor)
    for p in (True, False):
        for b in (1, 3, 11):
            assert g(tf.constant(p), tf.constant(b)).numpy() == _reads_before_it_is_replaced(
                p, b)
