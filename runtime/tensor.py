"""Tensors (eager values and symbolic graph outputs), shapes, specs and conversion."""
import linecache
import numbers
import sys

import numpy as np

from autograph.pyct import inspect_utils
from runtime import context
from runtime import dtypes
from runtime.errors import InvalidArgumentError

_BY_NP = dtypes._BY_NP
_py_bool = bool


class TensorShape(tuple):
    """A tuple of dimensions where None marks an unknown dimension.

    Compares equal to tuples and lists with the same dimensions.
    """

    __slots__ = ()

    @property
    def rank(self):
        """The number of dimensions."""
        return len(self)

    ndims = rank

    def as_list(self):
        """Returns the dimensions as a list."""
        return list(self)

    def is_fully_defined(self):
        """True when no dimension is None."""
        return None not in self

    def is_compatible_with(self, other):
        """True when `other` has the same rank and equal dims wherever both are known.

        Args:
            other: A shape (tuple or list, None for unknown dims), or None for unknown rank.

        Returns:
            A Python bool.
        """
        if other is None:
            return True
        other = tuple(other)
        if len(other) != len(self):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self, other))

    def __eq__(self, other):
        if isinstance(other, list):
            other = tuple(other)
        return tuple.__eq__(self, other)

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = tuple.__hash__

    def __getitem__(self, key):
        if isinstance(key, slice):
            return TensorShape(tuple.__getitem__(self, key))
        return tuple.__getitem__(self, key)

    def __repr__(self):
        return f"TensorShape({list(self)})"

    def __str__(self):
        return tuple.__repr__(tuple(self))


def _shape_str(shape):
    if shape is None:
        return "<unknown>"
    return tuple.__repr__(tuple(shape))


def format_shape(shape):
    """Formats a shape the way str(graph) does: '[3,?]'.

    Args:
        shape: A tuple of ints and Nones.

    Returns:
        A string.
    """
    if shape is None:
        return "[*]"
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


class Tensor:
    """Base class of EagerTensor (holds a numpy value) and SymbolicTensor (a graph output).

    `isinstance(x, Tensor)` is true for both kinds.
    """

    __slots__ = ()
    # Make numpy defer to our operators in `ndarray + Tensor`.
    __array_priority__ = 100

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

    # Arithmetic, comparison and bitwise operators are installed by _install_operators()
    # at the end of this module, once the op library is importable.

    def __getitem__(self, key):
        return _array_ops.getitem(self, key)


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
    """A tensor holding a concrete numpy value (an ndarray or numpy scalar)."""

    __slots__ = ("_value",)

    def __init__(self, value):
        self._value = value  # np.ndarray or np.generic; never a Python scalar

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
        """Returns the value as a numpy array (numpy scalar for rank 0, bytes for strings)."""
        value = self._value
        if type(value) is np.ndarray and not value.ndim:
            return value[()]
        return value

    def __array__(self, dtype=None, copy=None):
        value = np.asarray(self._value)
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
                        f"dtype {self.dtype.name} with shape {_shape_str(self._value.shape)}.")

    def __format__(self, spec):
        if not self._value.shape:
            return format(self._value.item(), spec)
        return format(str(self), spec)

    def __repr__(self):
        return (f"<tf.Tensor: shape={_shape_str(self._value.shape)}, dtype={self.dtype.name}, "
                f"numpy={_numpy_repr(self._value)}>")

    def __str__(self):
        return (f"tf.Tensor({_numpy_str(self._value)}, shape={_shape_str(self._value.shape)}, "
                f"dtype={self.dtype.name})")

    def __reduce__(self):
        return (EagerTensor, (self._value,))


