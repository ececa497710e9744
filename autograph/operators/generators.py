"""`sum()`, `any()`, `all()`, `max()` and `min()` of a generator expression, run as the loop it
stands for.

`sum(i * i for i in range(1, n + 1))` and `any(a > b for a, b in zip(xs, xs[1:]))` iterate
in the builtin, where a staged `range` or tensor cannot be iterated. The converter
(`converters/generators.py`) passes the parts of the generator expression here, and the loop
runs through `for_stmt`/`if_stmt`: as Python over Python values (the same elements, evaluated
once each, in Python's order; `any`/`all` stop at the first decisive element), staged over
staged ones. A call of anything but these builtins (a shadowed `sum`, `sum(..., start=[])` of
lists works too) gets the generator itself, as Python would.

`max`/`min` keep the first extreme element, as Python's do, through a flag that says whether
an element was seen (`if not found or value > best`); with no element they return `default`
or raise Python's ValueError (staged: when the call runs). `key=` is left to the builtin.
"""

import builtins
import contextlib
import operator

from autograph.operators import control_flow
from autograph.operators import data_structures
from autograph.operators import exceptions
from autograph.operators import list_directives
from autograph.operators import logical
from autograph.operators import staged_loops
from autograph.operators import variables
from autograph.operators.backends import PYTHON_TYPES
from autograph.operators.backends import backend_for

_NAMES = ('sum', 'any', 'all', 'max', 'min')


def _kind(fn):
    """The builtin that `fn` is, by its name, or None. Looked up in `builtins` at each call:
    a tracer may rebind them while it runs (torch.export's non-strict mode replaces
    `builtins.max` and `min` with its own)."""
    return next((name for name in _NAMES if fn is getattr(builtins, name)), None)


def empty_message(fn):
    """Python's own message of ValueError for `fn` (max, min) of an empty iterable (it
    changed in Python 3.12); the backends raise it too."""
    try:
        fn(iter(()))
    except ValueError as error:
        return str(error)
    return None


_EMPTY = {'max': empty_message(builtins.max), 'min': empty_message(builtins.min)}


def reduce_generator(fn, iterable, element, condition, target, *args, **kwargs):
    """`fn(element(t) for t in iterable if condition(t), *args, **kwargs)`.

    Args:
        fn: the called function (the builtins `sum`, `any` and `all` become loops).
        iterable: the generator expression's iterable, evaluated already (as Python does).
        element: function of the loop target giving the element.
        condition: None, or function of the loop target giving its `if` clause.
        target: the source text of the loop target (a staged loop's name).
        *args: fn's other positional arguments (sum's start).
        **kwargs: fn's keyword arguments (sum's start).

    Returns:
        What fn returns.
    """
    kind = _kind(fn)
    start = args + tuple(kwargs.values())
    if kind in _EMPTY:  # max, min: one iterable, and `default=`
        other_arguments = args or set(kwargs) - {'default'}
    else:
        other_arguments = len(start) > (kind == 'sum') or set(kwargs) - {'start'}
    if kind is None or other_arguments:
        keep = condition or (lambda _: True)
        return fn((element(t) for t in iterable if keep(t)), *args, **kwargs)
    if kind in _EMPTY:
        return _extreme(kind, (iterable, element, condition), target, kwargs)
    state = [start[0] if start else 0] if kind == 'sum' else [kind == 'all']
    _loop(kind, state, (iterable, element, condition), target)
    return state[0]


def _loop(kind, state, parts, target):
    """The loop of `reduce_generator`, accumulating into state[0]."""
    iterable, element, condition = parts
    names = ('reduced_',)

    def get_state():
        return (state[0],)

    def set_state(values):
        state[0] = values[0]

    def accumulate(item):
        value = element(item)
        if kind == 'sum':
            state[0] = state[0] + value
            return

        def decided():
            state[0] = kind == 'any'

        # any: the first true element decides; all: the first false one
        control_flow.if_stmt(value if kind == 'any' else logical.not_(value), decided,
                             _nothing, get_state, set_state, names, 1)

    body = _filtered(condition, accumulate, (get_state, set_state), names)
    extra_test = None if kind == 'sum' else (
        lambda: logical.not_(state[0]) if kind == 'any' else state[0])
    control_flow.for_stmt(iterable, extra_test, body, get_state, set_state, names,
                          {'iterate_names': target})


def _extreme(kind, parts, target, kwargs):
    """max/min of the generator: the loop, then the empty case (`default`, or ValueError)."""
    iterable, element, condition = parts
    state = [variables.Undefined('reduced_'), False]  # the best so far, whether one was seen
    names = ('reduced_', 'found_')
    better_than = operator.gt if kind == 'max' else operator.lt

    def get_state():
        return tuple(state)

    def set_state(values):
        state[:] = values

    def accumulate(item):
        value = element(item)

        def take():
            state[:] = [value, True]

        def than_best():
            best = state[0]
            if type(best) is variables.Undefined:
                # staged before any element is seen, a branch never taken (`found` is set
                # with `best`): of the left operand's type, with no check to stage
                return logical.not_(state[1])
            if type(best) is variables.MaybeUndefined:
                best = best.value  # defined wherever `found` holds
            return better_than(value, best)

        better = logical.or_(lambda: logical.not_(state[1]), than_best)
        control_flow.if_stmt(better, take, _nothing, get_state, set_state, names, 2)

    body = _filtered(condition, accumulate, (get_state, set_state), names)
    control_flow.for_stmt(iterable, None, body, get_state, set_state, names,
                          {'iterate_names': target})
    return _result(kind, state, kwargs)


