"""Staged while/for loops: loop-variable threading, checks, return-value placeholders, and the
staged iterables that `enumerate` and `zip` give (Python lists that a staged loop changes:
list_frames.py)."""

import builtins
import numbers

from autograph.backends.base import LoopOptions
from autograph.errors import StagingError
from autograph.errors import UnsupportedByBackendError
from autograph.operators import exceptions
from autograph.operators import list_frames
from autograph.operators import loop_checks
from autograph.operators import loop_exits
from autograph.operators import nest
from autograph.operators import variables
from autograph.operators.backends import PYTHON_TYPES
from autograph.operators.backends import backend_for
from autograph.operators.staged_block import StagedBlock
from autograph.operators.variables import MaybeUndefined
from autograph.operators.variables import Symbol
from autograph.operators.variables import Undefined
from autograph.operators.variables import UndefinedReturnValue


_UNDEFINED = (Undefined, UndefinedReturnValue)
_MIN = builtins.min  # as Python made it: torch's export replaces builtins.min a while


def type_of_fn(backend):
    """Returns the backend's `type_of` hook (by default None for every leaf: structure only)."""
    return backend.type_of


def staged_while(backend, loop, state, symbol_names, opts=None):
    """Stages `while test(): body()` with the backend's `while_loop`.

    Args:
        backend: the backend that owns the condition.
        loop: (test, body): a function of no arguments returning the condition, and one
            running one iteration.
        state: (get_state, set_state): functions returning and assigning the loop variables.
        symbol_names: the loop variable names.
        opts: the loop options (see `while_stmt`), or None.

    Raises:
        UndefinedVariableError, LoopVariableError: see `while_stmt`.
    """
    test, body = loop

    def loop_body():
        body()
        return ()

    with backend.stateful_scope(variables.free_cells(test, body, state[0])):
        StagedLoop(backend, (lambda: test(), loop_body), state, symbol_names, 'while loop',
                   opts=opts).stage()


def staged_for(backend, iter_, loop, state, symbol_names, opts=None):
    """Stages `for x in iter_: body(x)` as a backend `while_loop` over (index, *loop vars).

    Args:
        backend: the backend that owns `iter_`.
        iter_: the staged iterable, or a StagedSequence (from `enumerate`/`zip`).
        loop: (extra_test, body): None or a function of no arguments (False stops the
            loop), and a function of one argument running one iteration.
        state: (get_state, set_state): functions returning and assigning the loop variables.
        symbol_names: the loop variable names.
        opts: the loop options (see `for_stmt`), or None.

    Raises:
        StagingError: if the backend cannot iterate over `iter_`.
        UndefinedVariableError, LoopVariableError: see `for_stmt`.
    """
    extra_test, body = loop
    length, getitem = _iteration_spec(backend, iter_)

    def loop_test(index):
        in_range = index < length
        if extra_test is None:
            return in_range
        go_on = extra_test()
        if backend_for(go_on) is None:
            return in_range if go_on else False
        return backend.select(in_range, go_on, False)

    def loop_body(index):
        body(getitem(index))
        return (index + 1,)

    staged = StagedLoop(backend, (loop_test, loop_body), state, symbol_names, 'for loop',
                        opts=opts)
    staged.head = (0,)
    staged.trip_count = length if extra_test is None else None
    staged.iterations = length  # with a break too: no more than that
    with backend.stateful_scope(variables.free_cells(extra_test, body, state[0])):
        staged.stage()


def _iteration_spec(backend, iterable):
    """Returns (length, getitem) of a staged iterable or of a StagedSequence."""
    if isinstance(iterable, StagedSequence):
        return iterable.length, iterable.getitem
    spec = backend.iterate(iterable)
    if spec is None:
        raise StagingError(
            'backend {!r} cannot iterate over {!r}: staged for loops cover values whose first '
            'dimension can be indexed (tensors, staged ranges, TensorArrays). Iterate over a '
            'supported value instead.'.format(backend.name, iterable))
    return spec


