"""What the torch.cond and torch.while_loop that the torch backend stages carry in and out:
the dtypes and sizes of their outputs, tables of rows of a run-time length, inputs given
once each, and the workarounds of torch 2.13's gradient bugs that apply to them (a cond of
floats and integers, a loop that reads a tensor in every iteration; docs/torch.md)."""

import contextlib
import threading

import torch
from torch._higher_order_ops.cond import cond_op
from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols

from autograph.backends import torch_ops
from autograph.backends import torch_values
from autograph.backends.torch_values import as_tensor
from autograph.backends.torch_values import leaf_type
from autograph.backends.torch_values import number_like
from autograph.backends.torch_values import stands_for_number

_CALL = threading.local()  # what traced_call notes of the call being traced


def outputs(fn, dtypes, flat=()):
    """`fn` returning a tuple of tensors: Python numbers become tensors of `dtypes`, and an
    output that is one of the inputs, an earlier output, or a view, is copied (a torch.cond
    or while_loop output must alias no input and no other output). A table of rows of a
    run-time length is `torch_ops.dense`, and flattened at the positions in `flat`."""
    def wrapper(*args):
        outs = tuple(fn(*args))
        seen = {id(a) for a in args}  # the inputs, then each output given so far
        result = []
        for k, value in enumerate(outs):
            value = as_tensor(value, dtypes[k] if dtypes else None)
            if torch_values.run_time_rows(value):
                result.append(number_like(torch_ops.dense(value, k in flat),
                                          stands_for_number(value)))
                continue
            # a view (`m[i, 2]`) as a tensor of its own: torch.cond refuses branches whose
            # outputs differ in storage offset or strides
            copy = id(value) in seen or value.storage_offset() != 0 or not (
                value.is_contiguous())
            seen.add(id(value))
            result.append(value.clone(memory_format=torch.contiguous_format) if copy else value)
        return tuple(result)
    return wrapper


def tables(outputs):
    """The positions where both branches' outputs (`outputs`) are tables of rows of a
    run-time length, of one shape: such a table leaves a torch.cond flattened. In its
    branches, torch inductor lays a cond's 2-d output out with the new size torch gives the
    output (`u38`), which no branch defines (NameError when the compiled code runs)."""
    return {k for k, value in enumerate(outputs[0]) if torch_values.run_time_rows(value) and all(
        torch_values.same_shape(value, other[k]) for other in outputs[1:])}


def unflattened(outs, tables, outputs):
    """The outputs `outs` of a torch.cond, each table that `tables` flattened given back its
    shape (the shape its branches gave it, `outputs`)."""
    return tuple(torch_ops.unflattened(out, list(outputs[0][k].shape)) if k in tables else out
                 for k, out in enumerate(outs))


def cond_outputs(outs, tables, outputs):
    """The outputs `outs` of a torch.cond as its branches gave them (`outputs`): tables
    unflattened, sizes that both agree on, and marked as Python numbers where both are."""
    outs = sized_as(unflattened(outs, tables, outputs), *outputs)
    return numbers_out(outs, *outputs)


def numbers_out(outs, *sources):
    """`outs`, each marked as standing for a Python number where every one of `sources` (the
    values it may be: both branches' outputs, a loop's initial values and its body's outputs)
    stands for one at its position (`torch_values.stands_for_number`)."""
    for k, out in enumerate(outs):
        torch_values.number_like(out, all(stands_for_number(values[k]) for values in sources))
    return outs


def cond(pred, true_fn, false_fn, inputs):
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


def linked(init, free):
    """The loop variables `init`, each floating one tied in autograd to the free tensors.

    torch 2.13 gives a tensor that a while_loop reads in every iteration one iteration's
    share of its gradient when the loop variables do not require gradients themselves
    (docs/torch.md). Adding a zero computed from the free floating tensors (NaN-safe) makes
    the loop variables require gradients whenever those do; the values are unchanged.
    """
    floats = [t for t in free if torch_values.is_float(t.dtype)]
    if not floats or not any_float(init):
        return init
    zero = sum(torch.nan_to_num(t, 0.0, 0.0, 0.0).sum() * 0 for t in floats)
    return tuple(v + zero.to(v.dtype) if torch_values.is_float(v.dtype) else v for v in init)


