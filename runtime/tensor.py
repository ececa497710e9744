"""Tensors: eager values (EagerTensor) and symbolic graph outputs (SymbolicTensor).

Shapes and specs live in `runtime.tensor_shape`, conversion in `runtime.tensor_conversion`;
both are re-exported here.
"""
import linecache
import sys

import numpy as np

from autograph.impl import traceback_filter
from autograph.pyct import inspect_utils
from runtime import context
from runtime import dtypes
from runtime.tensor_shape import TensorShape
from runtime.tensor_shape import TensorSpec  # noqa: F401 - re-exported
from runtime.tensor_shape import format_shape  # noqa: F401 - re-exported
from runtime.tensor_shape import shape_str

_BY_NP = dtypes._BY_NP
_py_bool = bool


class Tensor:
    """Base class of EagerTensor (holds a numpy value) and SymbolicTensor (a graph output).

    `isinstance(x, Tensor)` is true for both kinds.
    """

    __slots__ = ()
    # Make numpy defer to our operators in `ndarray + Tensor`.
    __array_priority__ = 100
    _weak = None  # a SymbolicTensor standing for a Python number sets its own (weak_types.py)

    def get_shape(self):
        """Returns the static shape (same as `.shape`)."""
        return self.shape

    @property
    def ndim(self):
        """The rank of the tensor."""
        return len(self.shape)

    def ref(self):
        """Returns a hashable reference to this tensor (TensorFlow compatibility)."""
        return _TensorRef(self)

    # Tensors hash by identity so they can key dicts; `==` is elementwise, as in TensorFlow.
    __hash__ = object.__hash__

    # Arithmetic, comparison and bitwise operators and indexing are installed from the op
    # layer above (runtime/ops/tensor_methods.py), as JAX's array_methods.py installs the
    # array's: this module imports no op.


class _TensorRef:
    """A hashable wrapper around a tensor, compared by identity."""

    __slots__ = ("_tensor",)

    def __init__(self, tensor):
        self._tensor = tensor

    def deref(self):
        """Returns the referenced tensor."""
        return self._tensor

    def __hash__(self):
        return id(self._tensor)

    def __eq__(self, other):
        return isinstance(other, _TensorRef) and other._tensor is self._tensor


class EagerTensor(Tensor):
    """A tensor holding a concrete numpy value (an ndarray or numpy scalar).

    Attributes:
        _value: The np.ndarray or np.generic (never a Python scalar). Its value never
            changes, and its array object's shape and dtype never change: every array handed
            out (`numpy()`, `__array__`) is a view of it, and a call entry that marks the
            tensor (`_sig`) first replaces it by a private view of itself (the same data) if
            anything else holds the array (see runtime/function/calls.py).
        _sig: None, or the canonical (dtype, shape) tuple of `_value` (function_calls.sig),
            set by a call entry that checked it, so that the next call checks `_sig is sig`
            instead of the dtype and shape.
    """

    __slots__ = ("_value", "_sig")

    def __init__(self, value):
        self._value = value
        self._sig = None

    @property
    def shape(self):
        """The shape as a TensorShape."""
        return TensorShape(self._value.shape)

    @property
    def dtype(self):
        """The DType."""
        return _BY_NP[self._value.dtype]

    @property
    def name(self):
        """Eager tensors have no graph name; returns None (TensorFlow raises here)."""
        return None

    @property
    def graph(self):
        """Eager tensors belong to no graph: None."""
        return None

    def numpy(self):
        """Returns the value as a numpy array (numpy scalar for rank 0, bytes for strings).

        An array is a view of the tensor's: it shares the data (as TensorFlow's CPU tensors
        do), but reshaping it in place (`a.shape = ...`) leaves the tensor as it is.
        """
        value = self._value
        if type(value) is np.ndarray:
            return value.view() if value.ndim else value[()]
        return value

    def __array__(self, dtype=None, copy=None):
        value = self._value
        if copy:  # numpy 2 asks for a copy (np.array(tensor, copy=True))
            return np.array(value, dtype=dtype, copy=True)
        if type(value) is np.ndarray:
            value = value.view()  # (see numpy)
        else:
            value = np.asarray(value)
        if dtype is not None:
            value = value.astype(dtype, copy=False)
        return value

    def __bool__(self):
        return _py_bool(self._value)

    def __len__(self):
        shape = self._value.shape
        if not shape:
            raise TypeError("len() of a scalar (rank 0) tensor is not defined.")
        return shape[0]

    def __iter__(self):
        value = self._value
        if not value.shape:
            raise TypeError("Cannot iterate over a scalar (rank 0) tensor.")
        for row in value:
            yield EagerTensor(row if isinstance(row, (np.ndarray, np.generic))
                              else np.asarray(row, dtype=value.dtype))

    def __int__(self):
        return int(self._value)

    def __float__(self):
        return float(self._value)

    def __index__(self):
        if self.dtype.is_integer and not self._value.shape:
            return int(self._value)
        raise TypeError(f"Only integer scalar tensors can be used as an index, found "
                        f"dtype {self.dtype.name} with shape {shape_str(self._value.shape)}.")

    def __format__(self, spec):
        if not self._value.shape:
            return format(self._value.item(), spec)
        return format(str(self), spec)

    def __repr__(self):
        return (f"<tf.Tensor: shape={shape_str(self._value.shape)}, dtype={self.dtype.name}, "
                f"numpy={_numpy_repr(self._value)}>")

    def __str__(self):
        return (f"tf.Tensor({_numpy_str(self._value)}, shape={shape_str(self._value.shape)}, "
                f"dtype={self.dtype.name})")

    def __reduce__(self):
        return (EagerTensor, (self._value,))


