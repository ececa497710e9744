"""The JAX backend on what real numeric code does: staged `raise` (the function of the
runtime's test, tests/runtime/test_autograph_builtins.py)."""

import os
import subprocess
import sys

import jax.numpy as jnp
import pytest

import autograph as ag

from autograph.backends import jax as ag_jax
from tests.runtime.test_autograph_builtins import Custom
from tests.runtime.test_autograph_builtins import validate

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))


def test_staged_raise_when_the_branch_runs():
    f = ag_jax.jit(validate)
    assert int(f(jnp.asarray(3))) == validate(3) == 3
    with pytest.raises(ValueError) as e:
        f(jnp.asarray(-1))
    assert e.value.args == ()
    with pytest.raises(Custom) as e:
        f(jnp.asarray(7))
    with pytest.raises(Custom) as plain:
        validate(7)
    assert e.value.args == plain.value.args == ("total   15 at i=6",)
    assert repr(e.value.__cause__) == repr(plain.value.__cause__) == "KeyError(6)"


_WITHOUT_FMA = '''
import jax
jax.config.update('jax_enable_x64', True)
import jax.numpy as jnp
from autograph.backends import jax as ag_jax
from tests.realcode.verbatim.keon_math import extended_gcd
lax_value = float(jax.jit(lambda a, b, c: a - b * c)(13., 13 / 17, 17.))
staged = ag_jax.jit(extended_gcd)
for args in ((240, 46), (17, 5)):
    got = tuple(float(v) for v in staged(*(jnp.int64(a) for a in args)))
    print(args, got == extended_gcd(*args), lax_value)
'''


def test_the_two_wrong_jax_values_are_xlas_fused_multiply_add():
    # keon's extended_gcd under JAX differs from Python (tests/realcode: fair.JAX_FMA) only
    # because XLA on the CPU contracts `a - b * c` into one fused multiply-add: with FMA
    # instructions off, JAX's own `a - b * c` rounds as Python's and the staged function
    # gives Python's values
    env = dict(os.environ, XLA_FLAGS='--xla_cpu_max_isa=AVX', JAX_PLATFORMS='cpu')
    out = subprocess.run([sys.executable, '-c', _WITHOUT_FMA], cwd=ROOT, env=env,
                         capture_output=True, text=True, check=True, timeout=300).stdout
    assert out.split('\n')[:2] == ['(240, 46) True 0.0', '(17, 5) True 0.0'], out


def _rolling_rows(n):
    prev = [0] * 3
    cur = [0] * 3
    for i in range(n):
        cur[1] = prev[0] + i
        prev, cur = cur, prev
    return prev[1] * 10 + cur[1]


def test_a_loop_over_a_range_of_an_int64_gives_an_int64_index_in_every_trace():
    # the trace that finds a loop's checks saw an int32 index, so `cur[1] = prev[0] + i`
    # made an int32 where the loop carries int64s, and the swap of the rows then failed
    from autograph.backends.jax_values import enable_x64  # pylint: disable=import-outside-toplevel
    seen = []

    @ag.do_not_convert
    def index_of(i):
        seen.append(str(i.dtype))
        return i

    def steps(n):
        total = 0
        for i in range(n):
            total += index_of(i)
        return total

    with enable_x64():
        assert int(ag_jax.jit(steps)(jnp.asarray(4, jnp.int64))) == 6
        assert set(seen) == {'int64'}
        f = ag_jax.jit(_rolling_rows)
        assert [int(f(jnp.asarray(n))) for n in (0, 3, 4)] == [
            _rolling_rows(n) for n in (0, 3, 4)] == [0, 21, 32]