def any_float(tensors):
    return any(torch_values.is_float(t.dtype) for t in tensors)


@contextlib.contextmanager
def traced_call():
    """The trace of one call of a converted function, noting whether torch.compile traces
    it with grad mode off (under `torch.no_grad()` or `torch.inference_mode()`): then no
    gradient can flow out of it, and dynamo guards the grad mode, so that a call with grad
    mode on compiles it again."""
    previous = getattr(_CALL, 'inference', False)
    _CALL.inference = (torch.compiler.is_compiling() and not torch.compiler.is_exporting()
                       and not torch.is_grad_enabled())
    try:
        yield
    finally:
        _CALL.inference = previous


def may_carry_gradients():
    """Whether a gradient may flow through what is traced now: always in a program that
    torch.export makes (it may be differentiated later, whatever its example inputs
    required, and even when exported under no_grad), and in a call that torch.compile
    traces with grad mode on. Not the loop's own inputs' `requires_grad`: torch traces a
    cond's branches with grad mode off and inputs that do not require grad, even for a
    graph that is then differentiated."""
    return torch.is_grad_enabled() or not getattr(_CALL, 'inference', False)


def distinct(tensors):
    """`tensors` with a copy in place of each repeated one: torch 2.13's export names the
    inputs of a subgraph after its operands, and one tensor passed twice to a loop nested in
    a cond would give the subgraph two inputs of one name. A copy, not a view: under
    torch.compile a cond or loop refuses inputs that alias each other ("might be aliasing
    the input or the output")."""
    seen = set()
    result = []
    for t in tensors:
        result.append(t.clone() if id(t) in seen else t)
        seen.add(id(t))
    return tuple(result)


def of_read(fn, operands, read):
    """`fn` of the operands at the positions `read`, the others as they are: an operand that
    no branch reads (a variable that each branch assigns before reading it) is no input of the
    torch.cond, which spares the graph a value it never uses, and a tensor that no graph
    records (one of a discarded pass) from becoming a constant of the program."""
    def wrapper(*args):
        values = list(operands)
        for k, value in zip(read, args):
            values[k] = value
        return fn(*values)
    return wrapper


def with_token(fn):
    """`fn` giving one more output, a bool that `torch.ops.autograph.keep` reads."""
    def branch(*args):
        return tuple(fn(*args)) + (torch_values.scalar(True, torch.bool),)
    return branch


def loop_dtypes(loop_vars, after):
    """The dtypes of the loop variables: a Python number, or a tensor that stands for one,
    takes the dtype the body gives it (`after`: the body's outputs), as Python's arithmetic
    with a tensor would; a tensor, the wider of its own and the body's (`loop_widens`)."""
    return [torch_values.joint_dtype((torch_values.check_type(v), leaf_type(a)))
            for v, a in zip(loop_vars, after)]


def sized_as(outs, *sources):
    """The outputs `outs` of a loop or cond, each of the sizes that all of `sources` give it
    (a loop's initial values: a loop variable keeps its shape; the outputs of both branches
    of a cond). torch gives an output whose size it knows only when the program runs
    (`[0] * n`) a new size of its own, and an enclosing loop would then refuse it as a value
    of a different shape than the one it carries: `torch.ops.autograph.sized` says the size
    in the graph."""
    result = []
    for k, out in enumerate(outs):
        shapes = [getattr(values[k], 'shape', None) for values in sources]
        if isinstance(out, torch.Tensor) and all(
                shape is not None and len(shape) == out.dim() for shape in shapes):
            sizes = [_agreed(size, [shape[d] for shape in shapes])
                     for d, size in enumerate(out.shape)]
            if any(a is not b for a, b in zip(sizes, out.shape)):
                out = number_like(torch_ops.sized(out, sizes), stands_for_number(out))
        result.append(out)
    return tuple(result)


def _agreed(size, sizes):
    """`sizes[0]` where all of `sizes` agree and `size` is a new run-time size, else `size`."""
    agreed = {torch_values.size_expression(s) for s in sizes}
    if len(agreed) != 1 or torch_values.size_expression(size) in agreed or not (
            free_unbacked_symbols(size)):
        return size
    return sizes[0]
