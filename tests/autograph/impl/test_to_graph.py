"""Tests for autograph.to_graph, TensorFlow's tf.autograph.to_graph."""
import inspect

import pytest

import autograph as ag
import runtime as tf


def collatz(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def test_same_signature_as_tensorflow():
    assert str(inspect.signature(ag.to_graph)) == \
        '(entity, recursive=True, experimental_optional_features=None)'
    assert tf.autograph.to_graph is ag.to_graph


def test_converted_function_matches_python_and_stages():
    converted = ag.to_graph(collatz)
    assert [converted(n) for n in (1, 6, 27)] == [collatz(n) for n in (1, 6, 27)]
    staged = tf.function(converted, autograph=False)
    assert int(staged(tf.constant(27))) == collatz(27)


def test_optional_features_are_refused_with_a_reason():
    with pytest.raises(ValueError, match='has no optional features'):
        ag.to_graph(collatz, experimental_optional_features=('list',))
