"""TensorFlow's other `tf.function` arguments: jit_compile, the experimental_* names.

Each is accepted with TensorFlow's meaning, or refused with a reason where it has none here:

- `jit_compile` (and its old name `experimental_compile`): True compiles the whole graph with
  XLA, as TensorFlow's does: the graph is lowered op by op to jax.numpy/lax and run by
  `jax.jit` (the 'xla' executor, runtime/executor/xla.py); without jax installed it is an
  ImportError saying how to install it. Asked together with `executor='interpreter'` it is a
  ValueError. False or None leave the executor as chosen.
- `experimental_relax_shapes`: TensorFlow's old name of `reduce_retracing` (a
  DeprecationWarning, as TensorFlow's own).
- `experimental_autograph_options`: TensorFlow's optional conversion features. This
  converter has none to switch (what it converts it always converts), so only None or an
  empty collection is accepted.
- `experimental_implements`, `experimental_attributes`: None only (no function library
  holds function attributes here).
- `experimental_follow_type_hints`: with True, arguments whose parameter is annotated
  `tf.Tensor` are converted to tensors before the trace-cache lookup, so Python numbers
  passed there do not retrace per value.
"""

import importlib.util
import inspect
import typing
import warnings

from runtime.tensor import Tensor
from runtime.tensor import TensorSpec
from runtime.tensor_conversion import convert_to_tensor
from runtime.executor import xla


def resolve(executor, reduce_retracing, arguments):
    """Checks TensorFlow's extra arguments and folds them into the runtime's own.

    Args:
        executor: 'compiled' or 'interpreter'.
        reduce_retracing: the reduce_retracing argument.
        arguments: dict of TensorFlow's other arguments by name (jit_compile,
            experimental_compile, experimental_relax_shapes, experimental_autograph_options,
            experimental_implements, experimental_attributes; see the module docstring).

    Returns:
        (executor, reduce_retracing) to use (jit_compile=True means the 'xla' executor).

    Raises:
        ValueError: jit_compile=True with executor='interpreter', or optional AutoGraph
            features that this converter does not have.
        ImportError: jit_compile=True without jax installed (saying how to install it).
    """
    jit_compile = arguments["jit_compile"]
    experimental_compile = arguments["experimental_compile"]
    experimental_relax_shapes = arguments["experimental_relax_shapes"]
    experimental_autograph_options = arguments["experimental_autograph_options"]
    for name in ("experimental_implements", "experimental_attributes"):
        value = arguments[name]
        if value is not None:
            raise ValueError(f"tf.function expected {name}=None, found {value!r}: the runtime "
                             f"has no function library for attributes to annotate.")
    if experimental_compile is not None:
        warnings.warn("tf.function: experimental_compile is deprecated; use jit_compile "
                      "instead.", DeprecationWarning, stacklevel=3)
        if jit_compile is None:
            jit_compile = experimental_compile
    if jit_compile and executor == "interpreter":
        raise ValueError(
            "tf.function expected jit_compile=True or executor='interpreter', found both: "
            "jit_compile=True compiles the whole graph into one XLA program, the "
            "interpreter runs it node by node. Drop one of the two.")
    if jit_compile:
        if importlib.util.find_spec("jax") is None:
            raise ImportError(xla.JAX_MISSING)
        executor = "xla"
    if experimental_relax_shapes is not None:
        warnings.warn("tf.function: experimental_relax_shapes is deprecated; use "
                      "reduce_retracing instead.", DeprecationWarning, stacklevel=3)
        reduce_retracing = bool(experimental_relax_shapes)
    if experimental_autograph_options:
        raise ValueError(
            "tf.function expected experimental_autograph_options=None, found %r: this "
            "converter has no optional features to switch (asserts, builtins such as print "
            "and len, and list operations are always converted)."
            % (experimental_autograph_options,))
    return executor, reduce_retracing


def tensor_hinted(fn, arg_spec):
    """The names of `fn`'s parameters annotated `tf.Tensor` (empty when there are none).

    Args:
        fn: the Python function.
        arg_spec: its function_signature.ArgSpec.

    Returns:
        A frozenset of parameter names.
    """
    try:
        hints = typing.get_type_hints(fn)
    except Exception:  # pylint: disable=broad-except - unresolvable string annotations
        hints = {name: p.annotation for name, p in arg_spec.signature.parameters.items()
                 if p.annotation is not inspect.Parameter.empty}
    return frozenset(name for name, hint in hints.items()
                     if isinstance(hint, type) and issubclass(hint, Tensor)
                     and name in arg_spec.signature.parameters)


def follow_hints(hinted, positional, names, keywords):
    """Converts the arguments of `hinted` parameters to tensors (experimental_follow_type_hints).

    Args:
        hinted: from tensor_hinted.
        positional, names, keywords: the canonical call arguments.

    Returns:
        (positional, keywords), converted where hinted.
    """
    positional = [_convert(v) if n in hinted else v for v, n in zip(positional, names)]
    keywords = {k: _convert(v) if k in hinted else v for k, v in keywords.items()}
    return positional, keywords


def _convert(value):
    if value is None or isinstance(value, (Tensor, TensorSpec)):
        return value
    return convert_to_tensor(value)
