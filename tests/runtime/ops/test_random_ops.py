"""Tests for runtime.ops.random_ops: fresh draws per execution, ranges, dtypes, seeding."""
import numpy as np

import runtime as tf
from runtime import context
from runtime.executor import interpret
from runtime.graph import Graph


def test_uniform_range_shape_dtype():
    t = tf.random.uniform([1000], minval=2.0, maxval=3.0)
    assert t.dtype is tf.float32 and t.shape == (1000,)
    values = t.numpy()
    assert values.min() >= 2.0 and values.max() < 3.0
    ints = tf.random.uniform([100], minval=0, maxval=3, dtype=tf.int32).numpy()
    assert ints.dtype == np.int32 and set(ints.tolist()) <= {0, 1, 2}


def test_normal_statistics():
    values = tf.random.normal([20000], mean=5.0, stddev=2.0).numpy()
    assert abs(values.mean() - 5.0) < 0.1 and abs(values.std() - 2.0) < 0.1


def test_graph_draws_fresh_values_each_execution():
    graph = Graph("g")
    with context.graph_scope(graph):
        r = tf.random.uniform([4])
    assert graph.nodes[-1].stateful
    run = interpret(graph, [], [r])
    assert run()[0].tolist() != run()[0].tolist()


def test_set_seed_makes_draws_reproducible():
    tf.random.set_seed(7)
    a = tf.random.normal([3]).numpy()
    tf.random.set_seed(7)
    b = tf.random.normal([3]).numpy()
    assert a.tolist() == b.tolist()
