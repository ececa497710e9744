"""Torch operators for what staged Python does besides computing: checks and prints.

`torch.ops.autograph.check(pred, kind, message)` raises `kind(message)` when `pred` is false
as the program runs; `kind` is the name of a builtin exception class (AssertionError for an
`assert`, UnboundLocalError for a variable that staged control flow assigns on some paths
only), or names an exception of another class that this process staged (a `raise
InputTooLarge(...)` in a staged branch), which is raised as it is here and as a RuntimeError
naming the class in a process that loads the program.
`torch.ops.autograph.raise_unless(pred, key, values)` raises, when `pred` is false, the
exception that this process's staged `raise` makes from the run-time `values` (`raise
ValueError(f"{n} is negative")`), and a RuntimeError in a process that loads the program.
`torch.ops.autograph.print(values, layout, sep, end)` prints as `print` does, each time the
program runs; `torch.ops.autograph.keep(values)` does nothing but keeps a staged
torch.cond or while_loop that checks or prints; `torch.ops.autograph.sized(value, size)` is
`value`, of sizes torch knows only when the program runs (see `sized`). They are ordinary custom operators: they
stay in an exported program (they are marked as having side effects, so no pass removes
them), and a process that loads the program needs `import autograph.backends.torch` to run
them. Their arguments are data
(strings and tensors); nothing is looked up but builtin exception classes and the exceptions
this process staged.
"""

import builtins
import json
import sys

import torch
from torch.fx.node import has_side_effect


# Exceptions of other classes that this process staged (`kind_of`), by kind: `check` raises
# them as they are while the program runs in this process. Only tracing here adds to it, so
# a program loaded from disk finds none of its own there and raises RuntimeError instead.
_STAGED_ERRORS = {}


def _exception_class(kind):
    """The builtin exception class named `kind`, or None."""
    cls = getattr(builtins, kind, None)
    return cls if isinstance(cls, type) and issubclass(cls, BaseException) else None


def kind_of(error):
    """What `check` raises for `error`: its class's name when it is a builtin exception; else
    a kind naming the class and this staging of it (`InputTooLarge#3`), under which `check`
    finds `error` itself in this process, and which names the class in the RuntimeError
    that a process that did not stage it raises."""
    name = type(error).__name__
    if _exception_class(name) is type(error):
        return name
    kind = '{}#{}'.format(type(error).__qualname__, len(_STAGED_ERRORS))
    _STAGED_ERRORS[kind] = error
    return kind


def message_of(error):
    """The message `check` raises for `error`."""
    return str(error)


def _error(kind, message):
    """The exception that `check` raises for `kind` and `message` (see kind_of)."""
    cls = _exception_class(kind)
    if cls is not None:
        return cls(message)
    error = _STAGED_ERRORS.get(kind)
    if error is not None:
        return error.with_traceback(None)
    return RuntimeError('{}: {}'.format(kind.partition('#')[0], message))


@torch.library.custom_op('autograph::check', mutates_args=())
def check(pred: torch.Tensor, kind: str, message: str) -> None:
    """Raises the exception of `kind` with `message` when `pred` is false (see kind_of)."""
    if not bool(pred):
        raise _error(kind, message)


@check.register_fake
def _check_fake(pred, kind, message):
    del pred, kind, message


# The functions that make the exceptions of staged raises whose messages hold staged values
# (`raising`), by key. As for _STAGED_ERRORS, only tracing in this process adds to it.
_MAKERS = {}


def raising(make_error):
    """The key under which `raise_unless` finds `make_error` in this process."""
    key = 'raise#{}'.format(len(_MAKERS))
    _MAKERS[key] = make_error
    return key


def _value(tensor):
    """A run-time value as a staged raise's message reads it: a 0-d tensor's Python number."""
    array = tensor.detach().cpu().numpy()
    return array[()].item() if array.ndim == 0 else array


@torch.library.custom_op('autograph::raise_unless', mutates_args=())
def raise_unless(pred: torch.Tensor, key: str, values: list[torch.Tensor]) -> None:
    """Raises the exception that the function registered under `key` makes from `values`
    when `pred` is false (see raising)."""
    if bool(pred):
        return
    make_error = _MAKERS.get(key)
    if make_error is None:
        raise RuntimeError('the program raises an exception whose message holds values known '
                           'only when it runs: only the process that staged it can make it')
    raise make_error(*[_value(v) for v in values])


@raise_unless.register_fake
def _raise_unless_fake(pred, key, values):
    del pred, key, values


