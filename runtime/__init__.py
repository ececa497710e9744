"""A small numpy-backed graph runtime shaped like TensorFlow (`import runtime as tf`)."""

__version__ = "0.1.0"  # of the distribution autograph-standalone, as autograph.__version__

import types as _types

import autograph
from autograph.impl import collector as _collector

# The imports run with the cyclic garbage collector paused (see autograph/__init__.py).
with _collector.paused():
    from runtime import context
    from runtime import dtypes
    from runtime import errors as _errors
    from runtime.context import executing_eagerly
    from runtime.context import init_scope
    from runtime.control_flow import cond
    from runtime.control_flow import while_loop
    from runtime.dtypes import DType
    from runtime.dtypes import as_dtype
    from runtime.dtypes import bool  # noqa: A004 - TensorFlow's name
    from runtime.dtypes import float16
    from runtime.dtypes import float32
    from runtime.dtypes import float64
    from runtime.dtypes import int8
    from runtime.dtypes import int16
    from runtime.dtypes import int32
    from runtime.dtypes import int64
    from runtime.dtypes import string
    from runtime.dtypes import uint8
    from runtime.graph import Graph
    from runtime.module import Module
    from runtime.ops import array_ops as _array
    from runtime.ops import creation_ops as _creation
    from runtime.ops import io_ops as _io
    from runtime.ops import math_ops as _math
    from runtime.ops import random_ops as _random
    from runtime.ops import reduction_ops as _reduction
    from runtime.ops import state_ops as _state  # noqa: F401 - registers the state ops
    from runtime.ops import check_ops as _check
    from runtime.ops import conv_ops as _conv
    from runtime.ops import gather_nd_ops as _gather_nd
    from runtime.ops import matrix_ops as _matrix
    from runtime.ops import nn_ops as _nn
    from runtime.ops import sort_ops as _sort
    from runtime.ops import tile_pad_ops as _tile_pad
    from runtime.ops.switch_case import switch_case
    from runtime.tensor import Tensor
    from runtime.tensor import TensorShape
    from runtime.tensor import TensorSpec
    from runtime.tensor_conversion import constant
    from runtime.tensor_conversion import convert_to_tensor
    from runtime.tensor import is_tensor
    from runtime.tensor_array import TensorArray
    from runtime.variables import Variable

newaxis = None

# -- array ops --------------------------------------------------------------------------------
range = _creation.range  # noqa: A001
where = _array.where
reshape = _array.reshape
transpose = _array.transpose
expand_dims = _array.expand_dims
squeeze = _array.squeeze
concat = _array.concat
stack = _array.stack
unstack = _array.unstack
zeros = _creation.zeros
ones = _creation.ones
zeros_like = _creation.zeros_like
ones_like = _creation.ones_like
fill = _creation.fill
identity = _array.identity
shape = _array.shape
size = _array.size
rank = _array.rank
gather = _array.gather
gather_nd = _gather_nd.gather_nd
boolean_mask = _gather_nd.boolean_mask
tile = _tile_pad.tile
pad = _tile_pad.pad
cumsum = _tile_pad.cumsum
sort = _sort.sort
argsort = _sort.argsort
eye = _matrix.eye
norm = _matrix.norm
assert_equal = _check.assert_equal
assert_less = _check.assert_less
assert_greater = _check.assert_greater

# -- math ops ---------------------------------------------------------------------------------
cast = _math.cast
matmul = _math.matmul
add = _math.add
add_n = _math.add_n
subtract = _math.subtract
multiply = _math.multiply
divide = _math.divide
truediv = _math.truediv
floordiv = _math.floordiv
pow = _math.pow  # noqa: A001
maximum = _math.maximum
minimum = _math.minimum
abs = _math.abs  # noqa: A001
negative = _math.negative
square = _math.square
sqrt = _math.sqrt
exp = _math.exp
sin = _math.sin
cos = _math.cos
floor = _math.floor
round = _math.round  # noqa: A001 - TensorFlow's name (tf.math.round: half to even)
tanh = _math.tanh
sigmoid = _math.sigmoid
sign = _math.sign
equal = _math.equal
not_equal = _math.not_equal
less = _math.less
less_equal = _math.less_equal
greater = _math.greater
greater_equal = _math.greater_equal
logical_and = _math.logical_and
logical_or = _math.logical_or
logical_not = _math.logical_not
reduce_sum = _reduction.reduce_sum
reduce_mean = _reduction.reduce_mean
reduce_max = _reduction.reduce_max
reduce_min = _reduction.reduce_min
reduce_prod = _reduction.reduce_prod
reduce_any = _reduction.reduce_any
reduce_all = _reduction.reduce_all
argmax = _reduction.argmax
argmin = _reduction.argmin

