"""Tensor indexing and slicing (`x[i]`, `x[1:-1, None, ...]`), with tensor indices."""
import numpy as np

from runtime import context
from runtime import dtypes
from runtime.errors import InvalidArgumentError
from runtime.errors import IndexOutOfRangeError
from runtime.ops.registry import OPS
from runtime.ops.registry import apply
from runtime.ops.registry import register
from runtime.tensor import EagerTensor
from runtime.tensor import Tensor


class TensorIndex:
    """Marks, inside a `spec` attr, the position of a tensor input of a getitem node."""

    __slots__ = ("position",)

    def __init__(self, position):
        self.position = position  # index into the node's inputs (1 = first index tensor)

    def __eq__(self, other):
        return isinstance(other, TensorIndex) and other.position == self.position

    def __hash__(self):
        return hash(("TensorIndex", self.position))

    def __repr__(self):
        return f"${self.position}"


def _resolve(item, values):
    if isinstance(item, TensorIndex):
        return int(values[item.position])
    if isinstance(item, slice):
        return slice(_resolve(item.start, values), _resolve(item.stop, values),
                     _resolve(item.step, values))
    return item


def _getitem_kernel(x, *indices, spec):
    values = (None,) + indices
    key = tuple(_resolve(item, values) for item in spec)
    try:
        out = x[key]
    except IndexError as e:
        raise IndexOutOfRangeError(
            f"Index out of range: {e}. The tensor has shape {list(np.shape(x))}.",
            "getitem") from None
    if not isinstance(out, (np.ndarray, np.generic)):
        out = np.asarray(out, dtype=x.dtype)
    return out


def _slice_len(dim, s):
    if dim is None or any(isinstance(v, TensorIndex) for v in (s.start, s.stop, s.step)):
        return None
    return len(range(*s.indices(dim)))


def _infer_getitem(x, *indices, spec):
    dims = list(x.shape)
    consumed = sum(1 for item in spec if item is not None and item is not Ellipsis)
    if consumed > len(dims):
        raise InvalidArgumentError(
            f"Too many indices for a tensor of rank {len(dims)}: {consumed} given.", "getitem")
    out = []
    pos = 0
    for item in spec:
        if item is None:
            out.append(1)
        elif item is Ellipsis:
            take = len(dims) - consumed
            out.extend(dims[pos:pos + take])
            pos += take
        elif isinstance(item, slice):
            out.append(_slice_len(dims[pos], item))
            pos += 1
        else:
            dim = dims[pos]
            if isinstance(item, int) and dim is not None and not -dim <= item < dim:
                raise InvalidArgumentError(
                    f"slice index {item} of dimension {pos} out of bounds (size {dim}).",
                    "getitem")
            pos += 1
    out.extend(dims[pos:])
    return tuple(out), x.dtype


register("getitem", infer=_infer_getitem, tf_name="StridedSlice")(_getitem_kernel)


def _tapes():
    return context._state.tapes


def _index_value(value, inputs, what):
    """Returns a static int/None, or a TensorIndex for a scalar integer tensor."""
    if value is None or isinstance(value, (int, np.integer)):
        return None if value is None else int(value)
    if isinstance(value, Tensor):
        if value.shape != () or not value.dtype.is_integer:
            raise TypeError(
                f"Only scalar integer tensors can be used as {what}, found dtype "
                f"{value.dtype.name} with shape {tuple(value.shape)}.")
        if isinstance(value, EagerTensor):
            return int(value._value)
        inputs.append(value)
        return TensorIndex(len(inputs) - 1)
    raise TypeError(f"Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and "
                    f"scalar integer tensors are valid indices, found {type(value).__name__}: "
                    f"{value!r}.")


def getitem(tensor, key):
    """Implements `tensor[key]` (numpy basic indexing; indices may be scalar int tensors).

    Args:
        tensor: A Tensor.
        key: An index, slice, Ellipsis, None, or a tuple of them.

    Returns:
        A Tensor.

    Raises:
        TypeError: for unsupported index types.
        InvalidArgumentError: for out-of-range indices.
    """
    if not isinstance(key, tuple):
        key = (key,)
    if isinstance(tensor, EagerTensor) and not _tapes() and all(
            type(k) in (int, slice) or k is None or k is Ellipsis for k in key) and all(
            type(k) is not slice or all(type(v) in (int, type(None))
                                        for v in (k.start, k.stop, k.step)) for k in key):
        return EagerTensor(_getitem_kernel(tensor._value, spec=key))
    inputs = [tensor]
    spec = []
    for item in key:
        if item is None or item is Ellipsis:
            spec.append(item)
        elif isinstance(item, slice):
            spec.append(slice(_index_value(item.start, inputs, "slice bounds"),
                              _index_value(item.stop, inputs, "slice bounds"),
                              _index_value(item.step, inputs, "slice steps")))
        elif isinstance(item, (list, np.ndarray)) or (
                isinstance(item, Tensor) and item.shape != ()):
            # late: ops.array_ops imports this module as it loads through ops.gradient_ops
            from runtime.ops.array_ops import gather
            if len(key) != 1:
                raise TypeError("Indexing with a list or tensor of indices is only supported "
                                "alone (x[indices]); use tf.gather.")
            return gather(tensor, item)
        else:
            spec.append(_index_value(item, inputs, "indices"))
    if isinstance(tensor, Tensor) and tensor.dtype is dtypes.variant:
        raise TypeError("Cannot index an opaque (variant) tensor.")
    return apply(OPS["getitem"], inputs, {"spec": tuple(spec)})


# -- gradient (vjp rule; see runtime.ops.registry.defvjp) -------------------------------------

from runtime.ops.registry import defvjp  # noqa: E402


@defvjp("getitem")
def _getitem_vjp(op, dy):
    x, *indices = op.inputs
    grad = apply(OPS["getitem_grad"], [dy, x, *indices], {"spec": op.attrs["spec"]})
    return [grad] + [None] * len(indices)
