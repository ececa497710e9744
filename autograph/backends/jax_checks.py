"""The run-time checks of the JAX backend (assert, definedness) and `jit`, which re-raises
the errors they raise as Python raises them."""

import collections
import functools

from autograph.backends.jax_values import jax_modules

# Errors of staged asserts and definedness checks that failed at run time, most recent last;
# `jit` re-raises them (the callback may run on another thread, hence a deque, not a local).
_FAILED_CHECKS = collections.deque(maxlen=64)


def check(ok, message, traced_message):
    """The callback of a staged assert: raises AssertionError when `ok` is false."""
    import numpy  # pylint: disable=import-outside-toplevel
    if numpy.all(ok):
        return
    text = message if traced_message is None else str(traced_message)
    error = AssertionError(*(() if text is None else (text,)))
    _FAILED_CHECKS.append(error)
    raise error


def check_defined(error, defined):
    """The callback of a definedness check: raises `error` when `defined` is false."""
    import numpy  # pylint: disable=import-outside-toplevel
    if numpy.all(defined):
        return
    _FAILED_CHECKS.append(error)
    raise error


def jit(fn=None, **jit_kwargs):
    """`jax.jit(autograph.convert(fn), **jit_kwargs)`, re-raising failed asserts as such.

    Usable as `@jit`, `@jit(static_argnums=...)` or `jit(fn, ...)`; takes jax.jit's arguments.
    A staged `assert` that fails raises AssertionError with the user's message, and a read
    of a variable that no path that ran assigned raises UnboundLocalError (plain jax.jit
    raises JaxRuntimeError carrying them).

    Args:
        fn: the function to convert and jit.
        **jit_kwargs: passed to jax.jit.

    Returns:
        The jitted converted function.
    """
    if fn is None:
        return functools.partial(jit, **jit_kwargs)
    from autograph.impl import api  # pylint: disable=import-outside-toplevel
    m = jax_modules()
    jitted = m.jax.jit(api.convert(fn), **jit_kwargs)

    @functools.wraps(fn)
    def call(*args, **kwargs):
        _FAILED_CHECKS.clear()
        try:
            return jitted(*args, **kwargs)
        except m.jax.errors.JaxRuntimeError as e:
            if not _FAILED_CHECKS:
                raise
            raise _FAILED_CHECKS.pop() from e

    call.lower = jitted.lower
    call.jitted = jitted
    return call
