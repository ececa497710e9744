"""Helpers of the code generator's tests: a graph traced from a function, and a graph run on
both executors (which must agree, dtypes and errors included)."""
import numpy as np
import pytest

import runtime as tf
from runtime.errors import InvalidArgumentError
from runtime.executor import codegen
from runtime.executor import interpret


def both(graph, *feeds):
    """Runs `graph` on the interpreter and the compiled executor; returns the compiled results
    after checking that they equal the interpreter's (values and dtypes)."""
    expected = interpret(graph, graph.inputs, graph.outputs)(*feeds)
    actual = codegen.compile(graph)(*feeds)
    assert len(expected) == len(actual)
    for e, a in zip(expected, actual):
        assert np.asarray(e).dtype == np.asarray(a).dtype
        np.testing.assert_array_equal(np.asarray(e), np.asarray(a))
    return actual


def graph_of(fn, *specs):
    """The graph `tf.function(fn)` traces for `specs`."""
    return tf.function(fn).get_concrete_function(*specs).graph


def errors_agree(graph, *feeds):
    """Checks that both executors raise the same InvalidArgumentError; returns its message."""
    with pytest.raises(InvalidArgumentError) as interpreted:
        interpret(graph, graph.inputs, graph.outputs)(*feeds)
    with pytest.raises(InvalidArgumentError) as compiled:
        codegen.compile(graph)(*feeds)
    assert str(compiled.value) == str(interpreted.value)
    return str(compiled.value)
