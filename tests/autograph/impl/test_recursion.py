"""Recursion through converted calls: as deep as plain Python with Python values; a clear
StagingError (not RecursionError) when the recursion depends on a staged value."""

import sys

import jax.numpy as jnp
import pytest

import autograph as ag
import runtime as tf
from autograph.backends import jax as ag_jax
from autograph.errors import StagingError


def down(n):
    if n == 0:
        return 0
    return 1 + down(n - 1)


def is_even(n):
    if n == 0:
        return True
    return is_odd(n - 1)


def is_odd(n):
    if n == 0:
        return False
    return is_even(n - 1)


def _deepest(fn, limit=3000):
    """The largest n for which fn(n) returns rather than raising RecursionError."""
    lo, hi = 0, limit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        try:
            fn(mid)
            lo = mid
        except RecursionError:
            hi = mid - 1
    return lo


def test_converted_recursion_goes_as_deep_as_plain_recursion():
    limit = sys.getrecursionlimit()
    plain = _deepest(down)
    converted = _deepest(ag.convert(down))
    assert converted >= 900 and converted >= plain - 50
    assert converted <= plain + 50  # and raises RecursionError about where plain Python does
    assert sys.getrecursionlimit() == limit  # the deeper limit is given back
    assert ag.convert(is_even)(801) is False


def test_staged_recursion_is_a_staging_error_on_the_runtime():
    for fn in (down, is_even):
        with pytest.raises(StagingError, match='called itself more than 50 calls deep'):
            tf.function(fn)(tf.constant(5))


def test_staged_recursion_is_a_staging_error_under_jax():
    for fn in (down, is_even):
        with pytest.raises(StagingError, match='called itself more than 50 calls deep'):
            ag_jax.jit(fn)(jnp.asarray(5))
