"""Ops with external effects: print (tf.print formatting), py_function and assert."""
import sys

import numpy as np

from runtime import context
from runtime import dtypes
from runtime import resources
from runtime.errors import InvalidArgumentError
from runtime.errors import AssertionFailedError
from runtime.ops import common
from runtime.ops.registry import OPS
from runtime.ops.registry import OpKind
from runtime.ops.registry import apply
from runtime.ops.registry import register
from runtime.tensor import EagerTensor
from runtime.tensor import Tensor
from runtime.tensor_conversion import to_string_array
from runtime.tensor import user_traceback_line


class Slot:
    """Marks, in a print template, where the tensor input number `index` goes."""

    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index

    def __eq__(self, other):
        return isinstance(other, Slot) and other.index == self.index

    def __hash__(self):
        return hash(("Slot", self.index))

    def __repr__(self):
        return f"${self.index}"


def _format_scalar(value, style="tf"):
    if style == "python" and isinstance(value, (bool, float, np.bool_, np.floating)):
        # numpy's shortest round-trip text, as Python prints it: True, 2.0, 0.1 (float32).
        return str(value)
    if isinstance(value, (bool, np.bool_)):
        return "1" if value else "0"  # TensorFlow's C++ printer streams bools as 1/0
    if isinstance(value, (float, np.floating)):
        # The shortest text that reads back as the same number at its own precision, without
        # a trailing ".0", as TensorFlow prints: 0.666458249, 0.405638, 2, 1e+10.
        text = str(value)
        return text[:-2] if text.endswith(".0") else text
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def format_value(value, summarize=3, style="tf"):
    """Formats a numpy value the way tf.print does.

    Scalars print bare, arrays as `[1 2 3]` (nested with newlines), bools as 1/0, strings
    without quotes, and dimensions longer than 2 * summarize as first/last `summarize` items
    around `...`.

    Args:
        value: A numpy array or scalar.
        summarize: Items kept at each end of long dimensions (-1 or None: all).
        style: "tf" (tf.print's text) or "python": bools and floats print as Python prints
            them (True, 2.0), which autograph's staged `print` uses so that it prints what the
            plain Python function would.

    Returns:
        A string.
    """
    array = np.asarray(value)
    if array.ndim == 0:
        # numpy scalars keep their precision (float32 prints as float32, not as float64).
        scalar = array[()] if array.dtype != object else array.item()
        return _format_scalar(scalar, style)
    return _format_array(array, summarize, 1, style)


def _format_array(array, summarize, depth, style="tf"):
    n = array.shape[0]
    cut = summarize is not None and summarize >= 0 and n > 2 * summarize
    idx = list(range(summarize)) + [None] + list(range(n - summarize, n)) if cut else range(n)
    if array.ndim == 1:
        parts = ["..." if i is None else _format_scalar(
            array[i], style)
            for i in idx]
        return "[" + " ".join(parts) + "]"
    sep = "\n" + " " * depth
    parts = ["..." if i is None else _format_array(array[i], summarize, depth + 1, style)
             for i in idx]
    return "[" + sep.join(parts) + "]"


def _render(part, values, summarize, style):
    if isinstance(part, Slot):
        return format_value(values[part.index], summarize, style)
    if isinstance(part, tuple):  # a nested structure: pieces joined without separators
        return "".join(_render(p, values, summarize, style) for p in part)
    return part


def _print_kernel(*values, template, sep=" ", end="\n", stream="stdout", summarize=3,
                  style="tf"):
    parts = [_render(p, values, summarize, style) for p in template]
    # looked up at run time so redirection (capsys) works; only these two (a loaded graph
    # names its stream as data)
    out = sys.stderr if stream == "stderr" else sys.stdout
    out.write(sep.join(parts) + end)
    return ()


register("print", infer=lambda *v, **a: [], kind=OpKind.IO, multi_output=True,
         tf_name="PrintV2")(_print_kernel)