def _numpy_repr(value):
    if value.ndim:
        text = repr(value)
        return "\n" + text if "\n" in text else text  # TensorFlow starts a new line
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
    # Frames of code made by exec or compile ("<string>") have no source to show: skip them.
    while frame is not None and frame.f_code.co_filename.startswith("<"):
        frame, _ = inspect_utils.first_user_frame(frame.f_back)
    if frame is not None:
        filename = frame.f_code.co_filename
        line = linecache.getline(filename, frame.f_lineno).strip()
        source = f": `{line}`" if line else ""
        return (f' (File "{filename}", line {frame.f_lineno}, in '
                f"{frame.f_code.co_name}{source})")
    return ""


_USE_AUTOGRAPH = (
    "Use autograph (runtime.function converts Python control flow by default) or express "
    "it with tf.cond / tf.while_loop.")


class SymbolicTensor(Tensor):
    """Output number `index` of `node` in the graph being built; has no value."""

    __slots__ = ("node", "index", "_shape", "_dtype")

    def __init__(self, node, index, shape, dtype):
        self.node = node  # the producing runtime.graph.Node
        self.index = index  # position in node.outputs
        # None only for an unknown rank (py_function outputs); else dims with None = unknown
        self._shape = None if shape is None else TensorShape(shape)
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
        raise NotImplementedError(
            f"Cannot call .numpy() on the symbolic tensor '{self.name}': it has no value while "
            f"graph '{self.node.graph.name}' is being traced. Return it from the function and "
            f"call .numpy() on the result, or use tf.print to see it at run time.")

    def __array__(self, dtype=None, copy=None):
        raise TypeError(
            f"Cannot convert the symbolic tensor '{self.name}' to a numpy array: it has no value "
            f"while graph '{self.node.graph.name}' is being traced. Use runtime ops (tf.*) "
            f"instead of numpy functions inside traced code.")

    def __bool__(self):
        raise TypeError(
            f"Using the symbolic tensor '{self.name}' as a Python bool is not allowed"
            f"{_user_location()}: its value is only known when the graph runs. {_USE_AUTOGRAPH}")

    def __iter__(self):
        raise TypeError(
            f"Iterating over the symbolic tensor '{self.name}' is not allowed{_user_location()}: "
            f"its length is only known when the graph runs. {_USE_AUTOGRAPH}")

    def __len__(self):
        raise TypeError(
            f"len() is not defined for the symbolic tensor '{self.name}' (shape "
            f"{_shape_str(self._shape)}). Use tf.shape(x)[0] or tf.size(x).")

    def __index__(self):
        raise TypeError(
            f"The symbolic tensor '{self.name}' cannot be used as a Python int (e.g. as a list "
            f"index or range() bound): its value is only known when the graph runs. "
            f"{_USE_AUTOGRAPH}")

    __int__ = __index__

    def __float__(self):
        raise TypeError(
            f"The symbolic tensor '{self.name}' cannot be converted to a Python float while "
            f"tracing. {_USE_AUTOGRAPH}")

    def __repr__(self):
        return (f"<tf.Tensor '{self.name}' shape={_shape_str(self._shape)} "
                f"dtype={self._dtype.name}>")

    def __str__(self):
        return f'Tensor("{self.name}", shape={_shape_str(self._shape)}, dtype={self._dtype.name})'


class TensorSpec:
    """Describes a tensor: shape (None for unknown dims, or None for unknown rank) and dtype.

    Args:
        shape: A tuple/list of ints and Nones, a TensorShape, or None (unknown rank).
        dtype: A DType or anything `dtypes.as_dtype` accepts (default float32).
        name: Optional name.
    """

    __slots__ = ("shape", "dtype", "name")

    def __init__(self, shape, dtype=dtypes.float32, name=None):
        self.shape = None if shape is None else TensorShape(
            None if d is None else int(d) for d in shape)
        self.dtype = dtypes.as_dtype(dtype)
        self.name = name

    @classmethod
    def from_tensor(cls, tensor, name=None):
        """Returns the spec of a tensor.

        Args:
            tensor: A Tensor.
            name: Optional name.

        Returns:
            A TensorSpec.
        """
        return cls(tensor.shape, tensor.dtype, name)

    def is_compatible_with(self, value):
        """True when `value` (a Tensor, array or TensorSpec) fits this spec.

        Args:
            value: A Tensor, TensorSpec, or array-like.

        Returns:
            A Python bool.
        """
        if not isinstance(value, (Tensor, TensorSpec)):
            value = convert_to_tensor(value)
        if value.dtype is not self.dtype:
            return False
        if self.shape is None or value.shape is None:
            return True
        return self.shape.is_compatible_with(value.shape)

    def __eq__(self, other):
        return (isinstance(other, TensorSpec) and self.shape == other.shape
                and self.dtype is other.dtype and self.name == other.name)

    def __hash__(self):
        return hash((self.shape, self.dtype.name, self.name))

    def __repr__(self):
        shape = None if self.shape is None else _shape_str(self.shape)
        return f"TensorSpec(shape={shape}, dtype=tf.{self.dtype.name}, name={self.name!r})"


