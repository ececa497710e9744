"""The corpus run a fifth way: converted, then jax.jit-ted, on JAX values (the JAX backend).

Numeric arguments become jax arrays (traced by jax.jit); other arguments stay Python values
closed over by the jitted function. The result, the printed text and the exception type must
match plain Python, except for the functions in CANNOT_EXPRESS, each of which must fail the
way listed there (so the list cannot go stale).
"""

import contextlib
import io

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import autograph as ag
from autograph.backends import jax as ag_jax
from tests.corpus.functions import CORPUS
from tests.corpus.test_corpus import _assert_same
from tests.corpus.test_corpus import _run

# Corpus functions that JAX cannot express, with the exception type the jax run raises (or
# 'differs' when it runs but gives another result), and why.
CANNOT_EXPRESS = {
    # It returns the dict's keys, strings: a jitted function can only return arrays.
    'for_dict_items': (TypeError, 'jax.jit cannot return strings'),
    # A list whose length depends on a traced condition: a JAX array has a fixed size, so the
    # staged list needs a bound, which only a loop's maximum_iterations gives.
    'list_appended_in_staged_branch': (ag.StagingError, 'a list grows under a traced if'),
}

_IDS = [c.fn.__name__ for c in CORPUS]


def _to_python(value):
    if isinstance(value, (jax.Array, np.ndarray, np.generic)):
        value = np.asarray(value)
        return value.item() if value.ndim == 0 else value.tolist()
    if isinstance(value, (list, tuple)):
        return type(value)(_to_python(v) for v in value)
    if isinstance(value, dict):
        return {k: _to_python(v) for k, v in value.items()}
    return value


def run_jitted(case, args):
    """Runs the case converted and jitted; returns (result, exception type, stdout)."""
    converted = ag.convert(case.fn)
    numeric = [isinstance(a, (bool, int, float)) and case.stageable for a in args]
    traced = [jnp.asarray(a) for a, n in zip(args, numeric) if n]

    def call(*values):
        it = iter(values)
        return converted(*[next(it) if n else a for a, n in zip(args, numeric)])

    def run():
        result = ag_jax.jit(call)(*traced)  # re-raises failed staged checks as Python does
        jax.effects_barrier()  # staged prints are done before stdout is read
        return _to_python(result)

    return _run(run, ())


def _mismatch(case):
    """Returns None when every input agrees with plain Python, else how it differed."""
    for args in case.inputs:
        expected = _run(case.fn, args)
        result, exc, stdout = run_jitted(case, args)
        if exc is not None or expected[1] is not None:
            if exc != expected[1]:
                return exc or 'differs'
            continue
        if stdout != expected[2]:
            return 'differs'
        try:
            _assert_same(expected[0], result, ('jax', args))
        except AssertionError:
            return 'differs'
    return None


@pytest.mark.parametrize('case', CORPUS, ids=_IDS)
def test_jitted_matches_plain(case):
    name = case.fn.__name__
    expected = CANNOT_EXPRESS.get(name, (None,))[0]
    assert _mismatch(case) == expected


def test_most_of_the_corpus_is_expressible():
    assert set(CANNOT_EXPRESS) <= set(_IDS)
    assert len(CANNOT_EXPRESS) <= len(CORPUS) // 4
