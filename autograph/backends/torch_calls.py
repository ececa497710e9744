"""What a PyTorch user calls: `convert`, `compile` and `export` (autograph.backends.torch).

Dynamo (torch.compile, strict torch.export) cannot trace autograph's own Python, so the
converted function reaches torch through `torch._dynamo.nonstrict_trace`: dynamo records one
opaque call and AOTAutograd traces it as plain Python on fake tensors, where the backend
stages it. The call that dynamo traces is a small wrapper (`_wrapper`) that also reads the
function's globals and closure cells (torch_outside), so that dynamo guards and lifts them.
"""

import builtins
import contextlib
import dataclasses
import functools
import types

import torch
from torch.fx.experimental.proxy_tensor import get_proxy_mode
from torch.utils import _pytree as pytree

from autograph.backends import torch_carried
from autograph.backends import torch_outside
from autograph.backends import torch_values
from autograph.backends.registry import SHIPPED_OWNED_MODULES
from autograph.backends.torch_lifting import ConvertedCode
from autograph.backends.torch_lifting import discarded_sizes
from autograph.errors import UnsupportedByBackendError
from autograph.impl import traceback_filter
from autograph.operators.exceptions import refuse_staged_text

_OWNED = SHIPPED_OWNED_MODULES['autograph.backends.torch']


def _is_torch_class(module):
    top = type(module).__module__.partition('.')[0]
    return top in _OWNED


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
    if isinstance(target, torch.nn.Module):
        for module in target.modules():
            if not _is_torch_class(module) and 'forward' not in vars(module):
                module.forward = _staged_forward(module)
        return target
    return _wrapper(_call, target, _traced(target))


def _staged_forward(module):
    """`module.forward` converted, bound to the module, for torch.export and torch.compile;
    its signature is the one without `self`, which torch.export binds to."""
    forward = type(module).forward
    return _wrapper(_forward, types.MethodType(forward, module), _traced(forward),
                    _module=module)


def _traced(fn):
    """`fn` converted and run as `_indexing` says, marked with nonstrict_trace; with the
    reader of its globals and closure (torch_outside.reader)."""
    import autograph  # the public API; imported here, as autograph imports this module lazily

    read = torch_outside.reader(fn)
    return torch._dynamo.nonstrict_trace(_indexing(autograph.convert(fn), read)), read


# The code of the functions that dynamo traces. Each function made of it (`_wrapper`) has
# globals of its own, where these names are bound; here they are only placeholders.
_converted = _read = _module = None


def _call(*args, **kwargs):
    return _converted(_read(), *args, **kwargs)  # pylint: disable=not-callable


def _forward(*args, **kwargs):
    return _converted(_read(), _module, *args, **kwargs)  # pylint: disable=not-callable


def _wrapper(template, shown, traced, **names):
    """`template`'s code as a function that looks like `shown`, whose globals are `names`,
    `_converted` and `_read` (`traced`).

    Globals, not a closure: dynamo specializes the Python numbers it reads from globals, so
    that a changed global number of the converted function recompiles it (read from a
    closure, dynamo would pass it as a symbolic number, and the converted code, which reads
    the number itself, would keep the one it was traced with). Code of its own: dynamo keeps
    compiled code per code object, and in torch 2.13 its guards do not check which function
    a `nonstrict_trace` call calls, so two wrappers sharing one code object would share one
    compiled graph, the first one compiled (docs/torch.md).
    """
    converted, read = traced
    scope = {'__builtins__': builtins, '_converted': converted, '_read': read, **names}
    copy = types.FunctionType(template.__code__.replace(), scope, shown.__name__)
    return functools.update_wrapper(copy, shown)


def _indexing(fn, read):
    """`fn` run as `_run` says, with `read` giving the values of its globals and closure."""
    @functools.wraps(fn)
    def run(outside, *args, **kwargs):
        return _run(fn, read, outside, args, kwargs)
    return run


def _run(fn, read, outside, args, kwargs):
    """`fn(*args, **kwargs)` run with ConvertedCode (`xs[i]` with a traced `i` gathers,
    `i += 1` of a staged Python number makes a new tensor), with the Python numbers it
    stages on its arguments' device (`torch_values.call_device`), and with each tensor that
    `read` gives (its globals and closure) standing for the traced one at its position in
    `outside`; noting whether torch.compile traces it for inference only
    (`torch_carried.traced_call`)."""
    pairs = zip(read(), outside)
    with ConvertedCode(), torch_values.call_device((args, kwargs, outside), pairs), (
            _outputs_only((args, kwargs))), torch_carried.traced_call():
        out = fn(*args, **kwargs)
        refuse_staged_text(pytree.tree_leaves(out), fn)
        _register_dataclasses(out)
        return pytree.tree_map_only(torch.Tensor, torch_values.outside, out)


def _register_dataclasses(out):
    """Registers the dataclasses among `out`'s leaves (and theirs) with torch's pytree
    (`torch.export.register_dataclass`), as torch.export asks users to: a `nonstrict_trace`
    call and an exported program return only what pytree can flatten, where dynamo itself
    compiles a function returning a dataclass."""
    while True:
        found = {type(leaf) for leaf in pytree.tree_leaves(out) if dataclasses.is_dataclass(
            leaf) and not isinstance(leaf, type) and type(leaf) not in pytree.SUPPORTED_NODES}
        if not found:
            return
        for kind in found:
            torch.export.register_dataclass(kind)
            _REGISTERED.append(kind)


