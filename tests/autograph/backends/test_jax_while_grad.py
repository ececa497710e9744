"""Reverse-mode gradients of unbounded staged `while` loops (jax_while_grad.py): equal to
finite differences and to the same loop with a Python bound, under jit and grad in both
orders and vmap."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import autograph as ag
from autograph.backends import jax as ag_jax
from autograph.backends import jax_while_grad


def grow(x, a):
    return grow_with(x, a, jnp.sin)


def grow_with(x, a, sin):
    steps = 0
    total = 0.0
    while x < 10.0:
        total = total + sin(x) * a
        x = x * a + 0.5
        steps += 1
    return total + x * steps


def grow_bounded(x, a, bound=1000):
    # the same loop with the bound in Python: plain jax.grad differentiates it
    steps = 0
    total = 0.0
    while x < 10.0 and steps < bound:
        total = total + jnp.sin(x) * a
        x = x * a + 0.5
        steps += 1
    return total + x * steps


def grow_float64(x, a):
    return grow_with(x, a, math.sin)  # Python floats (float64), for finite differences


def _finite_difference(fn, args, argnum, h=1e-6):
    up, down = list(args), list(args)
    up[argnum] += h
    down[argnum] -= h
    return (fn(*up) - fn(*down)) / (2 * h)


@pytest.mark.parametrize('x, a', [(1.0, 1.3), (0.2, 1.7), (9.5, 1.1), (12.0, 1.5)])
def test_grad_equals_the_bounded_loop_and_finite_differences(x, a):
    jitted = ag_jax.jit(grow)
    expected = jax.grad(grow_bounded, argnums=(0, 1))(x, a)
    for grad in (jax.grad(jitted, argnums=(0, 1)),
                 jax.jit(jax.grad(jitted, argnums=(0, 1)))):
        got = grad(x, a)
        for g, e in zip(got, expected):
            assert float(g) == pytest.approx(float(e), rel=1e-4, abs=1e-5)
    for argnum in (0, 1):
        fd = _finite_difference(grow_float64, (x, a), argnum)
        assert float(jax.grad(jitted, argnums=argnum)(x, a)) == pytest.approx(
            fd, rel=2e-3, abs=2e-3)


def test_vmap_of_grad():
    xs = jnp.array([1.0, 0.2, 9.5, 12.0])
    a = jnp.array([1.3, 1.7, 1.1, 1.5])
    got = jax.vmap(jax.grad(ag_jax.jit(grow)))(xs, a)
    expected = [float(jax.grad(grow_bounded)(float(x), float(y))) for x, y in zip(xs, a)]
    assert np.allclose(np.asarray(got), expected, rtol=1e-4, atol=1e-5)


def relax(x, n):
    # a loop of a traced number of steps: its bound and an int counter are closed over
    i = 0
    while i < n:
        x = jnp.cos(x) * 0.9 + 0.05 * i
        i += 1
    return x


def relax_python(x, n):
    for i in range(n):
        x = jnp.cos(x) * 0.9 + 0.05 * i
    return x


@pytest.mark.parametrize('n', [0, 1, 2, 7, 64, 1000])
def test_long_loops_and_closed_over_integers(n):
    # 1000 steps: many checkpoint pushes and pops (the stack holds about log2(n) states)
    got = jax.grad(ag_jax.jit(relax))(0.3, jnp.int32(n))
    assert float(got) == pytest.approx(float(jax.grad(relax_python)(0.3, n)), rel=1e-4,
                                       abs=1e-6)


def scaled_sum(xs, w):
    # a `for` over a traced range: a while_loop of a traced trip count
    total = 0.0
    for i in range(xs.shape[0] - jnp.int32(0) * w.astype(jnp.int32)):
        total = total + xs[i] * w ** i
    return total


def test_for_over_a_traced_range_is_reverse_differentiable():
    xs = jnp.array([1.0, 2.0, 3.0])
    got = jax.grad(ag_jax.jit(scaled_sum), argnums=(0, 1))(xs, 0.5)
    assert np.allclose(np.asarray(got[0]), [1.0, 0.5, 0.25])
    assert float(got[1]) == pytest.approx(2.0 + 2 * 3.0 * 0.5)


def checked_grow(x):
    while x < 10.0:
        assert x > 0, 'x must stay positive'
        x = x * 2.0
    return x


def test_checks_in_a_differentiated_loop():
    assert float(jax.grad(ag_jax.jit(checked_grow))(1.0)) == 16.0
    with pytest.raises(AssertionError, match='x must stay positive'):
        jax.grad(ag_jax.jit(checked_grow))(-1.0)


def test_the_checkpoint_stack_is_enough_and_small():
    # n steps need at most floor(log2(n)) + 2 stack entries (the pushes halve the distance)
    for n in (1, 2, 3, 5, 100, 1000, 2 ** 20 + 3):
        depth, top, stack = 1, 1, [0]
        for i in range(n - 1, -1, -1):
            while stack[-1] < i:
                stack.append(stack[-1] + (i - stack[-1] + 1) // 2)
                depth = max(depth, len(stack))
            stack.pop()
        assert depth <= int(np.log2(n)) + 2 <= jax_while_grad.DEPTH, (n, depth)


def test_forward_mode_of_jit_is_a_documented_limitation():
    # A custom_vjp has no forward mode in JAX; plain jax.jit(convert(f)) keeps it.
    with pytest.raises(TypeError, match='custom_vjp'):
        jax.jvp(ag_jax.jit(grow), (1.0, 1.3), (1.0, 0.0))
    _, tangent = jax.jvp(jax.jit(ag.convert(grow)), (1.0, 1.3), (1.0, 0.0))
    assert float(tangent) == pytest.approx(float(jax.grad(grow_bounded)(1.0, 1.3)), rel=1e-4)
