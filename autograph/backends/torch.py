"""The PyTorch backend: converted `if`/`while`/`for` on traced tensors become torch.cond and
torch.while_loop, so that Python control flow exports and compiles with fullgraph=True.

On eager tensors (concrete values) converted code runs as plain Python, exactly as the
original. While torch traces (torch.export, or AOTAutograd under torch.compile: fake tensors
with no data), a tensor condition makes the statement staged:

- `if`/`elif`/`else`, conditional expressions, `and`/`or`/`not` -> `torch.cond`;
- `while`, `for` over a tensor (its first dimension) or over `range` of a tensor, and loops
  with `break`/`continue`/`return` -> `torch.while_loop`.

Dynamo (torch.compile, strict torch.export) cannot trace autograph's own Python, so the
converted function reaches torch through `torch._dynamo.nonstrict_trace`: dynamo records one
opaque call and AOTAutograd traces it as plain Python on fake tensors, where this backend
stages it. `convert`, `compile` and `export` (torch_calls) do that set-up; see docs/torch.md.
"""

import contextlib
import functools
import threading

import torch
from torch._higher_order_ops.while_loop import while_loop_op
from torch.fx.experimental.proxy_tensor import disable_proxy_modes_tracing
from torch.fx.experimental.proxy_tensor import get_proxy_mode

from autograph.backends import torch_carried
from autograph.backends import torch_lists
from autograph.backends import torch_math
from autograph.backends import torch_ops
from autograph.backends import torch_values
from autograph.backends.base import Backend
from autograph.backends.registry import SHIPPED_OWNED_MODULES
from autograph.backends.registry import register_backend
from autograph.backends.torch_lifting import closed
from autograph.backends.torch_lifting import discarded_sizes
from autograph.backends.torch_lifting import free_tensors
from autograph.backends.torch_lists import ListHooks
from autograph.backends.torch_lists import StagedList
from autograph.backends.torch_select import select_branches
from autograph.backends.torch_select import selectable
from autograph.backends.torch_values import StagedRange
from autograph.backends.torch_values import as_tensor
from autograph.backends.torch_values import leaf_type
from autograph.backends.torch_values import predicate
from autograph.backends.torch_values import stands_for_number
from autograph.backends.torch_calls import compile  # pylint: disable=redefined-builtin
from autograph.backends.torch_calls import convert
from autograph.backends.torch_calls import export
from autograph.operators.generators import empty_message

__all__ = ['BACKEND', 'TorchBackend', 'StagedRange', 'compile', 'convert', 'export']


# The attribute of a `logical_not` result that holds the tensor it negates.
_NEGATES = '_autograph_negates'


# (keyed on the builtins as Python made them: torch's export replaces `builtins.min` and `max`
# while it traces)
_EMPTY = {fn: empty_message(fn) for fn in (min, max)}


class _Scratch(threading.local):
    depth = 0  # > 0 while autograph stages a discarded trial run
    effects = 0  # staged checks and prints dropped by discarded runs so far
    loops = 0  # loops run by discarded runs so far


def _where_operand(value, other, dtype):
    """`value` as an operand of `torch.where` whose result has `dtype`: a Python number beside
    a tensor of that dtype stays a number (torch.where takes a scalar: no `full` for it)."""
    if isinstance(other, torch.Tensor) and other.dtype == dtype and (
            type(value) is bool and dtype == torch.bool
            or type(value) is int and torch_values.is_integer(dtype)
            or type(value) is float and dtype.is_floating_point):
        return value
    return as_tensor(value, dtype)


def _read(*values):
    """Reads the tensors among `values` on a discarded pass, as the staged check or print
    that it drops would: the lifting (torch_lifting.free_tensors) must see them read, or a
    branch printing a tensor of the enclosing function would not get it as an input."""
    for value in values:
        if isinstance(value, torch.Tensor):
            torch.ops.aten.alias(value)


def _negated(value):
    """The tensor that `value` (a `logical_not`) negates, where the graph being traced has
    it; else None. A tensor of another graph (of the function around a branch) is in this
    one only as the input that lifting made of what the branch reads, and a branch reads the
    negation, not what it negates: using that would make it a constant of the program."""
    base = getattr(value, _NEGATES, None)
    mode = get_proxy_mode()
    if base is None or mode is None or base not in mode.tracer.tensor_tracker:
        return None
    return base


def _is_bool(value):
    return isinstance(value, torch.Tensor) and value.dtype == torch.bool


