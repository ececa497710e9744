"""tf.linalg: inv, det, solve, cholesky, diag, diag_part, band_part, eye and norm.

Each op declares TensorFlow's gradient, written with ops that are differentiable themselves
(so second derivatives work too); all of them apply to the last two axes and broadcast
over any batch axes in front.
"""
import numpy as np

from runtime import dtypes
from runtime.errors import InvalidArgumentError
from runtime.ops import common
from runtime.ops import math_ops
from runtime.ops.registry import OPS
from runtime.ops.registry import apply
from runtime.ops.registry import check_same_dtype
from runtime.ops.registry import defvjp
from runtime.ops.registry import register
from runtime.ops import reduction_ops as r
from runtime.ops.array_ops import expand_dims
from runtime.ops.array_ops import transpose


def _square(value, name):
    x = common.to_tensor(value)
    if not x.dtype.is_floating:
        raise InvalidArgumentError(f"{name} expects a float matrix, found {x.dtype.name}.",
                                   name)
    if x.shape is None or len(x.shape) < 2 or (
            None not in x.shape[-2:] and x.shape[-1] != x.shape[-2]):
        raise InvalidArgumentError(f"{name}: input must be a square matrix (or a batch of "
                                   f"them), found shape {x.shape}.", name)
    return x


def _mt(x):
    """The transpose of the last two axes."""
    rank = len(x.shape)
    return transpose(x, list(range(rank - 2)) + [rank - 1, rank - 2])


def _linalg_error(name, message):
    def wrap(kernel):
        def run(*args, **kwargs):
            try:
                return kernel(*args, **kwargs)
            except np.linalg.LinAlgError:
                raise InvalidArgumentError(message, name) from None
        run.__name__ = kernel.__name__
        return run
    return wrap


@register("matrix_inverse", infer=lambda x: (x.shape, x.dtype), tf_name="MatrixInverse")
@_linalg_error("matrix_inverse", "Input is not invertible.")
def _inverse_kernel(x):
    return np.linalg.inv(x).astype(x.dtype)


@defvjp("matrix_inverse")
def _inverse_vjp(op, dy):
    y = op.outputs[0]
    return [math_ops.negative(math_ops.matmul(math_ops.matmul(y, dy, transpose_a=True), y,
                                              transpose_b=True))]


@register("matrix_determinant", infer=lambda x: (x.shape[:-2], x.dtype),
          tf_name="MatrixDeterminant")
def _det_kernel(x):
    return np.asarray(np.linalg.det(x), dtype=x.dtype)


@defvjp("matrix_determinant")
def _det_vjp(op, dy):
    x, det = op.inputs[0], op.outputs[0]
    scale = expand_dims(expand_dims(dy * det, -1), -1)
    return [scale * _mt(apply(OPS["matrix_inverse"], [x], {}))]


@register("matrix_solve", infer=lambda a, b: (b.shape, b.dtype), tf_name="MatrixSolve")
@_linalg_error("matrix_solve", "Input matrix is not invertible.")
def _solve_kernel(a, b):
    return np.linalg.solve(a, b).astype(b.dtype)


@defvjp("matrix_solve")
def _solve_vjp(op, dy):
    a, _ = op.inputs
    x = op.outputs[0]
    grad_b = apply(OPS["matrix_solve"], [_mt(a), dy], {})
    return [math_ops.negative(math_ops.matmul(grad_b, x, transpose_b=True)), grad_b]


@register("cholesky", infer=lambda x: (x.shape, x.dtype), tf_name="Cholesky")
@_linalg_error("cholesky", "Cholesky decomposition was not successful. The input might not "
               "be valid.")
def _cholesky_kernel(x):
    return np.linalg.cholesky(x).astype(x.dtype)


