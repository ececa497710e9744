"""Staged while/for loops: loop-variable threading, checks, and return-value placeholders."""

from autograph.errors import LoopVariableError
from autograph.errors import StagingError
from autograph.errors import UndefinedVariableError
from autograph.operators import nest
from autograph.operators.backends import backend_for
from autograph.operators.backends import get_hook
from autograph.operators.variables import Undefined
from autograph.operators.variables import UndefinedReturnValue


def type_of_fn(backend):
    """Returns the backend's `type_of` hook, or a function that checks structure only."""
    type_of = getattr(backend, 'type_of', None)
    if type_of is None:
        return lambda value: 'value'
    return type_of


def staged_while(backend, test, body, get_state, set_state, symbol_names):
    """Stages `while test(): body()` with the backend's `while_loop`.

    Args:
        backend: the backend that owns the condition.
        test: function of no arguments returning the condition.
        body: function of no arguments running one iteration.
        get_state: function returning the loop variables.
        set_state: function assigning the loop variables.
        symbol_names: the loop variable names.

    Raises:
        UndefinedVariableError, LoopVariableError: see `while_stmt`.
    """
    def loop_body():
        body()
        return ()

    _stage(backend, (), lambda: test(), loop_body, get_state, set_state, symbol_names,
           'while loop')


def staged_for(backend, iter_, extra_test, body, get_state, set_state, symbol_names):
    """Stages `for x in iter_: body(x)` as a backend `while_loop` over (index, *loop vars).

    Args:
        backend: the backend that owns `iter_`.
        iter_: the staged iterable.
        extra_test: None, or a function of no arguments; False stops the loop.
        body: function of one argument running one iteration.
        get_state: function returning the loop variables.
        set_state: function assigning the loop variables.
        symbol_names: the loop variable names.

    Raises:
        StagingError: if the backend cannot iterate over `iter_`.
        UndefinedVariableError, LoopVariableError: see `for_stmt`.
    """
    iterate = get_hook(backend, 'iterate', 'for loops over staged values')
    spec = iterate(iter_)
    if spec is None:
        raise StagingError(
            'backend {!r} cannot iterate over {!r}: staged for loops cover values whose first '
            'dimension can be indexed (tensors, staged ranges, TensorArrays). Iterate over a '
            'supported value instead.'.format(getattr(backend, 'name', backend), iter_))
    length, getitem = spec

    def loop_test(index):
        in_range = index < length
        if extra_test is None:
            return in_range
        go_on = extra_test()
        if backend_for(go_on) is None:
            return in_range if go_on else False
        return backend.cond(in_range, lambda: (go_on,), lambda: (False,))[0]

    def loop_body(index):
        body(getitem(index))
        return (index + 1,)

    _stage(backend, (0,), loop_test, loop_body, get_state, set_state, symbol_names, 'for loop')


def _stage(backend, head, test, body, get_state, set_state, symbol_names, construct):
    """Stages a loop whose backend loop variables are (*head, *flattened state).

    `test(*head)` and `body(*head)` run with the state already assigned; `body` returns the
    new head. Return values that are undefined on entry get a placeholder first (see
    `_return_placeholders`).
    """
    init_vars = tuple(get_state())
    returns = [k for k, v in enumerate(init_vars) if isinstance(v, UndefinedReturnValue)]
    _check_loop_init(symbol_names, init_vars, construct, skip=returns)
    if returns:
        init_vars = _return_placeholders(
            backend, head, test, body, get_state, set_state, symbol_names, construct, returns)
        set_state(init_vars)
        _check_loop_init(symbol_names, init_vars, construct)
    _run(backend, head, test, body, get_state, set_state, symbol_names, construct, init_vars)