def _python_to_numpy(value, dtype):
    """Converts a Python (nested) value to numpy with TensorFlow's default dtypes."""
    if dtype is not None:
        np_dtype = dtype.np_dtype
        if dtype.is_integer or dtype.is_bool:
            probe = np.asarray(value)
            if probe.dtype.kind == "f" and dtype.is_integer:
                raise TypeError(
                    f"Cannot convert {value!r} to a tensor of dtype {dtype.name}: it holds "
                    f"floats. Use a float dtype or round the value first.")
            if probe.dtype.kind in "iu" and probe.size and dtype.is_integer:
                info = np.iinfo(np_dtype)
                if probe.min() < info.min or probe.max() > info.max:
                    raise TypeError(f"Cannot convert {value!r} to a tensor of dtype "
                                    f"{dtype.name}: value out of range.")
        if dtype is dtypes.string:
            return to_string_array(value)
        return np.asarray(value, dtype=np_dtype)
    array = np.asarray(value)
    kind = array.dtype.kind
    if kind == "f":
        if array.size and isinstance(value, (list, tuple)) and np.abs(array).max() >= 2**63:
            _check_python_items(value, array)  # numpy made floats of huge ints: refuse them
        return array.astype(np.float32)
    if kind == "i":
        if array.size == 0 or (array.min() >= -2**31 and array.max() < 2**31):
            return array.astype(np.int32)
        return array.astype(np.int64)
    if kind in "uUSO":
        # numpy widens what TensorFlow refuses: ints beyond int64 (to uint64 or object) and
        # mixed items (to strings or object).
        if _check_python_items(value, array):
            return np.asarray(value, dtype=np.float64).astype(np.float32)
    if kind in "USO":
        return to_string_array(value)
    return array


def _check_python_items(value, array):
    """Raises ValueError, as TensorFlow does, for Python values without a tensor dtype.

    Returns:
        True when the items are floats and ints (some beyond int64): a float tensor.
    """
    items = np.array(value, dtype=object).reshape(-1) if array.dtype.kind != "u" else ()
    if (any(isinstance(item, float) for item in items)
            and all(isinstance(item, (int, float)) for item in items)):
        return True  # a float sequence holds big ints as floats, as in TensorFlow
    for item in (array.reshape(-1).tolist() if array.dtype.kind == "u" else items):
        if isinstance(item, int) and not isinstance(item, bool) and not (
                -2**63 <= item < 2**63):
            raise ValueError(
                f"Can't convert Python sequence with out-of-range integer to Tensor: "
                f"{_short(item)} does not fit in int64. Pass it as a float (float(x)) or "
                f"split it into smaller integers.")
    if array.dtype.kind in "uf":
        return False
    types = {type(item) for item in items}
    if not types <= {str, bytes}:
        names = ", ".join(sorted(t.__name__ for t in types))
        raise ValueError(
            f"Can't convert Python sequence with mixed types to Tensor: {_short(value)} holds "
            f"{names}. Make every item a number, or every item a string.")
    return False


