"""A tiny fake backend for autograph tests: `Sym` scalars whose control flow is recorded.

A `Sym` wraps a concrete Python number and a dtype ('int32', 'float32', 'bool'), and refuses to
act as a Python bool, index or iterable, like a symbolic tensor. `FakeBackend.cond` runs both
branches (as graph construction would) and returns the outputs of the one the predicate selects;
`while_loop` runs the loop functionally on its loop variables (and, like graph construction,
runs the body once even for a loop of zero iterations, discarding what it stages). So converted
code gives the same numbers staged and unstaged, and `backend.calls` shows what was staged.

Usage:

    from tests.autograph.fake_backend import Sym, registered, unwrap

    with registered() as backend:
        result = converted_fn(Sym(3))
    assert unwrap(result) == 6 and backend.calls == ['while_loop']
"""

import contextlib
import operator
import sys

from autograph import backends

_PY_DTYPES = {bool: 'bool', int: 'int32', float: 'float32'}
_CASTS = {'bool': bool, 'int32': int, 'float32': float}


class SymError(TypeError):
    """A Sym was used where a graph tensor cannot be used (as a Python bool, index, ...)."""


def _dtype_of(value):
    if isinstance(value, Sym):
        return value.dtype
    dtype = _PY_DTYPES.get(type(value))
    if dtype is None:
        raise TypeError('cannot convert {!r} of type {} to a Sym'.format(
            value, type(value).__name__))
    return dtype


def convert(value, dtype=None):
    """Returns `value` as a Sym (Python bool/int/float become bool/int32/float32)."""
    if isinstance(value, Sym):
        if dtype is not None and value.dtype != dtype:
            raise TypeError('expected a {} Sym, found a {} one'.format(dtype, value.dtype))
        return value
    dtype = dtype or _dtype_of(value)
    return Sym(_CASTS[dtype](value), dtype)


def unwrap(value):
    """Returns the Python value of a Sym, SymVec or SymArray; recurses into lists/tuples."""
    if isinstance(value, Sym):
        return value.value
    if isinstance(value, (SymVec, SymArray)):
        return [unwrap(v) for v in value.items]
    if isinstance(value, SymRange):
        return list(range(value.start, value.limit, value.delta))
    if isinstance(value, (list, tuple)):
        return type(value)(unwrap(v) for v in value)
    return value


def _binary(fn, result_dtype=None):
    def method(self, other):
        other_dtype = _dtype_of(other)
        if isinstance(other, Sym) and other_dtype != self.dtype:
            raise TypeError('cannot combine {} and {} Syms'.format(self.dtype, other_dtype))
        result = fn(self.value, other.value if isinstance(other, Sym) else other)
        dtype = result_dtype or self.dtype
        return Sym(_CASTS[dtype](result), dtype)
    return method


def _reflected(fn):
    def method(self, other):
        return _binary(lambda a, b: fn(b, a))(self, other)
    return method


class Sym:
    """A staged scalar: a concrete Python number with a dtype."""

    __slots__ = ('value', 'dtype')

    def __init__(self, value, dtype=None):
        self.value = value
        self.dtype = dtype or _PY_DTYPES[type(value)]

    def __repr__(self):
        return 'Sym({!r}, {})'.format(self.value, self.dtype)

    def __str__(self):
        return str(self.value)

    def __bool__(self):
        raise SymError('a Sym cannot be used as a Python bool; use autograph or backend.cond')

    def __index__(self):
        raise SymError('a Sym cannot be used as a Python index')

    def __iter__(self):
        raise SymError('a Sym cannot be iterated in Python')

    __hash__ = object.__hash__
    __add__ = _binary(operator.add)
    __radd__ = _reflected(operator.add)
    __sub__ = _binary(operator.sub)
    __rsub__ = _reflected(operator.sub)
    __mul__ = _binary(operator.mul)
    __rmul__ = _reflected(operator.mul)
    __floordiv__ = _binary(operator.floordiv)
    __mod__ = _binary(operator.mod)
    __truediv__ = _binary(operator.truediv, 'float32')
    __lt__ = _binary(operator.lt, 'bool')
    __le__ = _binary(operator.le, 'bool')
    __gt__ = _binary(operator.gt, 'bool')
    __ge__ = _binary(operator.ge, 'bool')
    __eq__ = _binary(operator.eq, 'bool')
    __ne__ = _binary(operator.ne, 'bool')
    __and__ = _binary(operator.and_)
    __or__ = _binary(operator.or_)

    def __neg__(self):
        return Sym(-self.value, self.dtype)

    def __abs__(self):
        return Sym(abs(self.value), self.dtype)