class StagedLoop(StagedBlock):
    """One loop being staged with the backend's `while_loop`.

    The backend's loop variables are (*head, *flattened state): `head` is the loop's own
    counter (the index of a for loop; empty for a while loop), the state is the user's loop
    variables. `test(*head)` and `body(*head)` run with the state already assigned; `body`
    returns the new head.

    The plan (see `staged_block`): a loop that carries a Python list or a variable undefined
    on entry is scouted first. Python lists that the scout appends to, pops from or assigns
    at a staged index become staged lists (the backend's `new_list`, or its `stack`); the
    variables undefined on entry get placeholders of the types the scout's body gives them
    (`_placeholders`).

    Args:
        backend: the backend that stages the loop.
        fns: (test, body): the loop condition, a function of the head; one iteration, a
            function of the head returning the new head.
        state: the pair (get_state, set_state) of the loop variables.
        symbol_names: the loop variable names (str, or `Symbol` for generated ones).
        construct: 'while loop' or 'for loop', for messages.
        opts: the loop options (`maximum_iterations`), or None.
    """

    loop = True

    def __init__(self, backend, fns, state, symbol_names, construct, opts=None):
        super().__init__(backend, state, symbol_names)
        self.test, self.body = fns
        self.construct = construct
        self.head = ()  # the initial head values (a for loop sets its index's)
        self.opts = opts or {}
        # the number of iterations of a for loop without break (head is its index), or None:
        # the loop is the backend's counted_loop instead of a while_loop (a for loop sets it)
        self.trip_count = None
        self.iterations = None  # the most iterations the loop runs, where known (a for loop)
        # the names no one reads after the loop (the converter's 'nouts': the names come
        # outputs first); None where unknown
        nouts = self.opts.get('nouts')
        self.dead = frozenset(self.symbol_names[nouts:]) if type(nouts) is int else None

    def needs_plan(self, init_vars):
        return super().needs_plan(init_vars) or bool(_undefined(init_vars))

    def scout(self, init_vars):
        """Stages the loop in a scratch with the entries undefined on entry held out; returns
        {position: the value the body gives it} for those that some traced path assigns."""
        undefined = _undefined(init_vars)
        loop_checks.check_loop_init(self.symbol_names, init_vars, self.construct, skip=undefined)
        captured = {}
        self._run(init_vars, skip=undefined, captured=captured)
        return captured

    def stage_once(self, init_vars, plan):
        """Stages the loop once with `init_vars` as the initial loop variables.

        Variables and return values undefined on entry get a placeholder first (see
        `_placeholders`; `plan` is the scout's finding).
        """
        undefined = _undefined(init_vars)
        if not undefined:
            loop_checks.check_loop_init(self.symbol_names, init_vars, self.construct)
            self._run(init_vars)
            return
        loop_checks.check_loop_init(self.symbol_names, init_vars, self.construct, skip=undefined)
        init_vars, held = self._placeholders(init_vars, undefined, plan)
        self.set_state(init_vars)
        loop_checks.check_loop_init(self.symbol_names, init_vars, self.construct, skip=held)
        self._run(init_vars, skip=held)

    def with_staged_list(self, init_vars, request):
        opts = dict(self.opts or {}, maximum_iterations=_maximum_iterations(
            self.opts, self.construct), iterations=self.iterations)
        return list_frames.with_staged_list(self.backend, init_vars, self.symbol_names,
                                            request, opts)

    def _run(self, init_vars, skip=(), captured=None):
        """Calls the backend's while_loop; entries in `skip` are held at their initial value.

        Exit values of skipped entries that are defined are recorded in `captured` (index ->
        value). The Python lists that the loop variables are packed into are added to the
        frame.
        """
        folded = self._folded_flag(init_vars)
        carried = [k for k in range(len(init_vars)) if k not in skip and k != folded]
        names = tuple(self.symbol_names[k] for k in carried)
        carried_init = tuple(init_vars[k] for k in carried)
        struct = nest.structure(carried_init)
        nhead = len(self.head)
        frame = self.frame
        flags = {k for k in carried if self.symbol_names[k] in loop_exits.EXIT_FLAGS}

        def assign(flat_vars, in_body=False):
            values = nest.pack(struct, flat_vars)
            state = list(init_vars)
            for k, value in zip(carried, values):
                state[k] = value
                frame.add(value, init_vars[k])
            if in_body:
                # The loop's test reads these flags (`not break_`), so a body that runs sees
                # them false: a Python False, and what they guard is not staged as a select.
                for k in flags:
                    state[k] = False
            self.set_state(tuple(state))
            return values

        def cond_fn(*loop_vars):
            assign(loop_vars[nhead:])
            return self.test(*loop_vars[:nhead])

        def body_fn(*loop_vars):
            entry = assign(loop_vars[nhead:], in_body=True)
            entered = nest.pack(struct, loop_vars[nhead:])  # entry's lists may change
            new_head = self._traced_body(loop_vars[:nhead])
            if new_head is None:  # a staged error (_raise_when_run)
                return tuple(loop_vars[:nhead]) + tuple(nest.flatten(entry))
            state = self.read_state()
            self.in_place = _changed_lists(carried, entry, state)
            if folded is not None:
                new_head = self._stopped(state[folded], new_head)
            if captured is not None:
                captured.update((k, state[k]) for k in skip if k not in captured
                                and not isinstance(state[k], _UNDEFINED))
            exit_ = self._checked_exit(names, entered, [state[k] for k in carried],
                                       carried_init)
            return tuple(new_head) + tuple(nest.flatten(exit_))

        loop_vars = self.head + tuple(nest.flatten(carried_init))
        options = self._options(names, carried_init)
        final = tuple(self.backend.staged_loop(cond_fn, body_fn, loop_vars, options))
        assign(final[nhead:])

    def _checked_exit(self, names, entered, values, carried_init):
        """The loop variables `values` after one iteration, checked against `entered`, the
        values the loop gave the body (not the entry's lists, which the body may have
        changed in place: `cur[1] = v`)."""
        exit_ = tuple(loop_checks.still_maybe_undefined(e, x) for e, x in zip(entered, values))
        # A loop variable entering as a Python number is weakly typed: the backend may
        # widen it to what the body gives it (`compatible_types` of the number's type).
        weak_entry = [init if type(init) in (int, float, bool) else e
                      for e, init in zip(entered, carried_init)]
        loop_checks.check_loop_vars(names, weak_entry, exit_, self.type_of, self.construct,
                                    self._compatible)
        return exit_

    def _traced_body(self, head):
        """Traces one iteration; returns the new head, or None when the body raised an error
        that becomes a staged check (see `_raise_when_run`)."""
        try:
            with loop_exits.tracing_body(self):
                return self.body(*head)
        except Exception as error:  # pylint: disable=broad-except  # see _raise_when_run
            self._raise_when_run(error)
            return None

    def _folded_flag(self, init_vars):
        """The position of a for loop's `break_` flag that the loop folds into its index, or
        None (see `Backend.folds_break_flags`). A flag that no one reads after the loop need
        not be a loop variable: the body sets the index past the end when it sets the flag
        (`_stopped`), and the test `index < length` stops the loop; every iteration that
        runs starts with the flag false.
        """
        if (not self.backend.folds_break_flags or not self.head or self.iterations is None
                or not self.dead):
            return None
        for k, name in enumerate(self.symbol_names):
            if name is Symbol.BREAK and name in self.dead and init_vars[k] is False:
                return k
        return None

    def _stopped(self, flag, head):
        """The head after an iteration that left the folded break flag at `flag`."""
        (index,) = head  # the next index
        if backend_for(flag) is None:
            return head if not flag else (index * 0 + self.iterations,)
        return (self.backend.select(flag, self.iterations, index),)

    def _compatible(self, before, after):
        """The backend's `compatible_types`, or a type that its loops widen to (`loop_widens`)."""
        return (self.backend.compatible_types(before, after)
                or self.backend.loop_widens(before, after))

    def _raise_when_run(self, error):
        """Stages an error that the body raised while traced, or raises it.

        A body that raises the user's `raise`, or reads a variable that no traced path
        assigns, raises whenever it runs, after the side effects staged before it: that
        becomes a staged check, and the loop variables keep their entry values.
        """
        where = 'the body of a staged ' + self.construct
        if exceptions.is_staged_raise(error):
            exceptions.raise_when_run(self.backend, False, error, where)
        elif isinstance(error, UnboundLocalError) and variables.is_undefined_read(error):
            variables.raise_when_run(self.backend, False, error, where)
        else:
            raise error

    def _options(self, names, carried_init):
        """The LoopOptions of the backend's `staged_loop`: flat names, bound, trip count."""
        flat_names = []
        if self.head:
            target = self.opts.get('iterate_names')
            flat_names.append(target + '_index' if type(target) is str and target.isidentifier()
                              else 'index')
        flat_names.extend(flat_names_of(names, carried_init))
        bound = _maximum_iterations(self.opts, self.construct)
        trip_count = self.trip_count
        if bound is not None:
            # The exact count is known only when both are Python ints.
            trip_count = (builtins.min(trip_count, builtins.max(bound, 0))
                          if type(bound) is int and type(trip_count) is int else None)
        return LoopOptions(flat_names, bound, trip_count)

    def _placeholders(self, init_vars, undefined, captured):
        """Gives the entries undefined on entry a placeholder of the type the loop gives them.

        `captured` is what the scout found (see `scout`): the value the body gives each
        entry that a traced path assigns. As TensorFlow does for loop variables first
        assigned in the loop:
        - a variable enters as `MaybeUndefined(zeros, False)`: after a loop that ran no
          iteration, reading it raises UnboundLocalError when the staged code runs, as in
          plain Python (see `variables.ld`);
        - a return value enters as `zeros_like`: it is never returned, because the
          `do_return` flag is false until a return runs.
        Entries that no traced path of the body assigns (a return under a Python-false
        condition) are held out of the loop: they stay undefined and need no type.

        Returns:
            A tuple (new initial state, positions held out of the loop). Without a scout (the
            backend has no `scratch`) or `zeros_like`, the state is unchanged and nothing is
            held out (then `loop_checks.check_loop_init` reports the undefined entries).
        """
        if captured is None:
            return init_vars, ()
        state = list(init_vars)
        held = []
        zeros_like = self.backend.zeros_like
        try:
            for k in undefined:
                if k not in captured:
                    held.append(k)
                    continue
                value = captured[k]
                if type(state[k]) is UndefinedReturnValue:
                    state[k] = nest.map_leaves(zeros_like, value)
                    continue
                if type(value) is MaybeUndefined:
                    value = value.value
                state[k] = MaybeUndefined(nest.map_leaves(zeros_like, value), False,
                                          state[k].symbol_name)
        except UnsupportedByBackendError:
            return init_vars, ()
        return tuple(state), held


