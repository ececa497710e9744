"""The JAX backend on what real numeric code does: staged `raise` (the function of the
runtime's test, tests/runtime/test_autograph_builtins.py)."""

import jax.numpy as jnp
import pytest

from autograph.backends import jax as ag_jax
from tests.runtime.test_autograph_builtins import Custom
from tests.runtime.test_autograph_builtins import validate


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