_REGISTERED = []  # the dataclasses that `_register_dataclasses` registered


def _outputs_only(values):
    """Where dynamo runs the function on its fake tensors for the outputs' types only (no
    proxy mode records it; AOTAutograd traces it again), a context in which sizes made by
    staged control flow (a torch.cond whose branches give different shapes) need not reach
    the outputs: dynamo's check would refuse them ("Pending unbacked symbols")."""
    if get_proxy_mode() is not None:
        return contextlib.nullcontext()
    return discarded_sizes(pytree.tree_leaves(values))


class _Function(torch.nn.Module):
    """A function as a module, for torch.export: its `forward` is the converted function
    (`convert`), whose signature is the function's own, so that `dynamic_shapes` names the
    function's parameters, as it names a module's `forward`'s."""

    def __init__(self, converted):
        super().__init__()
        self.forward = converted


def compile(target, **options):  # pylint: disable=redefined-builtin  # torch's own name
    """`torch.compile` of the converted function or module; `fullgraph=True` unless given.

    Args:
        target: a function, or an `nn.Module` (converted in place, see `convert`).
        **options: torch.compile's options (backend, mode, dynamic, ...).

    Returns:
        The compiled callable.
    """
    options.setdefault('fullgraph', True)
    compiled = torch.compile(convert(target), **options)
    if isinstance(compiled, torch.nn.Module):
        compiled.forward = _users_errors(compiled.forward)  # the one torch made, wrapped
        return compiled
    return _users_errors(compiled)


def _users_errors(compiled):
    """`compiled`, raising the exception that the converted code raised while torch traced
    it, where torch raised its own in its place.

    Dynamo runs the converted code on fake tensors while it compiles, and turns an exception
    raised there (a failing `assert k > 0` on a Python number, a NameError) into
    `Unsupported: Unsupported output type for nonstrict_trace-ed function`, naming autograph's
    wrapper and hiding the user's exception. The exception that left the converted code is
    the one in torch's exception's chain whose traceback passes through `_run`; it is raised
    again, from `_run` on (and, as every error leaving a converted function, without
    autograph's frames: `traceback_filter`), as the unconverted function raises it.

    A call whose converted code returned a dataclass not yet registered with pytree
    registers it (`_register_dataclasses`), too late for the trace under way, which dynamo
    then refuses: it runs once more, and dynamo compiles again.
    """
    @traceback_filter.boundary
    @functools.wraps(compiled)
    def call(*args, **kwargs):
        registered = len(_REGISTERED)
        try:
            return _users_error_raised(compiled, args, kwargs)
        except RuntimeError:
            if len(_REGISTERED) == registered:
                raise
        return _users_error_raised(compiled, args, kwargs)
    return call


def _users_error_raised(compiled, args, kwargs):
    """`compiled(*args, **kwargs)`, raising the exception that left `_run` in the place of
    torch's exception whose chain holds it."""
    try:
        return compiled(*args, **kwargs)
    except RuntimeError as error:
        raised = _raised_in_run(error)
        if raised is None:
            raise
    raise raised


def _raised_in_run(error):
    """The exception in `error`'s chain that left `_run` (the last one whose traceback passes
    through it), with its traceback from there on; or None."""
    found = None
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        tb = error.__traceback__
        while tb is not None and tb.tb_frame.f_code is not _run.__code__:
            tb = tb.tb_next
        if tb is not None:
            found = error, tb
        error = error.__cause__ or error.__context__
    if found is None:
        return None
    return found[0].with_traceback(found[1])


_STRICT = (
    'torch.export.export(..., strict=True) cannot export {}: strict export traces Python '
    "bytecode with dynamo, which cannot trace autograph's operators, so converted code "
    'reaches dynamo as a torch._dynamo.nonstrict_trace call, and torch 2.13\'s strict '
    "export does not take such a call (it fails with \"TypeError: cannot create weak "
    "reference to 'TreeSpec' object\"). Export with strict=False, the default: it traces "
    'the converted code as Python on fake tensors and gives the same program.')


def export(target, args, kwargs=None, **options):
    """`torch.export.export` of the converted function or module.

    Args:
        target: a function, or an `nn.Module` (converted in place, see `convert`).
        args: the example positional arguments (a tuple).
        kwargs: the example keyword arguments (a dict), or None.
        **options: torch.export.export's options (strict, dynamic_shapes, ...).

    Returns:
        The ExportedProgram.

    Raises:
        UnsupportedByBackendError: for `strict=True` (see `_STRICT`).
    """
    if options.get('strict'):
        raise UnsupportedByBackendError(_STRICT.format(getattr(target, '__name__', type(
            target).__name__)))
    if isinstance(target, torch.nn.Module):
        module = convert(target)
    else:
        module = _Function(convert(target))
    return torch.export.export(module, tuple(args), kwargs, **options)