def _changed_lists(carried, entry, state):
    """The positions of the Python lists that the body changed in place, never rebinding
    them (see StagedBlock._changed_in_place): `state` still holds its `entry` list."""
    return [k for k, value in zip(carried, entry) if type(value) is list and state[k] is value]


def _undefined(init_vars):
    """Positions of the loop variables and return values undefined on entry."""
    return [k for k, v in enumerate(init_vars) if isinstance(v, _UNDEFINED)]


def flat_names_of(names, values):
    """Names for the flattened leaves of `values` (for a backend's graph): `x`, or `x_0`,
    `x_1`, ... for the leaves of a nested value; generated symbols by role (`return_value`,
    `do_return`, `break`, `continue`)."""
    flat = []
    for name, value in zip(names, values):
        name = name.name.lower() if isinstance(name, Symbol) else name
        count = len(nest.flatten(value))
        flat.extend([name] if count == 1 else ['{}_{}'.format(name, i) for i in range(count)])
    return flat


def _maximum_iterations(opts, construct):
    """The loop's `maximum_iterations` option: None, a Python int or a staged value."""
    bound = opts.get('maximum_iterations')
    if bound is None or (type(bound) is int) or (
            type(bound) not in PYTHON_TYPES and backend_for(bound) is not None):
        return bound
    if isinstance(bound, numbers.Integral) and not isinstance(bound, bool):
        return int(bound)
    raise TypeError(
        'set_loop_options(maximum_iterations=...) of a staged {} must be an integer (a Python '
        'int or a staged integer scalar), found {} {!r}. Pass the number of iterations as an '
        'int.'.format(construct, type(bound).__name__, bound))