def _template(value, tensors):
    """Returns the print template of one input, appending its tensors to `tensors`."""
    as_tensor = getattr(value, "_as_tensor", None)
    if as_tensor is not None:
        value = as_tensor()
    if isinstance(value, (Tensor, np.ndarray, np.generic)):
        tensors.append(common.to_tensor(value))
        return Slot(len(tensors) - 1)
    if isinstance(value, (list, tuple)):
        items = [_template(v, tensors) for v in value]
        if isinstance(value, list):
            return ("[",) + _join(items, ", ") + ("]",)
        return ("(",) + _join(items, ", ") + ((",)",) if len(items) == 1 else (")",))
    if isinstance(value, dict):
        items = [(repr(k) + ": ", _template(v, tensors)) for k, v in value.items()]
        return ("{",) + _join(items, ", ") + ("}",)
    return str(value)


def _join(items, sep):
    out = []
    for i, item in enumerate(items):
        if i:
            out.append(sep)
        out.append(item)
    return tuple(out)


def print_(*inputs, sep=" ", end="\n", output_stream=None, summarize=3, name=None,
           style="tf"):
    """Prints tensors and Python values when the op executes (tf.print).

    Eagerly it prints now; while tracing it adds a node that prints at every execution.
    Python strings print as is; tensors as `[1 2 3]`.

    Args:
        *inputs: Tensors, numpy arrays or Python values.
        sep: Separator between inputs.
        end: Text printed after the last input.
        output_stream: sys.stdout (default) or sys.stderr, or the strings 'stdout'/'stderr'.
        summarize: Items kept at each end of long dimensions (-1: everything).
        name: Optional node name in graph mode.
        style: "tf", or "python" for autograph's staged `print` (see `format_value`).

    Returns:
        None.
    """
    stream = "stderr" if output_stream in (sys.stderr, "stderr") else "stdout"
    template = []
    tensors = []
    for value in inputs:
        template.append(_template(value, tensors))
    attrs = {"template": tuple(template), "sep": sep, "end": end, "stream": stream,
             "summarize": summarize}
    if style != "tf":
        attrs["style"] = style
    apply(OPS["print"], tensors, attrs, name)
    return None


def _py_function_kernel(*values, func, Tout):  # noqa: N803
    func = func.resolve()  # `func` is the callable's ResourceKey
    with context.init_scope():
        result = func(*[EagerTensor(v) for v in values])
    if result is None:
        result = []
    elif not isinstance(result, (list, tuple)):
        result = [result]
    if len(result) != len(Tout):
        raise InvalidArgumentError(
            f"py_function {getattr(func, '__name__', func)} returned {len(result)} values but "
            f"Tout lists {len(Tout)} dtypes.", "py_function")
    out = []
    for value, dtype in zip(result, Tout):
        if isinstance(value, Tensor):
            value = value.numpy()
        if dtype is dtypes.string:
            out.append(to_string_array(value))
            continue
        array = np.asarray(value)
        if array.dtype != dtype.np_dtype:
            if isinstance(value, (np.ndarray, np.generic)) or array.dtype.kind != "f" or \
                    dtype.is_floating:
                array = array.astype(dtype.np_dtype)
            else:
                raise InvalidArgumentError(
                    f"py_function {getattr(func, '__name__', func)} returned {value!r}, which "
                    f"does not convert to {dtype.name}.", "py_function")
        out.append(array)
    return out


# Outputs have unknown rank (shape None): the function's results are only known at run time.
register("py_function", infer=lambda *inputs, func, Tout: [(None, d) for d in Tout],
         kind=OpKind.IO, multi_output=True, tf_name="EagerPyFunc")(_py_function_kernel)


def py_function(func, inp, Tout, name=None):  # noqa: N803
    """Runs a Python function on eager tensors when the op executes.

    Args:
        func: A Python callable taking the inputs as eager tensors.
        inp: A list of inputs.
        Tout: A DType, or a list of DTypes (one per output), or None for no output.
        name: Optional node name in graph mode.

    Returns:
        A Tensor when Tout is a single DType, a list of Tensors when it is a list, or None.
    """
    single = Tout is not None and not isinstance(Tout, (list, tuple))
    touts = () if Tout is None else ((Tout,) if single else tuple(Tout))
    touts = tuple(dtypes.as_dtype(d) for d in touts)
    inputs = [common.to_tensor(v) for v in (inp or [])]
    attrs = {"func": resources.register(func), "Tout": touts}
    outputs = apply(OPS["py_function"], inputs, attrs, name)
    if Tout is None:
        return None
    return outputs[0] if single else list(outputs)


