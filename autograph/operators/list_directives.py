"""The options that `autograph.experimental.set_list_options` gives the lists an assignment
makes: `with ag__.list_options('memo', maximum_size=N):` around `memo = [0] * (n + 1)`
(converters/directives.py writes it).

While the assignment's value is evaluated (and in what it calls), `current()` is the
innermost options. The operators pass them to the backend hooks that make a list of a staged
size (`repeat_list`, `new_list`); a backend whose values have a fixed shape (JAX) needs the
bound, the others ignore it.
"""
import contextlib
import threading

from autograph import directives


class ListOptions:
    """The options of one `set_list_options` directive."""

    __slots__ = ('name', 'maximum_size')

    def __init__(self, name, maximum_size):
        self.name = name  # the variable the assignment binds, for messages
        self.maximum_size = maximum_size  # a Python int, or None

    def __repr__(self):
        return 'ListOptions({!r}, maximum_size={!r})'.format(self.name, self.maximum_size)


class _Stack(threading.local):
    def __init__(self):
        super().__init__()
        self.entries = []


_STACK = _Stack()


@contextlib.contextmanager
def list_options(name, maximum_size=directives.UNSPECIFIED):
    """The options of the lists made inside the `with` (see the module docstring).

    Args:
        name: the variable the assignment binds.
        maximum_size: a Python int >= 0, or unspecified.

    Raises:
        TypeError, ValueError: for a maximum_size that is no Python int >= 0.
    """
    if maximum_size is directives.UNSPECIFIED:
        maximum_size = None
    _STACK.entries.append(ListOptions(name, checked_size(name, maximum_size)))
    try:
        yield
    finally:
        _STACK.entries.pop()


def checked_size(name, maximum_size):
    """`maximum_size` (None, or a Python int >= 0) of the list `name`.

    Raises:
        TypeError, ValueError: for a maximum_size that is no Python int >= 0.
    """
    if maximum_size is None:
        return None
    if type(maximum_size) is not int:
        raise TypeError(
            "set_list_options({}, maximum_size=...) takes a Python int (the most elements "
            "'{}' will hold), not {!r}: a backend with fixed shapes needs it while it "
            'traces.'.format(name, name, maximum_size))
    if maximum_size < 0:
        raise ValueError('set_list_options({}, maximum_size={}): the size must be 0 or '
                         'more.'.format(name, maximum_size))
    return maximum_size


def current():
    """The innermost ListOptions in effect, or None."""
    return _STACK.entries[-1] if _STACK.entries else None


def maximum_size():
    """The innermost maximum_size in effect (a Python int), or None."""
    options = current()
    return None if options is None else options.maximum_size
