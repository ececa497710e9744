"""Element structures of tf.data: nested TensorSpecs, and flat tuples of numpy values.

A dataset's element is a nested structure (tuples, namedtuples and dicts) of tensors, as in
TensorFlow: a Python list given to a source is one tensor, not a structure. Inside the
pipeline an element travels as a flat tuple of numpy values in `runtime.nest` order; users
see it packed back into its structure of eager tensors.
"""
import numpy as np

from runtime import dtypes
from runtime import nest
from runtime.tensor import EagerTensor
from runtime.tensor import Tensor
from runtime.tensor import TensorSpec
from runtime.tensor_conversion import convert_to_tensor

# Cardinalities that are not counts (TensorFlow's tf.data.INFINITE_CARDINALITY, UNKNOWN_...).
INFINITE = -1
UNKNOWN = -2


def is_structure(value):
    """True for the containers tf.data treats as structures: tuples and dicts (not lists)."""
    return isinstance(value, (tuple, dict))


def to_tensors(value):
    """Converts the leaves of a tf.data structure to tensors (a list is one tensor).

    Args:
        value: A nested structure of tensors, arrays and Python values.

    Returns:
        The same structure with tensor leaves.
    """
    if is_structure(value):
        return nest.rebuild(value, [to_tensors(v) for _, v in nest.children(value)])
    if isinstance(value, Tensor):
        return value
    return convert_to_tensor(value)


def flat_leaves(value):
    """The leaves of a tf.data structure (lists are leaves), in `runtime.nest` order."""
    if is_structure(value):
        out = []
        for _, item in nest.children(value):
            out.extend(flat_leaves(item))
        return out
    return [value]


def pack(spec, flat):
    """Packs a flat sequence into the structure of `spec` (lists in `spec` are leaves)."""
    flat = iter(flat)

    def fill(s):
        if is_structure(s):
            return nest.rebuild(s, [fill(v) for _, v in nest.children(s)])
        return next(flat)

    return fill(spec)


def map_specs(fn, spec):
    """Applies `fn` to every TensorSpec of a structure of specs."""
    return pack(spec, [fn(s) for s in flat_leaves(spec)])


def spec_of(tensor):
    """The TensorSpec of a tensor."""
    return TensorSpec(tensor.shape, tensor.dtype)


def to_eager(spec, flat):
    """A flat tuple of numpy values as the element structure of eager tensors."""
    return pack(spec, [EagerTensor(v) for v in flat])


def to_flat_arrays(specs, value, where):
    """Converts a structure of values to a flat tuple of numpy arrays of the specs' dtypes.

    Args:
        specs: The flat list of TensorSpecs the values must fit.
        value: The structure (tensors, arrays or Python values).
        where: What produced it, for messages ('the map function', ...).

    Returns:
        A tuple of numpy arrays.

    Raises:
        TypeError, ValueError: when the structure, a dtype or a shape does not fit.
    """
    leaves = flat_leaves(value)
    if len(leaves) != len(specs):
        raise TypeError(f"{where} produced {len(leaves)} components, but the dataset's "
                        f"element_spec has {len(specs)}.")
    out = []
    for leaf, spec in zip(leaves, specs):
        tensor = leaf if isinstance(leaf, Tensor) else convert_to_tensor(leaf, spec.dtype)
        if tensor.dtype is not spec.dtype:
            raise TypeError(f"{where} produced a {tensor.dtype.name} value where the "
                            f"element_spec says {spec.dtype.name}.")
        array = np.asarray(tensor.numpy())
        if spec.shape is not None and not spec.shape.is_compatible_with(array.shape):
            raise ValueError(f"{where} produced a value of shape {array.shape}, which is not "
                             f"compatible with the element_spec's shape {spec.shape}.")
        out.append(array)
    return tuple(out)


def describe(spec):
    """The element_spec as TensorFlow prints it: TensorSpecs in their structure."""
    if is_structure(spec):
        items = [describe(v) for _, v in nest.children(spec)]
        if isinstance(spec, dict):
            keys = nest.sorted_keys(spec)
            return "{" + ", ".join(f"{k!r}: {i}" for k, i in zip(keys, items)) + "}"
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    return repr(spec)


def spec_key(spec):
    """A hashable form of an element_spec (trace-cache keys of tf.function)."""
    if is_structure(spec):
        kind = type(spec) if nest.is_namedtuple(spec) else (dict if isinstance(spec, dict)
                                                             else tuple)
        return (kind, tuple((p, spec_key(v)) for p, v in nest.children(spec)))
    return (spec.shape, spec.dtype.name)





class DatasetBase:
    """The base of tf.data.Dataset, known to tf.function's trace keys (runtime.function.keys)
    without importing the dataset machinery."""

    __slots__ = ()


class DatasetSpec(TensorSpec):
    """A dataset argument of a tf.function: a variant placeholder plus the element_spec.

    Two datasets with equal element_specs share a trace, as TensorFlow's DatasetSpec.
    """

    __slots__ = ("element_spec", "_key")

    def __init__(self, element_spec):
        super().__init__((), dtypes.variant)
        self.element_spec = element_spec
        self._key = spec_key(element_spec)

    def __eq__(self, other):
        return isinstance(other, DatasetSpec) and other._key == self._key

    def __hash__(self):
        return hash(self._key)

    def __repr__(self):
        return f"DatasetSpec({describe(self.element_spec)})"
