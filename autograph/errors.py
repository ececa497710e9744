"""The typed family of errors that autograph raises."""


def add_note(error, note):
    """`error.add_note(note)`: Python 3.11+ shows the note under the error's message. Python
    3.10 has no notes: the note is kept in `__notes__`, as PEP 678 describes, for code that
    reads it, but its tracebacks do not show it."""
    if hasattr(error, 'add_note'):
        error.add_note(note)
        return
    try:
        error.__notes__ = list(getattr(error, '__notes__', ())) + [note]
    except AttributeError:  # an exception type with __slots__ and no __dict__
        pass


class AutoGraphError(Exception):
    """Base class for all errors raised by autograph."""


class ConversionError(AutoGraphError):
    """A function could not be converted (unsupported syntax, source not found, ...)."""


class UnsupportedSyntaxError(ConversionError):
    """The function uses a construct that the converter does not support.

    Attributes:
      construct: the construct in the user's words (e.g. 'a match statement'), set where the
        error is raised, so that callers group errors by it instead of parsing the message.
    """

    def __init__(self, message, construct):
        super().__init__(message)
        self.construct = construct


class DirectiveError(ConversionError, ValueError):
    """A directive (`set_loop_options`) is misused: misplaced, or with unknown arguments.

    Unlike other conversion errors, it is raised to the caller (the function does not run
    unconverted): running it as plain Python would silently drop the directive.
    """


class StagingError(AutoGraphError):
    """User code failed while being staged (e.g. a variable undefined on a staged path)."""


class UndefinedVariableError(StagingError, NameError):
    """A staged branch or loop reads a variable that is not defined on every path."""


class LoopVariableError(StagingError, TypeError):
    """A staged loop variable changed its dtype or structure between iterations."""


class BranchVariableError(StagingError, TypeError):
    """A staged branch output has a different dtype or structure in the two branches."""


class UnknownSizeError(StagingError, TypeError):
    """A Python construct got None for a size that is unknown while tracing (range(None))."""


class UnboundedListError(StagingError):
    """A list that staged control flow grows needs a bound on its length that its backend
    does not have (a while loop without maximum_iterations; a JAX list an if grows)."""


class UnsupportedByBackendError(StagingError):
    """A staged value's backend does not provide the hook a construct needs (e.g. no print)."""


class ListFullError(AutoGraphError, ValueError):
    """A staged list of a fixed-size backend (JAX; torch with a bound of the user's) needed
    more elements than its bound (`set_list_options(maximum_size=...)` or the loop's
    `maximum_iterations`); raised when the computation runs. Python's list would have grown:
    raise the bound."""

    def __init__(self, name, capacity):
        super().__init__(
            "The staged list '{}' holds at most {} elements, and the computation made it "
            "longer: it is a buffer of the size its bound gave "
            "(set_list_options({}, maximum_size=...) on the line after the assignment that "
            "makes it, or the loop's set_loop_options(maximum_iterations=...)). Raise the "
            'bound.'.format(name, capacity, name))
