"""Staged if statements and conditional expressions: the backend's `cond` of both branches,
with their outputs aligned where a branch leaves one undefined, and checked to have one type
(a `staged_block.StagedBlock`, as staged loops are)."""

import collections

from autograph.errors import StagingError
from autograph.errors import UnboundedListError
from autograph.errors import UnsupportedByBackendError
from autograph.errors import UndefinedVariableError
from autograph.errors import BranchVariableError
from autograph.operators import exceptions
from autograph.operators import loop_exits
from autograph.operators import loop_hints
from autograph.operators import nest
from autograph.operators import staged_loops
from autograph.operators import variables
from autograph.operators.backends import PYTHON_TYPES
from autograph.operators.staged_block import StagedBlock
from autograph.operators.staged_block import unforeseen
from autograph.operators.variables import MaybeUndefined
from autograph.operators.variables import Symbol
from autograph.operators.variables import Undefined
from autograph.operators.variables import describe_name
from autograph.operators.variables import UndefinedReturnValue


_UNDEFINED = (Undefined, UndefinedReturnValue)
_MAYBE_UNDEFINED = (Undefined, UndefinedReturnValue, MaybeUndefined)


# What `StagedIf._peek` at the other branch gives when that branch always raises.
_ALWAYS_RAISES = object()


def staged_if_stmt(backend, cond, branches, state, symbol_names, nouts):
    """Stages the if statement; `branches` is (body, orelse), `state` (get_state, set_state).

    A Python list among the outputs that a branch appends to or pops from becomes a staged
    list first (the backend's `new_list`), as in a staged loop: its length then depends on the
    staged condition. Changing the Python list in place would change it for both branches.
    """
    get_state, _ = state
    with backend.stateful_scope(variables.free_cells(*branches, get_state)):
        StagedIf(backend, cond, branches, state, symbol_names, nouts).stage()


