"""Reductions and `stack` that generated programs call, for every way they run.

A generated program imports these names. Plain Python passes Python lists (a vector parameter
is a list of 3 floats; a list built by `append` is a list of numbers) and gets Python numbers,
computed in float32 where the staged run computes in float32. Traced runs pass runtime tensors
(or the TensorArray that a list appended to in a staged loop becomes), jitted runs pass jax
values and torch runs pass torch tensors; those go to `runtime`'s, `jax.numpy`'s and torch's
own functions. They are not converted.
"""

import numpy as np

import autograph
import runtime as tf


class Matrix(list):
    """An int matrix parameter in plain Python: a list of rows that `m[i, j]` indexes as a
    2-d array does (`m[i][j]`, negative indices from the end). Tensors are made from it as
    from the list of rows."""

    def __getitem__(self, key):
        if type(key) is tuple:
            i, j = key
            return list.__getitem__(self, i)[j]
        return list.__getitem__(self, key)

    def __repr__(self):
        return f"Matrix({list.__repr__(self)})"


def _is_jax(value):
    return type(value).__module__.startswith(("jax", "jaxlib"))


def _is_torch(value):
    return type(value).__module__.startswith("torch")


def _python(values, reduce):
    if not values:
        return 0
    result = reduce(np.asarray(values, np.float32 if any(
        isinstance(v, float) for v in values) else np.int64))
    return result.item()


@autograph.do_not_convert
def stack(values):
    """A list of Python numbers stays a list; staged values (or a staged list) are stacked."""
    if isinstance(values, list):
        if not values:
            return values
        if all(isinstance(v, (bool, int, float)) for v in values):
            return values
        if any(_is_jax(v) for v in values):
            import jax.numpy as jnp  # pylint: disable=import-outside-toplevel
            return jnp.stack([jnp.asarray(v) for v in values])
        if any(_is_torch(v) for v in values):
            import torch  # pylint: disable=import-outside-toplevel
            return torch.stack([torch.as_tensor(v) for v in values])
    if _is_jax(values) or _is_torch(values):
        return values
    return tf.stack(values)


def _reduction(np_fn, tf_fn, jnp_name):  # jnp_name: also the name of torch's function
    @autograph.do_not_convert
    def reduce(values):
        if isinstance(values, list) and all(isinstance(v, (bool, int, float)) for v in values):
            return _python(values, np_fn)
        if _is_jax(values):
            import jax.numpy as jnp  # pylint: disable=import-outside-toplevel
            return getattr(jnp, jnp_name)(values)
        if _is_torch(values):
            import torch  # pylint: disable=import-outside-toplevel
            return getattr(torch, jnp_name)(values)
        return tf_fn(values)
    reduce.__name__ = tf_fn.__name__
    return reduce


reduce_sum = _reduction(np.sum, tf.reduce_sum, "sum")
reduce_max = _reduction(np.max, tf.reduce_max, "max")
reduce_mean = _reduction(lambda a: np.mean(a, dtype=a.dtype), tf.reduce_mean, "mean")
