"""Lazy `and`, `or` and `not`: Python semantics for Python values, backend `cond` when staged."""

from autograph.operators import loop_exits
from autograph.operators import variables
from autograph.operators.backends import PYTHON_TYPES
from autograph.operators.backends import backend_for


def and_(a, b, pure=None):
    """Evaluates `a and b` lazily.

    Args:
        a: function of no arguments returning the left operand.
        b: function of no arguments returning the right operand; called only when needed.
        pure: None, or (the converter found `b` free of effects but for calls) a function
            of no arguments returning the functions `b` calls.

    Returns:
        For a Python left operand, exactly what `a and b` returns (one of the operands). For a
        staged one, the backend's `cond(a, b, lambda a: a, (a,))` result; or, when `pure` is
        given and the backend says so (`Backend.pure_operand` of the functions `b` calls),
        `b` evaluated at once and the backend's `logical_and(a, b)`.
    """
    a_val = a()
    if type(a_val) in PYTHON_TYPES:
        return a_val and b()
    backend = backend_for(a_val)
    if backend is None:
        return a_val and b()
    if _eager(backend, pure):
        return backend.logical_and(a_val, b())
    with backend.stateful_scope(variables.free_cells(b)):  # state `b` reaches (Flax NNX)
        return backend.cond(a_val, _right(backend, b, 'and'), lambda a: (a,),
                            (a_val,))[0]


def _right(backend, b, op):
    """The branch of a staged `and`/`or` that evaluates the right operand.

    A right operand that reads a variable no traced path assigns (`first or v > best`,
    where `best` is assigned once `first` is false) raises UnboundLocalError while it is
    traced; Python raises only if it evaluates that operand. The branch then stages the
    error, raised when the branch runs, and gives the left operand in place of its value.

    Args:
        backend: the backend of the left operand.
        b: function of no arguments returning the right operand.
        op: 'and' (the branch runs when the left operand is true) or 'or' (when false).
    """
    def branch(a):
        try:
            return (b(),)
        except UnboundLocalError as error:
            if not variables.is_undefined_read(error):
                raise
            # a staged bool, false exactly when this branch runs
            defined = backend.logical_not(a)
            if op == 'or':
                defined = backend.logical_not(defined)
            variables.raise_when_run(backend, defined, error,
                                     'the right operand of a staged `{}`'.format(op))
            return (a,)
    return branch


def _eager(backend, pure):
    """Whether the right operand may be evaluated at once: the converter found it pure but
    for its calls, and the backend knows every function it calls to be pure."""
    return pure is not None and backend.pure_operand(tuple(pure()))


def evaluated(value):
    """The left operand of `and_`/`or_` when the converter evaluated it in place.

    An operand that assigns a variable (`(m := f()) and m.x`) is evaluated where Python
    evaluates it, in the function: inside a lambda the assignment would bind a variable of the
    lambda.

    Args:
        value: the operand's value.

    Returns:
        A function of no arguments returning `value`.
    """
    return lambda: value


def or_(a, b, pure=None):
    """Evaluates `a or b` lazily.

    Args:
        a: function of no arguments returning the left operand.
        b: function of no arguments returning the right operand; called only when needed.
        pure: as for `and_`.

    Returns:
        For a Python left operand, exactly what `a or b` returns (one of the operands). For a
        staged one, the backend's `cond(a, lambda a: a, b, (a,))` result, or (see `and_`)
        its `logical_or(a, b)`.
    """
    a_val = a()
    if type(a_val) in PYTHON_TYPES:
        return a_val or b()
    backend = backend_for(a_val)
    if backend is None:
        return a_val or b()
    if _eager(backend, pure):
        return backend.logical_or(a_val, b())
    with backend.stateful_scope(variables.free_cells(b)):  # as in and_
        return backend.cond(a_val, lambda a: (a,),
                            _right(backend, b, 'or'), (a_val,))[0]


def not_(a):
    """Evaluates `not a`.

    Args:
        a: the operand.

    Returns:
        `not a` for a Python value, the backend's `logical_not(a)` for a staged one.

    Raises:
        StagingError: if the backend of a staged `a` has no `logical_not` hook.
    """
    if type(a) in PYTHON_TYPES:
        return not a
    backend = backend_for(a)
    if backend is None:
        return not a
    result = backend.logical_not(a)
    loop_exits.note_negation(a, result)
    return result