class StagedIf(StagedBlock):
    """A staged if statement: the backend's `cond` of its two branches.

    Outputs undefined at the end of one branch and defined at the end of the other are aligned
    (`_align_outputs`). The first branch that the backend stages needs the other's outputs
    whenever aligning could change its own: then they come from the plan (the scout, for a
    statement that carries a Python list), or the first branch peeks at the other (`_peek`:
    the other branch staged in a scratch) before it gives the backend its outputs.
    """

    construct = 'if statement'

    def __init__(self, backend, cond, branches, state, symbol_names, nouts=None):
        super().__init__(backend, state, symbol_names)
        self.cond = cond
        self.fns = {'if': branches[0], 'else': branches[1]}
        # the outputs: the state's first `nouts` variables, those read after the statement
        self.out_names = self.symbol_names[:nouts]
        self.nouts = len(self.out_names)
        self.init_vars = ()  # the state before the statement (set by `stage_once`)
        self.known = {}  # branch name -> its raw outputs, known from the plan
        self.raw = {}  # branch name -> its outputs before aligning
        self.outputs = {}  # branch name -> the aligned outputs it gave the backend
        self.with_operands = None  # see _operands
        self.true_only = ()  # see _true_only
        self.fresh = {}  # branch name -> the state it started from (`_fresh`)
        self.names_outputs = True  # the backend's graph names outputs after the variables
        # False while a scout stages: the Python lists it carries need no look ahead there
        # (they are what the scout is for), unless one did not fit (`_Unfit`)
        self.peeks_at_lists = True

    def framed(self, init_vars):
        return init_vars[:self.nouts]

    def _frame(self, init_vars, recording=False):
        """The outputs' frame, which also watches the lists among the other variables for
        item assignment at a staged index: no one reads them after the statement, but a
        branch may read one after changing it so."""
        frame = super()._frame(init_vars, recording)
        for value in init_vars[self.nouts:]:
            frame.add(value, value, assigned_only=True)
        return frame

    def scout(self, init_vars):
        """Stages the statement in a scratch; returns both branches' raw outputs.

        The first branch does not look at the other for the Python lists the statement
        carries: a list a branch changes becomes a staged list anyway. Only when the other
        branch gives such a list a staged value (`_Unfit`) is the scout staged again, looking.
        """
        self.peeks_at_lists = False
        try:
            self.stage_once(init_vars, None)
        except _Unfit:
            self.peeks_at_lists = True
            self.set_state(init_vars)
            self.stage_once(init_vars, None)
        finally:
            self.peeks_at_lists = True
        return dict(self.raw)

    def stage_once(self, init_vars, plan):
        """Stages the statement once and assigns its outputs; `plan`: see `known`."""
        self.init_vars, self.known = init_vars, plan or {}
        self.raw, self.outputs, self.fresh = {}, {}, {}
        operands, self.with_operands = _operands(self.backend, init_vars)
        self.true_only = self._true_only(init_vars)
        branches = (self.cond, self._branch('if', 'else'), self._branch('else', 'if'), operands)
        flat = (self.backend.cond_true_only(*branches, len(self.true_only)) if self.true_only
                else self.backend.cond(*branches))
        outputs = self.outputs
        first = outputs['if'] if 'if' in outputs else outputs['else']
        carried = _carried(first, self.true_only)
        if self.names_outputs:
            self.backend.name_outputs(flat, staged_loops.flat_names_of(
                [self.out_names[k] for k in carried], [first[k] for k in carried]))
        final = list(first)
        for k, value in zip(carried,
                            nest.pack(nest.structure([first[k] for k in carried]), flat)):
            final[k] = value
        # the lists both branches changed in place or left alone (each its own copy)
        self.in_place = [k for k in range(self.nouts) if type(init_vars[k]) is list and all(
            k < len(self.fresh[b]) and self.raw[b][k] is self.fresh[b][k] for b in self.raw)]
        self.set_state(tuple(final) + init_vars[self.nouts:])

    def _true_only(self, init_vars):
        """The positions of the outputs that no one reads unless the condition holds (see
        loop_exits), among those that are one staged value or a Python number: the backend
        may give them the if branch's value whichever branch is taken
        (`Backend.cond_true_only`). Both branches give each one value of its type (the
        checks of `_stage_branch`), first among the flat outputs (`_carried`)."""
        names = loop_exits.read_only_if(self.cond, self.get_state)
        return tuple(k for k, name in enumerate(self.out_names)
                     if name in names and self._one_value(init_vars[k]))

    def _one_value(self, value):
        if type(value) in (int, float, bool):
            return True
        if type(value) in PYTHON_TYPES or not self.backend.is_staged(value):
            return False
        flat = nest.flatten(value)
        return not self.backend.is_list_value(value) and len(flat) == 1 and flat[0] is value

    def with_staged_list(self, init_vars, request):
        """`list_frames.with_staged_list`, with a message about if statements when it fails."""
        try:  # the branch taken runs once: it appends at most what its trace appends
            return super().with_staged_list(init_vars, request, {'iterations': 1})
        except (UnboundedListError, UnsupportedByBackendError):
            # the backend's message is about loops: replaced, not chained
            name = describe_name(self.symbol_names[next(
                k for k, v in enumerate(init_vars) if v is request.target)])
        raise StagingError(
            '{} is a Python list appended to (or popped from) in a branch of a staged if '
            'statement, so its length depends on the staged condition, and backend {!r} '
            'cannot make it a staged list without a bound on its length. Compute the '
            'value with a conditional expression and append it after the if statement '
            '(`l.append(a if c else b)`), so that the length does not depend on the '
            'condition.'.format(name, self.backend.name))

    def _peek(self, other, state):
        """The other branch's outputs, staged now in a discarded scratch (None without one;
        _ALWAYS_RAISES when the other branch reads a variable no path assigns: see `_run`)."""
        try:
            scratch = self.backend.scratch()
        except UnsupportedByBackendError:
            return None
        try:
            with scratch:
                self.set_state(self._fresh(state))
                self.fns[other]()
                return self.read_state()[:self.nouts]
        except Exception as error:  # pylint: disable=broad-except  # re-raised unless staged
            if not _raises_when_run(error):
                raise
            return _ALWAYS_RAISES
        finally:
            self.set_state(state)

    def _run(self, name, other, state):
        """Stages one branch and returns its raw outputs.

        A branch that reads a variable no path has assigned (`ld` of `Undefined`) always
        raises UnboundLocalError when it runs. Plain Python raises only when it takes that
        branch, so the branch becomes a staged check that raises the error when the branch
        is taken, and gives placeholder outputs of the other branch's types. When the other
        branch raises too, or the backend cannot check at run time, the error propagates.
        """
        fresh = self.fresh[name] = self._fresh(state)
        self.set_state(fresh)
        try:
            self.fns[name]()
        except Exception as error:  # pylint: disable=broad-except  # re-raised unless staged
            self.fresh[name] = ()  # placeholders: not the branch's own lists
            if not _raises_when_run(error):
                raise
            self.set_state(self._fresh(state))
            other_raw = self.known.get(other, self.raw.get(other))
            if other_raw is None:
                # no outputs: none to imitate
                other_raw = self._peek(other, state) if self.nouts else ()
            if other_raw is _ALWAYS_RAISES:
                # Both branches raise: the statement raises wherever it runs, after the side
                # effects each branch staged. The outputs are placeholders (their values
                # before the statement), never read.
                other_raw = tuple(self.init_vars[:self.nouts])
            failing = _outputs_of_a_failing_branch(self.backend, other_raw,
                                                   self.init_vars[:self.nouts])
            if failing is None:
                raise
            # false exactly when this branch is taken
            not_cond = self.backend.logical_not(self.cond)
            defined = not_cond if name == 'if' else self.backend.logical_not(not_cond)
            where = 'the {} branch of a staged if statement'.format(name)
            if exceptions.is_staged_raise(error):
                exceptions.raise_when_run(self.backend, defined, error, where)
            else:
                variables.raise_when_run(self.backend, defined, error, where)
            return failing
        return self.read_state()[:self.nouts]

    def _branch(self, name, other):
        """The function the backend stages as branch `name` (`other` is the other one)."""
        def branch(*values):
            return self._stage_branch(name, other, self.with_operands(values))
        return branch

    def _fresh(self, state):
        """`state` with its Python lists and dicts copied (nested ones too): both branches
        are traced (and may be peeked at), so a branch that changes one in place (`memo[0] =
        5`) must not change it for the other; each starts from a copy. Each copy stands for
        the original in the statement's list frame (a copy appended to is the original made a
        staged list). A variable that is no output keeps its value from before the
        statement: no one reads it after."""
        state = list(state)
        for k in range(len(state)):
            value = state[k]
            if type(value) in (list, dict, collections.defaultdict):
                state[k] = nest.pack(nest.structure(value), nest.flatten(value))
                self.frame.add(state[k], value, assigned_only=k >= self.nouts)
            elif self.backend.is_list_value(value):  # the backend's copy of one (torch's)
                self.frame.add(value, self.init_vars[k], assigned_only=k >= self.nouts)
        return tuple(state)

    def _needs_other(self, outs):
        """Whether aligning this branch's outputs `outs` with the other's could change them,
        so that the other's must be known first: an output undefined here, or a Python list
        (the other may give a staged list), or one that the other branch may leave undefined
        (`_may_stay_undefined`)."""
        return any(isinstance(v, _UNDEFINED) or _may_stay_undefined(before)
                   or (type(v) is list and (self.peeks_at_lists or type(before) is not list))
                   for v, before in zip(outs, self.init_vars))

    def _stage_branch(self, name, other, state):
        """Stages branch `name` from `state`; returns its flat carried outputs."""
        out_names, raw, outputs = self.out_names, self.raw, self.outputs
        outs = raw[name] = self._run(name, other, state)
        other_raw = self.known.get(other, raw.get(other))
        if other_raw is None and self._needs_other(outs):
            other_raw = self._peek(other, state)
            if other_raw is _ALWAYS_RAISES:
                other_raw = None  # nothing to align with
        outs = _align_outputs(self.backend, out_names, outs, other_raw)
        if other in outputs:
            first = _align_outputs(self.backend, out_names, raw[other], outs)
            for k, (a, b) in enumerate(zip(first, outputs[other])):
                if not _same_kind(self.backend, a, b):  # the peek's differ from the real ones
                    if not self.peeks_at_lists:
                        raise _Unfit()
                    raise unforeseen(self.construct, describe_name(out_names[k]))
            _check_both_defined(out_names, {name: outs, other: first})
        carried = _carried(outs, self.true_only)
        check_branch_values([out_names[k] for k in carried], [outs[k] for k in carried],
                            name)
        if other in outputs:
            both = {name: outs, other: outputs[other]}
            check_same_types([out_names[k] for k in carried],
                             [both['if'][k] for k in carried],
                             [both['else'][k] for k in carried], self.type_of,
                             self.backend.compatible_types)
        outputs[name] = outs
        return tuple(nest.flatten([outs[k] for k in carried]))