# -- io ---------------------------------------------------------------------------------------
print = _io.print_  # noqa: A001 - tf.print
py_function = _io.py_function


def _namespace(name, doc, **members):
    module = _types.ModuleType(f"runtime.{name}", doc)
    for key, value in members.items():
        setattr(module, key, value)
    module.__all__ = sorted(members)
    return module


math = _namespace(
    "math", "Math ops (tf.math).",
    add=add, add_n=add_n, subtract=subtract, multiply=multiply, divide=divide,
    truediv=truediv, floordiv=floordiv, floormod=_math.floormod, mod=_math.mod, pow=pow,
    maximum=maximum, minimum=minimum, abs=abs, negative=negative, square=square, sqrt=sqrt,
    rsqrt=_math.rsqrt, exp=exp, log=_math.log, tanh=tanh, sigmoid=sigmoid, sin=sin,
    cos=cos, floor=floor, ceil=_math.ceil, round=round, sign=sign,
    reciprocal=_math.reciprocal, squared_difference=_math.squared_difference,
    equal=equal, not_equal=not_equal, less=less, less_equal=less_equal, greater=greater,
    greater_equal=greater_equal, logical_and=logical_and, logical_or=logical_or,
    logical_not=logical_not, logical_xor=_math.logical_xor, reduce_sum=reduce_sum,
    reduce_mean=reduce_mean, reduce_max=reduce_max, reduce_min=reduce_min,
    reduce_prod=reduce_prod, reduce_any=reduce_any, reduce_all=reduce_all, argmax=argmax,
    argmin=argmin, cast=cast, matmul=matmul, cumsum=cumsum, cumprod=_tile_pad.cumprod,
    top_k=_sort.top_k, is_nan=_nn.is_nan, is_finite=_nn.is_finite)
random = _namespace("random", "Random ops (tf.random).", uniform=_random.uniform,
                    normal=_random.normal, set_seed=_random.set_seed)
bitwise = _namespace("bitwise", "Bitwise ops (tf.bitwise).", bitwise_and=_math.bitwise_and,
                     bitwise_or=_math.bitwise_or, bitwise_xor=_math.bitwise_xor,
                     left_shift=_math.left_shift, right_shift=_math.right_shift,
                     invert=_math.invert)
errors = _namespace("errors", "The typed errors (tf.errors).", OpError=_errors.OpError,
                    InvalidArgumentError=_errors.InvalidArgumentError,
                    OutOfRangeError=_errors.OutOfRangeError,
                    UnimplementedError=_errors.UnimplementedError,
                    InternalError=_errors.InternalError,
                    FailedPreconditionError=_errors.FailedPreconditionError)
debugging = _namespace(
    "debugging", "Assertions (tf.debugging).", Assert=_io.Assert,
    assert_equal=_check.assert_equal, assert_none_equal=_check.assert_none_equal,
    assert_less=_check.assert_less, assert_less_equal=_check.assert_less_equal,
    assert_greater=_check.assert_greater, assert_greater_equal=_check.assert_greater_equal,
    assert_positive=_check.assert_positive, assert_negative=_check.assert_negative,
    assert_non_negative=_check.assert_non_negative,
    assert_non_positive=_check.assert_non_positive)
nn = _namespace(
    "nn", "Neural-network ops (tf.nn).", relu=_nn.relu, softmax=_nn.softmax,
    log_softmax=_nn.log_softmax, sigmoid=sigmoid, tanh=tanh,
    sigmoid_cross_entropy_with_logits=_nn.sigmoid_cross_entropy_with_logits,
    softmax_cross_entropy_with_logits=_nn.softmax_cross_entropy_with_logits,
    conv1d=_conv.conv1d, conv2d=_conv.conv2d, max_pool2d=_conv.max_pool2d,
    max_pool=_conv.max_pool2d, dropout=_nn.dropout)
