"""Stateful ops on Variables and TensorArray storage (ordered by the graph's stateful chain)."""
import numpy as np

from runtime import dtypes
from runtime.errors import IndexOutOfRangeError
from runtime.errors import InvalidArgumentError
from runtime.ops.registry import OpKind
from runtime.ops.registry import register


# -- variables --------------------------------------------------------------------------------
# A graph names a Variable by a `var_handle` node (TensorFlow's VarHandleOp), whose attribute is
# the variable's ResourceKey; the ops on the variable take that handle as their first input
# (`ReadVariableOp(resource)`, `AssignVariableOp(resource, value)`). At run time the handle's
# value is the Variable itself; its current value is `variable._value`. Writes replace the
# value (never mutate in place) so earlier reads keep their values.

_RESOURCE = dtypes.resource
# The ops that take a variable's handle, as their first input.
VARIABLE_OPS = ("read_variable", "assign_variable", "assign_add_variable",
                "assign_sub_variable")


@register("var_handle", infer=lambda resource: ((), _RESOURCE), kind=OpKind.SOURCE,
          tf_name="VarHandleOp")
def _var_handle_kernel(resource):
    return resource.resolve()


def handle_variable(handle):
    """The Variable a graph's resource tensor `handle` names (its `var_handle` node's)."""
    return handle.node.attrs["resource"].resolve()


def _infer_read(handle):
    variable = handle_variable(handle)
    return variable.shape, variable.dtype


@register("read_variable", infer=_infer_read, kind=OpKind.STATE, tf_name="ReadVariableOp")
def _read_kernel(variable):
    return variable._value


def _infer_assign(handle, value):
    return _infer_read(handle)


def _check_assign(variable, value):
    if np.shape(value) != variable._value.shape:
        raise InvalidArgumentError(
            f"Cannot assign a value of shape {list(np.shape(value))} to variable "
            f"'{variable.name}' of shape {list(variable._value.shape)}.", "assign")


@register("assign_variable", infer=_infer_assign, kind=OpKind.STATE,
          tf_name="AssignVariableOp")
def _assign_kernel(variable, value):
    _check_assign(variable, value)
    variable._value = value
    return value


@register("assign_add_variable", infer=_infer_assign, kind=OpKind.STATE,
          tf_name="AssignAddVariableOp")
def _assign_add_kernel(variable, value):
    new = variable._value + value
    _check_assign(variable, new)
    variable._value = new
    return new


@register("assign_sub_variable", infer=_infer_assign, kind=OpKind.STATE,
          tf_name="AssignSubVariableOp")
def _assign_sub_kernel(variable, value):
    new = variable._value - value
    _check_assign(variable, new)
    variable._value = new
    return new


# -- TensorArray storage ----------------------------------------------------------------------
# A `variant` value: a TensorList object. Writes mutate it in place and return it, so a
# write inside a while loop is O(1); the stateful chain keeps reads/writes in program order.

class TensorList:
    """The run-time storage of a TensorArray: a Python list of numpy values."""

    __slots__ = ("items", "dtype", "element_shape", "dynamic_size", "tensors")

    def __init__(self, size, dtype, element_shape, dynamic_size):
        self.items = [None] * size  # None marks an element not written yet
        # Eagerly, while a GradientTape records: index -> the EagerTensor written there, so
        # that reads return it and the tape connects them (None when no tape was active).
        self.tensors = None
        self.dtype = dtype
        self.element_shape = element_shape  # tuple with None dims, or None if unknown
        self.dynamic_size = dynamic_size

    def __repr__(self):
        return f"TensorList(size={len(self.items)}, dtype={self.dtype.name})"


_VARIANT = dtypes.variant


@register("tensor_array_new", infer=lambda size, dtype, element_shape, dynamic_size: (
    (), _VARIANT), kind=OpKind.STATE, tf_name="TensorListReserve")
def _ta_new_kernel(size, dtype, element_shape, dynamic_size):
    return TensorList(int(size), dtype, element_shape, dynamic_size)


def _index(storage, index, op):
    index = int(index)
    if index < 0:
        raise InvalidArgumentError(f"TensorArray index must be non-negative, found {index}.",
                                   op)
    return index


def check_write_index(index, size):
    """Raises a fixed-size TensorArray write's error for an index not in range(size) (the
    generated code calls it where its own test of the index fails).

    Raises:
        InvalidArgumentError: when `index` is negative or at least `size`.
    """
    index = _index(None, index, "tensor_array_write")
    if index >= size:
        raise InvalidArgumentError(
            f"Tried to write to index {index} but array is not resizeable and size is: "
            f"{size}. Create the TensorArray with dynamic_size=True.", "tensor_array_write")


def check_read_index(index, size):
    """Raises a TensorArray read's error for an index not in range(size) (see
    check_write_index)."""
    # also Python's IndexError: a read of a staged list is a list's read
    if int(index) < 0:
        raise IndexOutOfRangeError(f"TensorArray index must be non-negative, found {index}.",
                                   "tensor_array_read")
    if int(index) >= size:
        raise IndexOutOfRangeError(
            f"Tried to read from index {index} but array size is: {size}", "tensor_array_read")


