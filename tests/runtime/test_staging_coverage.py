"""What plain Python expresses, staged (issue #11): the staged function does what the plain one
does on the same numbers, on both executors, and converted code on Python values is plain."""

import numpy as np
import pytest

import autograph as ag
import runtime as tf


@pytest.fixture(params=["compiled", "interpreter"])
def executor(request):
    return request.param


def _value(t):
    if isinstance(t, (tuple, list)):
        return type(t)(_value(v) for v in t)
    if isinstance(t, tf.Tensor):
        t = t.numpy()
    return t.item() if isinstance(t, np.ndarray | np.generic) else t


def check(fn, executor, *inputs, dtype=None):
    """Checks converted == plain on Python values and staged == plain on tensors."""
    converted = ag.convert(fn)
    staged = tf.function(fn, executor=executor)
    for args in inputs:
        args = args if isinstance(args, tuple) else (args,)
        expected = fn(*args)
        assert converted(*args) == expected, args
        tensors = [tf.constant(a, dtype) if isinstance(a, (int, float)) else a for a in args]
        assert _value(staged(*tensors)) == expected, args


# --- chained comparisons and membership ---------------------------------------------------------

def in_band(x, lo, hi):
    if lo <= x < hi:
        return x * 2
    return x


def test_chained_comparison(executor):
    check(in_band, executor, (0, 1, 3), (1, 1, 3), (2, 1, 3), (3, 1, 3), (5, 1, 3))


def classify(x):
    if x in (1, 2):
        kind = 1
    elif x not in [3, 4, 5]:
        kind = 2
    else:
        kind = 3
    return kind + (10 if x in {7, 8} else 0)


def test_membership_in_a_python_container_of_numbers(executor):
    check(classify, executor, 0, 1, 2, 3, 5, 7, 8)


def chained_floats(x):
    return -1.0 < x <= 1.0 != x


def test_chained_comparison_as_a_value(executor):
    check(chained_floats, executor, -2.0, -0.5, 1.0, 3.0, dtype=tf.float32)
