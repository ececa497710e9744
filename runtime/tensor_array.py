"""tf.TensorArray: a functional list of tensors usable as a while_loop variable."""
import numpy as np

from runtime import context
from runtime import dtypes
from runtime.errors import InvalidArgumentError
from runtime.ops import array_ops
from runtime.ops import common
from runtime.ops import creation_ops
from runtime.ops import math_ops
from runtime.ops import reduction_ops
from runtime.ops import state_ops
from runtime.ops.registry import OPS
from runtime.ops.registry import OpKind
from runtime.ops.registry import apply
from runtime.ops.registry import register
from runtime.tensor import EagerTensor
from runtime.tensor import Tensor
from runtime.tensor import user_traceback_line
from runtime.graph import leaked_eager_error


@array_ops.stacks_itself
class TensorArray:
    """A list of same-dtype tensors; `write`/`unstack` return the new array.

    Eagerly the storage is a Python list of numpy values. While tracing, the array is a
    `variant` tensor (a graph value) produced by TensorArray nodes, so it can be a cond output
    or a while_loop variable; writes are O(1).

    Args:
        dtype: The element DType.
        size: Initial size (int or scalar int tensor).
        dynamic_size: Whether writes past the end grow the array.
        clear_after_read: Unused.
        tensor_array_name: Unused.
        handle: Unused.
        flow: Unused.
        infer_shape: Whether the first write fixes the element shape (default True).
        element_shape: Optional element shape (None dims allowed).
        colocate_with_first_write_call: Unused.
        name: Optional node name.
    """

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None,
                 tensor_array_name=None, handle=None, flow=None, infer_shape=True,
                 element_shape=None, colocate_with_first_write_call=True, name=None):
        self._dtype = dtypes.as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._infer_shape = infer_shape
        self._element_shape = None if element_shape is None else tuple(element_shape)
        size = 0 if size is None else size
        # The Python variable name when this array is a list built in a staged loop (autograph
        # backend `new_list`), for error messages; None for a user's TensorArray.
        self._list_name = None
        if context.executing_eagerly():
            self._storage = state_ops.TensorList(int(size), self._dtype, self._element_shape,
                                                 self._dynamic_size)
            self._handle = None
        else:
            self._storage = None
            size = common.to_tensor(size, dtypes.int32)
            self._handle = apply(OPS["tensor_array_new"], [size],
                                 {"dtype": self._dtype, "element_shape": self._element_shape,
                                  "dynamic_size": self._dynamic_size}, name)

    # -- internal plumbing ----------------------------------------------------------------

    def _copy(self, storage=None, handle=None):
        new = TensorArray.__new__(TensorArray)
        new._dtype = self._dtype
        new._dynamic_size = self._dynamic_size
        new._infer_shape = self._infer_shape
        new._element_shape = self._element_shape
        new._list_name = self._list_name
        new._storage = storage
        new._handle = handle
        return new

    def _with_handle(self, handle):
        """Returns an array with this one's metadata and a new graph handle."""
        return self._copy(handle=handle)

    def _element_tensors(self):
        """Eagerly: every element as a tensor, the recorded ones as written (for a tape)."""
        tensors = self._storage.tensors
        return [tensors[i] if i in tensors else EagerTensor(
            state_ops._ta_read_kernel(self._storage, i, self._dtype, self._element_shape))
            for i in range(len(self._storage.items))]

    def _graph_handle(self):
        """Returns the variant tensor of this array for the graph being built."""
        if self._handle is None:
            raise TypeError(
                "A TensorArray created eagerly cannot be used while building a graph "
                "(inside tf.function, tf.cond or tf.while_loop). Create it inside the traced "
                "function instead.")
        return self._handle

    def _eager(self):
        """True when this array operates eagerly (checking it is usable here)."""
        if self._storage is not None:
            if not context.executing_eagerly():
                self._graph_handle()
            return True
        if context.executing_eagerly():
            raise leaked_eager_error(self._handle)
        return False

    def _merge_element_shape(self, shape):
        if shape is None or not self._infer_shape:
            return self._element_shape
        shape = tuple(shape)
        current = self._element_shape
        if current is None:
            return shape
        if len(current) != len(shape) or any(
                a is not None and b is not None and a != b for a, b in zip(current, shape)):
            raise ValueError(f"Inconsistent shapes: saw {shape} but expected {current} "
                             f"(the element shape of this TensorArray).")
        return tuple(a if a is not None else b for a, b in zip(current, shape))

    # -- public API -----------------------------------------------------------------------

    @property
    def dtype(self):
        """The element DType."""
        return self._dtype

    @property
    def element_shape(self):
        """The element shape known so far (None if unknown)."""
        return self._element_shape

    @property
    def dynamic_size(self):
        """Whether the array grows on writes past the end."""
        return self._dynamic_size

    @property
    def handle(self):
        """The graph value (variant tensor) of this array, or None eagerly."""
        return self._handle

    def write(self, index, value, name=None):
        """Writes `value` at `index`.

        Args:
            index: An int or scalar int tensor.
            value: A tensor or value of the array's dtype.
            name: Optional node name.

        Returns:
            The new TensorArray (use it; this is functional).

        Raises:
            ValueError: if the element shape is inconsistent with earlier writes.
            InvalidArgumentError: for a dtype mismatch or an out-of-range index.
        """
        value = common.adopt_dtype(value, self._dtype) if not isinstance(value, Tensor) else value
        if value.dtype is not self._dtype:
            raise InvalidArgumentError(
                f"TensorArray dtype is {self._dtype.name} but Op is trying to write dtype "
                f"{value.dtype.name}. Use tf.cast.", "tensor_array_write")
        shape = self._merge_element_shape(value.shape)
        if self._eager():
            storage = self._storage
            storage.element_shape = shape
            if type(value) is not EagerTensor:
                raise leaked_eager_error(value)
            state_ops._ta_write_kernel(storage, int(index), value._value)
            if context._state.tapes:
                _recorded(storage)[int(index)] = value
            elif storage.tensors is not None:
                storage.tensors.pop(int(index), None)
            new = self._copy(storage=storage)
        else:
            index = common.to_tensor(index, dtypes.int32)
            handle = apply(OPS["tensor_array_write"], [self._handle, index, value], {}, name)
            new = self._copy(handle=handle)
        new._element_shape = shape
        return new

    def __getitem__(self, key):
        """`l[i]` of a Python list that a staged loop appended to (autograph's staged list):
        Python's indexing of its elements (negative from the end, IndexError past it). A
        TensorArray of the user's own is not subscriptable, as in TensorFlow."""
        if self._list_name is None:
            raise TypeError("'TensorArray' object is not subscriptable: use read(index) or "
                            "stack()[index].")
        if isinstance(key, slice):  # Python's slice of a list: a list (`+` concatenates)
            return listed(self.stack()[key], self._list_name)
        if getattr(key, "shape", ()) not in ((), None):
            return self.stack()[key]
        # one element read (an index out of range raises IndexOutOfRangeError, an IndexError)
        key = common.to_tensor(key, dtypes.int32)
        return self.read(array_ops.where(key < 0, key + self.size(), key))

    def __iter__(self):
        """Iterating a list that staged control flow built is iterating its stacked elements
        (a graph tensor refuses, saying how to loop over it); a TensorArray of the user's own
        is not iterable, as in TensorFlow (and `__getitem__` must not make it so)."""
        if self._list_name is None:
            raise TypeError("'TensorArray' object is not iterable: use stack() or read(i).")
        return iter(self.stack())

    def count(self, value):
        """`l.count(value)` of a Python list that staged control flow built (autograph's
        staged list): how many elements equal `value` (rows compare whole, as lists do). A
        TensorArray of the user's own has no `count`, as in TensorFlow."""
        if self._list_name is None:
            raise AttributeError("'TensorArray' object has no attribute 'count'")
        equal = self.stack() == value  # Python's comparison: 1.5 beside ints is a float
        shape = np.shape(value) if isinstance(value, (list, tuple)) else (
            tuple(value.shape) if isinstance(value, Tensor) and value.shape else ())
        row = int(np.prod(shape)) if shape and None not in shape else None
        if row is not None:  # rows: equal where all their elements are
            equal = reduction_ops.reduce_all(array_ops.reshape(equal, [self.size(), row]), axis=1)
        return reduction_ops.reduce_sum(math_ops.cast(equal, dtypes.int32))

    def pop(self, *args):
        """Autograph stages `v = l.pop()` (and `l.pop(i)`) as a statement of its own; a pop
        inside a larger expression (`total += l.pop()`) reaches the staged list itself, which
        says how to write it. A TensorArray of the user's own has no `pop`, as in TensorFlow."""
        if self._list_name is None:
            raise AttributeError("'TensorArray' object has no attribute 'pop'")
        call = f"{self._list_name}.pop({', '.join(map(repr, args))})"
        raise TypeError(
            f"{call} is part of a larger expression, and the list '{self._list_name}' is "
            f"changed in staged control flow: staged code pops only in a statement of its own. "
            f"Write `value = {call}` on a line of its own, then use `value`.")

    def __add__(self, other):
        """`l + other` of a Python list that staged control flow built (autograph's staged
        list) and another list (Python's or staged): the concatenation, as a staged list.
        A TensorArray of the user's own has no `+`, as in TensorFlow."""
        parts = _list_parts(self, other)
        if parts is None:
            return NotImplemented
        return listed(array_ops.concat(parts, 0), self._list_name)

    def __radd__(self, other):
        parts = _list_parts(other, self)
        if parts is None:
            return NotImplemented
        return listed(array_ops.concat(parts, 0), self._list_name)

    def __mul__(self, count):
        """`l * n` of autograph's staged list and an int (Python's, or a staged int scalar):
        the list repeated, as a staged list (empty for a count below 1, as Python's)."""
        integral = type(count) in (int, bool) or isinstance(count, Tensor) and (
            count.dtype.is_integer or count.dtype is dtypes.bool) and count.shape == ()
        if self._list_name is None or not integral:
            return NotImplemented
        return listed(repeated_rows(self.stack(), common.to_tensor(count, dtypes.int32),
                                    self.size()), self._list_name)

    __rmul__ = __mul__

    def __eq__(self, other):
        """`l == other` of autograph's staged list and a list (Python's, or staged): Python's
        list equality, a staged bool: as long, and every element (row) equal. A TensorArray
        of the user's own compares by identity, as in TensorFlow."""
        parts = _list_parts(self, other) if self._list_name is not None else None
        if parts is None:
            return NotImplemented
        mine = parts[0]
        theirs = parts[1] if len(parts) == 2 else np.zeros((0,), mine.dtype.as_numpy_dtype)
        theirs = common.to_tensor(theirs)
        size, other_size = array_ops.shape(mine)[0], array_ops.shape(theirs)[0]
        common_part = creation_ops.range(math_ops.minimum(size, other_size))
        equal = array_ops.gather(mine, common_part) == array_ops.gather(theirs, common_part)
        return math_ops.logical_and(size == other_size, reduction_ops.reduce_all(equal))

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else math_ops.logical_not(equal)

    __hash__ = object.__hash__

    def _widened(self, dtype):
        """A list built in staged control flow, its elements cast to the wider `dtype` (a
        float appended to a list of ints, as Python's list then holds both; a loop whose body
        widens it is traced again with the widened entry list: runtime.control_flow)."""
        array = TensorArray(dtype, size=0, dynamic_size=True, element_shape=self._element_shape)
        array = array.unstack(math_ops.cast(self.stack(), dtype))
        array._list_name = self._list_name
        return array

    def read(self, index, name=None):
        """Returns the element at `index`.

        Args:
            index: An int or scalar int tensor.
            name: Optional node name.

        Returns:
            A Tensor.
        """
        if self._eager():
            tensors = self._storage.tensors
            if tensors is not None and int(index) in tensors:
                return tensors[int(index)]  # the written tensor: a tape connects the two
            return EagerTensor(state_ops._ta_read_kernel(self._storage, int(index), self._dtype,
                                                         self._element_shape))
        index = common.to_tensor(index, dtypes.int32)
        return apply(OPS["tensor_array_read"], [self._handle, index],
                     {"dtype": self._dtype, "element_shape": self._element_shape}, name)

    def stack(self, name=None):
        """Returns all elements stacked into one tensor (first dim = size).

        Args:
            name: Optional node name.

        Returns:
            A Tensor.
        """
        if self._eager():
            if self._storage.tensors and context._state.tapes and self._storage.items:
                return array_ops.stack(self._element_tensors())
            return EagerTensor(state_ops._ta_stack_kernel(self._storage, self._dtype,
                                                          self._element_shape))
        return apply(OPS["tensor_array_stack"], [self._handle],
                     {"dtype": self._dtype, "element_shape": self._element_shape,
                      "location": user_traceback_line()}, name)

    def concat(self, name=None):
        """Returns all elements concatenated along their first dimension (TensorFlow's concat).

        Elements must have rank >= 1 and agree in every dimension but the first.

        Args:
            name: Optional node name.

        Returns:
            A Tensor.

        Raises:
            InvalidArgumentError: for scalar elements or shapes that do not fit.
        """
        if self._eager():
            if self._storage.tensors and context._state.tapes and self._storage.items:
                return array_ops.concat(self._element_tensors(), 0)
            return EagerTensor(state_ops._ta_concat_kernel(self._storage, self._dtype,
                                                           self._element_shape))
        return apply(OPS["tensor_array_concat"], [self._handle],
                     {"dtype": self._dtype, "element_shape": self._element_shape}, name)

    def _pop_back(self, name=None):
        """Removes the last element (what a staged `list.pop()` does).

        Args:
            name: Optional node name.

        Returns:
            A tuple (the new TensorArray, the removed element as a Tensor).

        Raises:
            InvalidArgumentError: when the array is empty (at run time while tracing).
        """
        if self._eager():
            storage = self._storage
            last = len(storage.items) - 1
            storage, value = _ta_pop_back_kernel(storage, self._dtype, self._element_shape)
            if storage.tensors is not None:
                storage.tensors.pop(last, None)
            return self._copy(storage=storage), EagerTensor(value)
        handle, value = apply(OPS["tensor_array_pop_back"], [self._handle],
                              {"dtype": self._dtype, "element_shape": self._element_shape},
                              name)
        return self._copy(handle=handle), value

    def unstack(self, value, name=None):
        """Writes the rows of `value` as elements 0..n-1.

        Args:
            value: A Tensor of rank >= 1 and the array's dtype.
            name: Optional node name.

        Returns:
            The new TensorArray.
        """
        value = common.to_tensor(value, self._dtype)
        if value.dtype is not self._dtype:
            raise InvalidArgumentError(
                f"TensorArray dtype is {self._dtype.name} but unstack got "
                f"{value.dtype.name}.", "tensor_array_unstack")
        shape = None if value.shape is None else self._merge_element_shape(value.shape[1:])
        if self._eager():
            state_ops._ta_unstack_kernel(self._storage, np.asarray(value._value))
            if context._state.tapes:
                rows = array_ops.unstack(value) if value.shape and value.shape[0] else []
                _recorded(self._storage).update(enumerate(rows))
            elif self._storage.tensors is not None:
                self._storage.tensors = None
            new = self._copy(storage=self._storage)
        else:
            handle = apply(OPS["tensor_array_unstack"], [self._handle, value], {}, name)
            new = self._copy(handle=handle)
        new._element_shape = shape
        return new

    def gather(self, indices, name=None):
        """Returns the elements at `indices`, stacked.

        Args:
            indices: A 1-D int tensor or list.
            name: Optional node name.

        Returns:
            A Tensor.
        """
        return array_ops.gather(self.stack(), indices)

    def size(self, name=None):
        """Returns the number of elements as an int32 scalar tensor.

        Args:
            name: Optional node name.

        Returns:
            A Tensor.
        """
        if self._eager():
            return EagerTensor(np.int32(len(self._storage.items)))
        return apply(OPS["tensor_array_size"], [self._handle], {}, name)

    def __repr__(self):
        if self._storage is not None:
            return (f"<TensorArray dtype={self._dtype.name} size={len(self._storage.items)} "
                    f"(eager)>")
        return f"<TensorArray dtype={self._dtype.name} handle={self._handle.name}>"