def _short(value, limit=60):
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _check_object_array(array):
    """Raises ValueError, as TensorFlow does, for an object array of non-strings."""
    for item in array.reshape(-1):
        if not isinstance(item, (bytes, str)):
            raise ValueError(
                f"Failed to convert a NumPy array to a Tensor (Unsupported object type "
                f"{type(item).__name__}). Give the array a numeric dtype, e.g. "
                f"np.asarray(x, dtype=np.float32), or make its items strings.")


def to_string_array(value):
    """Converts (nested) strings to an object array of bytes, TensorFlow's string values.

    Args:
        value: A str, bytes, or nested list/array of them (other items are str()-ed).

    Returns:
        A numpy object array whose items are bytes (str is UTF-8 encoded).
    """
    array = np.array(value, dtype=object)
    flat = array.reshape(-1)
    for i, item in enumerate(flat):
        if isinstance(item, str):
            flat[i] = item.encode("utf-8")
        elif not isinstance(item, bytes):
            flat[i] = str(item).encode("utf-8")
    return array


def _has_tensors(value):
    if isinstance(value, Tensor):
        return True
    if isinstance(value, (list, tuple)):
        return any(_has_tensors(v) for v in value)
    return False


def convert_to_tensor(value, dtype=None, name=None, dtype_hint=None):
    """Converts a Python value, numpy array, Variable or Tensor into a Tensor.

    Python ints become int32 and floats float32 (as in TensorFlow); numpy arrays keep
    their dtype. Inside a graph, eager values stay eager and are captured as constants
    when an op uses them.

    Args:
        value: The value to convert.
        dtype: Optional DType the result must have.
        name: Unused; accepted for TensorFlow compatibility.
        dtype_hint: Optional DType used for Python values when `dtype` is not given.

    Returns:
        A Tensor.

    Raises:
        InvalidArgumentError: if `value` is a Tensor whose dtype differs from `dtype`.
        TypeError: if `value` cannot be converted.
    """
    if isinstance(value, Tensor):
        if dtype is not None:
            dtype = dtypes.as_dtype(dtype)
            if value.dtype is not dtype:
                raise InvalidArgumentError(
                    f"Expected a tensor of dtype {dtype.name}, found {value.dtype.name} "
                    f"({value!r}). Use tf.cast to change the dtype.")
        return value
    as_tensor = getattr(value, "_as_tensor", None)
    if as_tensor is not None:
        return convert_to_tensor(as_tensor(), dtype)
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    if isinstance(value, (np.ndarray, np.generic)):
        if dtype is not None and _BY_NP.get(value.dtype) is not dtype:
            if value.dtype.kind in "USO" and dtype is dtypes.string:
                return EagerTensor(to_string_array(value))
            return EagerTensor(np.asarray(value, dtype=dtype.np_dtype))
        if value.dtype.kind in "US":
            return EagerTensor(to_string_array(value))
        if value.dtype.kind == "O":
            _check_object_array(value)
        dtypes.from_numpy(value.dtype)
        return EagerTensor(value)
    if isinstance(value, (list, tuple)) and _has_tensors(value):
        return _array_ops.stack([convert_to_tensor(v, dtype) for v in value])
    if dtype is None and dtype_hint is not None and not isinstance(value, (str, bytes)):
        dtype = dtypes.as_dtype(dtype_hint)
        try:
            return EagerTensor(_python_to_numpy(value, dtype))
        except TypeError:
            dtype = None
    if value is None or not isinstance(value, (numbers.Number, str, bytes, list, tuple)):
        raise TypeError(
            f"Expected a tensor, number, string, bool or (nested) list of them, found "
            f"{type(value).__name__}: {value!r}.")
    return EagerTensor(_python_to_numpy(value, dtype))


