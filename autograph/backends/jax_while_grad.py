"""A `lax.while_loop` that `jax.grad` differentiates: a custom VJP with bisection checkpoints.

JAX cannot reverse-differentiate `lax.while_loop` (it cannot know how many steps to store).
`while_loop` here is a `jax.custom_vjp` function (public API only): the forward pass runs
the loop and counts its steps n; the backward pass walks the states s_{n-1}, ..., s_0 in
reverse and applies the body's VJP at each, recomputing the states from checkpoints.

The checkpoints are a stack of at most `DEPTH` states with their step numbers. To reach state
i from the top checkpoint j <= i, the backward pass runs the body to the midpoint
m = j + ceil((i - j) / 2), pushes it, and repeats until the top is state i; after using it,
it pops it. The stack's step numbers at least halve their distance to i at each push, so it
holds about log2(n) + 1 states, and the body runs about n log2(n) / 2 times more.
`DEPTH = 48` states cover any loop of fewer than 2^47 steps. Memory: the forward pass stores
the initial state (and n); the backward pass holds `DEPTH` states (a fixed buffer, which XLA
needs), against n states for storing every step.

Closed-over values are arguments of the custom VJP, so gradients reach them too. Integer and boolean loop variables get zero (float0) cotangents.
"""

from autograph.backends.jax_values import jax_modules
from autograph.backends.jax_values import trace_to_jaxpr

DEPTH = 48  # checkpoint states in the backward pass: loops of fewer than 2^47 steps


def while_loop(test, body, init):
    """`lax.while_loop(test, body, init)` with a reverse-mode derivative.

    Args:
        test: callable taking the carry, returning a scalar bool.
        body: callable taking the carry, returning the next one (same structure and types).
        init: the initial carry (a pytree of arrays).

    Returns:
        The final carry.
    """
    m = jax_modules()
    tree_util = m.jax.tree_util
    leaves, tree = tree_util.tree_flatten(init)
    leaves = [m.numpy.asarray(v) for v in leaves]
    if not any(m.numpy.issubdtype(v.dtype, m.numpy.inexact) for v in leaves):
        return m.lax.while_loop(test, body, init)  # nothing to differentiate

    def flat_test(*state):
        return test(tree_util.tree_unflatten(tree, list(state)))

    def flat_body(*state):
        return tuple(tree_util.tree_leaves(body(tree_util.tree_unflatten(tree, list(state)))))

    test_fn, test_consts = _closure_converted(flat_test, leaves)
    body_fn, body_consts = _closure_converted(flat_body, leaves)
    loop = _loop(_Steps(test_fn, body_fn))
    final = loop(tuple(test_consts), tuple(body_consts), tuple(leaves))
    return tree_util.tree_unflatten(tree, list(final))


def _closure_converted(fn, args):
    """(fn as a function of (*args, *constants) returning the list of its outputs' leaves,
    its constants): every value fn closes over
    (a tracer of the enclosing trace, of any dtype) becomes an argument, as custom_vjp needs
    (`jax.closure_convert` hoists only the floating-point ones)."""
    m = jax_modules()
    closed, _ = trace_to_jaxpr(fn, *args)
    count = len(args)

    def converted(*values):
        return m.jax.core.eval_jaxpr(closed.jaxpr, values[count:], *values[:count])
    return converted, list(closed.consts)


class _Steps:
    """The loop's test and body as functions of (state tuple, constants tuple)."""

    def __init__(self, test_fn, body_fn):
        self.test_fn, self.body_fn = test_fn, body_fn

    def test(self, state, consts):
        return self.test_fn(*state, *consts)[0]

    def body(self, state, consts):
        return tuple(self.body_fn(*state, *consts))

    def advance(self, state, consts, count):
        lax = jax_modules().lax
        return lax.fori_loop(0, count, lambda _, s: self.body(s, consts), state)


