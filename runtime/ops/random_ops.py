"""Random ops: a fresh draw at every execution (stateful), from one seedable generator."""
import numpy as np

from runtime import dtypes
from runtime.ops import array_ops
from runtime.ops import common
from runtime.ops.registry import OPS
from runtime.ops.registry import OpKind
from runtime.ops.registry import apply
from runtime.ops.registry import register


class _Generator:
    """The global generator, made at the first draw (importing numpy.random costs ~10 ms)."""
    _rng = None

    @classmethod
    def get(cls):
        if cls._rng is None:
            cls._rng = np.random.default_rng()
        return cls._rng


def set_seed(seed):
    """Makes every later random draw reproducible.

    Args:
        seed: An int.
    """
    _Generator._rng = np.random.default_rng(seed)


def _infer_random(shape, a, b, dtype, seed=None):
    return array_ops._static_dims(shape), dtype


@register("random_uniform", infer=_infer_random, kind=OpKind.RANDOM, tf_name="RandomUniform")
def _uniform_kernel(shape, minval, maxval, dtype, seed=None):
    rng = _Generator.get()
    if dtype.is_integer:
        return rng.integers(minval, maxval, size=tuple(shape), dtype=dtype.np_dtype)
    return rng.uniform(minval, maxval, size=tuple(shape)).astype(dtype.np_dtype)


@register("random_normal", infer=_infer_random, kind=OpKind.RANDOM,
          tf_name="RandomStandardNormal")
def _normal_kernel(shape, mean, stddev, dtype, seed=None):
    return _Generator.get().normal(mean, stddev, size=tuple(shape)).astype(dtype.np_dtype)


def uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None):
    """Draws uniform values in [minval, maxval) at every execution.

    Args:
        shape: A list of ints or an int32 Tensor.
        minval: Lower bound (inclusive).
        maxval: Upper bound (exclusive); defaults to 1 for floats, required for ints.
        dtype: float16/32/64, int32 or int64.
        seed: Accepted for TensorFlow compatibility; use set_seed for reproducibility.
        name: Optional node name in graph mode.

    Returns:
        A Tensor.

    Raises:
        ValueError: if `maxval` is missing for an integer dtype.
    """
    dtype = dtypes.as_dtype(dtype)
    if maxval is None:
        if dtype.is_integer:
            raise ValueError(f"Must specify maxval for integer dtype {dtype.name}.")
        maxval = 1
    args = [array_ops._shape_tensor(shape), common.to_tensor(minval, dtype),
            common.to_tensor(maxval, dtype)]
    return apply(OPS["random_uniform"], args, {"dtype": dtype}, name)


def normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Draws normally distributed values at every execution.

    Args:
        shape: A list of ints or an int32 Tensor.
        mean: The mean.
        stddev: The standard deviation.
        dtype: A float DType.
        seed: Accepted for TensorFlow compatibility; use set_seed for reproducibility.
        name: Optional node name in graph mode.

    Returns:
        A Tensor.
    """
    dtype = dtypes.as_dtype(dtype)
    args = [array_ops._shape_tensor(shape), common.to_tensor(mean, dtype),
            common.to_tensor(stddev, dtype)]
    return apply(OPS["random_normal"], args, {"dtype": dtype}, name)
