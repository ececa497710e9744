"""Runs every corpus function four ways and checks that all four agree.

1. plain Python;
2. converted by autograph, called with Python values;
3. traced by runtime.function with tensor inputs, executed by the reference interpreter;
4. the same, executed by the compiled executor.

They must agree on the result, on what is printed to stdout, and on the exception type.
"""

import contextlib
import io
import math

import numpy as np
import pytest

import autograph as ag
import runtime as tf
from tests.corpus.functions import CORPUS

# Warnings these tests trigger on purpose: each corpus function is traced for each of its inputs,
# and retraces on purpose.
pytestmark = pytest.mark.filterwarnings("ignore::runtime.function.RetracingWarning")

_IDS = [c.fn.__name__ for c in CORPUS]


def _run(fn, args):
    """Calls fn(*args); returns (result, exception type or None, stdout text)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            result, exc = fn(*args), None
        except Exception as e:  # noqa: BLE001 - the type is what is compared
            result, exc = None, type(e)
    return result, exc, out.getvalue()


def _to_tensor_args(args):
    """Numeric arguments become eager tensors; everything else stays a Python value."""
    return tuple(
        tf.constant(a) if isinstance(a, (bool, int, float)) else a for a in args)


def _to_python(value):
    """Turns (nested) tensors into Python values so results can be compared."""
    if isinstance(value, tf.Tensor):
        value = value.numpy()
    if isinstance(value, np.ndarray):
        value = value.item() if value.ndim == 0 else value.tolist()
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bytes):
        # tf.function returns Python strings as string tensors, which hold bytes (as in TF).
        return value.decode()
    if isinstance(value, (list, tuple)):
        return type(value)(_to_python(v) for v in value)
    if isinstance(value, dict):
        return {k: _to_python(v) for k, v in value.items()}
    return value


def _assert_same(expected, actual, how):
    if isinstance(expected, float) or isinstance(actual, float):
        assert math.isclose(expected, actual, rel_tol=1e-5, abs_tol=1e-6), (how, expected, actual)
    elif isinstance(expected, (list, tuple)):
        assert isinstance(actual, (list, tuple)) and len(actual) == len(expected), (
            how, expected, actual)
        for e, a in zip(expected, actual):
            _assert_same(e, a, how)
    else:
        assert expected == actual, (how, expected, actual)


@pytest.mark.parametrize("case", CORPUS, ids=_IDS)
def test_converted_matches_plain(case):
    converted = ag.convert(case.fn)
    for args in case.inputs:
        expected = _run(case.fn, args)
        actual = _run(converted, args)
        assert actual[1] == expected[1], (args, "exception", expected[1], actual[1])
        assert actual[2] == expected[2], (args, "stdout")
        _assert_same(expected[0], actual[0], ("converted", args))


@pytest.mark.parametrize("executor", ["interpreter", "compiled"])
@pytest.mark.parametrize("case", CORPUS, ids=_IDS)
def test_traced_matches_plain(case, executor):
    traced = tf.function(case.fn, executor=executor)
    for args in case.inputs:
        expected = _run(case.fn, args)
        staged_args = _to_tensor_args(args) if case.stageable else args
        result, exc, stdout = _run(traced, staged_args)
        assert exc == expected[1], (args, "exception", expected[1], exc)
        assert stdout == expected[2], (args, "stdout")
        _assert_same(expected[0], _to_python(result), (executor, args))


def test_corpus_is_large_enough():
    # The corpus is the project's main equivalence check; it must stay broad.
    assert len(CORPUS) >= 60
    assert sum(c.stageable for c in CORPUS) >= 50