def _copies(tensors):
    return [torch_values.number_like(t.clone(), stands_for_number(t)) for t in tensors]


def _discarded_cond(pred, true_fn, false_fn, operands):
    """An `if` nested in a discarded pass (`scratch`), where only the types of the outputs
    and the tensors read count: each branch runs once, on copies of the operands, with no
    subgraph traced (tracing them would run each branch again, at every level of nesting).
    Both outputs are read, through `torch.where` where their shapes agree."""
    outputs = [tuple(fn(*_copies(operands))) for fn in (true_fn, false_fn)]
    result = []
    for true_value, false_value in zip(*outputs):
        dtype = torch_values.joint_dtype((leaf_type(true_value), leaf_type(false_value)))
        true_value, false_value = as_tensor(true_value, dtype), as_tensor(false_value, dtype)
        if torch_values.same_shape(true_value, false_value):
            true_value = torch.where(pred, true_value, false_value)
        result.append(true_value)
    _read(pred, *outputs[0], *outputs[1])  # (see _discarded_loop)
    return torch_carried.numbers_out(tuple(result), *outputs)


def _discarded_loop(test, body_fn, loop_vars):
    """A loop nested in a discarded pass: its test and body run once each (see
    `_discarded_cond`); the outputs are the body's, at the loop variables' dtypes. The loop
    variables are read: the staged loop carries them in, even one that the body assigns
    before reading it (it is the loop's output when the loop runs zero times)."""
    _read(*loop_vars)
    init = [as_tensor(v) for v in loop_vars]
    test(*_copies(init))
    after = tuple(body_fn(*_copies(init)))
    # a tensor of the enclosing function that the body gives a variable without an operation
    # (`f6 = a`) is read: the staged loop carries it out, so the lifting must see it
    _read(*after)
    dtypes = torch_carried.loop_dtypes(loop_vars, after)
    return torch_carried.numbers_out(tuple(as_tensor(a, d) for a, d in zip(after, dtypes)),
                                     loop_vars, after)


