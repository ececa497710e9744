"""Placeholders for variables that are not defined on every path, the loads that check them,
and the roles of the symbols that converters generate."""

import enum
import sys

from autograph.backends.registry import backend_for
from autograph.errors import UndefinedVariableError
from autograph.errors import UnsupportedByBackendError


class Symbol(enum.Enum):
    """A symbol that a converter generated, in the operators' `symbol_names`.

    The converter that makes the symbol (return, break, continue, a loop else, a lowered
    operator's value) marks it; the control-flow converter then passes the member instead of
    the generated name (`retval_`, `break_1`), so the operators recognise it by type and
    messages use the user's words: the values.
    """

    RETURN_VALUE = 'the return value'
    DO_RETURN = 'the return'
    BREAK = 'the break'
    CONTINUE = 'the continue'
    LOOP_ELSE = "the loop's else"  # whether a loop ended by its test (named_expressions)
    # the value of an and/or or conditional expression made into statements (named_expressions)
    OPERATOR_VALUE = 'the value of an `and`/`or` or conditional expression'
    # match statements made into if statements (match_statements)
    MATCH_SUBJECT = 'the subject of a match statement'
    MATCH_CASE = 'whether a case pattern of a match statement matched'
    MATCH_DONE = 'whether a case of a match statement ran'

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
        every_branch: True when the converter saw that every branch of the if statement that
            follows assigns the symbol (or raises): a staged if then aligns it without first
            looking at the other branch (see `staged_if.StagedIf`).
    """

    __slots__ = ('symbol_name', 'every_branch')

    def __init__(self, symbol_name, every_branch=False):
        self.symbol_name = symbol_name
        self.every_branch = every_branch

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


class MaybeUndefined:
    """A variable that staged control flow defines on some paths only: a value and a flag.

    A variable assigned in one branch of a staged `if`, or first assigned inside a staged
    loop, is defined after it only when the staged condition says so. It then holds this
    pair: `value` (a placeholder of the right type where undefined) and `defined` (a staged
    bool). `nest` flattens it into those two leaves, so it threads through later branches and
    loops like any value. Reading it (`ld`) asks the backend to raise UnboundLocalError when
    the staged computation runs with `defined` false: the staged function fails exactly where
    the plain one does. Only staged control flow makes one; Python paths never see it.

    Attributes:
        value: the value on the paths that define the variable.
        defined: a staged bool, or a Python bool.
        symbol_name: the variable's name, as the user wrote it.
    """

    __slots__ = ('value', 'defined', 'symbol_name')

    def __init__(self, value, defined, symbol_name):
        self.value = value
        self.defined = defined
        self.symbol_name = symbol_name

    def __repr__(self):
        return 'MaybeUndefined({!r}, defined={!r})'.format(self.value, self.defined)


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
    kind = type(v)
    if kind is Undefined:
        caller = sys._getframe(1)  # the converted user code that reads the variable
        error = UnboundLocalError(_UNBOUND_LOCAL_MESSAGE.format(v.symbol_name))
        error.__dict__['_ag_read'] = (v.symbol_name, caller.f_code.co_filename,
                                      caller.f_lineno)
        raise error
    if kind is MaybeUndefined:
        return _read_maybe_undefined(v)
    return v


def _read_maybe_undefined(v):
    """Reads a MaybeUndefined: the value, with a staged check that it is defined."""
    if v.defined is True:
        return v.value
    if v.defined is False:
        Undefined(v.symbol_name).read()
    caller = sys._getframe(2)  # the converted user code that reads the variable
    where = 'File "{}", line {}'.format(caller.f_code.co_filename, caller.f_lineno)
    backend = backend_for(v.defined)
    error = UnboundLocalError('{} ({}: {!r} is assigned only on some paths of staged control '
                              'flow, and none of them ran)'.format(
                                  _UNBOUND_LOCAL_MESSAGE.format(v.symbol_name), where,
                                  v.symbol_name))
    try:
        backend.check_defined(v.defined, error)
    except UnsupportedByBackendError:
        raise UndefinedVariableError(
            "{!r} is read here ({}) but is assigned only on some paths of staged control "
            "flow, and the backend {!r} cannot check at run time which path ran. Assign {!r} "
            "before the if statement or loop that assigns it.".format(
                v.symbol_name, where, backend.name, v.symbol_name)) from None
    return v.value


def is_undefined_read(error):
    """Tells whether an UnboundLocalError was raised by `ld` reading an `Undefined`."""
    return '_ag_read' in getattr(error, '__dict__', ())


def raise_when_run(backend, defined, error, where):
    """Stages the error of an `ld` of `Undefined`, raised when the staged code runs.

    A staged branch or loop body that reads a variable no traced path assigns always raises
    when it runs; plain Python raises only if it runs. The error is raised by a staged check
    of `defined` (false exactly when the code runs), with the user's file and line added to
    Python's message, since the traceback no longer points at the read.

    Args:
        backend: the backend staging the code.
        defined: a staged bool, false when the failing code runs.
        error: an UnboundLocalError for which `is_undefined_read` holds.
        where: the failing code, for messages ('the if branch of a staged if statement').

    Raises:
        UndefinedVariableError: if the backend has no `check_defined` hook.
    """
    name, filename, line = error._ag_read
    deferred = UnboundLocalError('{} (File "{}", line {}: no path that ran assigns {!r})'.format(
        _UNBOUND_LOCAL_MESSAGE.format(name), filename, line, name))
    try:
        backend.check_defined(defined, deferred)
    except UnsupportedByBackendError:
        raise UndefinedVariableError(
            "{!r} is read here (File \"{}\", line {}) but no path that ran assigns it, in {}: "
            "the backend {!r} cannot raise the UnboundLocalError only when that code runs. "
            "Assign {!r} before reading it.".format(name, filename, line, where, backend.name,
                                                   name)) from None


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


def is_empty(cell):
    """Whether a closure cell holds nothing (a name not assigned yet, or deleted by `del`)."""
    try:
        cell.cell_contents  # pylint: disable=pointless-statement
    except ValueError:
        return True
    return False


def empty_cells(fn):
    """The names of `fn`'s closure cells that hold nothing (a variable deleted by `del`)."""
    return [name for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ())
            if is_empty(cell)]


def free_cells(*functions):
    """The (name, cell) pairs of the closure cells of `functions` (None entries skipped),
    each cell once, empty cells left out: what a staged statement's code can reach besides
    its loop variables (`self`, a module a closure holds), for the backend's
    `stateful_scope`."""
    pairs, seen = [], set()
    for fn in functions:
        cells = getattr(fn, '__closure__', None)
        if not cells:
            continue
        for name, cell in zip(fn.__code__.co_freevars, cells):
            if is_empty(cell):  # a name not assigned yet
                continue
            if id(cell) not in seen:
                seen.add(id(cell))
                pairs.append((name, cell))
    return pairs
