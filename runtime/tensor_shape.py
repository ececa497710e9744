"""Static shapes and tensor specs: TensorShape, TensorSpec and the shape formatting helpers."""
from runtime import dtypes

__all__ = ["TensorShape", "TensorSpec", "format_shape"]


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


def shape_str(shape):
    """Formats a shape as the guide does: '()', '(None,)', '(2, 3)' or '<unknown>'."""
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
        # late: tensor and tensor_conversion import this module as they load
        from runtime.tensor import Tensor
        from runtime.tensor_conversion import convert_to_tensor
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
        return (f"TensorSpec(shape={shape_str(self.shape)}, dtype=tf.{self.dtype.name}, "
                f"name={self.name!r})")

