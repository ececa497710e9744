"""Tensor's operators (`+`, `<`, `&`, ...) and indexing, installed on the class from the op
layer: JAX's array_methods.py sets the array's operators from above in the same way, so that
the module defining the type (runtime/tensor.py) imports no op. `runtime.ops` imports this
module last, which installs them.
"""
from runtime import dtypes
from runtime.ops import math_ops
from runtime.ops import slicing
from runtime.tensor import Tensor


def _getitem(self, key):
    return slicing.getitem(self, key)


def install():
    """Binds Tensor's operators straight to the op functions (no per-call lookups), and its
    indexing to tf.Tensor.__getitem__'s op (slicing.getitem)."""
    m = math_ops
    binary = {"add": m.add, "sub": m.subtract, "mul": m.multiply, "truediv": m.divide,
              "floordiv": m.floordiv, "mod": m.floormod, "pow": m.pow, "matmul": m.matmul,
              "lshift": m.left_shift, "rshift": m.right_shift}
    for name, fn in binary.items():
        setattr(Tensor, f"__{name}__", _method(fn))
        setattr(Tensor, f"__r{name}__", _reflected(fn))  # `1 << k` of a tensor k too
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
    Tensor.__getitem__ = _getitem


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
            return math_ops.logical_and_or_bitwise(other, self, which)
        return math_ops.logical_and_or_bitwise(self, other, which)
    method.__name__ = which
    return method


install()