@register("tensor_array_write", infer=lambda handle, index, value: ((), _VARIANT),
          kind=OpKind.STATE, tf_name="TensorListSetItem")
def _ta_write_kernel(handle, index, value):
    i = _index(handle, index, "tensor_array_write")
    items = handle.items
    if i >= len(items):
        if not handle.dynamic_size:
            check_write_index(i, len(items))
        items.extend([None] * (i + 1 - len(items)))
    if value.dtype != handle.dtype.np_dtype:
        raise InvalidArgumentError(
            f"TensorArray dtype is {handle.dtype.name} but the written value has dtype "
            f"{value.dtype}.", "tensor_array_write")
    shape = handle.element_shape
    if shape is not None and (len(shape) != value.ndim or any(
            d is not None and d != v for d, v in zip(shape, value.shape))):
        raise InvalidArgumentError(
            f"Could not write to TensorArray index {i}: element shape {list(value.shape)} is "
            f"not compatible with the array's element shape {list(shape)}.",
            "tensor_array_write")
    items[i] = value
    return handle


def _infer_ta_read(handle, index, dtype, element_shape):
    return element_shape, dtype


@register("tensor_array_read", infer=_infer_ta_read, kind=OpKind.STATE,
          tf_name="TensorListGetItem")
def _ta_read_kernel(handle, index, dtype, element_shape):
    i = int(index)
    items = handle.items
    if i < 0 or i >= len(items):
        check_read_index(i, len(items))
    value = items[i]
    if value is None:
        return _zeros_element(handle, i)
    return value


def _zeros_element(handle, i):
    shape = _known_element_shape(handle)
    if shape is None:
        raise InvalidArgumentError(
            f"Could not read index {i} of the TensorArray: it has not been written and the "
            f"element shape is unknown.", "tensor_array_read")
    return np.zeros(shape, dtype=handle.dtype.np_dtype)


def _known_element_shape(handle):
    for item in handle.items:
        if item is not None:
            return item.shape
    shape = handle.element_shape
    if shape is not None and None not in shape:
        return tuple(shape)
    return None


@register("tensor_array_size", infer=lambda handle: ((), dtypes.int32), kind=OpKind.STATE,
          tf_name="TensorListLength")
def _ta_size_kernel(handle):
    return np.int32(len(handle.items))


def _infer_ta_stack(handle, dtype, element_shape, location=""):
    if element_shape is None:
        return None, dtype
    return (None,) + tuple(element_shape), dtype


@register("tensor_array_stack", infer=_infer_ta_stack, kind=OpKind.STATE,
          tf_name="TensorListStack")
def _ta_stack_kernel(handle, dtype, element_shape, location=""):
    items = handle.items
    if not items:
        shape = _known_element_shape(handle)
        if shape is None:
            shape = tuple(0 if d is None else d for d in (element_shape or ()))
        return np.zeros((0,) + tuple(shape), dtype=dtype.np_dtype)
    if any(item is None for item in items):
        items = [_zeros_element(handle, i) if item is None else item
                 for i, item in enumerate(items)]
    try:
        return np.stack(items)
    except ValueError:
        shapes = sorted({tuple(item.shape) for item in items})
        raise InvalidArgumentError(
            f"Cannot stack a TensorArray whose elements have different shapes: {shapes}."
            + location, "tensor_array_stack") from None


def _infer_ta_concat(handle, dtype, element_shape):
    if element_shape is None or len(element_shape) == 0:
        return None, dtype
    return (None,) + tuple(element_shape[1:]), dtype


@register("tensor_array_concat", infer=_infer_ta_concat, kind=OpKind.STATE,
          tf_name="TensorListConcatV2")
def _ta_concat_kernel(handle, dtype, element_shape):
    items = handle.items
    if any(item is None for item in items):
        items = [_zeros_element(handle, i) if item is None else item
                 for i, item in enumerate(items)]
    if not items:
        tail = () if element_shape is None else tuple(0 if d is None else d
                                                       for d in element_shape[1:])
        return np.zeros((0,) + tail, dtype=dtype.np_dtype)
    if any(np.ndim(item) == 0 for item in items):
        raise InvalidArgumentError(
            "Concat saw a scalar shape at index 0 but requires at least vectors: the "
            "elements of a TensorArray must have rank >= 1 to concat them; use stack() "
            "for scalars.", "tensor_array_concat")
    try:
        return np.concatenate(items, axis=0)
    except ValueError:
        shapes = sorted({tuple(item.shape) for item in items})
        raise InvalidArgumentError(
            f"Cannot concat a TensorArray whose elements differ beyond the first "
            f"dimension: {shapes}.", "tensor_array_concat") from None


@register("tensor_array_unstack", infer=lambda handle, value: ((), _VARIANT),
          kind=OpKind.STATE, tf_name="TensorListFromTensor")
def _ta_unstack_kernel(handle, value):
    n = value.shape[0]
    if n > len(handle.items) and not handle.dynamic_size:
        raise InvalidArgumentError(
            f"Could not unstack {n} elements into a TensorArray of fixed size "
            f"{len(handle.items)}.", "tensor_array_unstack")
    handle.items = list(value) + handle.items[n:]
    return handle