# ----------------------------------------------------------------------------------------------
# enumerate and zip of staged iterables


class StagedSequence:
    """What `enumerate` and `zip` give for staged iterables: a staged for loop iterates it.

    Attributes:
        backend: the backend that stages the loop.
        length: the number of elements (a staged scalar or a Python int).
        getitem: function from a (staged) index to the element at that index.
    """

    def __init__(self, backend, length, getitem, what):
        self.backend = backend
        self.length = length
        self.getitem = getitem
        self._what = what  # 'enumerate()' or 'zip()', for error messages

    def __iter__(self):
        if type(self.length) is int:  # a static length (JAX's shapes): Python iterates it
            return (self.getitem(i) for i in range(self.length))
        raise TypeError(
            '{} of a staged value can only be iterated by a for loop in converted code: its '
            'length is known only when the staged computation runs. Iterate over it with a '
            'for loop, or use a staged loop (tf.while_loop).'.format(self._what))

    def __repr__(self):
        return '<StagedSequence of {} (backend {!r})>'.format(
            self._what, getattr(self.backend, 'name', self.backend))


def _staged_backend(values):
    """The backend of the first StagedSequence or staged value in `values`, else None."""
    for value in values:
        if isinstance(value, StagedSequence):
            return value.backend
        if type(value) not in PYTHON_TYPES:
            backend = backend_for(value)
            if backend is not None:
                return backend
    return None


