"""The registry of backends that stage control flow for the values they own."""

import types

from autograph.errors import StagingError

# Registered backends, asked in registration order; the first that claims a value owns it.
_BACKENDS = []

# Exact types that no backend may claim: checking them first keeps the plain-Python path cheap.
# Subclasses of these are not in the set, so a backend can still stage a `list` subclass.
PYTHON_TYPES = frozenset({
    bool, int, float, complex, str, bytes, list, tuple, dict, set, frozenset, range,
    type(None), types.FunctionType, types.BuiltinFunctionType, types.MethodType,
})

_REQUIRED = ('is_staged', 'cond', 'while_loop')


def register_backend(backend):
    """Registers a backend that stages control flow on the values it claims.

    A backend is any object with `name`, `is_staged(value)`, `cond(pred, true_fn, false_fn)` and
    `while_loop(cond_fn, body_fn, loop_vars)` (docs/internals.md). `cond` and `while_loop` get
    flat tuples of leaves (possibly empty; nested lists/tuples/dicts are flattened by autograph)
    and must convert Python numbers among them. Optional hooks; a missing one means "not
    supported for staged values":

    - `iterate(iterable) -> (length, getitem) | None`: staged for loops, also over
      `enumerate` and `zip` of staged values (`zip` takes the smallest length, with
      `call_builtin(min, lengths, {})` when a length is staged).
    - `logical_not(value)`, `assert_(cond, message_fn)` (message_fn() may return None),
      `print_(*args, sep, end)`, `call_builtin(fn, args, kwargs)` (raise NotImplementedError
      to fall back to the builtin itself).
    - `type_of(value) -> hashable`: dtype checks of branch outputs and loop variables; it is
      also called on Python numbers. Without it only the structure is checked.
    - `new_list(items, element, name) -> staged list`: lists in staged loops. A Python list
      that a staged loop carries as a loop variable and appends to or pops from becomes
      `new_list(items, element, name)` on loop entry (the loop is staged again with it):
      `items` are the list's elements on entry, `element` is the first value appended in the
      loop (possibly a value of a discarded trace: read only its type) or None when the loop
      pops first, and `name` is the variable name, for error messages.
    - `list_append(target, element) -> target`, `list_pop(target, i) -> (target, element)`:
      append and pop on a staged list (`i` is None for `pop()`).
    - `zeros_like(value)` and `scratch()` (a context manager whose staged operations are
      discarded): give `return` inside staged branches and loops a placeholder return value.

    Registering the same object twice has no further effect.

    Args:
        backend: the backend object.

    Returns:
        The backend, so that this can be used as a class-instance decorator.

    Raises:
        TypeError: if `backend` lacks one of the required methods.
    """
    missing = [m for m in _REQUIRED if not callable(getattr(backend, m, None))]
    if missing:
        raise TypeError(
            'register_backend expected an object with methods {}, but {!r} lacks {}. '
            'Implement them as described in docs/internals.md ("Backend protocol").'.format(
                ', '.join(_REQUIRED), backend, ', '.join(missing)))
    if not any(b is backend for b in _BACKENDS):
        _BACKENDS.append(backend)
    return backend


def unregister_backend(backend):
    """Removes a backend added by `register_backend`; unknown backends are ignored.

    Args:
        backend: the backend object to remove.
    """
    _BACKENDS[:] = [b for b in _BACKENDS if b is not backend]


def registered_backends():
    """Returns the registered backends, in the order they are asked.

    Returns:
        A tuple of backend objects.
    """
    return tuple(_BACKENDS)


def backend_for(value):
    """Returns the backend that stages `value`, or None for a plain Python value.

    Args:
        value: any object.

    Returns:
        The first registered backend whose `is_staged(value)` is true, else None.
    """
    if not _BACKENDS or type(value) in PYTHON_TYPES:
        return None
    for backend in _BACKENDS:
        if backend.is_staged(value):
            return backend
    return None


def is_staged(value):
    """Tells whether some registered backend stages `value`.

    Args:
        value: any object.

    Returns:
        True if a registered backend claims `value`.
    """
    return backend_for(value) is not None


def first_backend(values):
    """Returns the backend of the first staged value in `values`, or None.

    Args:
        values: an iterable of objects (not searched recursively).

    Returns:
        A backend, or None when every value is a plain Python value.
    """
    if not _BACKENDS:
        return None
    for value in values:
        if type(value) not in PYTHON_TYPES:
            backend = backend_for(value)
            if backend is not None:
                return backend
    return None


def get_hook(backend, hook, construct):
    """Returns an optional hook of `backend`, raising a clear error when it is missing.

    Args:
        backend: a registered backend.
        hook: the hook name, e.g. 'iterate'.
        construct: what the user wrote, for the message, e.g. 'a for loop over a staged value'.

    Returns:
        The bound hook.

    Raises:
        StagingError: if the backend does not provide the hook.
    """
    fn = getattr(backend, hook, None)
    if fn is None:
        raise StagingError(
            'backend {!r} does not support {}: it has no `{}` hook. Use a plain Python value '
            'there, or add `{}` to the backend.'.format(
                getattr(backend, 'name', backend), construct, hook, hook))
    return fn