class _Unfit(Exception):
    """Signal within a scout: the first branch's Python list did not fit the other's value."""


def _may_stay_undefined(before):
    """Whether an output whose value before the statement is `before` may be undefined at
    the end of a branch: undefined before, unless the converter saw every branch assign it
    (`Undefined.every_branch`)."""
    return type(before) is MaybeUndefined or (type(before) is Undefined
                                              and not before.every_branch)


def _raises_when_run(error):
    """Whether a staged branch that raised `error` while traced becomes a staged raise: a read
    of a variable no path assigns (`ld` of `Undefined`) or the user's own `raise`."""
    return exceptions.is_staged_raise(error) or (
        isinstance(error, UnboundLocalError) and variables.is_undefined_read(error))


def _operands(backend, init_vars):
    """The operands of a staged `if`: the values of its state that the backend stages, and
    the state references it threads (`Backend.is_state_reference`).

    Returns:
        (operands, with_operands): the tuple of staged state values (those at the top level of
        the state; nested ones stay as they are), and a function from a tuple of the same
        length to the state with those values in their places (what a branch starts from).
    """
    positions = [k for k, v in enumerate(init_vars) if type(v) not in PYTHON_TYPES
                 and (backend.is_staged(v) or backend.is_state_reference(v))]

    def with_operands(values):
        state = list(init_vars)
        for k, value in zip(positions, values):
            state[k] = value
        return tuple(state)

    return tuple(init_vars[k] for k in positions), with_operands