def _text(value):
    """How `print` shows a value: a 0-d tensor as its element (`3`, `0.5`, `True`)."""
    if isinstance(value, torch.Tensor):
        array = value.detach().cpu().numpy()
        return str(array[()] if array.ndim == 0 else array.tolist())
    return str(value)


@torch.library.custom_op('autograph::print', mutates_args=())
def print_values(values: list[torch.Tensor], layout: str, sep: str, end: str) -> None:
    """Prints the texts and tensors that `layout` (JSON: a list of strings, null where the next
    tensor goes) lists, as `print(..., sep=sep, end=end)`."""
    tensors = iter(values)
    texts = [_text(next(tensors)) if part is None else part for part in json.loads(layout)]
    sys.stdout.write(sep.join(texts) + end)


@print_values.register_fake
def _print_fake(values, layout, sep, end):
    del values, layout, sep, end


@torch.library.custom_op('autograph::keep', mutates_args=())
def keep(values: list[torch.Tensor]) -> None:
    """Does nothing: reads the outputs of a staged torch.cond or while_loop that checks or
    prints, so that no pass removes it when nothing else reads them."""
    del values


@keep.register_fake
def _keep_fake(values):
    del values


@torch.library.custom_op('autograph::sized', mutates_args=())
def sized(value: torch.Tensor, size: list[int]) -> torch.Tensor:
    """`value` (a copy: an operator's output aliases no input), whose sizes are `size`.

    torch gives each size of a torch.cond output that it knows only when the program runs a
    new symbol, even where both branches give one size; a loop that carries a list of a
    run-time length (`[0] * n`) through a branch then refuses its body's output as a value of
    another shape. This operator tells torch the size, in the graph, where every pass that
    runs the graph again reads it."""
    del size  # the size `value` has when the program runs
    return value.clone()


@sized.register_fake
def _sized_fake(value, size):
    return value.new_empty(size)


def _sized_backward(ctx, grad):
    del ctx
    return grad, None


sized.register_autograd(_sized_backward)


@torch.library.custom_op('autograph::dense', mutates_args=())
def dense(value: torch.Tensor, flat: bool = False) -> torch.Tensor:
    """A contiguous copy of `value` (a table whose rows have a length torch knows only when the
    program runs), whose strides torch knows as products of its sizes.

    torch writes a contiguous stride as `Max(1, u0)` for a size `u0` it knows only when the
    program runs, and then cannot tell that such a tensor is contiguous, nor that two
    branches' outputs are laid out alike: torch.cond and while_loop refuse it ("stride is
    not a simple accumulative multiplication of sizes", or a guard on `Max(1, u0)`). An
    empty row makes every stride moot. `flat`: the copy flattened, as a table leaves a
    torch.cond (see `torch_carried.tables`), to be given its shape back by `unflattened`."""
    copy = value.contiguous().clone()
    return copy.reshape(-1) if flat else copy


@dense.register_fake
def _dense_fake(value, flat=False):
    return _dense_empty(value, (_product(value.shape),) if flat else value.shape)


def _product(sizes):
    product = 1
    for size in sizes:
        product = product * size
    return product


def _dense_empty(value, shape):
    """An empty tensor like `value` of `shape`, its strides products of its sizes."""
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step = step * size
    return value.new_empty_strided(shape, tuple(reversed(strides)))


def _dense_backward(ctx, grad):
    return grad.reshape(ctx.shape), None


def _dense_context(ctx, inputs, output):
    del output
    ctx.shape = inputs[0].shape


dense.register_autograd(_dense_backward, setup_context=_dense_context)


@torch.library.custom_op('autograph::unflattened', mutates_args=())
def unflattened(value: torch.Tensor, size: list[int]) -> torch.Tensor:
    """`value` (a table that `dense` flattened) of the shape `size` again (a copy)."""
    return value.reshape(size).clone()


@unflattened.register_fake
def _unflattened_fake(value, size):
    return _dense_empty(value, size)


def _unflattened_backward(ctx, grad):
    del ctx
    return grad.reshape(-1), None


unflattened.register_autograd(_unflattened_backward)


def staged_print(args, sep, end):
    """Stages `print(*args, sep=sep, end=end)`: Python values as their text, tensors as inputs."""
    tensors = [a for a in args if isinstance(a, torch.Tensor)]
    layout = json.dumps([None if isinstance(a, torch.Tensor) else str(a) for a in args])
    torch.ops.autograph.print(tensors, layout, sep if sep is not None else ' ',
                              end if end is not None else '\n')


has_side_effect(torch.ops.autograph.check.default)
has_side_effect(torch.ops.autograph.raise_unless.default)
has_side_effect(torch.ops.autograph.print.default)
has_side_effect(torch.ops.autograph.keep.default)