def _numpy_repr(value):
    if value.ndim:
        text = repr(value)
        return "\n" + text if "\n" in text else text  # TensorFlow starts a new line
    if value.dtype.kind == "f":
        # numpy's shortest text at the value's own precision, as TensorFlow shows it:
        # float32 sqrt(2) is 1.4142135 (its Python float would print 1.4142135381698608).
        return str(value[()])
    return repr(value.item())


def _numpy_str(value):
    if value.dtype == object and not value.shape:
        return repr(np.asarray(value).item())
    text = str(value)
    return "\n" + text if "\n" in text else text  # TensorFlow starts a new line


def _user_location():
    """Returns ' (File "f.py", line 3, in fn: `src`)' for the innermost user frame, or ''.

    User frames are those outside the runtime and autograph packages and outside generated
    code, so the message points at the line the user wrote.
    """
    frame, _ = inspect_utils.first_user_frame(sys._getframe(2))
    # Skip the code the runtime generates ("<runtime-graph ...>"); a prompt's or exec's code
    # ("<stdin>", "<string>") is the user's, shown without its source.
    while frame is not None and traceback_filter.is_internal(frame.f_code.co_filename):
        frame, _ = inspect_utils.first_user_frame(frame.f_back)
    if frame is not None:
        filename = frame.f_code.co_filename
        line = linecache.getline(filename, frame.f_lineno).strip()
        source = f": `{line}`" if line else ""
        return (f' (File "{filename}", line {frame.f_lineno}, in '
                f"{frame.f_code.co_name}{source})")
    return ""


def user_traceback_line():
    """Returns '\n  File "f.py", line 3, in fn\n    src' for the innermost user frame, or ''.

    Ops whose failure at run time is the user's (asserts, stacking a list built in a staged
    loop) record it while they are built, and add it to their run-time error.
    """
    frame, _ = inspect_utils.first_user_frame(sys._getframe(1))
    if frame is None:
        return ""
    filename = frame.f_code.co_filename
    text = f'\n  File "{filename}", line {frame.f_lineno}, in {frame.f_code.co_name}'
    line = linecache.getline(filename, frame.f_lineno).strip()
    return text + (f"\n    {line}" if line else "")


def _use_autograph():
    """How to fix Python control flow on a symbolic tensor, for the user's frame that ran it.

    A function whose source cannot be read (typed at the prompt of Python 3.12 or older, or
    made by exec) could not be converted, and autograph warned so: saying "use autograph"
    would contradict that.
    """
    frame, _ = inspect_utils.first_user_frame(sys._getframe(2))
    if frame is not None and not linecache.getline(frame.f_code.co_filename, frame.f_lineno):
        return (f"autograph could not convert {frame.f_code.co_name}, which ran this as plain "
                f"Python, because its source is not available (a function typed at the prompt "
                f"of Python 3.12 or older, or made by exec). Define it in a file or a notebook "
                f"cell (or Python 3.13's REPL), or express it with tf.cond / tf.while_loop.")
    return ("autograph stages the if, while and for statements of the functions it converts "
            "(tf.function converts unless autograph=False), list comprehensions with one for "
            "clause and sum/any/all/max/min of a generator expression; not comprehensions with "
            "several for clauses, other generator expressions or functions marked "
            "do_not_convert: write it as a for loop or an if statement, or express it with "
            "tf.cond / tf.while_loop.")


_SHAPES = {}  # tuple of dims -> the TensorShape shared by every graph tensor of that shape