def _outputs_of_a_failing_branch(backend, other, initial):
    """Placeholder outputs for a branch that always raises: of the other branch's types.

    An output the other branch leaves as it was before the statement keeps that value; other
    outputs are zeros of the other's (`zeros_like`). Returns None when they cannot be made
    (the other's outputs are unknown, or the backend has no `zeros_like` for one).
    """
    if other is None:
        return None
    outs = []
    try:
        for value, before in zip(other, initial):
            if isinstance(value, _UNDEFINED) or value is None or value is before:
                outs.append(value)
            elif type(value) is MaybeUndefined:
                outs.append(MaybeUndefined(nest.map_leaves(backend.zeros_like, value.value),
                                           False, value.symbol_name))
            else:
                outs.append(nest.map_leaves(backend.zeros_like, value))
    except UnsupportedByBackendError:
        return None
    return tuple(outs)


def _check_both_defined(names, branches):
    """Reports an output that stays undefined in one branch and is defined in the other."""
    for k, name in enumerate(names):
        undefined = [b for b in ('if', 'else') if isinstance(branches[b][k], _UNDEFINED)]
        if len(undefined) == 1:
            check_branch_values([name], [branches[undefined[0]][k]], undefined[0])


def _carried(outs, first=()):
    """Positions of the outputs that the staged cond carries, those in `first` first.

    An output still undefined after `_align_outputs` is undefined in both branches (no path
    that the trace reached assigns it, e.g. a return under a Python-false condition): it is
    not an output, and keeps its placeholder.
    """
    rest = [k for k, v in enumerate(outs) if not isinstance(v, _UNDEFINED) and k not in first]
    return list(first) + rest


def _align_outputs(backend, names, outs, other):
    """Gives one branch's outputs the structure of the other's, where one may be undefined.

    - A return value that this branch does not set becomes `zeros_like` of the other's: it is
      never used, because this branch's `do_return` flag stays false.
    - A variable that only the other branch assigns becomes `MaybeUndefined(zeros, False)`,
      and this branch's value `MaybeUndefined(value, True)`: after the statement, reading it
      checks the staged flag (see `variables.ld`), as plain Python raises UnboundLocalError
      on the path that did not assign it.
    - An output undefined in both branches stays undefined (see `_carried`).
    - A Python list (`return []`) beside the other's staged list becomes a staged list like
      it (`Backend.list_like`).

    When the other's outputs are not known (`other` is None), or the backend has no
    `zeros_like`, the outputs are returned unchanged.
    """
    if other is None:
        return outs
    aligned = list(outs)
    try:
        for k, (a, b) in enumerate(zip(outs, other)):
            if isinstance(b, _UNDEFINED):
                if type(b) is Undefined and not isinstance(a, _MAYBE_UNDEFINED):
                    aligned[k] = MaybeUndefined(a, True, names[k])
                continue
            if type(a) is UndefinedReturnValue:
                if b is not None:
                    aligned[k] = nest.map_leaves(backend.zeros_like, b)
            elif type(a) is Undefined:
                ref = b.value if type(b) is MaybeUndefined else b
                if ref is not None:
                    aligned[k] = MaybeUndefined(nest.map_leaves(backend.zeros_like, ref), False,
                                                names[k])
            elif type(a) is not MaybeUndefined and type(b) is MaybeUndefined:
                aligned[k] = MaybeUndefined(a, True, names[k])
            elif type(b) is not list and backend.is_staged(b) and (type(a) is list or (
                    type(a) is type(b) and backend.type_of(a) != backend.type_of(b))):
                # `return []`, or a staged list the other branch widened (a float appended)
                aligned[k] = _list_like(backend, b, a, names[k])
    except UnsupportedByBackendError:
        return outs
    return tuple(aligned)