def constant(value, dtype=None, shape=None, name=None):
    """Creates a constant tensor (a constant node when a graph is being built).

    Args:
        value: A Python value, numpy array or Tensor.
        dtype: Optional DType; Python values are converted to it.
        shape: Optional shape; a scalar value is broadcast to it, otherwise reshaped.
        name: Optional node name in graph mode.

    Returns:
        A Tensor.
    """
    if isinstance(value, Tensor):
        tensor = value if dtype is None else _math_ops.cast(value, dtype)
    else:
        tensor = convert_to_tensor(value, dtype)
    if shape is not None:
        array = tensor._value
        shape = tuple(shape)
        if array.size == 1 and array.ndim == 0:
            array = np.full(shape, array, dtype=array.dtype)
        else:
            array = np.reshape(array, shape)
        tensor = EagerTensor(array)
    graph = context.get_graph()
    if graph is not None and type(tensor) is EagerTensor:
        return graph.constant(tensor._value, name=name)
    return tensor


def constant_value(tensor):
    """Returns the value of a tensor when it is known while tracing, else None.

    Args:
        tensor: A Tensor or Python value.

    Returns:
        A numpy value or None.
    """
    if isinstance(tensor, EagerTensor):
        return tensor._value
    if isinstance(tensor, SymbolicTensor):
        node = tensor.node
        if node.op == "constant":
            return node.attrs["value"]
        if node.op == "shape":
            shape = node.inputs[0].shape
            if None not in shape:
                return np.array(shape, dtype=node.attrs.get("out_type", dtypes.int32).np_dtype)
        return None
    if isinstance(tensor, (np.ndarray, np.generic, numbers.Number, list, tuple)):
        try:
            return np.asarray(tensor)
        except Exception:  # noqa: BLE001 - ragged Python data: value unknown
            return None
    return None


def is_tensor(value):
    """True for Tensor objects (eager or symbolic).

    Args:
        value: Any object.

    Returns:
        A Python bool.
    """
    return isinstance(value, Tensor)


def _install_operators():
    """Binds Tensor's operators straight to the op functions (no per-call lookups)."""
    m = _math_ops
    binary = {"add": m.add, "sub": m.subtract, "mul": m.multiply, "truediv": m.divide,
              "floordiv": m.floordiv, "mod": m.floormod, "pow": m.pow, "matmul": m.matmul,
              "lshift": m.left_shift, "rshift": m.right_shift}
    for name, fn in binary.items():
        setattr(Tensor, f"__{name}__", _method(fn))
        if name not in ("lshift", "rshift"):
            setattr(Tensor, f"__r{name}__", _reflected(fn))
    for name, which in (("and", "and"), ("or", "or"), ("xor", "xor")):
        setattr(Tensor, f"__{name}__", _logical(which, False))
        setattr(Tensor, f"__r{name}__", _logical(which, True))
    for name, fn in (("lt", m.less), ("le", m.less_equal), ("gt", m.greater),
                     ("ge", m.greater_equal)):
        setattr(Tensor, f"__{name}__", _method(fn))
    Tensor.__neg__ = m.negative
    Tensor.__abs__ = m.abs
    Tensor.__pos__ = lambda self: self
    Tensor.__invert__ = lambda self: (m.logical_not(self) if self.dtype is dtypes.bool
                                      else m.invert(self))
    # `==` is elementwise as in TensorFlow, except against None.
    Tensor.__eq__ = lambda self, other: False if other is None else m.equal(self, other)
    Tensor.__ne__ = lambda self, other: True if other is None else m.not_equal(self, other)
    Tensor.__hash__ = object.__hash__


def _method(fn):
    def method(self, other):
        return fn(self, other)
    method.__name__ = fn.__name__
    return method


def _reflected(fn):
    def method(self, other):
        return fn(other, self)
    method.__name__ = "r" + fn.__name__
    return method


def _logical(which, reflected):
    def method(self, other):
        if reflected:
            return _math_ops.logical_and_or_bitwise(other, self, which)
        return _math_ops.logical_and_or_bitwise(self, other, which)
    method.__name__ = which
    return method


from runtime.ops import array_ops as _array_ops  # noqa: E402  (late: ops import this module)
from runtime.ops import math_ops as _math_ops  # noqa: E402

_install_operators()
