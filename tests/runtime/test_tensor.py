"""Tests for runtime.tensor: conversion defaults, operators, repr, and symbolic-tensor errors."""
import collections

import numpy as np
import pytest

import runtime as tf
from runtime import context
from runtime.graph import Graph
from runtime.tensor import EagerTensor
from runtime.tensor import SymbolicTensor
from runtime.tensor import TensorShape
from runtime.tensor_conversion import constant_value


def test_python_defaults_int32_float32_bool_string():
    assert tf.constant(1).dtype is tf.int32
    assert tf.constant(1.0).dtype is tf.float32
    assert tf.constant([True]).dtype is tf.bool
    assert tf.constant("a").dtype is tf.string
    assert tf.constant([[1, 2]]).dtype is tf.int32
    assert tf.constant([1, 2.5]).dtype is tf.float32


def test_large_python_int_becomes_int64():
    assert tf.constant(2**40).dtype is tf.int64


def test_strings_are_bytes_like_tensorflow():
    t = tf.constant("héllo")
    assert t.numpy() == "héllo".encode("utf-8")
    assert str(tf.constant("a") + "b") == "tf.Tensor(b'ab', shape=(), dtype=string)"
    assert tf.constant(["a", b"b"]).numpy().tolist() == [b"a", b"b"]


def test_numpy_arrays_keep_their_dtype():
    assert tf.constant(np.array([1.0])).dtype is tf.float64
    assert tf.constant(np.int64(3)).dtype is tf.int64
    assert tf.constant(np.array([1], np.uint8)).dtype is tf.uint8


def test_constant_with_dtype_and_shape():
    t = tf.constant(3, dtype=tf.float64, shape=[2, 2])
    assert t.dtype is tf.float64
    assert t.numpy().tolist() == [[3.0, 3.0], [3.0, 3.0]]
    with pytest.raises(TypeError, match="Cannot convert 1.5 to a tensor of dtype int32"):
        tf.constant(1.5, dtype=tf.int32)


def test_shape_is_tuple_like():
    t = tf.zeros([2, 3])
    assert t.shape == (2, 3)
    assert t.shape == [2, 3]
    assert t.shape.as_list() == [2, 3]
    assert t.shape.rank == 2
    assert repr(t.shape) == "TensorShape([2, 3])"
    assert str(t.shape) == "(2, 3)"
    assert TensorShape((None, 3)).is_compatible_with((5, 3))
    assert not TensorShape((None, 3)).is_compatible_with((5, 4))


def test_repr_and_str_follow_tensorflow():
    t = tf.constant([1, 2, 3])
    assert repr(t) == ("<tf.Tensor: shape=(3,), dtype=int32, numpy=array([1, 2, 3], "
                       "dtype=int32)>")
    assert str(t) == "tf.Tensor([1 2 3], shape=(3,), dtype=int32)"
    assert repr(tf.constant(1.5)) == "<tf.Tensor: shape=(), dtype=float32, numpy=1.5>"
    assert str(tf.constant(True)) == "tf.Tensor(True, shape=(), dtype=bool)"
    assert str(tf.constant([[1, 2], [3, 4]])) == (
        "tf.Tensor(\n[[1 2]\n [3 4]], shape=(2, 2), dtype=int32)")


