"""AutoGraph for JAX: Python control flow on traced values becomes lax.cond / lax.while_loop.

Plain `jax.jit` cannot trace `while x > 0` on a traced `x`; `jax.jit(autograph.convert(f))`
stages it, with no other set-up. grad, vmap and print work as JAX users expect.
"""
import jax
import jax.numpy as jnp

import autograph as ag


def collatz_steps(n):
    """Counts the steps that take n to 1 (n -> n/2 if even, else 3n+1)."""
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def first_above(xs, threshold):
    """The index of the first element above threshold, or -1: return inside a loop."""
    for i, x in enumerate(xs):
        if x > threshold:
            return i
    return -1


def smooth_abs(x):
    """Differentiable: an if (lax.cond) and a for over a Python range (stays Python)."""
    if x > 1.0:
        y = x - 0.5
    else:
        y = 0.5 * x * x
    for _ in range(2):
        y = y * 1.5
    return y


def main():
    try:
        jax.jit(collatz_steps)(27)
    except jax.errors.TracerBoolConversionError:
        print('plain jax.jit: TracerBoolConversionError (a Python while on a traced value)')
    steps = jax.jit(ag.convert(collatz_steps))
    print('collatz_steps(27) =', int(steps(27)))
    print('vmap over 1..8:', jax.vmap(ag.convert(collatz_steps))(jnp.arange(1, 9)).tolist())
    print('first_above([1, 5, 7], 4) =',
          int(jax.jit(ag.convert(first_above))(jnp.array([1.0, 5.0, 7.0]), 4.0)))
    grad = jax.jit(jax.grad(ag.convert(smooth_abs)))
    print('grad of smooth_abs at 0.5 and 3.0:', float(grad(0.5)), float(grad(3.0)))
    jaxpr = jax.make_jaxpr(ag.convert(collatz_steps))(27)
    print('primitives:', sorted({e.primitive.name for e in jaxpr.jaxpr.eqns}))


if __name__ == '__main__':
    main()
