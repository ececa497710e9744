"""The JAX backend's hooks for Python lists in staged code: a list appended to in a bounded
loop, or one of a staged size that `set_list_options(maximum_size=...)` bounds, is a
StagedList, a buffer and a traced length; the builtins that read lists read its elements in
use."""

import builtins
import functools

from autograph.backends import jax_checks
from autograph.backends.jax_values import StagedList
from autograph.backends.jax_values import StagedRange
from autograph.backends.jax_values import jax_modules
from autograph.errors import ListFullError
from autograph.errors import StagingError
from autograph.errors import UnboundedListError
from autograph.operators import list_directives
from autograph.operators import list_frames
from autograph.operators.generators import empty_message


class ListHooks:
    """`Backend.new_list`, `list_append`, `list_pop`, `set_item`, `repeat_list` and `stack`
    for jax values (a mixin of JaxBackend)."""

    def new_list(self, items, element, name, maximum_iterations=None, maximum_size=None):
        """A list appended to in a staged loop: a buffer of `maximum_size` slots (from
        `set_list_options`), else of `maximum_iterations` more slots than it has, else, for
        a for loop of a static length (over a jax array), of that many iterations' appends
        more (`list_frames.growth`).

        Without either it refuses, saying how to write the loop: a JAX array cannot grow
        inside lax.while_loop.

        Args:
            items: the list's elements on entry.
            element: the first appended value (only its shape and dtype are read).
            name: the variable name.
            maximum_iterations: None, or N from the loop options (`opts['maximum_iterations']`).
            maximum_size: None, or the list's bound from `set_list_options`.

        Returns:
            A StagedList of maximum_size, or len(items) + N, slots.

        Raises:
            StagingError: without a bound.
        """
        if maximum_size is not None:
            return _buffer_list(items, element, name, maximum_size)
        growth = list_frames.growth()
        if maximum_iterations is None and growth is not None and growth.loop and type(
                growth.iterations) is builtins.int and growth.appends is not None:
            # a for loop of a static length: no more than that many iterations' appends
            return _buffer_list(items, element, name,
                                len(items) + growth.appends * max(growth.iterations, 0))
        if maximum_iterations is None:
            raise UnboundedListError(
                "The list '{name}' is appended to (or popped from) in a loop that JAX stages "
                'as lax.while_loop, and a JAX array cannot change its size inside a staged '
                'loop. Build the values with lax.scan (the loop body returns one element per '
                'step and scan stacks them), preallocate an array before the loop and write '
                "element i with {name} = {name}.at[i].set(value), or bound the loop: with "
                'autograph.experimental.set_loop_options(maximum_iterations=N) as the first '
                "statement of the loop body, '{name}' becomes a buffer of N more "
                "elements; or bound the list: autograph.experimental.set_list_options({name}, "
                "maximum_size=N) on the line after the assignment that makes '{name}'."
                ''.format(name=name))
        if type(maximum_iterations) is not builtins.int:
            raise StagingError(
                "The list '{}' is appended to in a loop whose maximum_iterations is a traced "
                'value: JAX needs the size of the list buffer when it traces. Pass '
                'maximum_iterations as a Python int.'.format(name))
        return _buffer_list(items, element, name, len(items) + int(maximum_iterations))

    def list_append(self, target, element):
        """Writes `element` at the staged list's length; a list already full raises
        `ListFullError`: under `autograph.backends.jax.jit` when the computation runs (a check
        carried as a value), under plain `jax.jit` when the list is returned and read (a
        callback per append in a loop would cost a host round trip each: the length counts
        on past the buffer, whose writes JAX drops).

        Args:
            target: a StagedList.
            element: a value of the list's element shape and dtype.

        Returns:
            The new StagedList.
        """
        capacity = target.buffer.shape[0]
        if jax_checks.current() is not None:
            self.raise_unless(target.length < capacity, [],
                              lambda: ListFullError(target.name, capacity))
        return StagedList(target.buffer.at[target.length].set(element), target.length + 1,
                          target.name)

    def list_pop(self, target, i):
        """Removes the last element of a staged list.

        Args:
            target: a StagedList.
            i: the index; only None (the last element) is supported.

        Returns:
            (the new StagedList, the removed element).

        Raises:
            ValueError: for an index other than None.
        """
        if i is not None:
            raise ValueError("pop({!r}) on the staged list '{}' is not supported: only pop() "
                             'of the last element.'.format(i, target.name))
        self.raise_unless(target.length > 0, [], lambda: IndexError('pop from empty list'))
        length = self.select(target.length > 0, target.length - 1, target.length)
        return StagedList(target.buffer, length, target.name), target.buffer[length]

    def repeat_list(self, items, count, maximum_size=None, name=None):
        """`[x] * n` with a traced `n`: with a `maximum_size` (set_list_options), a StagedList
        of that many slots and the length `len(items) * max(n, 0)` (a longer one raises
        ListFullError when the computation runs); without, refused, saying how to bound it
        (JAX's shapes are static, so a list's length must be known when it traces).

        Raises:
            StagingError: without `maximum_size`.
        """
        if not items:
            return []
        if maximum_size is None:
            raise StagingError(
                '{!r} * n with a traced n: the list would have a length known only when the '
                "computation runs, and JAX's array shapes are fixed when it traces. Bound it: "
                'autograph.experimental.set_list_options(name, maximum_size=N) on the line '
                'after the assignment `name = {!r} * n` makes it a buffer of N elements; or '
                'use a Python int N >= n: `[0] * (N + 1)` (then use the elements up to n), or '
                'pass n as a static argument (jax.jit(f, static_argnums=...)).'.format(
                    items, items))
        jnp = jax_modules().numpy
        length = jnp.maximum(count, 0) * len(items)
        self.raise_unless(length <= maximum_size, [], lambda: ListFullError(name, maximum_size))
        return _filled_list(items, length, name, maximum_size)

    def set_item(self, target, key, value):
        """`target[key] = value` of a jax array of rank 1 or more (or a bounded staged list):
        `target.at[key].set(value)`, with Python's IndexError when the key is out of range
        (a traced key: raised when the computation runs) and a float widening an int array.

        Raises:
            NotImplementedError: for other targets or keys (Python's assignment then runs).
        """
        jnp = jax_modules().numpy
        if isinstance(target, StagedList):
            array, size = target.buffer, target.length
        elif getattr(target, 'ndim', 0) >= 1 and not isinstance(key, (tuple, list, slice)):
            array, size = target, target.shape[0]
        else:
            raise NotImplementedError(type(target))
        if type(key) is not builtins.int and (getattr(key, 'ndim', None) != 0
                                              or not jnp.issubdtype(key.dtype, jnp.integer)):
            raise NotImplementedError(type(key))
        index = self.list_index(key, size, 'list assignment')
        dtype = jnp.result_type(array, value)
        array = array.astype(dtype).at[index].set(value)
        if isinstance(target, StagedList):
            return StagedList(array, target.length, target.name)
        return array

    def slice_list(self, items, key, name):
        """`xs[k:]` of a Python list of numbers at a traced bound: a StagedList of
        `len(items)` slots (no slice is longer), its traced length Python's (`slice.indices`).
        A traced step, or a list of anything else, is left to Python (which refuses it)."""
        jnp = jax_modules().numpy
        step = 1 if key.step is None else key.step
        if type(step) is not builtins.int or not items:
            raise NotImplementedError(type(step))
        if step == 0:
            raise ValueError('slice step cannot be zero')
        try:
            values = jnp.asarray(items)
        except (TypeError, ValueError):
            raise NotImplementedError(type(items)) from None
        if not (jnp.issubdtype(values.dtype, jnp.number) or values.dtype == jnp.bool_):
            raise NotImplementedError(values.dtype)
        size = len(items)
        first = _slice_bound(key.start, size, step, 0 if step > 0 else size - 1)
        last = _slice_bound(key.stop, size, step, size if step > 0 else -1)
        span = last - first if step > 0 else first - last
        length = jnp.maximum(0, (span + abs(step) - 1) // abs(step))
        positions = jnp.clip(first + step * jnp.arange(size), 0, size - 1)
        return StagedList(values[positions], jnp.asarray(length, jnp.int32), name)

    def list_builtin(self, fn, args, kwargs):
        """The handler of `fn(*args, **kwargs)` for a StagedList argument, or of
        `list(range(...))` with a traced bound; None where the other overloads apply.

        `len` is the traced length; `sum`, `max`, `min`, `any` and `all` read the elements in
        use only (`max` of an empty list raises Python's ValueError when the computation
        runs); `sorted` and `list` give a StagedList; `list` of a StagedRange is a StagedList
        of `set_list_options`'s maximum_size slots (without one: refused, saying how to
        bound it).
        """
        if fn is builtins.list and len(args) == 1 and isinstance(args[0], StagedRange):
            return self._range_list
        if not args or not isinstance(args[0], StagedList) or fn not in _LIST_BUILTINS:
            return None
        if len(args) > (2 if fn is builtins.sum else 1) or set(kwargs) - {'start', 'reverse'}:
            raise NotImplementedError(fn)
        return functools.partial(_LIST_BUILTINS[fn], self)

    def _range_list(self, staged_range):
        options = list_directives.current()
        if options is None or options.maximum_size is None:
            raise StagingError(
                'list({!r}) with a traced bound: the list would have a length known only when '
                "the computation runs, and JAX's array shapes are fixed when it traces. Bound "
                'it: autograph.experimental.set_list_options(name, maximum_size=N) on the line '
                'after the assignment `name = list(range(...))` makes it a buffer of N '
                'elements; or pass the bound as a static argument.'.format(staged_range))
        jnp = jax_modules().numpy
        length, capacity = staged_range.length(), options.maximum_size
        self.raise_unless(length <= capacity, [],
                          lambda: ListFullError(options.name, capacity))
        positions = jnp.arange(capacity, dtype=jnp.result_type(staged_range.start, jnp.int32))
        buffer = staged_range.start + staged_range.step * positions
        return StagedList(buffer, jnp.asarray(length, jnp.int32), options.name)

    def stack(self, values):
        """Stacks Python numbers of one type, or arrays of one dtype and shape (jnp.stack).

        Args:
            values: a non-empty list.

        Returns:
            A jax array.
        """
        return jax_modules().numpy.stack([jax_modules().numpy.asarray(v) for v in values])


def _buffer_list(items, element, name, capacity):
    """A StagedList holding `items` in a buffer of `capacity` slots shaped like the first
    item (or `element`)."""
    if len(items) > capacity:
        raise ListFullError(name, capacity)
    jnp = jax_modules().numpy
    first = items[0] if items else element
    prototype = jax_modules().jax.typeof(first)
    buffer = jnp.zeros((capacity,) + tuple(prototype.shape), prototype.dtype)
    for k, item in enumerate(items):
        buffer = buffer.at[k].set(item)
    return StagedList(buffer, jnp.asarray(len(items), jnp.int32), name)


def _filled_list(items, length, name, capacity):
    """A StagedList of `capacity` slots holding `items` repeated, `length` of them in use."""
    jnp = jax_modules().numpy
    pattern = jnp.asarray(items)
    reps = -(-capacity // max(len(items), 1))
    buffer = jnp.tile(pattern, (reps,) + (1,) * (pattern.ndim - 1))[:capacity]
    return StagedList(buffer, jnp.asarray(length, jnp.int32), name)


def _slice_bound(bound, size, step, default):
    """Python's start or stop of a slice of `size` elements (`slice.indices`), traced."""
    if bound is None:
        return default
    jnp = jax_modules().numpy
    low, high = (0, size) if step > 0 else (-1, size - 1)
    return jnp.where(bound < 0, jnp.maximum(bound + size, low), jnp.minimum(bound, high))


def _in_use(target, fill, buffer=None):
    """`buffer` (default: the target's) with the slots past the target's length set to
    `fill`."""
    jnp = jax_modules().numpy
    buffer = target.buffer if buffer is None else buffer
    mask = jnp.arange(buffer.shape[0]) < target.length
    return jnp.where(mask.reshape(mask.shape + (1,) * (buffer.ndim - 1)), buffer, fill)


def _extreme(dtype, highest):
    jnp = jax_modules().numpy
    if jnp.issubdtype(dtype, jnp.floating):
        return jnp.inf if highest else -jnp.inf
    if dtype == jnp.bool_:
        return highest
    info = jnp.iinfo(dtype)
    return info.max if highest else info.min


def _sum(backend, target, start=0):
    del backend
    total = jax_modules().numpy.sum(_in_use(target, 0), axis=0)
    return total if type(start) is builtins.int and start == 0 else total + start


def _extremum(name):
    message = empty_message(getattr(builtins, name))

    def handler(backend, target):
        backend.raise_unless(target.length > 0, [], lambda: ValueError(message))
        filled = _in_use(target, _extreme(target.buffer.dtype, name == 'min'))
        return getattr(jax_modules().numpy, name)(filled, axis=0)
    return handler


def _truth(name):
    def handler(backend, target):
        del backend
        jnp = jax_modules().numpy
        if target.buffer.ndim != 1:
            raise NotImplementedError(name)  # rows are lists: Python's truth of each
        truth = target.buffer != 0 if target.buffer.dtype != jnp.bool_ else target.buffer
        if name == 'any':  # the unused slots are False for any(), True for all()
            return jnp.any(_in_use(target, False, truth))
        return jnp.all(_in_use(target, True, truth))
    return handler


def _sorted(backend, target, reverse=False):
    del backend
    jnp = jax_modules().numpy
    if target.buffer.ndim != 1:
        raise NotImplementedError(sorted)  # rows compare as lists
    ordered = jnp.sort(_in_use(target, _extreme(target.buffer.dtype, not reverse)))
    return StagedList(ordered[::-1] if reverse else ordered, target.length, target.name)


def _copy(backend, target):
    del backend
    return StagedList(target.buffer, target.length, target.name)


_LIST_BUILTINS = {
    builtins.len: lambda backend, target: target.length,
    builtins.sum: _sum,
    builtins.max: _extremum('max'),
    builtins.min: _extremum('min'),
    builtins.any: _truth('any'),
    builtins.all: _truth('all'),
    builtins.sorted: _sorted,
    builtins.list: _copy,
}
