"""tf.case: the first branch whose predicate holds, as nested tf.conds (TensorFlow's way)."""
import functools

from runtime.control_flow import cond
from runtime.ops import array_ops
from runtime.ops import io_ops
from runtime.ops import math_ops
from runtime.ops import reduction_ops
from runtime import dtypes


def _pairs(pred_fn_pairs):
    pairs = list(pred_fn_pairs.items()) if isinstance(pred_fn_pairs, dict) else pred_fn_pairs
    if not isinstance(pairs, (list, tuple)) or not pairs:
        raise TypeError("case: pred_fn_pairs must be a non-empty list of (predicate, "
                        "callable) pairs or a dict.")
    for pair in pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"case: each item of pred_fn_pairs must be a pair (predicate, "
                            f"callable), found {pair!r}.")
        if not callable(pair[1]):
            raise TypeError(f"case: the function of a pair must be callable, found "
                            f"{pair[1]!r}.")
    return list(pairs)


def _assert_at_most(predicates, n, message):
    stacked = array_ops.stack(predicates)
    count = reduction_ops.reduce_sum(math_ops.cast(stacked, dtypes.int32))
    io_ops.Assert(math_ops.less_equal(count, n),
                  [f"{message}: more than {n} conditions evaluated as True:", stacked])


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """Runs the function of the first pair whose predicate is True (tf.case).

    Args:
        pred_fn_pairs: A list of (scalar bool tensor, callable) pairs, or a dict of them.
        default: A callable for when no predicate holds. Without one, the last pair's
            function is the default and its predicate must hold then, as in TensorFlow
            (InvalidArgumentError "Input error: None of conditions evaluated as True").
        exclusive: Also check that at most one predicate holds.
        strict: Accepted for TensorFlow's signature.
        name: Unused (node names come from the ops).

    Returns:
        What the chosen function returns (staged as nested conds in a graph).

    Raises:
        TypeError: for malformed pairs.
    """
    pairs = _pairs(pred_fn_pairs)
    predicates = [p for p, _ in pairs]
    if default is None:
        *pairs, (last, action) = pairs
        others = [p for p, _ in pairs]

        def default():
            io_ops.Assert(last, ["Input error: None of conditions evaluated as True:",
                                 array_ops.stack(predicates)])
            if others:
                _assert_at_most(others, 0, "Implementation error: the default was chosen")
            return action()

    fn = default
    for predicate, action in reversed(pairs):
        fn = functools.partial(cond, predicate, action, fn)
    if exclusive:
        _assert_at_most(predicates, 1, "Input error: exclusive=True")
    return fn()