def staged_enumerate(iterable, start):
    """Returns the StagedSequence of `enumerate(iterable, start)`, or None for Python values.

    Element i is `(start + i, iterable[i])`, with a staged index `i`.

    Args:
        iterable: any iterable.
        start: the first count.

    Returns:
        A StagedSequence, or None when `iterable` is not staged.

    Raises:
        StagingError: if the backend cannot iterate over `iterable`.
    """
    backend = _staged_backend((iterable,))
    if backend is None:
        return None
    length, getitem = _iteration_spec(backend, iterable)
    if type(start) is int and start == 0:
        return StagedSequence(backend, length, lambda i: (i, getitem(i)), 'enumerate()')
    return StagedSequence(backend, length, lambda i: (i + start, getitem(i)), 'enumerate()')


def staged_zip(iterables):
    """Returns the StagedSequence of `zip(*iterables)`, or None when none of them is staged.

    Element i is the tuple of the elements i of `iterables`; the length is the smallest one.

    Args:
        iterables: a sequence of iterables.

    Returns:
        A StagedSequence, or None when no argument is staged.

    Raises:
        StagingError: if an argument is a Python iterable (a staged index cannot index it), or
            the backend cannot iterate over an argument or take the minimum of the lengths.
    """
    backend = _staged_backend(iterables)
    if backend is None:
        return None
    specs = []
    for k, iterable in enumerate(iterables):
        if not isinstance(iterable, StagedSequence) and backend_for(iterable) is None:
            raise StagingError(
                'zip() of staged values and a Python {} (argument {}) cannot be staged: the '
                'staged loop index cannot index a Python value. Convert it to a staged value '
                '(e.g. tf.constant) or zip only staged values.'.format(
                    type(iterable).__name__, k + 1))
        specs.append(_iteration_spec(backend, iterable))
    lengths = [length for length, _ in specs]
    if all(type(n) is int for n in lengths):
        length = builtins.min(lengths)
    elif len(lengths) == 1:
        length = lengths[0]
    else:
        try:
            length = backend.call_builtin(_MIN, tuple(lengths), {})
        except NotImplementedError:
            raise StagingError(
                'zip() of staged values needs the backend {!r} to overload min() of staged '
                'lengths in its `call_builtin` hook.'.format(
                    backend.name)) from None
    getitems = [getitem for _, getitem in specs]
    return StagedSequence(backend, length, lambda i: tuple(g(i) for g in getitems), 'zip()')