@defvjp("cholesky")
def _cholesky_vjp(op, dy):
    """TensorFlow's rule: L^-T Phi(L^T dy) L^-1, symmetrised (Phi: lower half, diag halved)."""
    low = op.outputs[0]
    inv = apply(OPS["matrix_inverse"], [low], {})
    middle = math_ops.matmul(low, dy, transpose_a=True)
    middle = band_part(middle, -1, 0) - 0.5 * diag(diag_part(middle))
    grad = math_ops.matmul(math_ops.matmul(inv, middle, transpose_a=True), inv)
    return [0.5 * (grad + _mt(grad))]


# -- diagonals and bands -----------------------------------------------------------------------

def _infer_diag(d):
    return (None if d.shape is None else tuple(d.shape) + (d.shape[-1],)), d.dtype


@register("matrix_diag", infer=_infer_diag, tf_name="MatrixDiagV3")
def _diag_kernel(d):
    n = d.shape[-1]
    out = np.zeros(d.shape + (n,), dtype=d.dtype)
    out[..., np.arange(n), np.arange(n)] = d
    return out


@register("matrix_diag_part", infer=lambda x: (x.shape[:-1], x.dtype),
          tf_name="MatrixDiagPartV3")
def _diag_part_kernel(x):
    n = min(x.shape[-2:])
    return np.ascontiguousarray(x[..., np.arange(n), np.arange(n)])


@defvjp("matrix_diag")
def _diag_vjp(op, dy):
    return [apply(OPS["matrix_diag_part"], [dy], {})]


@defvjp("matrix_diag_part")
def _diag_part_vjp(op, dy):
    return [apply(OPS["matrix_diag"], [dy], {})]


@register("band_part", infer=lambda x, num_lower, num_upper: (x.shape, x.dtype),
          tf_name="MatrixBandPart")
def _band_part_kernel(x, num_lower, num_upper):
    rows, cols = np.indices(x.shape[-2:])
    keep = ((num_lower < 0) | (rows - cols <= num_lower)) & (
        (num_upper < 0) | (cols - rows <= num_upper))
    return np.where(keep, x, x.dtype.type(0))


@defvjp("band_part")
def _band_part_vjp(op, dy):
    return [apply(OPS["band_part"], [dy], dict(op.attrs))]


def diag(diagonal, name="diag"):
    """A matrix (or batch of them) with `diagonal` on its diagonal (tf.linalg.diag, k=0)."""
    d = common.to_tensor(diagonal)
    if d.shape is None or len(d.shape) == 0:
        raise InvalidArgumentError("diag expects a tensor of rank at least 1.", "diag")
    return apply(OPS["matrix_diag"], [d], {}, None if name == "diag" else name)


def diag_part(input, name="diag_part"):  # noqa: A002 - TensorFlow's name
    """The main diagonal of the last two axes (tf.linalg.diag_part, k=0)."""
    x = common.to_tensor(input)
    if x.shape is None or len(x.shape) < 2:
        raise InvalidArgumentError("diag_part expects a tensor of rank at least 2.",
                                   "diag_part")
    return apply(OPS["matrix_diag_part"], [x], {}, None if name == "diag_part" else name)


def band_part(input, num_lower, num_upper, name=None):  # noqa: A002
    """Keeps num_lower sub- and num_upper super-diagonals (-1: all) of the last two axes."""
    x = common.to_tensor(input)
    if x.shape is None or len(x.shape) < 2:
        raise InvalidArgumentError("band_part expects a tensor of rank at least 2.",
                                   "band_part")
    attrs = {"num_lower": int(common.static_axis(num_lower)),
             "num_upper": int(common.static_axis(num_upper))}
    return apply(OPS["band_part"], [x], attrs, name)


def _infer_eye(rows, cols, batch_shape, dtype):
    return tuple(batch_shape) + (rows, cols), dtype


@register("eye", infer=_infer_eye, tf_name="Eye")
def _eye_kernel(rows, cols, batch_shape, dtype):
    value = np.eye(rows, cols, dtype=dtype.np_dtype)
    return np.broadcast_to(value, tuple(batch_shape) + value.shape).copy()