def _list_like(backend, staged, items, name):
    """`items` (`return []`) as a staged list like the other branch's `staged`, or unchanged
    when the backend has none (the branches' types then differ: BranchVariableError)."""
    try:
        return backend.list_like(staged, items, name)
    except NotImplementedError:
        return items


def check_branch_values(names, values, branch):
    """Checks that every output of a staged branch has a value.

    Args:
        names: output symbol names (or expression text, for conditional expressions).
        values: their values at the end of the branch.
        branch: 'if' or 'else'.

    Raises:
        UndefinedVariableError: for an `Undefined` value or a missing return value.
        StagingError: for None.
    """
    for name, value in zip(names, values):
        if isinstance(value, Undefined):
            raise UndefinedVariableError(
                "{} must also be initialized in the {} branch: the condition is staged, so "
                "both branches run and each must assign it. Assign {} in the {} branch or "
                "before the if statement.".format(
                    describe_name(name), branch, describe_name(name), branch))
        if isinstance(value, UndefinedReturnValue):
            raise UndefinedVariableError(
                'the {} branch must also have a return statement: the condition is staged, so '
                'both branches run and each must return a value (or neither).'.format(branch))
        if value is None:
            if name is Symbol.RETURN_VALUE:
                raise StagingError(
                    'the {} branch returns None (a bare `return`, or `return None`) while the '
                    'other branch returns a value: the condition is staged, so both branches '
                    'run and must return values of the same type. Return a value of that type '
                    'on every path.'.format(branch))
            raise StagingError(
                "{} is None at the end of the {} branch: a staged if statement needs a value "
                "of the same type from both branches. Assign {} a staged or numeric value "
                "there.".format(describe_name(name), branch, describe_name(name)))


def check_same_types(names, if_values, else_values, type_of, compatible):
    """Checks that each output has the same dtype and structure in both staged branches.

    Args:
        names: output symbol names (or expression text, for conditional expressions).
        if_values: values at the end of the if branch.
        else_values: values at the end of the else branch.
        type_of: function from a leaf value to its type description.
        compatible: the backend's `compatible_types(if_type, else_type)`.

    Raises:
        BranchVariableError: naming the symbol and both types.
    """
    for name, a, b in zip(names, if_values, else_values):
        desc_a = nest.describe(a, type_of)
        desc_b = nest.describe(b, type_of)
        if not (nest.same_description(desc_a, desc_b, compatible)
                or nest.same_description(desc_b, desc_a, compatible)):
            raise BranchVariableError(
                "{} has type {} in the if branch, but type {} in the else branch: a staged "
                "if statement must give it the same dtype, shape and structure in both "
                "branches. {}".format(
                    describe_name(name), nest.render(desc_a), nest.render(desc_b),
                    loop_hints.type_fix(desc_a, desc_b, 'in both branches')))


def staged_if_exp(backend, cond, branches, expr_repr):
    """Stages the conditional expression `branches[0]() if cond else branches[1]()`: an if
    statement with one output, the expression's value, named by its source `expr_repr`."""
    value = [None]  # None before: each branch must give a value (check_branch_values)

    def get_state():
        return (value[0],)

    def set_state(values):
        value[0] = values[0]

    def branch(fn, name):
        def run():
            value[0] = fn()
            # a value, here rather than by aligning: an expression has no undefined outputs
            check_branch_values((expr_repr,), value, name)
        return run

    staged = StagedIf(backend, cond, (branch(branches[0], 'if'), branch(branches[1], 'else')),
                      (get_state, set_state), (expr_repr,))
    staged.names_outputs = False  # an expression's value has no variable's name
    # as for an if statement: the state the branches reach (a Flax NNX module) is threaded
    with backend.stateful_scope(variables.free_cells(*branches)):
        staged.stage()
    return value[0]


def _same_kind(backend, a, b):
    """Whether a peek's output `a` and the real one `b` are the same kind of value: of one
    type, or both staged values of the backend (a peek runs on a pass that records nothing,
    where torch gives a fake tensor for what the trace gives as a functional one)."""
    return type(a) is type(b) or (backend.is_staged(a) and backend.is_staged(b))
