"""Python loops whose exit becomes staged while they run.

A `while` whose test is a Python bool when it starts, or a `for` over a Python `range`, list or
tuple, runs as a Python loop. Its exit can become staged midway: a loop variable becomes a
staged value, or a `break` or `return` inside depends on a staged condition. The loop then
goes on staged, from the state it has reached:

- a `while` continues as the backend's staged while loop;
- a `for` continues as a staged loop over the remaining elements when they can be staged (a
  `range`, Python numbers of one type, staged values of one dtype and shape, which the
  backend's `stack` hook stacks) and the body stages with a staged element;
- otherwise each remaining iteration of the `for` runs under a staged `if` on the loop's
  "go on" condition (guarded unrolling): the body is staged once per remaining element.
"""

import itertools

from autograph.errors import StagingError
from autograph.errors import UnsupportedByBackendError
from autograph.operators import staged_loops
from autograph.operators.backends import PYTHON_TYPES
from autograph.operators.backends import backend_for
from autograph.operators.backends import probe

# Elements of a Python iterable other than a range, list or tuple that guarded unrolling takes
# at most: an iterator may be infinite.
MAX_UNROLLED_ELEMENTS = 10000


def staged_backend(value):
    """The backend of a staged value, or None for a Python value."""
    if type(value) in PYTHON_TYPES:
        return None
    return backend_for(value)


def continue_while_staged(backend, loop, state, symbol_names, opts):
    """Goes on with a Python `while` whose test just became staged, as a staged while loop
    (`loop`: (test, body); `state`: (get_state, set_state))."""
    staged_loops.staged_while(backend, loop, state, symbol_names, opts)


def for_with_extra_test(iter_, loop, state, symbol_names, opts):
    """Runs `for target in iter_` over a Python iterable, stopping when `extra_test()` is false.

    `loop` is (extra_test, body), `state` (get_state, set_state). `extra_test` is checked
    before every iteration. When it gives a staged value, the rest of the loop is staged (see
    the module docstring).
    """
    extra_test, body = loop
    get_state, set_state = state
    done = 0
    rest = None
    iterator = iter(iter_)
    while True:
        go_on = probe(extra_test)  # a staged value is discarded: the staged loop tests again
        backend = staged_backend(go_on)
        if backend is not None:
            rest = _remaining(iter_, iterator, done)
            break
        if not go_on:
            return
        for target in iterator:
            break
        else:
            return
        body(target)
        done += 1
    if not rest:
        return
    values = tuple(get_state())
    sequence = _staged_sequence(backend, rest)
    if sequence is not None:
        try:
            staged_loops.staged_for(backend, sequence, loop, state, symbol_names, opts)
            return
        except Exception:  # pylint: disable=broad-except
            # The body does not stage with a staged element (it indexes a Python list with
            # it, say): unroll instead, from the same state.
            set_state(values)
    _guarded_unroll(rest, extra_test, body, get_state, set_state, symbol_names)


def _remaining(iter_, iterator, done):
    """The elements that the loop has not taken yet, as a range, list or tuple."""
    if type(iter_) in (range, list, tuple):
        return iter_[done:]
    rest = list(itertools.islice(iterator, MAX_UNROLLED_ELEMENTS + 1))
    if len(rest) > MAX_UNROLLED_ELEMENTS:
        raise StagingError(
            'a break or return inside a for loop over a Python {} depends on a staged value, '
            'and the iterable has more than {} elements left: the rest of the loop is staged '
            'over the remaining elements, which must be known. Iterate over a range, list, '
            'tuple or staged value instead.'.format(type(iter_).__name__,
                                                   MAX_UNROLLED_ELEMENTS))
    return rest


def _staged_sequence(backend, rest):
    """A StagedSequence over `rest`, or None when its elements cannot be staged."""
    if type(rest) is range:
        start, step = rest.start, rest.step
        return staged_loops.StagedSequence(backend, len(rest), lambda i: start + i * step,
                                           'range()')
    kinds = {type(x) for x in rest}
    if len(kinds) != 1 or kinds & {bool, str, type(None)}:
        return None
    try:
        stacked = backend.stack(list(rest))
    except (UnsupportedByBackendError, TypeError, ValueError):
        return None
    spec = backend.iterate(stacked)
    if spec is None:
        return None
    length, getitem = spec
    return staged_loops.StagedSequence(backend, length, getitem, 'list')


def _guarded_unroll(rest, extra_test, body, get_state, set_state, symbol_names):
    """Runs each remaining iteration under a staged `if` on the loop's go-on condition."""
    from autograph.operators.control_flow import if_stmt  # pylint: disable=import-outside-toplevel
    for target in rest:
        go_on = extra_test()
        if staged_backend(go_on) is None:
            if not go_on:
                return
            body(target)
            continue
        if_stmt(go_on, lambda t=target: body(t), lambda: None, get_state, set_state,
                symbol_names, len(symbol_names))