class SymVec:
    """A staged 1-D vector of Syms of one dtype; iterating it stages a loop."""

    def __init__(self, items, dtype=None):
        self.items = [convert(v, dtype) for v in items]
        self.dtype = dtype or (self.items[0].dtype if self.items else 'float32')


    def __getitem__(self, index):
        return self.items[unwrap(index)]


class SymRange:
    """A staged range(start, limit, delta) of int32 values, as `range` on a Sym gives."""

    def __init__(self, start, limit, delta=1):
        self.start, self.limit, self.delta = start, limit, delta


class SymArray:
    """A TensorArray-like staged list: functional `write`/`append`/`pop`, `read`, `stack`."""

    def __init__(self, dtype, items=()):
        self.dtype = dtype
        self.items = list(items)

    def write(self, index, value):
        items = list(self.items)
        i = unwrap(index)
        items.extend([Sym(_CASTS[self.dtype](0), self.dtype)] * (i + 1 - len(items)))
        items[i] = convert(value, self.dtype)
        return SymArray(self.dtype, items)

    def read(self, index):
        return self.items[unwrap(index)]

    def size(self):
        return Sym(len(self.items), 'int32')

    def stack(self):
        return SymVec(self.items, self.dtype)


def _element(sequence, index):
    """Element `index` of a SymVec/SymArray; a zero when out of range (a body traced but never
    run, as for an empty sequence, sees such a value)."""
    i = unwrap(index)
    if 0 <= i < len(sequence.items):
        return sequence.items[i]
    return Sym(_CASTS[sequence.dtype](0), sequence.dtype)


