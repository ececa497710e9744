"""Placeholders for variables that are not defined on every path, the loads that check them,
and the roles of the symbols that converters generate."""

import enum


class Symbol(enum.Enum):
    """A symbol that a converter generated, in the operators' `symbol_names`.

    The converter that makes the symbol (return, break, continue) marks it; the control-flow
    converter then passes the member instead of the generated name (`retval_`, `break_1`), so
    the operators recognise it by type and messages use the user's words: the values.
    """

    RETURN_VALUE = 'the return value'
    DO_RETURN = 'the return'
    BREAK = 'the break'
    CONTINUE = 'the continue'

    def __str__(self):
        return self.value


def describe_name(name):
    """Names a symbol in a message: `'x'` for a user variable, the words for a `Symbol`.

    Args:
        name: a user symbol name (str) or a `Symbol`.

    Returns:
        A string.
    """
    if isinstance(name, Symbol):
        return name.value
    return "'{}'".format(name)



def _unbound_local_template():
    """Returns Python's own UnboundLocalError message, with `{}` where the name goes."""
    probe = '_ag_probe_name_'

    def read_before_assignment():
        _ag_probe_name_ = _ag_probe_name_  # noqa: F821 - raises UnboundLocalError on purpose
        return _ag_probe_name_

    try:
        read_before_assignment()
    except UnboundLocalError as e:
        return str(e).replace('{', '{{').replace('}', '}}').replace(probe, '{}')
    raise AssertionError('reading an unassigned local did not raise UnboundLocalError')


# The message of this interpreter, e.g. "cannot access local variable 'x' where it is not
# associated with a value" (3.11+) or "local variable 'x' referenced before assignment" (3.10).
_UNBOUND_LOCAL_MESSAGE = _unbound_local_template()


class Undefined:
    """The value of a symbol that is not defined on the path taken so far.

    Converted code stores it where the original function would have had an unbound local. Reading
    it through `ld` raises the same UnboundLocalError as the original code. Attribute and item
    access return the placeholder itself, so that composite names (`a.b`, `a[0]`) of an undefined
    symbol stay undefined until they are actually read.

    Attributes:
        symbol_name: the name of the undefined symbol, as the user wrote it.
    """

    __slots__ = ('symbol_name',)

    def __init__(self, symbol_name):
        self.symbol_name = symbol_name

    def read(self):
        """Raises the UnboundLocalError that reading the symbol in plain Python raises.

        Raises:
            UnboundLocalError: always.
        """
        raise UnboundLocalError(_UNBOUND_LOCAL_MESSAGE.format(self.symbol_name))

    def __repr__(self):
        return self.symbol_name

    def __getattribute__(self, name):
        try:
            return object.__getattribute__(self, name)
        except AttributeError:
            return self

    def __getitem__(self, i):
        return self

    def __iter__(self):
        # Without this, iter() would fall back to __getitem__ and never stop.
        return self.read()


class UndefinedReturnValue:
    """The return value of a function before any `return` statement has run."""

    __slots__ = ()

    def __repr__(self):
        return 'UndefinedReturnValue()'


def is_undefined(value):
    """Tells whether `value` is an `Undefined` or `UndefinedReturnValue` placeholder.

    Args:
        value: any object.

    Returns:
        True for the placeholders.
    """
    return isinstance(value, (Undefined, UndefinedReturnValue))


def ld(v):
    """Loads a local symbol, raising for an `Undefined` placeholder.

    Args:
        v: the value of the symbol.

    Returns:
        `v` itself when it is defined.

    Raises:
        UnboundLocalError: if `v` is `Undefined`, with Python's own message.
    """
    if type(v) is Undefined:
        v.read()
    return v


def ldu(load_v, name):
    """Loads a symbol that may be undefined, returning `Undefined(name)` when it is.

    Args:
        load_v: a function of no arguments that reads the symbol.
        name: the symbol name as the user wrote it.

    Returns:
        The value, or `Undefined(name)` if reading it raised NameError (including
        UnboundLocalError), AttributeError or KeyError.
    """
    try:
        return load_v()
    except (KeyError, AttributeError, NameError):
        return Undefined(name)
