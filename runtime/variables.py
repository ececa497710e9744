"""tf.Variable: mutable state that lives outside graphs; graphs read/write it via stateful ops."""
import contextlib

import numpy as np

from runtime import context
from runtime import dtypes
from runtime.errors import InvalidArgumentError
from runtime.ops import common
from runtime.ops.registry import OPS
from runtime.ops.registry import apply
from runtime.tensor import EagerTensor
from runtime.tensor import SymbolicTensor
from runtime.tensor import Tensor
from runtime.tensor import TensorShape
from runtime.tensor_conversion import convert_to_tensor
from runtime.errors import FailedPreconditionError
from runtime.graph import leaked_eager_error
from runtime import gradients
from runtime import resources

# Callbacks called with each new Variable (runtime.function uses this to enforce
# "variables are created on the first call only").
_creation_observers = []
# Stack of lists; while a Function traces its first call, the innermost list collects
# (variable, symbolic initial value) pairs for variables initialised from the trace's ops.
_deferred_initializers = []


@contextlib.contextmanager
def defer_initialization():
    """Context manager: Variables created inside may take a symbolic initial value.

    Such a variable is created uninitialised; the pairs (variable, initial value tensor) are
    collected in the yielded list, and the caller (a Function's first trace) computes the
    values from the call's inputs and calls `variable._initialize(value)`.

    Yields:
        The list collecting (Variable, SymbolicTensor) pairs.
    """
    pending = []
    _deferred_initializers.append(pending)
    try:
        yield pending
    finally:
        _deferred_initializers.pop()


@contextlib.contextmanager
def observe_creation(callback):
    """Context manager: calls `callback(variable)` for every Variable created inside.

    Args:
        callback: A callable taking the new Variable; it may raise to forbid creation.

    Yields:
        None.
    """
    _creation_observers.append(callback)
    try:
        yield
    finally:
        _creation_observers.remove(callback)


