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
stages it. `convert`, `compile` and `export` below do that set-up; see docs/torch.md.
"""

import contextlib
import functools
import threading
import types

import torch
from torch._higher_order_ops.cond import cond_op
from torch._higher_order_ops.while_loop import while_loop_op
from torch.fx.experimental.proxy_tensor import disable_proxy_modes_tracing

from autograph.backends import torch_ops
from autograph.backends import torch_values
from autograph.backends.base import Backend
from autograph.backends.registry import SHIPPED_OWNED_MODULES
from autograph.backends.registry import register_backend
from autograph.backends.torch_lifting import closed
from autograph.backends.torch_lifting import free_tensors
from autograph.backends.torch_values import StagedRange
from autograph.backends.torch_values import as_tensor
from autograph.backends.torch_values import leaf_type
from autograph.backends.torch_values import predicate

__all__ = ['BACKEND', 'TorchBackend', 'StagedRange', 'compile', 'convert', 'export']


class _Scratch(threading.local):
    depth = 0  # > 0 while autograph stages a discarded trial run


def _outputs(fn, dtypes):
    """`fn` returning a tuple of tensors: Python numbers become tensors of `dtypes`, and an
    output that is one of the inputs is copied (a torch.cond or while_loop output must not
    alias an input)."""
    def wrapper(*args):
        outs = tuple(fn(*args))
        inputs = {id(a) for a in args}
        result = []
        for k, value in enumerate(outs):
            value = as_tensor(value, dtypes[k] if dtypes else None)
            result.append(value.clone() if id(value) in inputs else value)
        return tuple(result)
    return wrapper


def _cond(pred, true_fn, false_fn, inputs):
    """`cond_op` whose integer and bool outputs pass as floats when others are floats.

    torch 2.13 cannot differentiate a torch.cond whose outputs mix floats with integers
    ("outs_to_grad length (1) != tangents length (2)", docs/torch.md); the integers pass
    through it bit for bit as floats of their size (`as_float`) and come back after it.
    """
    dtypes = []

    def floats(fn):
        def branch(*args):
            outs = fn(*args)
            dtypes[:] = [t.dtype for t in outs]
            mixed = any(torch_values.is_float(d) for d in dtypes) and not all(
                torch_values.is_float(d) for d in dtypes)
            return tuple(torch_values.as_float(t) for t in outs) if mixed else outs
        return branch

    outs = cond_op(pred, floats(true_fn), floats(false_fn), inputs)
    return tuple(torch_values.from_float(t, d) for t, d in zip(outs, dtypes))


def _linked(init, free):
    """The loop variables `init`, each floating one tied in autograd to the free tensors.

    torch 2.13 gives a tensor that a while_loop reads in every iteration one iteration's
    share of its gradient when the loop variables do not require gradients themselves
    (docs/torch.md). Adding a zero computed from the free floating tensors (NaN-safe) makes
    the loop variables require gradients whenever those do; the values are unchanged.
    """
    floats = [t for t in free if torch_values.is_float(t.dtype)]
    if not floats:
        return init
    zero = sum(torch.nan_to_num(t, 0.0, 0.0, 0.0).sum() * 0 for t in floats)
    return tuple(v + zero.to(v.dtype) if torch_values.is_float(v.dtype) else v for v in init)


def _distinct(tensors):
    """`tensors` with a view in place of each repeated one: torch 2.13's export names the
    inputs of a subgraph after its operands, and one tensor passed twice to a loop nested in
    a cond would give the subgraph two inputs of one name."""
    seen = set()
    result = []
    for t in tensors:
        result.append(t.view_as(t) if id(t) in seen else t)
        seen.add(id(t))
    return tuple(result)


class TorchBackend(Backend):
    """Stages autograph control flow on traced torch tensors as torch.cond / torch.while_loop."""

    name = 'torch'
    owned_modules = SHIPPED_OWNED_MODULES[__name__]  # ('torch', 'torchvision', ...)

    def __init__(self):
        self._scratch = _Scratch()

    def is_staged(self, value):
        """True for tensors that torch is tracing (fake or functional) and staged ranges."""
        return torch_values.traced(value) or type(value) is StagedRange


    def cond(self, pred, true_fn, false_fn, operands=()):
        """Stages `if` as torch.cond over the operands and the free tensors the branches read.

        Args:
            pred: a traced tensor of one element, or a Python bool.
            true_fn: callable taking the operands, returning a tuple.
            false_fn: the same for the else branch.
            operands: a tuple of traced tensors.

        Returns:
            The tuple of outputs (tensors).
        """
        if not self.is_staged(pred):
            return tuple(true_fn(*operands) if pred else false_fn(*operands))
        pred = predicate(pred, 'if')
        operands = tuple(operands)
        free, outputs, mutated = free_tensors((true_fn, false_fn), operands, self.scratch)
        dtypes = [torch_values.joint_dtype(types) for types in zip(
            *[[leaf_type(v) for v in outs] for outs in outputs])]
        true_fn, false_fn = (_outputs(closed(fn, len(operands), free, mutated), dtypes)
                             for fn in (true_fn, false_fn))
        return _cond(pred, true_fn, false_fn, _distinct(operands + tuple(free)))

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
        init = tuple(as_tensor(v) for v in loop_vars)

        def test(*state):
            return (predicate(cond_fn(*state), 'while'),)

        free, outputs, mutated = free_tensors((test, body_fn), init, self.scratch)
        # A Python number takes the dtype the body gives it, as Python's arithmetic would.
        dtypes = [v.dtype if isinstance(v, torch.Tensor) else torch_values.joint_dtype(
            (type(v), leaf_type(after))) for v, after in zip(loop_vars, outputs[1])]
        init = _linked(tuple(as_tensor(v, d) for v, d in zip(loop_vars, dtypes)), free)
        count = len(init)
        test = closed(test, count, free, mutated)
        body = _outputs(closed(body_fn, count, free, mutated), dtypes)

        def loop(*args):
            return tuple(while_loop_op(lambda *a: test(*a)[0], body, args[:count],
                                       args[count:]))

        inputs = _distinct(init + tuple(free))
        if not any(torch_values.is_float(t.dtype) for t in inputs):
            return loop(*inputs)
        # torch 2.13 differentiates a while_loop that runs zero times as if it ran once
        # (docs/torch.md): a loop that may carry gradients runs only when its test holds.
        return _cond(test(*inputs)[0], loop,
                     lambda *args: tuple(a.clone() for a in args[:count]), inputs)

    def iterate(self, iterable):
        """A tensor iterates over its first dimension; a staged range over its elements."""
        if type(iterable) is StagedRange:
            return iterable.length(), iterable.element
        if isinstance(iterable, torch.Tensor):
            if iterable.dim() == 0:
                raise TypeError('iteration over a 0-d tensor')
            return iterable.shape[0], functools.partial(torch_values.row, iterable)
        return None

    def select(self, pred, true_value, false_value):
        """`torch.where` of two computed values."""
        dtype = torch_values.joint_dtype((leaf_type(true_value), leaf_type(false_value)))
        return torch.where(predicate(pred, 'if'), as_tensor(true_value, dtype),
                           as_tensor(false_value, dtype))

    def logical_not(self, value):
        return torch.logical_not(predicate(value, 'not'))

    def call_builtin(self, fn, args, kwargs):
        """`range` of a traced tensor becomes a StagedRange; len, abs, int, float, min, max
        and sum become torch operations (see `torch_values.BUILTINS`)."""
        handler = torch_values.BUILTINS.get(fn)
        if handler is None or kwargs:
            raise NotImplementedError(fn)
        return handler(*args)

    def assert_(self, cond, message_fn):
        """Stages `assert`: `torch.ops.autograph.check`, raising AssertionError when it runs."""
        if self._scratch.depth:
            return  # a discarded pass checks nothing
        message = message_fn()
        message = '' if message is None else str(message)
        torch_ops.check(predicate(cond, 'assert'), 'AssertionError', message)

    def check_defined(self, defined, error):
        """Stages the check that raises `error` (UnboundLocalError) when `defined` is false."""
        if self._scratch.depth:
            return
        torch_ops.check(predicate(defined, 'if'), torch_ops.kind_of(error),
                        torch_ops.message_of(error))

    def print_(self, *args, sep=' ', end='\n'):
        """Stages `print`: `torch.ops.autograph.print`, printing each time the program runs."""
        if self._scratch.depth:
            return
        torch_ops.staged_print(args, sep, end)

    def type_of(self, value):
        return leaf_type(value)

    def compatible_types(self, before, after):
        return torch_values.compatible(before, after)

    def zeros_like(self, value):
        return torch_values.zero_like(value)

    def scratch(self):
        """A context whose staged operations are recorded nowhere (no proxy mode)."""
        return self._scratch_context()

    @contextlib.contextmanager
    def _scratch_context(self):
        self._scratch.depth += 1
        try:
            with disable_proxy_modes_tracing():
                yield
        finally:
            self._scratch.depth -= 1


BACKEND = register_backend(TorchBackend())


# ------------------------------------------------------------------------------------------
# What a PyTorch user calls


def _converted_forward(module):
    """`module.forward` converted, bound to the module."""
    import autograph  # the public API; imported here, as autograph imports this module lazily

    forward = type(module).forward
    return types.MethodType(autograph.convert(forward), module)


def _is_torch_class(module):
    top = type(module).__module__.partition('.')[0]
    return top in TorchBackend.owned_modules


def convert(target):
    """Converts a function or an `nn.Module` for torch.export and torch.compile.

    A function is converted (`autograph.convert`) and marked with
    `torch._dynamo.nonstrict_trace`, so that dynamo records it as one call and AOTAutograd
    traces its Python. A module is converted in place: the `forward` of the module and of
    each submodule whose class is not torch's own becomes the converted one (an instance
    attribute), and the module is returned.

    Args:
        target: a function, or an `nn.Module`.

    Returns:
        The converted function, or the module.
    """
    import autograph

    if isinstance(target, torch.nn.Module):
        for module in target.modules():
            if not _is_torch_class(module) and 'forward' not in vars(module):
                module.forward = _staged_forward(_converted_forward(module), module)
        return target
    converted = torch._dynamo.nonstrict_trace(autograph.convert(target))

    @functools.wraps(target)
    def call(*args, **kwargs):
        return converted(*args, **kwargs)
    return _own_code(call)


def _own_code(fn):
    """`fn` with a code object of its own.

    Dynamo keeps compiled code per code object, and in torch 2.13 its guards do not check
    which function a `nonstrict_trace` call calls: two wrappers sharing one code object would
    share one compiled graph, the first one compiled (docs/torch.md).
    """
    copy = types.FunctionType(fn.__code__.replace(), fn.__globals__, fn.__name__,
                              fn.__defaults__, fn.__closure__)
    return functools.update_wrapper(copy, fn)


def _staged_forward(bound, module):
    traced = torch._dynamo.nonstrict_trace(bound.__func__)

    @functools.wraps(bound)  # the signature without `self`, which torch.export binds to
    def forward(*args, **kwargs):
        return traced(module, *args, **kwargs)
    return _own_code(forward)


class _Function(torch.nn.Module):
    """A function as a module, for torch.export."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args, **kwargs):
        return self.fn(*args, **kwargs)


def compile(target, **options):  # pylint: disable=redefined-builtin  # torch's own name
    """`torch.compile` of the converted function or module; `fullgraph=True` unless given.

    Args:
        target: a function, or an `nn.Module` (converted in place, see `convert`).
        **options: torch.compile's options (backend, mode, dynamic, ...).

    Returns:
        The compiled callable.
    """
    options.setdefault('fullgraph', True)
    return torch.compile(convert(target), **options)


def export(target, args, kwargs=None, **options):
    """`torch.export.export` of the converted function or module.

    Args:
        target: a function, or an `nn.Module` (converted in place, see `convert`).
        args: the example positional arguments (a tuple).
        kwargs: the example keyword arguments (a dict), or None.
        **options: torch.export.export's options (strict, dynamic_shapes, ...).

    Returns:
        The ExportedProgram.
    """
    if isinstance(target, torch.nn.Module):
        module = convert(target)
    else:
        module = _Function(convert(target))
    return torch.export.export(module, tuple(args), kwargs, **options)

