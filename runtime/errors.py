"""The typed errors the runtime raises (TensorFlow's `tf.errors` family)."""


class OpError(Exception):
    """An op failed; the base class of the `tf.errors` family.

    Attributes:
        message: The error message.
        op: The name of the failing op or node, or None.
    """

    def __init__(self, message, op=None):
        super().__init__(message)
        self.message = message
        self.op = op

    def __reduce__(self):
        return (type(self), (self.message, self.op))


class InvalidArgumentError(OpError):
    """An op received an argument it cannot handle (bad dtype, shape or value)."""


class OutOfRangeError(OpError):
    """An index or iteration went past the end of its range."""


class UnimplementedError(OpError):
    """The operation is not supported by this runtime."""


class InternalError(OpError):
    """An invariant of the runtime was broken; please report it."""


class FailedPreconditionError(OpError):
    """The system is not in the state the op needs (e.g. an uninitialised variable)."""


class DTypeMismatchError(InvalidArgumentError, TypeError):
    """The inputs of an op differ in dtype (TensorFlow's InvalidArgumentError; also a
    TypeError, as Python and JAX raise for mixed operand types, so that code converting
    Python control flow can say which variable changed type)."""


class IndexOutOfRangeError(InvalidArgumentError, IndexError):
    """A tensor indexed past its end (TensorFlow's InvalidArgumentError; also an IndexError,
    as Python raises for a list, so that `except IndexError` and converted code that reads a
    list standing as a tensor see Python's exception)."""


class AssertionFailedError(InvalidArgumentError, AssertionError):
    """A staged assertion that failed when it ran (TensorFlow's InvalidArgumentError; also an
    AssertionError, as Python's `assert` statement raises, so that a converted `assert` raises
    what plain Python raises)."""