def _loop(steps):
    m = jax_modules()

    @m.jax.custom_vjp
    def loop(test_consts, body_consts, state):
        return m.lax.while_loop(lambda s: steps.test(s, test_consts),
                                lambda s: steps.body(s, body_consts), state)

    def forward(test_consts, body_consts, state):
        def counted(carry):
            return carry[0] + 1, steps.body(carry[1], body_consts)
        count, final = m.lax.while_loop(lambda c: steps.test(c[1], test_consts), counted,
                                        (m.numpy.int32(0), state))
        return final, (test_consts, body_consts, state, count)

    def backward(residuals, cotangent):
        test_consts, body_consts, state, count = residuals
        d_state, d_consts = _reverse(steps, body_consts, state, count, tuple(cotangent))
        return tuple(_zero_cotangent(c) for c in test_consts), d_consts, d_state

    loop.defvjp(forward, backward)
    return loop


def _reverse(steps, consts, state, count, cotangent):
    """The cotangents of the initial state and the body's constants, from the final state's:
    the body's VJP at s_{count-1}, ..., s_0, the states recomputed from checkpoints. Only
    inexact values carry cotangents through the loop (others have float0 ones)."""
    m = jax_modules()
    jnp, lax = m.numpy, m.lax
    state = tuple(jnp.asarray(v) for v in state)
    stack = tuple(jnp.zeros((DEPTH,) + v.shape, v.dtype).at[0].set(v) for v in state)
    at = jnp.zeros((DEPTH,), jnp.int32)  # the step number of each checkpoint

    def step_back(carry):
        i, top, stack, at, d_state, d_consts = carry
        top, stack, at = lax.while_loop(
            lambda c: c[2][c[0] - 1] < i, lambda c: _push_midpoint(steps, consts, i, c),
            (top, stack, at))
        current = tuple(buffer[top - 1] for buffer in stack)
        _, vjp = m.jax.vjp(steps.body, current, consts)
        d_state, d_body = vjp(_expanded(d_state, current))
        d_consts = tuple(a + b for a, b in zip(d_consts, _inexact_only(d_body, consts)))
        return i - 1, top - 1, stack, at, _inexact_only(d_state, current), d_consts

    zero_consts = tuple(jnp.zeros_like(c) for c in consts if _inexact(c))
    carry = (count - 1, jnp.int32(1), stack, at, _inexact_only(cotangent, state), zero_consts)
    carry = lax.while_loop(lambda c: c[0] >= 0, step_back, carry)
    return _expanded(carry[4], state), _expanded(carry[5], consts)


def _inexact_only(values, primals):
    return tuple(v for v, p in zip(values, primals) if _inexact(p))


def _expanded(inexact, primals):
    """Cotangents for all of `primals` from those of the inexact ones (float0 zeros else)."""
    inexact = iter(inexact)
    return tuple(next(inexact) if _inexact(p) else _zero_cotangent(p) for p in primals)


def _push_midpoint(steps, consts, target, carry):
    """Runs from the top checkpoint j halfway to `target` and pushes that state."""
    top, stack, at = carry
    j = at[top - 1]
    middle = j + (target - j + 1) // 2
    state = steps.advance(tuple(buffer[top - 1] for buffer in stack), consts, middle - j)
    stack = tuple(buffer.at[top].set(v) for buffer, v in zip(stack, state))
    return top + 1, stack, at.at[top].set(middle)


def _zero_cotangent(value):
    m = jax_modules()
    jnp = m.numpy
    value = jnp.asarray(value)
    if jnp.issubdtype(value.dtype, jnp.inexact):
        return jnp.zeros_like(value)
    import numpy  # pylint: disable=import-outside-toplevel
    return numpy.zeros(value.shape, m.jax.dtypes.float0)


def _inexact(value):
    jnp = jax_modules().numpy
    value = jnp.asarray(value)
    return jnp.issubdtype(value.dtype, jnp.inexact)