def test_operators_and_reflected_operators():
    x = tf.constant([6, -7])
    assert (x + 1).numpy().tolist() == [7, -6]
    assert (1 - x).numpy().tolist() == [-5, 8]
    assert (x * 2).numpy().tolist() == [12, -14]
    assert (x // 4).numpy().tolist() == [1, -2]
    assert (x % 4).numpy().tolist() == [2, 1]
    assert (-x).numpy().tolist() == [-6, 7]
    assert abs(x).numpy().tolist() == [6, 7]
    assert (x / 4).dtype is tf.float64
    assert (2 ** tf.constant([3])).numpy().tolist() == [8]
    assert (x & 3).numpy().tolist() == [2, 1]
    assert (x | 1).numpy().tolist() == [7, -7]
    assert (x ^ 1).numpy().tolist() == [7, -8]
    assert (~x).numpy().tolist() == [-7, 6]
    assert (x >> 1).numpy().tolist() == [3, -4]
    assert (x << 1).numpy().tolist() == [12, -14]
    assert (x > 0).numpy().tolist() == [True, False]
    assert (x == 6).numpy().tolist() == [True, False]
    assert (x != 6).numpy().tolist() == [False, True]
    m = tf.constant([[1, 2], [3, 4]])
    assert (m @ m).numpy().tolist() == [[7, 10], [15, 22]]


def test_bool_tensor_operators_are_logical():
    a = tf.constant([True, False])
    assert (a & True).numpy().tolist() == [True, False]
    assert (a | True).numpy().tolist() == [True, True]
    assert (~a).numpy().tolist() == [False, True]


def test_numpy_left_operand_defers_to_tensor():
    out = np.array([1, 2], np.int32) + tf.constant([10, 20])
    assert isinstance(out, EagerTensor)
    assert out.numpy().tolist() == [11, 22]


def test_eager_numpy_array_bool_len_iter_index():
    t = tf.constant([[1, 2], [3, 4]])
    assert np.asarray(t).tolist() == [[1, 2], [3, 4]]
    assert len(t) == 2
    assert [row.numpy().tolist() for row in t] == [[1, 2], [3, 4]]
    assert bool(tf.constant(True)) is True
    assert [10, 20, 30][tf.constant(1)] == 20
    assert int(tf.constant(7)) == 7 and float(tf.constant(2.5)) == 2.5
    assert f"{tf.constant(2.5):.2f}" == "2.50"


def _symbolic():
    graph = Graph("g")
    with context.graph_scope(graph):
        x = graph.placeholder(tf.float32, (3,), name="x")
        return graph, x, x + 1.0


def test_symbolic_tensor_properties():
    graph, x, y = _symbolic()
    assert isinstance(y, SymbolicTensor) and isinstance(y, tf.Tensor)
    assert y.name == "add:0"
    assert y.shape == (3,) and y.dtype is tf.float32
    assert y.graph is graph
    assert repr(y) == "<tf.Tensor 'add:0' shape=(3,) dtype=float32>"
    assert str(y) == 'Tensor("add:0", shape=(3,), dtype=float32)'


def test_symbolic_bool_says_use_autograph_or_cond():
    _, x, y = _symbolic()
    with pytest.raises(TypeError, match=r"as a Python bool.*autograph.*tf\.cond / tf\.while_loop"):
        bool(y)
    with pytest.raises(TypeError, match="Iterating over the symbolic tensor 'add:0'.*autograph"):
        iter(y)
    with pytest.raises(TypeError, match="len"):
        len(y)
    with pytest.raises(TypeError, match="cannot be used as a Python int"):
        [1, 2][y]


def test_symbolic_numpy_is_a_clear_error():
    _, x, y = _symbolic()
    with pytest.raises(NotImplementedError, match=r"Cannot call \.numpy\(\) on the symbolic "
                                                  r"tensor 'add:0'"):
        y.numpy()
    with pytest.raises(TypeError, match="Cannot convert the symbolic tensor 'add:0' to a numpy"):
        np.asarray(y)


def test_leaked_symbolic_tensor_used_eagerly():
    _, x, y = _symbolic()
    with pytest.raises(TypeError, match="symbolic tensor 'add:0' of graph 'g' was used outside "
                                        "that graph, in eager execution"):
        y * 2.0


def test_leaked_symbolic_tensor_used_in_unrelated_graph():
    _, x, y = _symbolic()
    other = Graph("other")
    with context.graph_scope(other):
        with pytest.raises(TypeError, match="tensor 'add:0' belongs to graph 'g', which does "
                                            "not enclose graph 'other'"):
            y * 2.0


def test_tensor_spec():
    spec = tf.TensorSpec([None, 3], tf.int32, name="x")
    assert repr(spec) == "TensorSpec(shape=(None, 3), dtype=tf.int32, name='x')"
    assert spec.is_compatible_with(tf.zeros([5, 3], tf.int32))
    assert not spec.is_compatible_with(tf.zeros([5, 3], tf.float32))
    assert not spec.is_compatible_with(tf.zeros([5, 4], tf.int32))
    assert spec == tf.TensorSpec((None, 3), tf.int32, "x")
    assert hash(spec) == hash(tf.TensorSpec((None, 3), tf.int32, "x"))
    assert tf.TensorSpec(None, tf.float32).is_compatible_with(tf.zeros([2, 2]))


def test_constant_value_of_graph_constants_and_static_shapes():
    graph = Graph("g")
    with context.graph_scope(graph):
        x = graph.placeholder(tf.float32, (2, 3), name="x")
        c = tf.constant([4, 5])
        assert isinstance(c, SymbolicTensor) and c.node.op == "constant"
        assert constant_value(c).tolist() == [4, 5]
        assert constant_value(tf.shape(x)).tolist() == [2, 3]
        assert constant_value(x) is None


def test_convert_to_tensor_errors():
    with pytest.raises(TypeError, match="Expected a tensor, number, string"):
        tf.convert_to_tensor(object())
    with pytest.raises(tf.errors.InvalidArgumentError, match="Expected a tensor of dtype "
                                                            "float32, found int32"):
        tf.convert_to_tensor(tf.constant(1), dtype=tf.float32)
    pair = collections.namedtuple("Pair", "a b")
    assert tf.convert_to_tensor(pair(1, 2)).numpy().tolist() == [1, 2]


def test_list_of_tensors_is_stacked():
    t = tf.convert_to_tensor([tf.constant(1), 2])
    assert t.numpy().tolist() == [1, 2] and t.dtype is tf.int32


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")  # on purpose
def test_array_subclasses_become_plain_arrays():
    # as in TensorFlow: np.matrix's `*` would multiply matrices, and its rows stay 2-d
    matrix = np.matrix([[1, 2], [3, 4]], dtype=np.int32)
    t = tf.constant(matrix)
    assert type(t.numpy()) is np.ndarray
    assert (t * t).numpy().tolist() == [[1, 4], [9, 16]]
    assert t[0].shape == (2,)
    masked = np.ma.array([1.5, 2.5], mask=[0, 1], dtype=np.float32)
    assert tf.constant(masked).numpy().tolist() == [1.5, 2.5]  # the data, as np.asarray gives


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")  # on purpose
@pytest.mark.parametrize("executor", ["compiled", "interpreter"])
def test_a_matrix_argument_is_read_element_by_element_as_an_array(executor):
    @tf.function(executor=executor)
    def total(x):
        s = 0
        for i in tf.range(2):
            for j in tf.range(3):
                s += x[i, j] * (j + 1)
        return s

    matrix = np.matrix([[1, 2, 3], [4, 5, 6]], dtype=np.int32)
    assert int(total(matrix)) == 1 + 4 + 9 + 4 + 10 + 18
    assert int(total(tf.constant(matrix))) == 46
