"""The JAX backend's hooks for Python lists in staged loops: a bounded loop's list is a
StagedList, a buffer and a traced length."""

import builtins

from autograph.backends.jax_values import StagedList
from autograph.backends.jax_values import jax_modules
from autograph.errors import StagingError


class ListHooks:
    """`Backend.new_list`, `list_append`, `list_pop`, `set_item`, `repeat_list` and `stack`
    for jax values (a mixin of JaxBackend)."""

    def new_list(self, items, element, name, maximum_iterations=None):
        """A list appended to in a staged loop: a buffer of `maximum_iterations` more slots.

        Without `maximum_iterations` it refuses, saying how to write the loop: a JAX array
        cannot grow inside lax.while_loop.

        Args:
            items: the list's elements on entry.
            element: the first appended value (only its shape and dtype are read).
            name: the variable name.
            maximum_iterations: None, or N from the loop options (`opts['maximum_iterations']`).

        Returns:
            A StagedList of len(items) + N slots.

        Raises:
            StagingError: without `maximum_iterations`.
        """
        if maximum_iterations is None:
            raise StagingError(
                "The list '{name}' is appended to (or popped from) in a loop that JAX stages "
                'as lax.while_loop, and a JAX array cannot change its size inside a staged '
                'loop. Build the values with lax.scan (the loop body returns one element per '
                'step and scan stacks them), preallocate an array before the loop and write '
                "element i with {name} = {name}.at[i].set(value), or bound the loop: with "
                'autograph.experimental.set_loop_options(maximum_iterations=N) as the first '
                "statement of the loop body, '{name}' becomes a buffer of N more "
                'elements.'.format(name=name))
        if type(maximum_iterations) is not builtins.int:
            raise StagingError(
                "The list '{}' is appended to in a loop whose maximum_iterations is a traced "
                'value: JAX needs the size of the list buffer when it traces. Pass '
                'maximum_iterations as a Python int.'.format(name))
        jnp = jax_modules().numpy
        first = items[0] if items else element
        prototype = jax_modules().jax.typeof(first)
        buffer = jnp.zeros((len(items) + int(maximum_iterations),) + tuple(prototype.shape),
                           prototype.dtype)
        for k, item in enumerate(items):
            buffer = buffer.at[k].set(item)
        return StagedList(buffer, jnp.asarray(len(items), jnp.int32), name)

    def list_append(self, target, element):
        """Writes `element` at the staged list's length (beyond the buffer: dropped, as JAX
        drops out-of-bounds writes).

        Args:
            target: a StagedList.
            element: a value of the list's element shape and dtype.

        Returns:
            The new StagedList.
        """
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
        length = target.length - 1
        return StagedList(target.buffer, length, target.name), target.buffer[length]

    def repeat_list(self, items, count):
        """`[x] * n` with a traced `n`: refused, saying how to bound it (JAX's shapes are
        static, so a list's length must be known when it traces).

        Raises:
            StagingError: always.
        """
        raise StagingError(
            '{!r} * n with a traced n: the list would have a length known only when the '
            "computation runs, and JAX's array shapes are fixed when it traces. Bound it with "
            'a Python int N >= n: `[0] * (N + 1)` (then use the elements up to n), or pass n '
            'as a static argument (jax.jit(f, static_argnums=...)).'.format(items))

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

    def stack(self, values):
        """Stacks Python numbers of one type, or arrays of one dtype and shape (jnp.stack).

        Args:
            values: a non-empty list.

        Returns:
            A jax array.
        """
        return jax_modules().numpy.stack([jax_modules().numpy.asarray(v) for v in values])