def _run(backend, head, test, body, get_state, set_state, symbol_names, construct, init_vars,
         skip=(), captured=None):
    """Calls the backend's while_loop; entries in `skip` are held at their initial value.

    Exit values of skipped entries that are defined are recorded in `captured` (index -> value).
    """
    carried = [k for k in range(len(init_vars)) if k not in skip]
    names = tuple(symbol_names[k] for k in carried)
    carried_init = tuple(init_vars[k] for k in carried)
    struct = nest.structure(carried_init)
    nhead = len(head)
    type_of = type_of_fn(backend)

    def assign(flat_vars):
        values = nest.pack(struct, flat_vars)
        state = list(init_vars)
        for k, value in zip(carried, values):
            state[k] = value
        set_state(tuple(state))
        return values

    def cond_fn(*loop_vars):
        assign(loop_vars[nhead:])
        return test(*loop_vars[:nhead])

    def body_fn(*loop_vars):
        entry = assign(loop_vars[nhead:])
        new_head = body(*loop_vars[:nhead])
        state = tuple(get_state())
        if captured is not None:
            for k in skip:
                if k not in captured and not isinstance(state[k], UndefinedReturnValue):
                    captured[k] = state[k]
        exit_ = tuple(state[k] for k in carried)
        _check_loop_vars(names, entry, exit_, type_of, construct)
        return tuple(new_head) + tuple(nest.flatten(exit_))

    final = tuple(backend.while_loop(cond_fn, body_fn, tuple(head) + tuple(nest.flatten(
        carried_init))))
    assign(final[nhead:])


def _return_placeholders(backend, head, test, body, get_state, set_state, symbol_names,
                         construct, returns):
    """Replaces return values undefined on entry with zeros of the type the loop gives them.

    A `return` inside a staged loop makes the return value a loop variable. Its type is found
    by staging the loop once in the backend's `scratch()` context (discarded), with the return
    value held out of the loop variables; the real loop then starts from `zeros_like` of it.
    The placeholder is never returned: the `do_return` flag is false until a return runs.
    Without the `scratch` and `zeros_like` hooks the state is returned unchanged (and
    `_check_loop_init` reports the undefined return value).
    """
    init_vars = tuple(get_state())
    scratch = getattr(backend, 'scratch', None)
    zeros_like = getattr(backend, 'zeros_like', None)
    if scratch is None or zeros_like is None:
        return init_vars
    captured = {}
    try:
        with scratch():
            _run(backend, head, test, body, get_state, set_state, symbol_names, construct,
                 init_vars, skip=returns, captured=captured)
    finally:
        set_state(init_vars)
    state = list(init_vars)
    for k, value in captured.items():
        state[k] = nest.map_leaves(zeros_like, value)
    return tuple(state)


def _check_loop_init(symbol_names, init_vars, construct, skip=()):
    for k, (name, value) in enumerate(zip(symbol_names, init_vars)):
        if k in skip:
            continue
        if isinstance(value, Undefined):
            raise UndefinedVariableError(
                "'{}' must be defined before the loop: the {} is staged, so '{}' is a loop "
                "variable and needs a value of a fixed type on entry. Initialize '{}' before "
                "the loop.".format(name, construct, name, name))
        if isinstance(value, UndefinedReturnValue):
            raise UndefinedVariableError(
                "'{}' must be defined before the loop: it is the return value of a return "
                'statement inside a staged {}, and its type could not be found from the loop '
                'body (that needs a backend with `scratch` and `zeros_like` hooks, and a '
                'return that gives a value). Assign the result to a variable initialized '
                'before the loop and return it after the loop.'.format(name, construct))
        if value is None:
            raise LoopVariableError(
                "'{}' is None before the loop: the {} is staged, so '{}' is a loop variable and "
                'needs a staged or numeric initial value. Initialize it with a value of the '
                'type the loop gives it.'.format(name, construct, name))


def _check_loop_vars(symbol_names, entry_vars, exit_vars, type_of, construct):
    for name, entry, exit_ in zip(symbol_names, entry_vars, exit_vars):
        if isinstance(exit_, (Undefined, UndefinedReturnValue)) or exit_ is None:
            raise LoopVariableError(
                "'{}' has no value after one iteration of the staged {}: a loop variable must "
                'keep a value of the same type in every iteration.'.format(name, construct))
        desc_entry = nest.describe(entry, type_of)
        desc_exit = nest.describe(exit_, type_of)
        if desc_entry != desc_exit:
            raise LoopVariableError(
                "'{}' has type {} before the loop, but type {} after one iteration: a staged "
                '{} must keep the dtype and structure of its loop variables. Cast it (or build '
                'the same structure) in the loop, or initialize it with the type the loop '
                'gives it.'.format(
                    name, nest.render(desc_entry), nest.render(desc_exit), construct))
