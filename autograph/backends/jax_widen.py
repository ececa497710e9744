"""Loop variables that the body widens, as Python's do: `r = num2` then `r = old_r - q * r` with
a float `q` makes an int variable a float, and `found = False` then `found = i` a bool one an
int. `lax.while_loop` needs one carry type, so the loop is traced again with the entry value
cast to what the body gave (the runtime's loops do the same, `runtime.control_flow`)."""
from autograph.backends.jax_values import JaxType
from autograph.backends.jax_values import jax_modules


def widening(kind, after):
    """Whether a loop variable of numpy dtype kind `kind` ('b', 'i', 'u', 'f', 'c') that the
    body gives dtype kind `after` is carried as the body's dtype."""
    order = 'biuf'
    return kind in order and after in order and order.index(after) > order.index(kind) and (
        (kind, after) != ('i', 'u'))


def loop_widens(before, after):
    """`Backend.loop_widens` for JaxTypes: a loop is traced again with the entry value cast."""
    if not (isinstance(before, JaxType) and isinstance(after, JaxType)):
        return False
    jnp = jax_modules().numpy
    return before.shape == after.shape and widening(jnp.dtype(before.dtype).kind,
                                                     jnp.dtype(after.dtype).kind)


def staged_loop_widening(run, body_fn, loop_vars):
    """`run(body_fn, loop_vars)`, again with widened entry values while the body widens one.

    Args:
        run: stages the loop: a function of (body_fn, loop_vars) returning the final values.
        body_fn: callable taking the loop variables, returning the next ones.
        loop_vars: flat tuple of initial values.

    Returns:
        What `run` returns.
    """
    loop_vars = tuple(loop_vars)
    # each retrace widens one variable or more, each at most twice (bool -> int -> float)
    for _ in range(2 * len(loop_vars)):
        widened = {}
        try:
            return run(_recording(body_fn, loop_vars, widened), loop_vars)
        except TypeError:
            if not widened:
                raise
        jnp = jax_modules().numpy
        loop_vars = tuple(jnp.asarray(v, dtype=widened[i]) if i in widened else v
                          for i, v in enumerate(loop_vars))
    return run(body_fn, loop_vars)


def _recording(body_fn, loop_vars, widened):
    """body_fn, noting in `widened` (index -> dtype) each loop variable it widens."""
    def body(*args):
        outs = tuple(body_fn(*args))
        for i, (entry, out) in enumerate(zip(loop_vars, outs)):
            dtype = _widened_dtype(entry, out)
            if dtype is not None:
                widened[i] = dtype
        return outs
    return body


def _widened_dtype(entry, out):
    """The dtype `entry` widens to when the body gives it `out`, or None."""
    if not hasattr(out, 'dtype'):
        return None
    jnp = jax_modules().numpy
    # a Python number is weakly typed: lax.while_loop promotes it within its kind only
    python = _PYTHON_KINDS.get(type(entry))
    if python is None and not isinstance(entry, (jax_modules().tracer, jax_modules().array)):
        return None  # not a number: no dtype to widen
    if any(_extended(v) for v in (entry, out)):
        return None  # a PRNG key (`jax.random.key`): not a number
    kind = python or jnp.dtype(entry.dtype).kind
    if (() if python else tuple(entry.shape)) != tuple(out.shape):
        return None
    return out.dtype if widening(kind, jnp.dtype(out.dtype).kind) else None


_PYTHON_KINDS = {bool: 'b', int: 'i', float: 'f'}


def _extended(value):
    """Whether `value` has one of JAX's extended dtypes (a typed PRNG key), which numpy's
    dtype cannot read."""
    dtype = getattr(value, 'dtype', None)
    dtypes = jax_modules().jax.dtypes
    return dtype is not None and dtypes.issubdtype(dtype, dtypes.extended)
