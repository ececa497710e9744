"""Gradients of the TensorArray ops: a gradient list flows back along the array's handle.

A TensorArray's handle is a variant tensor naming mutable storage (`state_ops.TensorList`).
Its gradient is a `GradList`, carried by a variant tensor too: a map from index to the
gradient of that element, a missing index meaning zero. The rules (TensorFlow's
TensorArrayGrad, written as vjps):

- write(handle, i, value): the handle's gradient passes through, and the value's gradient is
  element i of it;
- read(handle, i): a list holding dy at i;
- stack(handle) and concat(handle): dy split into its elements;
- unstack(handle, value): the value's gradient is the list's elements stacked.

A handle read by several ops (or carried around a loop) sums the lists (`grad_list_add`).
The gradient ops are pure and never mutate their inputs. Eagerly, a TensorArray keeps the
written tensors themselves while a tape records (runtime.tensor_array), so no rule is needed.
"""
import numpy as np

from runtime import dtypes
from runtime.ops.registry import OPS
from runtime.ops.registry import OpKind
from runtime.ops.registry import apply
from runtime.ops.registry import defvjp
from runtime.ops.registry import register

_VARIANT = dtypes.variant


class GradList:
    """The gradient of a TensorArray: index -> numpy gradient of that element (else zero)."""

    __slots__ = ("items",)

    def __init__(self, items=None):
        self.items = {} if items is None else items

    def __repr__(self):
        return f"GradList(indices={sorted(self.items)})"


def _variant_out(*args, **attrs):
    return (), _VARIANT


@register("grad_list_zeros", infer=_variant_out, tf_name="EmptyTensorList")
def _zeros_kernel():
    return GradList()


@register("grad_list_add", infer=_variant_out, tf_name="TensorListAddN")
def _add_kernel(a, b):
    items = dict(a.items)
    for i, g in b.items.items():
        items[i] = g if i not in items else items[i] + g
    return GradList(items)


@register("grad_list_at", infer=_variant_out, tf_name="TensorListSetItem")
def _at_kernel(index, dy):
    return GradList({int(index): dy})


@register("grad_list_element", infer=lambda grads, index, like: (like.shape, like.dtype),
          tf_name="TensorListGetItem")
def _element_kernel(grads, index, like):
    g = grads.items.get(int(index))
    return np.zeros_like(like) if g is None else g


@register("grad_list_from_rows", infer=_variant_out, tf_name="TensorListFromTensor")
def _from_rows_kernel(dy):
    return GradList({i: row for i, row in enumerate(dy)})


@register("grad_list_from_concat", infer=_variant_out, tf_name="TensorListSplit")
def _from_concat_kernel(dy, handle):
    items, start = {}, 0
    for i, item in enumerate(handle.items):
        n = 0 if item is None else item.shape[0]
        items[i] = dy[start:start + n]
        start += n
    return GradList(items)


@register("grad_list_rows", infer=lambda grads, like: (like.shape, like.dtype),
          tf_name="TensorListStack")
def _rows_kernel(grads, like):
    out = np.zeros_like(like)
    for i, g in grads.items.items():
        if i < out.shape[0]:
            out[i] = g
    return out


def zeros():
    """An empty gradient list (every element's gradient zero)."""
    return apply(OPS["grad_list_zeros"], [], {})


def add(a, b):
    """The sum of two gradient lists."""
    return apply(OPS["grad_list_add"], [a, b], {})


@defvjp("tensor_array_write")
def _write_vjp(op, d_handle):
    _, index, value = op.inputs
    if d_handle is None:
        return [None, None, None]
    return [d_handle, None, apply(OPS["grad_list_element"], [d_handle, index, value], {})]


@defvjp("tensor_array_read")
def _read_vjp(op, dy):
    _, index = op.inputs
    return [apply(OPS["grad_list_at"], [index, dy], {}), None]


@defvjp("tensor_array_stack")
def _stack_vjp(op, dy):
    return [apply(OPS["grad_list_from_rows"], [dy], {})]


@defvjp("tensor_array_concat")
def _concat_vjp(op, dy):
    return [apply(OPS["grad_list_from_concat"], [dy, op.inputs[0]], {})]


@defvjp("tensor_array_unstack")
def _unstack_vjp(op, d_handle):
    value = op.inputs[1]
    if d_handle is None:
        return [None, None]
    return [None, apply(OPS["grad_list_rows"], [d_handle, value], {})]