def _check_defined_kernel(defined, *, message):
    if not bool(defined):
        error = UnboundLocalError(message)
        # the user's own error, as plain Python raises it: no executor node prefix
        error._runtime_node = "check_defined"
        raise error
    return ()


# autograph's staged check that a variable assigned on some paths only is bound where it is
# read (RuntimeBackend.check_defined): the message is data, so a saved graph can hold it.
register("check_defined", infer=lambda defined, **a: [], kind=OpKind.IO, multi_output=True,
         tf_name="Assert")(_check_defined_kernel)


def check_defined(defined, message, name=None):
    """Raises UnboundLocalError(message) where this runs while `defined` is false.

    Args:
        defined: A bool Tensor.
        message: The error's message.
        name: Optional node name in graph mode.
    """
    apply(OPS["check_defined"], [common.to_tensor(defined)], {"message": message}, name)


def _assert_kernel(condition, *data, message, summarize=3, location="", fields=None):
    if not np.all(condition):
        if fields is not None:  # an f-string: each field formatted from its run-time value
            text = "".join(p if isinstance(p, str) else _format_field(data[p[0]], *p[1:])
                           for p in fields)
            raise AssertionFailedError(text + location, "assert")
        shown = " ".join(format_value(d, summarize) for d in data)
        raise AssertionFailedError((message + (" " + shown if shown else "")).strip()
                                   + location, "assert")
    return ()


def _format_field(value, conversion, spec):
    """An f-string field of a run-time value (numpy scalars format as Python numbers do)."""
    if conversion == ord("r"):
        value = repr(value)
    elif conversion == ord("s") or (isinstance(value, np.ndarray) and value.ndim):
        value = str(value)
    elif conversion == ord("a"):
        value = ascii(value)
    try:
        return format(value, spec)
    except (TypeError, ValueError):
        return str(value)


register("assert", infer=lambda c, *d, **a: [], kind=OpKind.IO, multi_output=True,
         tf_name="Assert")(_assert_kernel)


def assert_(condition, message="Assertion failed", data=(), summarize=3, name=None,
            fields=None):
    """Raises InvalidArgumentError when `condition` is false at execution time.

    Args:
        condition: A bool Tensor or value (all elements must be true).
        message: The error message.
        data: Tensors whose values are appended to the message.
        summarize: Items shown at each end of long tensors.
        name: Optional node name in graph mode.
        fields: Optional f-string layout replacing message and data in the error: a list of
            strings and (index into data, conversion, format spec) triples.

    Returns:
        None.

    Raises:
        InvalidArgumentError: eagerly, when the condition is false.
    """
    cond = common.to_tensor(condition)
    if cond.dtype is not dtypes.bool:
        raise TypeError(f"assert expects a bool condition, found {cond.dtype.name}.")
    inputs = [cond] + [common.to_tensor(d) for d in data]
    attrs = {"message": str(message), "summarize": summarize}
    if fields is not None:
        attrs["fields"] = list(fields)
    if context.get_graph() is not None:
        attrs["location"] = user_traceback_line()  # the failure is reported at run time
    apply(OPS["assert"], inputs, attrs, name)
    return None


def Assert(condition, data, summarize=None, name=None):  # noqa: N802 - TensorFlow's name
    """tf.debugging.Assert: raises InvalidArgumentError showing `data` if condition is false.

    Args:
        condition: A bool Tensor.
        data: A list of values shown in the message.
        summarize: Items shown at each end of long tensors.
        name: Optional node name in graph mode.

    Returns:
        None.
    """
    strings = [d for d in data if isinstance(d, str)]
    tensors = [d for d in data if not isinstance(d, str)]
    return assert_(condition, " ".join(strings) or "assertion failed", tensors,
                   3 if summarize is None else summarize, name)
