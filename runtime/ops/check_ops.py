"""tf.debugging.assert_*: elementwise checks that raise InvalidArgumentError when they fail.

Eagerly a failing check raises at once; in a graph it is an `assert` node that raises each
time the graph runs with values that fail it, naming the user's line. The message reads as
TensorFlow's: the user's message, the condition, and the values.
"""
from runtime.ops import common
from runtime.ops import io_ops
from runtime.ops import math_ops


def _check(condition, values, what, message, summarize, name):
    text = f"{message + ' ' if message else ''}Condition {what} did not hold element-wise:"
    fields = [text]
    for k, label in enumerate("xy"[:len(values)]):
        fields += [f" {label} = ", (k, ord("s"), "")]
    return io_ops.assert_(condition, text, values, 3 if summarize is None else summarize,
                          name, fields=fields)


def _binary(op, symbol):
    def check(x, y, message=None, summarize=None, name=None):
        x = common.to_tensor(x)
        y = common.to_tensor(y, x.dtype) if not hasattr(y, "dtype") else common.to_tensor(y)
        condition = getattr(math_ops, op)(x, y)
        return _check(condition, [x, y], f"x {symbol} y", message, summarize, name)
    check.__name__ = f"assert_{op}"
    check.__doc__ = (f"Raises InvalidArgumentError unless x {symbol} y holds for every "
                     f"element (tf.debugging.assert_{op}).")
    return check


def _unary(op, symbol):
    def check(x, message=None, summarize=None, name=None):
        x = common.to_tensor(x)
        condition = getattr(math_ops, op)(x, common.to_tensor(0, x.dtype))
        return _check(condition, [x], f"x {symbol} 0", message, summarize, name)
    return check


assert_equal = _binary("equal", "==")
assert_none_equal = _binary("not_equal", "!=")
assert_less = _binary("less", "<")
assert_less_equal = _binary("less_equal", "<=")
assert_greater = _binary("greater", ">")
assert_greater_equal = _binary("greater_equal", ">=")
assert_positive = _unary("greater", ">")
assert_negative = _unary("less", "<")
assert_non_negative = _unary("greater_equal", ">=")
assert_non_positive = _unary("less_equal", "<=")
for _name, _fn in [("assert_positive", assert_positive), ("assert_negative", assert_negative),
                   ("assert_non_negative", assert_non_negative),
                   ("assert_non_positive", assert_non_positive)]:
    _fn.__name__ = _name
    _fn.__doc__ = (f"Raises InvalidArgumentError unless every element of x passes "
                   f"(tf.debugging.{_name}).")
