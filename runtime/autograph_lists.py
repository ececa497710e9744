"""The runtime backend's hooks for Python lists in staged control flow: a list that a staged
loop appends to is a dynamic-size TensorArray, and a list sized or indexed by a staged value a
tensor standing for it (`runtime.autograph_builtins`)."""
from runtime import weak_types
from runtime.ops import array_ops
from runtime.ops import common
from runtime.ops import math_ops
from runtime.ops import promotion
from runtime.tensor import Tensor
from runtime import tensor_array
from runtime.tensor_array import TensorArray
from runtime.tensor_conversion import convert_to_tensor
from runtime import autograph_builtins
from runtime.variables import Variable


def as_tensor(value):
    """A Variable's value; anything else unchanged."""
    if isinstance(value, Variable):
        return value.read_value()
    return value


_as_tensor = as_tensor


def _element(value):
    """A list's element as a tensor: a list built in a staged loop (a row of a table built by
    a nested comprehension) is the stack of its elements."""
    return value.stack() if type(value) is TensorArray else as_tensor(value)


class ListHooks:
    """`Backend.new_list`, `list_append`, `list_pop`, `set_item`, `repeat_list`,
    `concat_lists` and `stack` for runtime values (a mixin of RuntimeBackend)."""

    def stack(self, values):
        """Stacks Python numbers of one type, or tensors of one dtype and shape (tf.stack).

        Args:
            values: A non-empty list.

        Returns:
            A tensor.
        """
        kinds = {type(v) for v in values}
        if kinds <= {int, float, bool}:  # Python numbers carried by themselves (weak_types)
            kind = float if float in kinds else int if int in kinds else bool
            number = max(values, key=abs) if kind is int else kind()
            return convert_to_tensor(list(values), weak_types.carried_dtype(kind(number)))
        # a row (a Python list of tensors of several int widths, a table's) is stacked as a
        # list is, its dtypes joined: converting it as one value asked for one dtype
        return array_ops.stack([self.stack(list(v)) if type(v) in (list, tuple) and v
                                else _as_tensor(v) for v in values])

    def new_list(self, items, element, name, maximum_iterations=None, maximum_size=None):
        """Makes the staged list that a Python list becomes when a staged loop changes it.

        The staged list is a dynamic-size TensorArray holding `items`; `list_append` writes at
        its end and `list_pop` removes its last element, and `tf.stack(l)` stacks it.

        Args:
            items: The elements of the Python list on entry to the loop.
            element: A value the loop appends (only its dtype is read: it may belong to a
                discarded trace), or None when the loop pops first.
            name: The list's variable name, for error messages.
            maximum_iterations: Unused: a TensorArray grows as needed.
            maximum_size: Unused, for the same reason.

        Returns:
            A TensorArray.

        Raises:
            TypeError: if the elements are not tensors of one dtype.
            ValueError: if the elements do not have one shape.
        """
        del maximum_iterations, maximum_size
        # a row (a list built in a staged loop) of a discarded trace: only its dtype is read
        element = element.dtype.as_numpy_dtype(0) if type(element) is TensorArray else element
        first = weak_types.list_prototype(items, _as_tensor(element))
        try:
            dtype = convert_to_tensor(_as_tensor(first)).dtype
        except (TypeError, ValueError) as e:
            raise TypeError(f"The list '{name}' is changed in staged control flow, so it becomes a "
                            f"staged list of tensors, but its element {first!r} is not a "
                            f"tensor: {e}") from None
        array = TensorArray(dtype, size=0, dynamic_size=True)
        array._list_name = name
        for item in items:
            array = self.list_append(array, item)
        return array

    def list_like(self, staged, items, name):
        """A TensorArray of `staged`'s dtype and element shape holding `items` (`return []`
        in a branch whose other branch returns a list built in a staged loop)."""
        if type(staged) is not TensorArray:
            raise NotImplementedError(type(staged))
        if type(items) is TensorArray:  # a list the other branch widened: widened here too
            if items.dtype is staged.dtype or weak_types.widened(
                    None, items.dtype, staged.dtype, True) is not staged.dtype:
                raise NotImplementedError(items.dtype)
            try:
                return items._widened(staged.dtype)
            except TypeError as e:  # the other branch's list, out of this branch's reach:
                raise NotImplementedError(items.dtype) from e  # the branches' types differ

        array = TensorArray(staged.dtype, size=0, dynamic_size=True,
                            element_shape=staged.element_shape)
        array._list_name = name
        for item in items:
            array = self.list_append(array, item)
        return array

    def list_append(self, target, element):
        """Stages `target.append(element)` on a staged list (a TensorArray): a write at the end.

        Args:
            target: A TensorArray.
            element: A tensor (or Python number) of the list's dtype and element shape.

        Returns:
            The new TensorArray.

        Raises:
            TypeError: if the element's dtype is not the list's.
            ValueError: if the element's shape is not the list's element shape.
        """
        label = _list_label(target)
        value = _element(element)
        if not isinstance(value, Tensor):
            try:  # a Python float appended to ints: a float (the list widens below)
                value = common.adopt_dtype(value, promotion.weak_dtype(value, target.dtype)
                                           or target.dtype)
            except (TypeError, ValueError):
                raise TypeError(
                    f"Cannot append {element!r} to {label}, which holds {target.dtype.name} "
                    f"elements: the elements of a list built in staged control flow keep the "
                    f"dtype of the first one. Append values of one dtype: make every element "
                    f"a float (append 1.0 rather than 1, or tf.cast(value, tf.float32)), or "
                    f"every one an int.") from None
        if value.dtype is not target.dtype and (weak_types.adopts(value, target.dtype)
                                                 or weak_types.holds(target.dtype, value.dtype)):
            value = math_ops.cast(value, target.dtype)  # it stands for a Python number
        elif value.dtype is not target.dtype and weak_types.widened(
                None, target.dtype, value.dtype, python=True) is value.dtype:
            target = target._widened(value.dtype)  # a float appended to ints: all floats now
        if value.dtype is not target.dtype:
            raise TypeError(
                f"Cannot append a {value.dtype.name} value to {label}, which holds "
                f"{target.dtype.name} elements: the elements of a list built in staged "
                f"control flow keep the dtype of the first one. Append values of one dtype: "
                f"tf.cast(value, tf.{target.dtype.name}), or cast the first element to "
                f"{value.dtype.name}.")
        current, shape = target.element_shape, value.shape
        if current is not None and shape is not None and (len(current) != len(shape) or any(
                a is not None and b is not None and a != b for a, b in zip(current, shape))):
            raise ValueError(
                f"Cannot append a value of shape {tuple(shape)} to {label}, whose elements "
                f"have shape {tuple(current)}: the elements of a list built in a staged loop "
                f"must keep one shape.")
        return target.write(target.size(), value)

    def list_pop(self, target, i):
        """Stages `target.pop()` (or `target.pop(i)`) on a staged list (a TensorArray), or
        `target.pop(i)` on a tensor standing for a list (`list(range(1, n + 1))`).

        Args:
            target: A TensorArray, or a tensor of rank 1 or more.
            i: The index, or None (the last element).

        Returns:
            A tuple (the list without the element, of the target's kind; the removed element).
            Popping an empty list raises InvalidArgumentError when the graph runs; an index out
            of range, Python's IndexError (josephus_iterative's `circle.pop(current)`).
        """
        if i is not None:
            return autograph_builtins.pop_item(_as_tensor(target), i, self.list_index)
        return target._pop_back()

    def set_item(self, target, key, value):
        """`target[key] = value` of a tensor standing for a list, or of a staged list."""
        return autograph_builtins.set_item(_as_tensor(target), key, value, self.list_index)

    def concat_lists(self, left, right):
        """`[1] + [0] * n`: a staged list (a TensorArray, whose `+` concatenates) of the
        run-time length."""
        names = [v._list_name for v in (left, right) if type(v) is TensorArray]
        return tensor_array.listed(
            autograph_builtins.concat_lists(_as_tensor(left), _as_tensor(right)),
            next((n for n in names if n is not None), 'list'))

    def slice_list(self, items, key, name):
        """`xs[k:]` of a Python list of numbers at a staged bound: a staged list (a
        TensorArray, whose `+` concatenates) of the run-time length."""
        return autograph_builtins.slice_list(items, key, name)

    def repeat_list(self, items, count, maximum_size=None, name=None):
        """`[x] * n` for a staged int `n`: a staged list (a TensorArray, whose `+`
        concatenates and whose `append` grows it) of that run-time length, named for the
        list's variable where `set_list_options` gave it, else for the expression (a bound is
        not needed)."""
        del maximum_size
        return tensor_array.listed(autograph_builtins.repeat_list(items, _as_tensor(count)),
                                   name or f"{items!r} * n")


def _list_label(array):
    name = array._list_name
    return "the TensorArray" if name is None else f"the list '{name}'"