class Variable:
    """A mutable tensor-like value (tf.Variable).

    Args:
        initial_value: A value, Tensor, or a zero-argument callable returning one. It is
            evaluated eagerly (lifted out of any graph being built).
        trainable: Whether tf.Module.trainable_variables lists it.
        name: Optional name (default 'Variable').
        dtype: Optional DType to convert the initial value to.
        shape: Unused; the shape is the initial value's.

    Raises:
        ValueError: if the initial value is a symbolic tensor of a graph being traced.
    """

    __array_priority__ = 100

    def __init__(self, initial_value, trainable=True, name=None, dtype=None, shape=None):
        self._name = name or "Variable"
        if dtype is not None:
            dtype = dtypes.as_dtype(dtype)
        with context.init_scope():
            if callable(initial_value):
                initial_value = initial_value()
            if isinstance(initial_value, Variable):
                initial_value = initial_value.read_value()
            if isinstance(initial_value, SymbolicTensor):
                self._defer(initial_value, dtype)
            else:
                tensor = convert_to_tensor(initial_value)
                if dtype is not None and tensor.dtype is not dtype:
                    tensor = convert_to_tensor(np.asarray(tensor._value, dtype=dtype.np_dtype))
                # The current value; writes replace it. None until a deferred initial value
                # (see `_defer`) is computed.
                self._value = np.array(tensor._value, copy=True)
                self._dtype = tensor.dtype
                self._shape = TensorShape(self._value.shape)
        self.trainable = trainable
        # the eager `resource` tensor graphs capture to name this variable (`handle`)
        self._handle = resources.ResourceTensor(resources.register(self, self._name))
        for callback in list(_creation_observers):
            callback(self)

    def _defer(self, initial_value, dtype):
        """Creates this variable uninitialised, its value to come from a traced first call."""
        if not _deferred_initializers:
            for callback in list(_creation_observers):
                callback(self)  # a later trace of a tf.function raises its own error here
            raise ValueError(
                f"A Variable's initial value must be computable eagerly, found the symbolic "
                f"tensor '{initial_value.name}'. Create the variable outside the traced "
                f"graph, inside a tf.function (whose first call may create variables from its "
                f"ops), or compute the initial value from Python/numpy values.")
        _deferred_initializers[-1].append((self, initial_value))
        self._value = None
        self._dtype = dtype or initial_value.dtype
        shape = initial_value.shape
        self._shape = TensorShape(shape) if shape is not None else None

    def _initialize(self, value):
        """Sets the value of a variable created with a symbolic initial value.

        Args:
            value: The numpy value computed from the first call's inputs.
        """
        value = np.array(value, dtype=self._dtype.np_dtype, copy=True)
        if self._shape is not None and not self._shape.is_compatible_with(value.shape):
            raise ValueError(f"The initial value of Variable '{self._name}' has shape "
                             f"{value.shape}, expected {tuple(self._shape)}.")
        self._value = value
        self._shape = TensorShape(value.shape)

    @property
    def name(self):
        """TensorFlow-style name, e.g. 'Variable:0'."""
        return self._name + ":0"

    @property
    def handle(self):
        """The eager tensor of dtype `resource` naming this variable (TensorFlow's handle);
        the graph ops on the variable take it as their first input."""
        return self._handle

    @property
    def dtype(self):
        """The DType."""
        return self._dtype

    @property
    def shape(self):
        """The (fixed) shape."""
        return self._shape

    def get_shape(self):
        """Returns the shape."""
        return self._shape

    # -- reads ----------------------------------------------------------------------------

    def read_value(self):
        """Returns the current value: now when eager, a stateful read node in a graph.

        Returns:
            A Tensor.
        """
        if context.executing_eagerly():
            if self._value is None:
                raise _uninitialized_error(self)
            tensor = EagerTensor(self._value)
        else:
            tensor = apply(OPS["read_variable"], [self._handle], {})
        if context._state.tapes:
            gradients.record_variable_read(self, tensor)
        return tensor

    value = read_value
    _as_tensor = read_value

    def numpy(self):
        """Returns the current value as numpy (eager only).

        Raises:
            NotImplementedError: while a graph is being traced.
        """
        if not context.executing_eagerly():
            raise NotImplementedError(
                f"Variable.numpy() is only available eagerly, not while tracing a graph "
                f"(variable '{self._name}'). Use the variable as a tensor, or tf.print it.")
        return self._value

    # -- writes ---------------------------------------------------------------------------

    def _write(self, op, value, name):
        if isinstance(value, Variable):
            value = value.read_value()
        if isinstance(value, Tensor):
            tensor = value
        else:
            tensor = common.adopt_dtype(value, self._dtype)
        if tensor.dtype is not self._dtype:
            raise InvalidArgumentError(
                f"Cannot {op.replace('_variable', '')} a {tensor.dtype.name} value to the "
                f"variable '{self._name}' of dtype {self._dtype.name}. Use tf.cast.", op)
        if tensor.shape is not None and not self._shape.is_compatible_with(tensor.shape):
            if op == "assign_variable" or len(tensor.shape) > len(self._shape):
                raise InvalidArgumentError(
                    f"Cannot {op.replace('_variable', '')} a value of shape "
                    f"{tuple(tensor.shape)} to the variable '{self._name}' of shape "
                    f"{tuple(self._shape)}.", op)
        if context.executing_eagerly():
            if type(tensor) is not EagerTensor:
                raise leaked_eager_error(tensor)
            kernel = OPS[op].kernel
            return EagerTensor(kernel(self, np.array(tensor._value, copy=True)))
        return apply(OPS[op], [self._handle, tensor], {}, name)

    def assign(self, value, use_locking=None, name=None, read_value=True):
        """Sets the value.

        Args:
            value: A Tensor or value of the variable's dtype and shape.
            use_locking: Unused.
            name: Optional node name in graph mode.
            read_value: Unused; the new value is always returned.

        Returns:
            The new value as a Tensor.

        Raises:
            InvalidArgumentError: on a dtype or shape mismatch.
        """
        return self._write("assign_variable", value, name)

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        """Adds `delta` to the value.

        Args:
            delta: A Tensor or value.
            use_locking: Unused.
            name: Optional node name in graph mode.
            read_value: Unused; the new value is always returned.

        Returns:
            The new value as a Tensor.
        """
        return self._write("assign_add_variable", delta, name)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        """Subtracts `delta` from the value.

        Args:
            delta: A Tensor or value.
            use_locking: Unused.
            name: Optional node name in graph mode.
            read_value: Unused; the new value is always returned.

        Returns:
            The new value as a Tensor.
        """
        return self._write("assign_sub_variable", delta, name)

    # -- Python protocol ------------------------------------------------------------------

    __hash__ = object.__hash__

    def __array__(self, dtype=None, copy=None):
        value = np.asarray(self.numpy())
        return value if dtype is None else value.astype(dtype)

    def __bool__(self):
        return bool(self.read_value())

    def __int__(self):
        return int(self.read_value())

    def __float__(self):
        return float(self.read_value())

    def __index__(self):
        return self.read_value().__index__()

    def __len__(self):
        return len(self.read_value())

    def __iter__(self):
        return iter(self.read_value())

    def __getitem__(self, key):
        return self.read_value()[key]

    def __repr__(self):
        if context.executing_eagerly():
            return (f"<tf.Variable '{self.name}' shape={tuple(self._shape)} "
                    f"dtype={self._dtype.name}, numpy={self._value!r}>")
        return f"<tf.Variable '{self.name}' shape={tuple(self._shape)} dtype={self._dtype.name}>"


def _uninitialized_error(variable):
    return FailedPreconditionError(
        f"Could not read the Variable '{variable._name}': it is not initialised yet. It was "
        f"created while tracing a tf.function's first call from a value computed in that "
        f"trace; it gets its value when that call runs. Read it after the call.",
        "read_variable")


def _forward(method):
    def forward(self, *args):
        return getattr(self.read_value(), method)(*args)
    forward.__name__ = method
    return forward


for _method in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
                "__truediv__", "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__",
                "__rmod__", "__pow__", "__rpow__", "__matmul__", "__rmatmul__", "__neg__",
                "__abs__", "__invert__", "__and__", "__rand__", "__or__", "__ror__",
                "__xor__", "__rxor__", "__lt__", "__le__", "__gt__", "__ge__", "__eq__",
                "__ne__", "__lshift__", "__rshift__", "__rlshift__", "__rrshift__"):
    setattr(Variable, _method, _forward(_method))
Variable.__hash__ = object.__hash__
del _method