def _interned_shape(shape):
    """The one TensorShape of these dims (immutable: graph tensors share it)."""
    key = tuple(shape)
    interned = _SHAPES.get(key)  # (numpy int dims find the equal int dims' shape)
    if interned is None:
        if not all(type(d) is int or d is None for d in key):
            return TensorShape(key)  # numpy ints compare equal to ints: never share those
        if len(_SHAPES) >= 4096:
            _SHAPES.clear()
        interned = _SHAPES[key] = TensorShape(key)
    return interned


class SymbolicTensor(Tensor):
    """Output number `index` of `node` in the graph being built; has no value."""

    __slots__ = ("node", "index", "_shape", "_dtype", "_weak")

    def __init__(self, node, index, shape, dtype):
        self.node = node  # the producing runtime.graph.Node
        self.index = index  # position in node.outputs
        self._weak = None  # int, float or bool: stands for a Python number (weak_types.py)
        # None only for an unknown rank (py_function outputs); else dims with None = unknown
        self._shape = None if shape is None else _interned_shape(shape)
        self._dtype = dtype

    @property
    def shape(self):
        """The static shape (None for unknown dims) as a TensorShape."""
        return self._shape

    @property
    def dtype(self):
        """The DType."""
        return self._dtype

    @property
    def graph(self):
        """The Graph this tensor belongs to."""
        return self.node.graph

    @property
    def op(self):
        """The producing Node (TensorFlow's `tensor.op`)."""
        return self.node

    @property
    def name(self):
        """TensorFlow-style name, 'node_name:index'."""
        return f"{self.node.name}:{self.index}"

    @property
    def ref_name(self):
        """The name used for this tensor in str(graph) and graph_def inputs."""
        node = self.node
        if self.index == 0:
            return node.name
        return f"{node.name}:{self.index}"

    def numpy(self):
        """Always raises: a symbolic tensor has no value while its graph is traced.

        Raises:
            NotImplementedError: with advice on how to see the value.
        """
        graph = self.node.graph
        if graph not in context.graph_stack():
            raise NotImplementedError(
                f"Cannot call .numpy() on the symbolic tensor '{self.name}': it was made while "
                f"graph '{graph.name}' was traced and kept after the trace ended (in a Python "
                f"variable, list or attribute); it never has a value. Return it from the "
                f"function and call .numpy() on the result.")
        raise NotImplementedError(
            f"Cannot call .numpy() on the symbolic tensor '{self.name}': it has no value while "
            f"graph '{graph.name}' is being traced. Return it from the function and "
            f"call .numpy() on the result, or use tf.print to see it at run time.")

    def __array__(self, dtype=None, copy=None):
        raise TypeError(
            f"Cannot convert the symbolic tensor '{self.name}' to a numpy array: it has no value "
            f"while graph '{self.node.graph.name}' is being traced. Use runtime ops (tf.*) "
            f"instead of numpy functions inside traced code.")

    def __bool__(self):
        raise TypeError(
            f"Using the symbolic tensor '{self.name}' as a Python bool is not allowed"
            f"{_user_location()}: its value is only known when the graph runs. {_use_autograph()}")

    def __iter__(self):
        raise TypeError(
            f"Iterating over the symbolic tensor '{self.name}' is not allowed{_user_location()}: "
            f"its length is only known when the graph runs. {_use_autograph()}")

    def __len__(self):
        raise TypeError(
            f"len() is not defined for the symbolic tensor '{self.name}' (shape "
            f"{shape_str(self._shape)}). Use tf.shape(x)[0] or tf.size(x).")

    def __index__(self):
        raise TypeError(
            f"The symbolic tensor '{self.name}' cannot be used as a Python int (a list index, "
            f"a slice bound or a count){_user_location()}: its value is only known when the "
            f"graph runs. Index a tensor instead of a Python list (tf.constant(values)[i] or "
            f"tf.gather(values, i)), use tf.range(n) for a range, or pass a Python int.")

    __int__ = __index__

    def __float__(self):
        raise TypeError(
            f"The symbolic tensor '{self.name}' cannot be converted to a Python float while "
            f"tracing. {_use_autograph()}")

    def __repr__(self):
        return (f"<tf.Tensor '{self.name}' shape={shape_str(self._shape)} "
                f"dtype={self._dtype.name}>")

    def __str__(self):
        return f'Tensor("{self.name}", shape={shape_str(self._shape)}, dtype={self._dtype.name})'


def is_tensor(value):
    """True for Tensor objects (eager or symbolic).

    Args:
        value: Any object.

    Returns:
        A Python bool.
    """
    return isinstance(value, Tensor)
