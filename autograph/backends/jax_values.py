"""The JAX backend's values and builtins: types, staged ranges and lists, predicates.

Nothing here imports jax until a jax value is met (`jax_modules()`), so that loading the
backend stays cheap.
"""

import builtins
import collections

from autograph.errors import ListFullError


class JaxType(collections.namedtuple('JaxType', ['dtype', 'shape', 'weak'])):
    """The type of a leaf as JAX sees it: dtype name, shape, and whether it is weakly typed."""

    __slots__ = ()

    def __str__(self):
        return '{}{}[{}]'.format('~' if self.weak else '', self.dtype,
                                 ','.join(str(d) for d in self.shape))


class StagedRange:
    """`range(start, stop, step)` with a traced bound: iterated by a staged `for` loop."""

    def __init__(self, start, stop, step):
        self.start, self.stop, self.step = start, stop, step

    def __repr__(self):
        return 'range({!r}, {!r}, {!r})'.format(self.start, self.stop, self.step)

    def iteration(self):
        """(length, getitem) of a staged for loop over the range (`Backend.iterate`)."""
        start, step = self.start, self.step
        if type(start) is builtins.int and type(step) is builtins.int:
            if (start, step) == (0, 1):
                return self.length(), lambda i: i
            if step == 1:
                return self.length(), lambda i: i + start
        return self.length(), lambda i: start + i * step

    def length(self):
        """The number of elements: max(0, ceil((stop - start) / step)), traced."""
        if all(type(v) is builtins.int for v in (self.start, self.stop, self.step)):
            return builtins.len(builtins.range(self.start, self.stop, self.step))
        jnp = jax_modules().numpy
        if type(self.step) is builtins.int and self.step in (1, -1):
            # No division: range(1, n + 1) costs one subtraction and one maximum.
            span = self.stop - self.start if self.step == 1 else self.start - self.stop
            return jnp.maximum(0, span)
        return jnp.maximum(0, -((self.start - self.stop) // self.step))


class StagedList:
    """A Python list appended to in a bounded staged loop: a fixed buffer and a traced length.

    Inside the computation, `len(l)` (in converted code) is the traced length and `l[i]`
    reads the buffer. Returned from a jitted function (a pytree of buffer and length), it is
    the list of its elements and no more: `len(l)` is the number of appends, iterating gives
    exactly those elements, and `numpy.asarray(l)` / `jnp.asarray(l)` are those elements
    stacked; the slots past the length are never shown as values. Inside the computation
    its size is not known, so converting it to an array there raises TypeError. `l[i]` has
    Python's IndexError for an index out of range (raised when the computation runs).
    """

    # Python's position of an index (the backend's `list_index`), installed by the backend
    # module above this one.
    position = None

    def __init__(self, buffer, length, name):
        self.buffer = buffer  # [capacity, *element shape]
        self.length = length  # int32: the number of elements in use (traced while staging)
        self.name = name  # the user's variable name, for messages

    def __repr__(self):
        if self._concrete_length() is None:
            return 'StagedList({!r}, buffer of {})'.format(self.name, self.buffer.shape[0])
        return 'StagedList({!r}, {!r})'.format(self.name, self.tolist())

    def __getitem__(self, index):
        if isinstance(index, slice):
            raise TypeError(
                "Slicing the staged list '{}' ({}[a:b]) inside the staged computation: its "
                'length is a traced value, and a slice of it would be an array of a size '
                'JAX does not know while it traces. Read its elements one at a time, or '
                'return the list from the jitted function and slice it outside.'.format(
                    self.name, self.name))
        m = jax_modules()
        if type(index) is not builtins.int and not (
                isinstance(index, (m.tracer, m.array)) and index.ndim == 0
                and m.numpy.issubdtype(index.dtype, m.numpy.integer)):
            raise TypeError('list indices must be integers or slices, not {}'.format(
                type(index).__name__))
        length = self._concrete_length()
        if length is not None and not isinstance(index, m.tracer):  # outside a trace
            return self.buffer[StagedList.position(builtins.int(index), length, 'list')]
        return self.buffer[StagedList.position(index, self.length, 'list')]

    def iteration(self):
        """(length, getitem) of a staged for loop over the elements in use (`iterate`)."""
        return self.length, self.buffer.__getitem__

    def __add__(self, other):
        """`l + other` of this list and another list (a StagedList or a Python list of
        numbers): a StagedList of both buffers' slots, this one's elements then the other's."""
        other = _as_staged_list(other, self.name)
        if other is None:
            return NotImplemented
        return _concatenated(self, other)

    def __radd__(self, other):
        other = _as_staged_list(other, self.name)
        if other is None:
            return NotImplemented
        return _concatenated(other, self)

    def _concrete_length(self):
        m = jax_modules()
        if isinstance(self.length, m.tracer) or isinstance(self.buffer, m.tracer):
            return None
        return builtins.int(self.length)

    def _elements(self, what):
        length = self._concrete_length()
        if length is not None and length > self.buffer.shape[0]:  # appends JAX dropped
            raise ListFullError(self.name, self.buffer.shape[0])
        if length is None:
            raise TypeError(
                "{} of the staged list '{}' inside the staged computation: its length is a "
                'traced value and an array needs a static size. Return the list from the '
                'jitted function (outside, it is exactly its elements), or use its elements '
                "one at a time ({}[i], len({})).".format(what, self.name, self.name, self.name))
        return self.buffer[:length]

    def __len__(self):
        return builtins.len(self._elements('len()'))

    def __iter__(self):
        return iter(self._elements('Iterating'))

    def __array__(self, dtype=None, copy=None):
        import numpy  # pylint: disable=import-outside-toplevel
        del copy
        return numpy.asarray(self._elements('An array'), dtype=dtype)

    def __jax_array__(self):
        return self._elements('An array')

    def tolist(self):
        """The elements as Python values (as `ndarray.tolist`)."""
        return self._elements('tolist()').tolist()


def _as_staged_list(value, name):
    """A StagedList of `value` (itself, or a Python list of numbers in use whole), or None."""
    if isinstance(value, StagedList):
        return value
    if type(value) is not builtins.list:
        return None
    jnp = jax_modules().numpy
    return StagedList(jnp.asarray(value), jnp.asarray(builtins.len(value), jnp.int32), name)


def _concatenated(left, right):
    """`left + right` of two StagedLists: slot i is left's element i below left's length,
    else right's element i - length (the slots past the sum of the lengths are unused)."""
    jnp = jax_modules().numpy
    if right.buffer.shape[0] == 0:
        return left
    if left.buffer.shape[0] == 0:
        return StagedList(right.buffer, right.length, left.name)
    dtype = jnp.result_type(left.buffer, right.buffer)
    slots = jnp.arange(left.buffer.shape[0] + right.buffer.shape[0])
    mine = jnp.take(left.buffer, jnp.clip(slots, 0, left.buffer.shape[0] - 1), axis=0)
    theirs = jnp.take(right.buffer, jnp.clip(slots - left.length, 0, right.buffer.shape[0] - 1),
                      axis=0)
    chosen = (slots < left.length).reshape((-1,) + (1,) * (mine.ndim - 1))
    buffer = jnp.where(chosen, mine.astype(dtype), theirs.astype(dtype))
    return StagedList(buffer, left.length + right.length, left.name)


class _Jax:
    """The jax modules, imported on first use (importing this backend must stay cheap)."""

    def __init__(self):
        import jax  # pylint: disable=import-outside-toplevel
        import jax.numpy  # pylint: disable=import-outside-toplevel
        from jax import lax  # pylint: disable=import-outside-toplevel
        self.jax = jax
        self.numpy = jax.numpy
        self.lax = lax
        self.tracer = jax.core.Tracer
        self.array = jax.Array
        jax.tree_util.register_pytree_node(
            StagedList, lambda l: ((l.buffer, l.length), l.name),
            lambda name, children: StagedList(children[0], children[1], name))


_modules = []


def jax_modules():
    """The jax modules (jax, jax.numpy, lax), imported on first use."""
    if not _modules:
        _modules.append(_Jax())
    return _modules[0]


def zero_index(count):
    """A loop index 0 of the dtype a loop over `count` iterations gives its index (the
    count's: int64 with x64), for tracing the iteration before the loop is staged."""
    jnp = jax_modules().numpy
    return jnp.zeros((), jnp.asarray(count).dtype)


def enable_x64():
    """The context in which JAX computes in 64 bits: `jax.enable_x64(True)` from jax 0.7;
    jax 0.6 (what Python 3.10 installs) has it only as `jax.experimental.enable_x64`."""
    import jax  # pylint: disable=import-outside-toplevel
    enable = getattr(jax, 'enable_x64', None)
    if enable is None:
        from jax.experimental import enable_x64 as enable  # pylint: disable=import-outside-toplevel
    return enable(True)


def trace_to_jaxpr(fn, *args):
    """fn(*args)'s closed jaxpr (its free tracers become constants) and its output tree.

    `jax.make_jaxpr` goes through jit's machinery (about 0.7 ms a call here); the function
    that lax.cond and lax.scan trace their bodies with costs about half that. Converted code
    traces every staged branch this way, so the cheaper one is used when this JAX has it
    (checked once against a known function); else make_jaxpr.
    """
    if not _tracers:
        _tracers.append(_internal_tracer())
    trace = _tracers[0]
    if trace is None:
        m = jax_modules()
        closed, shape = m.jax.make_jaxpr(fn, return_shape=True)(*args)
        return closed, m.jax.tree_util.tree_structure(shape)
    return trace(fn, args)


_tracers = []


def _internal_tracer():
    """JAX's own tracing to a jaxpr (jax._src, as of jax 0.9 to 0.12), or None if it differs."""
    m = jax_modules()
    try:
        # pylint: disable=import-outside-toplevel
        from jax._src import api_util
        from jax._src import core
        from jax._src.interpreters import partial_eval
        try:
            from jax._src.flattree import flatten  # jax 0.11 and later
        except ImportError:
            from jax._src.tree_util import FlatTree  # jax 0.9, 0.10
            flatten = FlatTree.flatten

        def trace(fn, args):
            avals = flatten((args, {})).map(core.typeof)
            closed, out = partial_eval.trace_to_jaxpr(
                fn, avals, api_util.debug_info('autograph', fn, args, {}))
            return closed, out.tree

        closed, tree = trace(lambda x: (x + 1, 2.0), (1,))
        expected, shape = m.jax.make_jaxpr(lambda x: (x + 1, 2.0), return_shape=True)(1)
        if (str(closed.jaxpr) != str(expected.jaxpr)
                or tree != m.jax.tree_util.tree_structure(shape)):
            return None
        return trace
    except Exception:  # pylint: disable=broad-except  # another JAX: use make_jaxpr
        return None


def predicate(value, what):
    """A traced scalar bool for `if`/`while`: Python truthiness of a traced scalar."""
    m = jax_modules()
    jnp = m.numpy
    if not isinstance(value, m.tracer):
        return jnp.asarray(builtins.bool(value))
    if value.size != 1:
        raise TypeError(
            'The truth value of an array with more than one element is ambiguous: the {} '
            'condition has shape {}. Use jnp.any(...) or jnp.all(...).'.format(
                what, tuple(value.shape)))
    if value.shape:
        value = value.reshape(())
    if value.dtype != jnp.bool_:
        value = value != 0
    return value


def leaf_type(value):
    m = jax_modules()
    if isinstance(value, (m.tracer, m.array)):
        aval = m.jax.typeof(value)
        return JaxType(str(aval.dtype), tuple(aval.shape), builtins.bool(aval.weak_type))
    if type(value) is builtins.bool:
        return JaxType('bool', (), False)
    if type(value) in (builtins.int, builtins.float, builtins.complex):
        aval = m.jax.typeof(value)
        return JaxType(str(aval.dtype), (), True)
    return type(value).__name__


def promoted(a, b):
    """The dtype name JAX gives `a` combined with `b` (JaxTypes of one shape), or None."""
    jnp = jax_modules().numpy

    def operand(t):
        if not t.weak:
            return jnp.dtype(t.dtype)
        kind = jnp.dtype(t.dtype).kind  # a weak type behaves as a Python scalar of its kind
        return {'b': False, 'i': 0, 'u': 0, 'f': 0.0, 'c': 0j}.get(kind, jnp.dtype(t.dtype))

    try:
        return str(jnp.result_type(operand(a), operand(b)))
    except TypeError:
        return None


def _as_array(value):
    return jax_modules().numpy.asarray(value)


def staged_range(*args):
    """A range that a converted `for` loop stages as lax.while_loop even with Python bounds.

    Like `tf.range` in TensorFlow: `for i in staged_range(n)` is one loop in the jaxpr instead
    of n unrolled bodies, and a `break` in it may depend on traced values.

    Args:
        *args: (stop), (start, stop) or (start, stop, step); ints or traced integers.

    Returns:
        A StagedRange.
    """
    return _range(*args)


def _range(*args):
    if not 1 <= len(args) <= 3:
        raise TypeError('range expected at most 3 arguments, got {}'.format(len(args)))
    start, stop, step = (0, args[0], 1) if len(args) == 1 else (tuple(args) + (1,))[:3]
    if isinstance(step, builtins.int) and step == 0:
        raise ValueError('range() arg 3 must not be zero')
    return StagedRange(start, stop, step)


def _len(value):
    if isinstance(value, StagedRange):
        return value.length()
    if isinstance(value, StagedList):
        return value.length
    raise NotImplementedError(len)


def _scalar_cast(kind, dtype_name):
    def cast(value):
        m = jax_modules()
        value = _as_array(value)
        if value.size != 1:
            raise TypeError('only length-1 arrays can be converted to Python scalars '
                            '({}() of an array of shape {})'.format(kind, tuple(value.shape)))
        if value.shape:
            value = value.reshape(())
        dtype = m.numpy.dtype(dtype_name)
        if kind == 'int' and m.numpy.issubdtype(value.dtype, m.numpy.floating):
            value = m.numpy.trunc(value)
        return value.astype(dtype)
    return cast


def _fold(pairwise, reduce):
    def handler(*args):
        if len(args) == 1:
            if isinstance(args[0], StagedRange):
                raise NotImplementedError(reduce)
            return reduce(_as_array(args[0]), axis=0)  # Python's min(x) compares the rows of x
        result = args[0]
        for arg in args[1:]:
            result = pairwise(result, arg)
        return result
    return handler


def _sum(iterable, start=0):
    if isinstance(iterable, StagedRange):
        raise NotImplementedError(sum)
    total = jax_modules().numpy.sum(_as_array(iterable), axis=0)
    if isinstance(start, (builtins.int, builtins.float)) and start == 0:
        return total
    return total + start


def _truth_reduction(name):
    def handler(value):
        if isinstance(value, StagedRange):
            raise NotImplementedError(name)
        value = _as_array(value)
        if value.ndim != 1:
            raise NotImplementedError(name)  # Python iterates rows: the builtin's own error
        jnp = jax_modules().numpy
        return getattr(jnp, name)(value != 0 if value.dtype != jnp.bool_ else value)
    return handler


BUILTINS = {
    builtins.range: _range,
    builtins.len: _len,
    builtins.int: _scalar_cast('int', 'int32'),
    builtins.float: _scalar_cast('float', 'float32'),
    builtins.min: _fold(lambda a, b: jax_modules().numpy.minimum(a, b),
                        lambda x, axis: jax_modules().numpy.min(x, axis=axis)),
    builtins.max: _fold(lambda a, b: jax_modules().numpy.maximum(a, b),
                        lambda x, axis: jax_modules().numpy.max(x, axis=axis)),
    builtins.sum: _sum,
    builtins.any: _truth_reduction('any'),
    builtins.all: _truth_reduction('all'),
}


# The functions that `a and b` may call in a right operand evaluated at once
# (`JaxBackend.pure_operand`): jax.numpy and lax functions that only compute a value, and Python's
# builtins that the backend overloads for tracers.
_PURE_JNP = (
    'abs absolute add all allclose amax amin any argmax argmin array_equal asarray ceil clip '
    'cos count_nonzero divide dot equal exp expm1 floor floor_divide greater greater_equal '
    'isclose isfinite isinf isnan less less_equal log log1p logical_and logical_not '
    'logical_or logical_xor matmul max maximum mean min minimum mod multiply negative '
    'not_equal ones_like power prod round shape sign sin size sqrt square subtract sum tan '
    'tanh true_divide vdot where zeros_like').split()
_PURE_LAX = 'abs exp log max min rsqrt select sqrt tanh'.split()
_PURE_BUILTINS = (builtins.abs, builtins.all, builtins.any, builtins.bool, builtins.float,
                  builtins.int, builtins.len, builtins.max, builtins.min, builtins.round,
                  builtins.sum)
_pure = []


def pure_functions():
    """The set of function objects `JaxBackend.pure_operand` accepts (built on first use)."""
    if not _pure:
        m = jax_modules()
        functions = set(_PURE_BUILTINS)
        functions.update(getattr(m.numpy, name) for name in _PURE_JNP if hasattr(m.numpy, name))
        functions.update(getattr(m.lax, name) for name in _PURE_LAX if hasattr(m.lax, name))
        _pure.append(frozenset(functions))
    return _pure[0]

