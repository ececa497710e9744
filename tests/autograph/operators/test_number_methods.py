"""`x.is_integer()` in converted code: Python's own method for Python values, staged for staged
numbers (runtime, JAX), Python's AttributeError where Python raises one."""
import math
import sys

import jax.numpy as jnp
import numpy as np
import pytest

import autograph as ag
import runtime as tf
from autograph.backends import jax as ag_jax
from autograph.backends.jax_values import enable_x64
from autograph.operators import number_methods
from tests.autograph.fake_backend import Sym

FLOATS = [1.0, 1.5, -3.0, -0.5, 0.0, -0.0, 1e300, 2.0 ** 53 + 2, 5e-324, math.inf, -math.inf,
          math.nan]
INT_HAS_IS_INTEGER = sys.version_info >= (3, 12)


def is_integer(x):
    return x.is_integer()


def find_next_square(sq):  # keon/algorithms, math/next_perfect_square.py
    root = sq ** 0.5
    if root.is_integer():
        return (root + 1) ** 2
    return -1


class Whole:
    def __init__(self):
        self.calls = 0

    def is_integer(self):
        self.calls += 1
        return 'mine'


def test_the_method_is_read_through_ag_method():
    assert "ag__.converted_call(ag__.method(x, 'is_integer'), (), None, fscope)" in ag.to_code(
        is_integer)


@pytest.mark.parametrize('value', FLOATS + [np.float64(2.0), np.float32(2.5)])
def test_python_values_give_pythons_result(value):
    assert ag.convert(is_integer)(value) is is_integer(value)


def test_other_objects_keep_their_own_method_and_error():
    whole = Whole()
    assert ag.convert(is_integer)(whole) == 'mine' and whole.calls == 1
    for value in ('1', None, [1.0]):
        with pytest.raises(AttributeError) as plain:
            is_integer(value)
        with pytest.raises(AttributeError) as converted:
            ag.convert(is_integer)(value)
        assert converted.value.args == plain.value.args


def test_ints_as_this_python_has_them():
    if INT_HAS_IS_INTEGER:
        assert ag.convert(is_integer)(3) is is_integer(3) is True
    else:
        with pytest.raises(AttributeError, match="'int' object has no attribute 'is_integer'"):
            ag.convert(is_integer)(3)
        with pytest.raises(AttributeError, match="'int' object has no attribute 'is_integer'"):
            tf.function(is_integer)(tf.constant(3))


@pytest.mark.parametrize('executor', ['compiled', 'interpreter'])
def test_staged_on_the_runtime(executor):
    f = tf.function(is_integer, executor=executor)
    for value in FLOATS:
        assert f(tf.constant(value, tf.float64)).numpy().item() is is_integer(value), value
    assert f(tf.constant(2.5, tf.float32)).numpy().item() is False
    g = tf.function(find_next_square, executor=executor)
    for sq in (121, 625, 114, 0, 2):
        assert g(tf.constant(float(sq), tf.float64)).numpy().item() == find_next_square(sq)


def test_staged_under_jax():
    with enable_x64():
        f = ag_jax.jit(is_integer)
        # XLA on the CPU flushes subnormal floats (5e-324) to zero: docs/differences.md
        for value in [v for v in FLOATS if v == 0 or not abs(v) < 2.3e-308]:
            assert bool(f(jnp.asarray(value))) is is_integer(value), value
        g = ag_jax.jit(find_next_square)
        for sq in (121, 625, 114):
            assert float(g(jnp.asarray(sq))) == find_next_square(sq)
        if not INT_HAS_IS_INTEGER:
            with pytest.raises(AttributeError, match="'int' object has no attribute"):
                ag_jax.jit(is_integer)(jnp.asarray(3))


def test_a_backend_without_the_overload_says_so(fake):
    del fake  # registered: it claims Sym, and its call_builtin has no is_integer
    method = number_methods.method(Sym(2.0), 'is_integer')
    with pytest.raises(AttributeError, match="backend 'fake' does not stage `x.is_integer"):
        method()
    with pytest.raises(AttributeError, match='no attribute'):
        number_methods.method(Sym(2.0), 'as_integer_ratio')  # not a method of METHODS