linalg = _namespace(
    "linalg", "Linear algebra (tf.linalg).", matmul=matmul, inv=_matrix.inv,
    det=_matrix.det, solve=_matrix.solve, cholesky=_matrix.cholesky, norm=_matrix.norm,
    diag=_matrix.diag, diag_part=_matrix.diag_part, band_part=_matrix.band_part,
    eye=_matrix.eye)

with _collector.paused():
    from runtime import config  # noqa: E402 - tf.config (run_functions_eagerly, ...)
    from runtime.gradients import GradientTape  # noqa: E402
    from runtime.gradients import UnconnectedGradients  # noqa: E402
    from runtime.gradients import custom_gradient  # noqa: E402
    from runtime.gradients import stop_gradient  # noqa: E402
    from runtime import optimizers  # noqa: E402 - tf.optimizers.SGD, tf.optimizers.Adam
    from runtime import nest  # noqa: E402 - tf.nest (map_structure, flatten, ...)
    from runtime.functional_ops import map_fn  # noqa: E402
    from runtime.functional_ops import scan  # noqa: E402
    from runtime.functional_ops import vectorized_map  # noqa: E402
    from runtime.control_flow_case import case  # noqa: E402
    from runtime.ops.linalg_ops import clip_by_value  # noqa: E402
    from runtime.ops.linalg_ops import einsum  # noqa: E402
    from runtime.ops.linalg_ops import one_hot  # noqa: E402
    from runtime.function import function  # noqa: E402
    from runtime import data  # noqa: E402 - tf.data (Dataset)
    from runtime import saved_model  # noqa: E402 - tf.saved_model.save / load
    from runtime import onnx  # noqa: E402 - runtime.onnx.export (the onnx package on use)

    from runtime import autograph_backend as _autograph_backend  # noqa: E402,F401 - registers it
    from runtime.ops import registry as _registry  # noqa: E402

# Every structured op now registered has its rule in each executor's table (raises otherwise).
_registry.check_rules()

__all__ = ['DType', 'GradientTape', 'Graph', 'Module', 'Tensor', 'TensorArray', 'TensorShape',
           'TensorSpec', 'UnconnectedGradients', 'Variable', 'abs', 'add', 'add_n', 'argmax',
           'argmin', 'argsort', 'as_dtype', 'assert_equal', 'assert_greater', 'assert_less',
           'autograph', 'bitwise', 'bool', 'boolean_mask', 'case', 'cast', 'clip_by_value',
           'concat', 'cond', 'config', 'constant', 'convert_to_tensor', 'cos', 'cumsum',
           'custom_gradient', 'data', 'debugging', 'divide', 'dtypes', 'einsum', 'equal',
           'errors', 'executing_eagerly', 'exp', 'expand_dims', 'eye', 'fill', 'float16',
           'float32', 'float64', 'floor', 'floordiv', 'function', 'gather', 'gather_nd',
           'greater', 'greater_equal', 'identity', 'init_scope', 'int16', 'int32', 'int64',
           'int8', 'is_tensor', 'less', 'less_equal', 'linalg', 'logical_and', 'logical_not',
           'logical_or', 'map_fn', 'math', 'matmul', 'maximum', 'minimum', 'multiply', 'negative',
           'nest', 'newaxis', 'nn', 'norm', 'not_equal', 'one_hot', 'ones', 'ones_like', 'onnx',
           'optimizers', 'pad', 'pow', 'print', 'py_function', 'random', 'range', 'rank',
           'reduce_all', 'reduce_any', 'reduce_max', 'reduce_mean', 'reduce_min', 'reduce_prod',
           'reduce_sum', 'reshape', 'round', 'saved_model', 'scan', 'shape', 'sigmoid', 'sign',
           'sin', 'size', 'sort', 'sqrt', 'square', 'squeeze', 'stack', 'stop_gradient', 'string',
           'subtract', 'switch_case', 'tanh', 'tile', 'transpose', 'truediv', 'uint8', 'unstack',
           'vectorized_map', 'where', 'while_loop', 'zeros', 'zeros_like']