class TorchBackend(ListHooks, Backend):
    """Stages autograph control flow on traced torch tensors as torch.cond / torch.while_loop."""

    name = 'torch'
    owned_modules = SHIPPED_OWNED_MODULES[__name__]  # ('torch', 'torchvision', ...)
    folds_break_flags = True  # two loop variables and a comparison fewer in the graph

    def __init__(self):
        self._scratch = _Scratch()

    def is_staged(self, value):
        """True for tensors that torch is tracing (fake or functional), staged ranges and
        staged lists."""
        return torch_values.traced(value) or type(value) in (StagedRange, StagedList)


    def cond(self, pred, true_fn, false_fn, operands=()):
        """Stages `if` as torch.cond over the operands and the free tensors the branches read,
        or, for branches without effects that only compute, as a `select` of each output.

        Args:
            pred: a traced tensor of one element, or a Python bool.
            true_fn: callable taking the operands, returning a tuple.
            false_fn: the same for the else branch.
            operands: a tuple of traced tensors.

        Returns:
            The tuple of outputs (tensors).
        """
        return self.cond_true_only(pred, true_fn, false_fn, operands, 0)

    def cond_true_only(self, pred, true_fn, false_fn, operands, true_only):
        """`cond`; where it selects, the first `true_only` outputs are the true branch's."""
        if not self.is_staged(pred):
            return tuple(true_fn(*operands) if pred else false_fn(*operands))
        # staged lists (torch_lists.StagedList) in and out as their buffer and length
        flat, rebuild = torch_lists.flattened(operands)
        rebuilds = []
        outs = self._staged_cond(pred, torch_lists.flat_function(true_fn, rebuild, rebuilds),
                                 torch_lists.flat_function(false_fn, rebuild, []), flat,
                                 true_only)
        return rebuilds[0](outs) if rebuilds[0] else outs

    def _staged_cond(self, pred, true_fn, false_fn, operands, true_only=0):
        """`cond` of operands and outputs that are tensors and Python numbers."""
        pred = predicate(pred, 'if')
        operands = tuple(torch_values.outside(v) for v in operands)
        if self._discarded():
            return _discarded_cond(pred, true_fn, false_fn, operands)
        effects = (self._scratch.effects, self._scratch.loops)
        found = free_tensors((true_fn, false_fn), operands, self.scratch)
        if effects == (self._scratch.effects, self._scratch.loops) and not (
                found.free_changed) and selectable(found.operations, found.outputs):
            return select_branches((true_fn, false_fn), operands, found.mutated,
                                   functools.partial(self.select, pred), true_only)
        dtypes = [torch_values.joint_dtype(types) for types in zip(
            *[[leaf_type(v) for v in outs] for outs in found.outputs])]
        read = sorted(found.read)
        numbers = {j for j, k in enumerate(read) if stands_for_number(operands[k])}
        tables = torch_carried.tables(found.outputs)
        true_fn, false_fn = (torch_carried.outputs(
            closed(torch_carried.of_read(fn, operands, read), len(read), found.free,
                   {read.index(k) for k in changed}, numbers), dtypes, tables)
            for fn, changed in zip((true_fn, false_fn), found.mutated))
        inputs = torch_carried.distinct(tuple(operands[k] for k in read) + tuple(found.free))
        if effects[0] == self._scratch.effects:
            outs = torch_carried.cond(pred, true_fn, false_fn, inputs)
            return torch_carried.cond_outputs(outs, tables, found.outputs)
        # A branch checks or prints: the cond must stay even when nothing reads its outputs
        # (torch removes an unused torch.cond, its prints with it), so it gives one more,
        # which `torch.ops.autograph.keep` reads.
        outs = torch_carried.cond(pred, torch_carried.with_token(true_fn),
                                  torch_carried.with_token(false_fn), inputs)
        torch_ops.keep(outs[-1:])
        return torch_carried.cond_outputs(outs[:-1], tables, found.outputs)

    def staged_loop(self, cond_fn, body_fn, loop_vars, options):
        """Backend's, with the loop's test as its truth (a bool tensor): a loop of a bound
        gives the test as an output of a torch.cond, which cannot be a list's value
        (`while stack:`)."""
        return super().staged_loop(lambda *state: predicate(cond_fn(*state), 'while'),
                                   body_fn, loop_vars, options)

    def while_loop(self, cond_fn, body_fn, loop_vars):
        """Stages a loop as torch.while_loop over the loop variables and the free tensors.

        Args:
            cond_fn: callable taking the loop variables, returning a scalar.
            body_fn: callable taking the loop variables, returning the next ones.
            loop_vars: a tuple (Python numbers become tensors of the dtype the body gives
                them, as Python's arithmetic with a tensor would).

        Returns:
            The final loop variables, as a tuple of tensors.
        """
        flat, rebuild = torch_lists.flattened(loop_vars)
        if rebuild is not None:  # staged lists as their buffer and length
            return rebuild(self.while_loop(
                lambda *args: cond_fn(*rebuild(args)),
                torch_lists.flat_function(body_fn, rebuild, []), flat))
        loop_vars = tuple(torch_values.outside(v) for v in loop_vars)
        with disable_proxy_modes_tracing():  # for the discarded pass only: recorded nowhere
            init = tuple(as_tensor(v) for v in loop_vars)

        def test(*state):
            return (predicate(cond_fn(*state), 'while'),)

        if self._discarded():
            self._scratch.loops += 1
            return _discarded_loop(test, body_fn, loop_vars)
        effects = self._scratch.effects
        free, outputs, mutated, dtypes = self._carried((test, body_fn), loop_vars, init)
        init = torch_carried.linked(
            tuple(as_tensor(v, d) for v, d in zip(loop_vars, dtypes)), free)
        count = len(init)
        numbers = {k for k, v in enumerate(loop_vars) if stands_for_number(v)}
        test = closed(test, count, free, mutated[0], numbers)
        body = torch_carried.outputs(closed(body_fn, count, free, mutated[1], numbers), dtypes)

        def loop(*args):
            return tuple(while_loop_op(lambda *a: test(*a)[0], body, args[:count],
                                       args[count:]))

        inputs = torch_carried.distinct(init + tuple(free))
        if not (torch_carried.any_float(init) and torch_carried.may_carry_gradients()):
            outs = loop(*inputs)  # its outputs, the loop variables, carry no gradients
        else:
            # torch 2.13 differentiates a while_loop that runs zero times as if it ran once
            # (docs/torch.md): a loop that may carry gradients runs only when its test holds.
            outs = torch_carried.cond(test(*inputs)[0], loop,
                                      lambda *args: tuple(a.clone() for a in args[:count]),
                                      inputs)
        if effects != self._scratch.effects:
            torch_ops.keep(list(outs))  # kept with its checks and prints, as a cond is
        return torch_carried.numbers_out(torch_carried.sized_as(outs, init), loop_vars,
                                         outputs[1])

    def _carried(self, fns, loop_vars, init):
        """(free tensors, outputs, mutated, dtypes) of a loop's discarded passes: a pass
        again from the widened values while the body widens a variable (`prev, cur = cur,
        prev` where `cur[1]` became a float: then `cur`'s too), so that no value is cast to
        a narrower dtype; and the body that changes in place what it made a new value of a
        narrower dtype (`n /= 4` of an int) is found on the widened ones."""
        free, outputs, mutated = free_tensors(fns, init, self.scratch)[:3]
        dtypes = torch_carried.loop_dtypes(loop_vars, outputs[1])
        # each pass widens one variable or more, each at most thrice (bool, int, float, complex)
        for _ in range(3 * len(init)):
            if all(t.dtype == d for t, d in zip(init, dtypes)):
                break
            with disable_proxy_modes_tracing():
                init = tuple(t.to(d) for t, d in zip(init, dtypes))
            free, outputs, mutated = free_tensors(fns, init, self.scratch)[:3]
            dtypes = torch_carried.loop_dtypes(init, outputs[1])
        return free, outputs, mutated, dtypes

    def _discarded(self):
        """Whether no graph records what runs now: a discarded pass (`scratch`), or torch
        running a function on fake tensors only for the types of its outputs (torch.cond's
        own check of its branches, dynamo's run of a `nonstrict_trace` call)."""
        return self._scratch.depth > 0

    def iterate(self, iterable):
        """A tensor iterates over its first dimension; a staged range over its elements."""
        if type(iterable) is StagedRange:
            return iterable.length(), iterable.element
        if type(iterable) is StagedList:
            return iterable.length, functools.partial(torch_values.row, iterable.buffer)
        if isinstance(iterable, torch.Tensor):
            if iterable.dim() == 0:
                raise TypeError('iteration over a 0-d tensor')
            return iterable.shape[0], functools.partial(torch_values.row, iterable)
        return None

    def select(self, pred, true_value, false_value):
        """`torch.where` of two computed values; `logical_and` for `pred and b` of a bool
        tensor `b` (`select(pred, b, False)`), `logical_or` for `pred or b`; `pred` itself
        for `select(pred, True, False)` (a flag set in one branch)."""
        pred = predicate(pred, 'if')
        negated = _negated(pred)
        if negated is not None:  # `where(not p, a, b)` is `where(p, b, a)`: one operation less
            pred, true_value, false_value = negated, false_value, true_value
        if true_value is True and false_value is False:
            return pred
        if true_value is False and false_value is True:
            return torch.logical_not(pred)
        if false_value is False and _is_bool(true_value):
            base = _negated(true_value)
            if base is not None:  # `pred and not base` (a loop's test and `not break_`)
                return torch.gt(pred, base)  # of bools: True > False only
            return torch.logical_and(pred, true_value)
        if true_value is True and _is_bool(false_value):
            return torch.logical_or(pred, false_value)
        dtype = torch_values.joint_dtype((leaf_type(true_value), leaf_type(false_value)))
        a, b = _where_operand(true_value, false_value, dtype), _where_operand(
            false_value, true_value, dtype)
        return torch_values.number_like(
            torch.where(pred, a, b),
            stands_for_number(true_value) and stands_for_number(false_value))

    def logical_not(self, value):
        """`torch.logical_not`, its result marked with the tensor it negates, which `select`
        reads instead (swapping its values)."""
        value = predicate(value, 'not')
        result = torch.logical_not(value)
        setattr(result, _NEGATES, value)
        return result

    def call_builtin(self, fn, args, kwargs):
        """`range` of a traced tensor becomes a StagedRange; len, abs, int, float, min, max
        and sum become torch operations (see `torch_values.BUILTINS`), and Python's numeric
        builtins and `math` functions too (torch_math.py)."""
        if args and type(args[0]) is StagedList:
            if fn is len:
                return args[0].length
            args = (args[0].elements(),) + tuple(args[1:])
        if fn is range and any(isinstance(a, torch.Tensor) and a.dtype.is_floating_point
                               for a in args):
            # Python's TypeError when this point runs, so that a `raise` staged before it
            # (`if n != int(n): raise ValueError(...)`) runs first, as in Python; raised
            # while tracing, it preempted that one. An empty range stands for it.
            self.raise_unless(torch.zeros((), dtype=torch.bool), [], lambda: TypeError(
                "'float' object cannot be interpreted as an integer"))
            return range(0)
        handler = torch_values.BUILTINS.get(fn) or torch_math.FUNCTIONS.get(fn) or (
            torch_lists.METHODS.get(fn))
        if handler is None or kwargs and (fn is not sorted or set(kwargs) != {'reverse'}):
            raise NotImplementedError(fn)
        if fn in _EMPTY and len(args) == 1 and torch_values.run_time_length(args[0]):
            # a list of a run-time length: Python's ValueError when it is empty
            self.raise_unless(torch_values.length(args[0]) > 0, [],
                              functools.partial(ValueError, _EMPTY[fn]))
        return handler(*args, **kwargs)

    def call_method(self, obj, name, args, kwargs):
        """`t.item()` of a traced tensor of one element is a 0-d tensor that stands for the
        Python number (`torch_values.stands_for_number`), as `int(t)` and `float(t)` are: a
        condition on it stages, where torch's own `item()` gives a number no `if` can
        branch on while torch traces ("Could not guard on data-dependent expression")."""
        if name != 'item' or args or kwargs or obj.numel() != 1:
            raise NotImplementedError(name)
        return torch_values.number_like(obj.reshape(()))

    def assert_(self, cond, message_fn):
        """Stages `assert`: `torch.ops.autograph.check`, raising AssertionError when it runs."""
        if self._scratch.depth:
            return self._dropped(cond)  # a discarded pass checks nothing
        message = message_fn()
        message = '' if message is None else str(message)
        torch_ops.check(predicate(cond, 'assert'), 'AssertionError', message)

    def check_defined(self, defined, error):
        """Stages the check that raises `error` (UnboundLocalError) when `defined` is false."""
        if self._scratch.depth:
            return self._dropped(defined)
        torch_ops.check(predicate(defined, 'if'), torch_ops.kind_of(error),
                        torch_ops.message_of(error))

    def raise_unless(self, ok, values, make_error):
        """Stages a `raise` whose message holds staged values: `torch.ops.autograph.
        raise_unless`, raising `make_error(*run-time values)` when `ok` is false as the
        program runs (a RuntimeError in a process that loads the program)."""
        if not values:
            return super().raise_unless(ok, values, make_error)
        if self._scratch.depth:
            return self._dropped(ok, *values)
        torch.ops.autograph.raise_unless(predicate(ok, 'if'), torch_ops.raising(make_error),
                                         [as_tensor(v) for v in values])
        return None

    def print_(self, *args, sep=' ', end='\n'):
        """Stages `print`: `torch.ops.autograph.print`, printing each time the program runs."""
        if self._scratch.depth:
            return self._dropped(*args)
        torch_ops.staged_print(args, sep, end)

    def type_of(self, value):
        if type(value) is StagedList:
            return ('list', value.buffer.dtype, value.buffer.ndim)  # a property: no read
        return torch_values.check_type(value)

    def compatible_types(self, before, after):
        return torch_values.compatible(before, after)

    def loop_widens(self, before, after):
        """A loop variable that enters as a tensor and that the body makes a tensor of a
        wider kind (an int64 `r` that `r = r / 2` makes a float): carried at the wider dtype
        (`torch_carried.loop_dtypes`), as Python's variable takes the float."""
        return isinstance(before, torch.dtype) and isinstance(after, torch.dtype) and (
            torch_values.joint_dtype((before, after)) == after)

    def zeros_like(self, value):
        return torch_values.zero_like(value)

    def _dropped(self, *values):
        """A staged check or print on a discarded pass: counted, and its tensors read."""
        self._scratch.effects += 1
        _read(*values)

    def probe(self):
        """While torch traces, a context in which a `while` loop's first test is recorded
        nowhere: a staged loop tests again, and the graph would keep the first test as an
        operation whose value nothing reads."""
        return None if get_proxy_mode() is None else self._scratch_context()

    def scratch(self):
        """A context whose staged operations are recorded nowhere (no proxy mode)."""
        return self._scratch_context()

    @contextlib.contextmanager
    def _scratch_context(self):
        self._scratch.depth += 1
        try:
            with disable_proxy_modes_tracing(), discarded_sizes(()):
                yield
        finally:
            self._scratch.depth -= 1


BACKEND = register_backend(TorchBackend())
StagedList.position = BACKEND.list_index