def _infer_ta_pop_back(handle, dtype, element_shape):
    return [((), dtypes.variant), (element_shape, dtype)]


@register("tensor_array_pop_back", infer=_infer_ta_pop_back, kind=OpKind.STATE,
          multi_output=True, tf_name="TensorListPopBack")
def _ta_pop_back_kernel(handle, dtype, element_shape):
    items = handle.items
    if not items:
        raise InvalidArgumentError("Tried to pop from an empty list (a TensorArray of size 0).",
                                   "tensor_array_pop_back")
    value = items[-1]
    if value is None:
        value = state_ops._zeros_element(handle, len(items) - 1)
    del items[-1]
    return [handle, value]


__all__ = ["TensorArray"]


def _recorded(storage):
    if storage.tensors is None:
        storage.tensors = {}
    return storage.tensors


def listed(values, name):
    """A staged list (autograph's: a TensorArray named for its Python variable) holding the
    rows of the tensor `values`: a slice of a list is a list, whose `+` concatenates."""
    array = TensorArray(values.dtype, size=0, dynamic_size=True,
                        element_shape=values.shape[1:] if values.shape is not None else None)
    array = array.unstack(values)
    array._list_name = name
    return array


def repeated_rows(values, count, size):
    """The rows of `values` (`size` of them: an int, or a staged int scalar) repeated
    max(count, 0) times for a staged int scalar `count`: row i is `values[i % size]`, a gather,
    as the length may be known only when the graph runs (no tile)."""
    times = math_ops.maximum(math_ops.cast(count, dtypes.int32), 0)
    # an empty list gives no position: any modulus but 0 serves
    modulus = max(size, 1) if type(size) is int else math_ops.maximum(size, 1)
    return array_ops.gather(values, creation_ops.range(times * size) % modulus)


def _list_parts(left, right):
    """The tensors that `left + right` concatenates when each is a staged list or a Python
    list of numbers and one at least is a staged list; else None (no concatenation: `+` of
    anything else is not a list's)."""
    parts = []
    for value in (left, right):
        if type(value) is TensorArray and value._list_name is not None:
            parts.append(value.stack())
        elif type(value) is list:
            if value:  # (the elements meet in one dtype as binary ops' operands do: concat)
                parts.append(value)
        else:
            return None
    return parts