class FakeBackend(backends.Backend):
    """A backend for Sym, SymVec, SymRange and SymArray that records what it stages.

    Attributes:
        calls: names of the staged operations, in order ('cond', 'while_loop', 'print', ...).
        printed: the text of each staged print.
        asserts: the number of staged asserts.
    """

    name = 'fake'

    def __init__(self):
        self.calls = []
        self.operands = []  # the operands of each cond, in order
        self.printed = []
        self.asserts = 0
        self._scratch_depth = 0  # > 0 while staging into a discarded scratch context
        self._untaken_depth = 0  # > 0 while staging a cond branch that the predicate skips

    def is_staged(self, value):
        return isinstance(value, (Sym, SymVec, SymRange, SymArray))

    def cond(self, pred, true_fn, false_fn, operands=()):
        self.calls.append('cond')
        self.operands.append(tuple(operands))
        pred = convert(pred, 'bool')
        true_out = tuple(convert(v) if not self.is_staged(v) else v
                         for v in self._branch(true_fn, pred.value, operands))
        false_out = tuple(convert(v) if not self.is_staged(v) else v
                          for v in self._branch(false_fn, not pred.value, operands))
        if len(true_out) != len(false_out):
            raise ValueError('cond branches return {} and {} values'.format(
                len(true_out), len(false_out)))
        return true_out if pred.value else false_out

    def _branch(self, fn, taken, operands):
        self._untaken_depth += not taken
        try:
            return fn(*operands)
        finally:
            self._untaken_depth -= not taken

    def check_defined(self, defined, error):
        self.calls.append('check_defined')
        if (not convert(defined, 'bool').value and not self._scratch_depth
                and not self._untaken_depth):
            raise error

    def while_loop(self, cond_fn, body_fn, loop_vars):
        self.calls.append('while_loop')
        loop_vars = tuple(v if self.is_staged(v) else convert(v) for v in loop_vars)
        iterations = 0
        while convert(cond_fn(*loop_vars), 'bool').value:
            new_vars = tuple(body_fn(*loop_vars))
            loop_vars = tuple(v if self.is_staged(v) else convert(v) for v in new_vars)
            iterations += 1
        if not iterations:
            # A graph traces the body even when it never runs: do that, and discard the records.
            with self.scratch():
                body_fn(*loop_vars)
        return loop_vars

    def iterate(self, iterable):
        if isinstance(iterable, (SymVec, SymArray)):
            return Sym(len(iterable.items), 'int32'), lambda i: _element(iterable, i)
        if isinstance(iterable, SymRange):
            count = len(range(iterable.start, iterable.limit, iterable.delta))
            return (Sym(count, 'int32'),
                    lambda i: Sym(iterable.start + i.value * iterable.delta, 'int32'))
        return None

    def logical_not(self, value):
        self.calls.append('logical_not')
        return Sym(not convert(value, 'bool').value, 'bool')

    def assert_(self, cond, message_fn):
        self.calls.append('assert')
        self.asserts += 1
        if not convert(cond, 'bool').value and not self._scratch_depth:
            message = message_fn()
            raise AssertionError(*(() if message is None else (message,)))

    def print_(self, *args, sep=' ', end='\n'):
        self.calls.append('print')
        text = sep.join(str(a) for a in args) + end
        self.printed.append(text)
        if not self._scratch_depth:
            sys.stdout.write(text)

    @contextlib.contextmanager
    def scratch(self):
        """Operations staged inside are discarded: records are dropped, nothing is printed."""
        calls, printed, asserts = len(self.calls), len(self.printed), self.asserts
        self._scratch_depth += 1
        try:
            yield
        finally:
            self._scratch_depth -= 1
            del self.calls[calls:]
            del self.printed[printed:]
            self.asserts = asserts

    def zeros_like(self, value):
        if isinstance(value, SymVec):
            return SymVec([_CASTS[value.dtype](0)] * len(value.items), value.dtype)
        if isinstance(value, SymArray):
            return SymArray(value.dtype)
        value = convert(value)
        return Sym(_CASTS[value.dtype](0), value.dtype)

    def type_of(self, value):
        if isinstance(value, Sym):
            return value.dtype
        if isinstance(value, SymVec):
            return 'vec<{}>'.format(value.dtype)
        if isinstance(value, SymArray):
            return 'array<{}>'.format(value.dtype)
        if isinstance(value, SymRange):
            return 'range'
        dtype = _PY_DTYPES.get(type(value))
        return dtype if dtype is not None else type(value).__name__

    def new_list(self, items, element, name, maximum_iterations=None):
        self.calls.append('new_list')
        first = items[0] if items else element
        dtype = convert(first).dtype
        return SymArray(dtype, [convert(v, dtype) for v in items])

    def list_append(self, target, element):
        self.calls.append('list_append')
        return SymArray(target.dtype, target.items + [convert(element, target.dtype)])

    def list_pop(self, target, i):
        self.calls.append('list_pop')
        items = list(target.items)
        element = items.pop() if i is None else items.pop(unwrap(i))
        return SymArray(target.dtype, items), element

    def call_builtin(self, fn, args, kwargs):
        self.calls.append('builtin:' + fn.__name__)
        if kwargs:
            raise NotImplementedError
        if fn is range:
            bounds = [unwrap(a) for a in args]
            return SymRange(*([0] + bounds if len(bounds) == 1 else bounds))
        if fn is len and isinstance(args[0], (SymVec, SymArray)):
            return Sym(len(args[0].items), 'int32')
        if fn in (int, float) and isinstance(args[0], Sym):
            dtype = 'int32' if fn is int else 'float32'
            return Sym(_CASTS[dtype](args[0].value), dtype)
        if fn is abs:
            return abs(args[0])
        if fn in (min, max, sum, any, all):
            items = args[0].items if len(args) == 1 else [convert(a) for a in args]
            values = [v.value for v in items]
            if fn in (any, all):
                return Sym(fn(values), 'bool')
            return Sym(fn(values), items[0].dtype)
        raise NotImplementedError


@contextlib.contextmanager
def registered(backend=None):
    """Registers a FakeBackend (a new one by default) for the duration of the block.

    Args:
        backend: the backend to register, or None for a fresh FakeBackend.

    Yields:
        The registered backend.
    """
    backend = backend or FakeBackend()
    backends.register_backend(backend)
    try:
        yield backend
    finally:
        backends.unregister_backend(backend)