def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32, name=None):
    """An identity matrix (or a batch of them) of `dtype` (tf.eye); sizes are Python ints."""
    rows = int(common.static_axis(num_rows))
    cols = rows if num_columns is None else int(common.static_axis(num_columns))
    batch = () if batch_shape is None else tuple(int(d) for d in batch_shape)
    attrs = {"rows": rows, "cols": cols, "batch_shape": batch,
             "dtype": dtypes.as_dtype(dtype)}
    return apply(OPS["eye"], [], attrs, name)


def inv(input, adjoint=False, name=None):  # noqa: A002
    """The inverse of a square matrix (tf.linalg.inv); InvalidArgumentError if singular."""
    x = _square(input, "matrix_inverse")
    return apply(OPS["matrix_inverse"], [_mt(x) if adjoint else x], {}, name)


def det(input, name=None):  # noqa: A002
    """The determinant of a square matrix (tf.linalg.det)."""
    return apply(OPS["matrix_determinant"], [_square(input, "matrix_determinant")], {}, name)


def solve(matrix, rhs, adjoint=False, name=None):
    """x with matrix @ x = rhs (tf.linalg.solve); rhs is [..., n, k]."""
    a = _square(matrix, "matrix_solve")
    b = common.to_tensor(rhs)
    check_same_dtype(OPS["matrix_solve"], [a, b])
    if b.shape is None or len(b.shape) < 2:
        raise InvalidArgumentError(f"matrix_solve: rhs must be a matrix [..., n, k], found "
                                   f"shape {b.shape}.", "matrix_solve")
    return apply(OPS["matrix_solve"], [_mt(a) if adjoint else a, b], {}, name)


def cholesky(input, name=None):  # noqa: A002
    """The lower Cholesky factor L of a symmetric positive definite matrix: A = L L^T."""
    return apply(OPS["cholesky"], [_square(input, "cholesky")], {}, name)


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None):  # noqa: A002
    """Vector and matrix norms (tf.linalg.norm / tf.norm).

    Args:
        tensor: A float tensor.
        ord: 'euclidean' (2-norm of vectors, Frobenius of matrices), 'fro', 1, 2 (vectors)
            or np.inf.
        axis: None (the whole tensor as a vector), an int (vectors), or a pair (matrices).
        keepdims: Keep the reduced axes with size 1.
        name: Optional node name in graph mode.

    Returns:
        A Tensor.
    """
    x = common.to_tensor(tensor)
    axis = common.static_axis(axis)
    matrix = isinstance(axis, tuple) and len(axis) == 2
    keep = bool(keepdims)
    a = math_ops.abs(x)
    if ord in ("euclidean", "fro") or (ord == 2 and not matrix):
        if ord == "fro" and not (matrix or axis is None):
            raise ValueError("norm: ord='fro' needs axis=None or a pair of axes.")
        return math_ops.sqrt(r.reduce_sum(x * x, axis=axis, keepdims=keep), name=name)
    if ord == 1 and not matrix:
        return r.reduce_sum(a, axis=axis, keepdims=keep, name=name)
    if ord == np.inf and not matrix:
        return r.reduce_max(a, axis=axis, keepdims=keep, name=name)
    if matrix and ord in (1, np.inf):
        summed, other = (axis[0], axis[1]) if ord == 1 else (axis[1], axis[0])
        sums = r.reduce_sum(a, axis=summed, keepdims=True)
        return r.reduce_max(sums, axis=other, keepdims=True) if keep else r.reduce_max(
            r.reduce_sum(a, axis=summed, keepdims=True), axis=axis, keepdims=False, name=name)
    raise ValueError(f"norm: ord={ord!r} with axis={axis!r} is not supported here; use "
                     f"'euclidean', 'fro', 1, 2 (vectors) or np.inf.")