def _result(kind, state, kwargs):
    """The best element, else `default` or Python's ValueError (when the loop saw none)."""
    best, found = state
    if type(best) is variables.MaybeUndefined:
        best = best.value  # read only where `found` holds
    out = [best]

    def get_state():
        return tuple(out)

    def set_state(values):
        out[:] = values

    def empty():
        if 'default' in kwargs:
            out[0] = kwargs['default']
            return
        raise exceptions.raising(ValueError(_EMPTY[kind]))

    control_flow.if_stmt(logical.not_(found), empty, _nothing, get_state, set_state,
                         ('reduced_',), 1)
    return out[0]


def _python_items(iterable):
    """The elements of a staged array of a static length, as a Python list.

    Raises:
        TypeError: where the length is known only when the computation runs (a runtime graph
            tensor, a staged range; a torch tensor of an unbacked size, which the backend's
            `iterate` gives a symbolic length and whose iteration in Python torch refuses
            with a guard error).
    """
    backend = backend_for(iterable)
    described = None if backend is None else backend.iterate(iterable)
    if described is not None and not isinstance(described[0], int):
        raise TypeError('a length known only when the computation runs')
    return list(iterable)


def list_comprehension(iterable, element, condition, target, maximum_size=None,
                       invariant=False):
    """`[element(t) for t in iterable if condition(t)]`, as the loop it stands for.

    Over a Python iterable it is Python's own loop (each element evaluated once, in order),
    until an `if` clause gives a staged value: that element and the rest then go through
    `if_stmt`/`for_stmt`, and the list becomes a staged list, at most as long as a Python
    list, tuple or range iterated (or `maximum_size`): the bound that a backend of fixed
    shapes (JAX) needs, unless a `set_list_options` directive gives one. A staged array that Python can
    iterate (JAX's and torch's, of a static length) is iterated as the unconverted
    comprehension would; over one it cannot (a runtime graph tensor, a staged range) the loop
    is staged, and so is the list (the backend's `new_list`, as a list appended to in a staged
    loop).

    Args:
        iterable: the comprehension's iterable, evaluated already (as Python does).
        element: function of the loop target giving the element.
        condition: None, or function of the loop target giving its `if` clause.
        target: the source text of the loop target (a staged loop's name).
        maximum_size: None, or the most elements `iterable` gives (when it is an iterator).
        invariant: whether the element is a fresh value that reads no loop target and calls
            nothing (the converter's `_invariant`): over a staged iterable the backend may
            then repeat one evaluation of it (`repeat_element`, a table's rows).

    Returns:
        The list, or the backend's staged list.
    """
    if type(iterable) not in PYTHON_TYPES and (isinstance(
            iterable, staged_loops.StagedSequence) or backend_for(iterable) is not None):
        try:
            # a staged array of a static length (JAX, torch) iterates in Python, as the
            # comprehension did unconverted; the elements are then a Python list
            iterable = _python_items(iterable)
        except TypeError:
            # its length is known only when it runs (a runtime graph): a staged loop
            if invariant and condition is None:
                repeated = _repeated(iterable, element)
                if repeated is not None:
                    return repeated
            return _comprehension_loop(iterable, element, condition, target, [])
    if type(iterable) in (list, tuple, range):
        maximum_size = len(iterable)
    out = []
    items = iter(iterable)
    for item in items:
        keep = True if condition is None else condition(item)
        if type(keep) is not bool and backend_for(keep) is not None:
            with _bounded(target, maximum_size):
                out = _comprehension_loop([item], element, lambda _: keep, target, out)
                return _comprehension_loop(items, element, condition, target, out)
        if keep:
            out.append(element(item))
    return out


def _repeated(iterable, element):
    """The backend's list of copies of the element (`repeat_element`), or None."""
    backend = iterable.backend if isinstance(iterable, staged_loops.StagedSequence) else (
        backend_for(iterable))
    try:
        return backend.repeat_element(lambda: element(None), iterable)
    except NotImplementedError:
        return None


def _bounded(target, maximum_size):
    """The list options of a comprehension's staged list: its bound, unless a directive
    (`set_list_options`) gives one."""
    if maximum_size is None or list_directives.current() is not None:
        return contextlib.nullcontext()
    return list_directives.list_options('[... for {} in ...]'.format(target), maximum_size)


def _comprehension_loop(iterable, element, condition, target, start):
    """The comprehension's loop through `for_stmt`/`if_stmt`, appending to `start`."""
    out = [start]
    names = ('[... for {} in ...]'.format(target),)

    def get_state():
        return (out[0],)

    def set_state(values):
        out[0] = values[0]

    def append(item):
        out[0] = data_structures.list_append(out[0], element(item))

    body = _filtered(condition, append, (get_state, set_state), names)
    control_flow.for_stmt(iterable, None, body, get_state, set_state, names,
                          {'iterate_names': target})
    return out[0]


def _filtered(condition, accumulate, state, names):
    """The loop body: `accumulate(item)`, under the generator's `if` clause when it has one.

    Args:
        condition: None, or function of the loop target giving its `if` clause.
        accumulate: function of the loop target.
        state: (get_state, set_state) of the accumulated `names`.
        names: the names of the accumulated state, all of them outputs of the `if`.
    """
    def body(item):
        if condition is None:
            accumulate(item)
        else:
            control_flow.if_stmt(condition(item), lambda: accumulate(item), _nothing,
                                 *state, names, len(names))
    return body


def _nothing():
    pass
