"""One conformance harness: the shared corpus run on a backend and compared with plain Python.

A backend takes part through a `Way`: how its staged values are made from the corpus's
numbers (`to_staged`), how a corpus function is converted and run staged (`run`), and how its
results become Python values again (`to_python`). `mismatch` runs every input of a case both
ways; results, printed text and exception types must agree, except for the cases a way lists
in `cannot_express`, each of which must fail the way listed there (so the list cannot go
stale). tests/corpus/test_corpus.py runs the runtime's and JAX's ways; tests/torch runs
PyTorch's.
"""

import contextlib
import io
import math

import numpy as np


class Way:
    """How one backend runs the corpus. Subclass it and override the three methods.

    Attributes:
        name: a short name for test ids, e.g. 'jax'.
        cannot_express: corpus function name -> (the exception type its staged run raises, or
            'differs' when it runs but gives another result; the reason, for people).
    """

    name = 'way'
    cannot_express = {}

    def to_staged(self, value):
        """A corpus number (int, float or bool) as the backend's staged value."""
        raise NotImplementedError

    def run(self, case, args):
        """Runs `case.fn` converted and staged on `args` (numbers already staged when the case
        is stageable); returns its raw result. Staged prints must be done when it returns."""
        raise NotImplementedError

    def to_python(self, value):
        """The backend's result as Python values (nested lists and tuples kept)."""
        raise NotImplementedError


def run_plain(fn, args):
    """Calls fn(*args); returns (result, exception type or None, stdout text)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            result, exc = fn(*args), None
        except Exception as e:  # noqa: BLE001 - the type is what is compared
            result, exc = None, type(e)
    return result, exc, out.getvalue()


def staged_args(way, case, args):
    """The arguments of a staged run: numbers become staged values when the case is stageable."""
    if not case.stageable:
        return args
    return tuple(way.to_staged(a) if isinstance(a, (bool, int, float)) else a for a in args)


def assert_same(expected, actual, how):
    if isinstance(expected, float) or isinstance(actual, float):
        assert math.isclose(expected, actual, rel_tol=1e-5, abs_tol=1e-6), (how, expected, actual)
    elif isinstance(expected, (list, tuple)):
        assert isinstance(actual, (list, tuple)) and len(actual) == len(expected), (
            how, expected, actual)
        for e, a in zip(expected, actual):
            assert_same(e, a, how)
    else:
        assert expected == actual, (how, expected, actual)


def numpy_to_python(value):
    """numpy arrays and scalars, bytes and nested containers of them as Python values."""
    if isinstance(value, np.ndarray):
        value = value.item() if value.ndim == 0 else value.tolist()
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bytes):
        # tf.function returns Python strings as string tensors, which hold bytes (as in TF).
        return value.decode()
    if isinstance(value, (list, tuple)):
        return type(value)(numpy_to_python(v) for v in value)
    if isinstance(value, dict):
        return {k: numpy_to_python(v) for k, v in value.items()}
    return value


def mismatch(way, case):
    """Returns None when every input agrees with plain Python, else how the first differed:
    the staged run's exception type, or 'differs'."""
    for args in case.inputs:
        expected = run_plain(case.fn, args)
        result, exc, stdout = run_plain(lambda: way.to_python(way.run(
            case, staged_args(way, case, args))), ())
        if exc is not None or expected[1] is not None:
            if exc != expected[1]:
                return exc or 'differs'
            continue
        if stdout != expected[2]:
            return 'differs'
        try:
            assert_same(expected[0], result, (way.name, args))
        except AssertionError:
            return 'differs'
    return None


def check(way, case):
    """Asserts that `case` runs on `way` as plain Python, or fails as `cannot_express` says."""
    expected = way.cannot_express.get(case.fn.__name__, (None,))[0]
    got = mismatch(way, case)
    assert got == expected, (case.fn.__name__, got)
