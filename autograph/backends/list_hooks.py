"""The list hooks of the backend protocol (`autograph.Backend` inherits them): Python lists that
staged control flow changes, sizes or indexes. Each default either works on top of the
required hooks (`list_index`) or leaves Python's own operation (or a clear
UnsupportedByBackendError) to run."""


class ListHookDefaults:
    """The defaults of Backend's list hooks (a base of `autograph.Backend`; `_unsupported`,
    `select` and `raise_unless` are Backend's)."""

    def list_index(self, key, size, what='list'):
        """Python's position of `key` in a list of `size` elements: a negative key counts from
        the end, and a key out of range raises `IndexError(what + ' index out of range')`, at
        once for Python ints, else when the computation runs (`raise_unless`; the position
        given then is 0, a valid one). Built on `select` and `raise_unless`.

        Args:
            key: a Python int or a staged int scalar.
            size: the list's length (a Python int or a staged int scalar).
            what: the kind of access, for the message ('list', 'tuple', 'list assignment').

        Returns:
            The position, in range(size).
        """
        if type(key) is int and type(size) is int:
            if not -size <= key < size:
                raise IndexError(what + ' index out of range')
            return key + size if key < 0 else key
        index = self.select(key < 0, key + size, key)
        ok = (index >= 0) & (index < size)
        self.raise_unless(ok, [], lambda: IndexError(what + ' index out of range'))
        return self.select(ok, index, 0 * index)

    def new_list(self, items, element, name, maximum_iterations=None, maximum_size=None):
        """Makes the staged list that a Python list becomes when a staged loop changes it.

        A Python list that a staged loop carries and appends to (or pops from) becomes
        `new_list(...)` on loop entry, and the loop is staged again with it. The default
        raises UnsupportedByBackendError; a backend without dynamically sized values should
        raise an error saying how to write the loop instead, or use `maximum_iterations`.

        Args:
            items: the list's elements on entry to the loop.
            element: the first value appended in the loop (possibly a value of a discarded
                trace: read only its type), or None when the loop pops first.
            name: the variable name, for error messages.
            maximum_iterations: None, or the loop's bound from its loop options
                (`opts['maximum_iterations']` of the loop operators): a backend with
                fixed-size values can allocate a buffer of that size.
            maximum_size: None, or the most elements the list will hold, from the user's
                `set_list_options` (passed only when given): a backend with fixed-size
                values can allocate that many and raise when the computation appends more.

        A backend that can size a buffer when the program runs reads
        `autograph.operators.list_frames.growth()` while this is called: the loop's number
        of iterations and the appends of one iteration, which bound the list (torch's).

        Returns:
            A staged list, claimed by `is_staged`.
        """
        del items, element, maximum_iterations, maximum_size
        self._unsupported('the list {!r} changed in a staged loop or branch'.format(name), 'new_list')

    def is_list_value(self, value):
        """Whether `value` is a staged value that stands for a Python list whose length a
        staged loop or if may change (torch: a tensor standing for a list of numbers, as
        `[0] * n` or a list a staged loop built gives): the statement makes it a staged list
        (`new_list`, given it as `items`) when it appends to it. The default: False."""
        del value
        return False

    def finished_list(self, staged):
        """The value that a staged list made by `new_list` becomes once the loop (or if) that
        made it is staged, for the code after it. The default: the staged list itself.
        torch makes it the tensor of its elements, of a run-time length."""
        return staged

    def list_append(self, target, element):
        """Stages `target.append(element)` on a staged list (from `new_list`).

        Args:
            target: a staged list.
            element: the value appended.

        Returns:
            The new staged list (lists are functional values in staged code).
        """
        del target, element
        self._unsupported('append on staged lists', 'list_append')

    def list_pop(self, target, i):
        """Stages `target.pop(i)` on a staged list (from `new_list`).

        Args:
            target: a staged list.
            i: the index, or None for `pop()`.

        Returns:
            A tuple (the new staged list, the removed element).
        """
        del target, i
        self._unsupported('pop on staged lists', 'list_pop')

    def set_item(self, target, key, value):
        """`target[key] = value` for a staged `target`, as a functional update.

        Returns:
            The updated staged value. The default raises NotImplementedError: autograph then
            runs `target[key] = value` as Python does.
        """
        raise NotImplementedError(type(target))

    def slice_list(self, items, key, name):
        """`items[key]` of a Python list and a slice with a staged bound (`xs[k:]`,
        `xs[a:b]`): a staged list of the elements, as long as Python's slice would be.

        Args:
            items: the Python list.
            key: a `slice` whose start, stop or step is a staged int scalar.
            name: the list's variable name, for messages.

        Returns:
            A staged list (one that `len`, `+`, iteration and indexing treat as a list). The
            default raises NotImplementedError: autograph then slices as Python does (and
            Python raises its TypeError for the staged bound).
        """
        del key, name
        raise NotImplementedError(type(items))

    def repeat_list(self, items, count, maximum_size=None, name=None):
        """`items * count` for a Python list of numbers and a staged int `count`.

        Args:
            items: the Python list.
            count: the staged count.
            maximum_size: None, or the most elements the list will hold, from the user's
                `set_list_options` (passed only when given; a backend with fixed-size values
                needs it).
            name: None, or the variable the list is assigned to (with `maximum_size`).

        Returns:
            A staged value standing for the repeated list. The default raises
            NotImplementedError: autograph then runs `items * count` as Python does.
        """
        del items, maximum_size, name
        raise NotImplementedError(type(count))

    def repeat_element(self, element, iterable):
        """`[element() for _ in iterable]` over a staged iterable (a staged `range`) that
        the backend cannot iterate, where the element is a fresh value that does not depend
        on the loop (`[0] * m`, `[0, 0]`, `0`, such a comprehension itself: the converter
        marks them): the list of that many copies of one evaluation (a dynamic-programming
        table).

        Args:
            element: function of no arguments giving the element (it calls nothing the user
                wrote: evaluating it and then declining is harmless).
            iterable: the staged iterable.

        Returns:
            A staged list of the copies. The default raises NotImplementedError: autograph
            then stages the comprehension's loop, evaluating the element in every iteration.
        """
        raise NotImplementedError(type(element), type(iterable))

    def concat_lists(self, left, right):
        """`left + right` of two lists, one of them staged (from `repeat_list`).

        Returns:
            A staged value standing for the concatenated list. The default raises
            NotImplementedError: autograph then runs `left + right` as Python does.
        """
        raise NotImplementedError(type(left), type(right))

    def list_like(self, staged, items, name):
        """A staged list of `staged`'s kind holding the Python list `items`, for a staged `if`
        whose one branch gives a Python list (`return []`) where the other gives a staged
        list (one appended to in a staged loop); or `items` a staged list that the other
        branch widened (a float appended to ints), widened alike.

        Args:
            staged: the other branch's staged list.
            items: the Python list (often empty).
            name: the variable's name, for error messages.

        Returns:
            A staged list of the same type as `staged`. The default raises
            NotImplementedError: the branches then differ in type (BranchVariableError).
        """
        raise NotImplementedError(type(staged), type(items), name)

    def stack(self, values):
        """Stacks Python numbers of one type, or staged values of one dtype and shape.

        Autograph calls it when a `for` loop over a Python list or tuple goes on staged after
        a `break` or `return` inside it became staged: the loop continues as a staged loop over
        the stacked remaining elements (`iterate` must accept the result). The default raises
        UnsupportedByBackendError: autograph then stages each remaining iteration under a
        staged `if` instead.

        Args:
            values: a non-empty list.

        Returns:
            A staged value whose first dimension indexes `values`.

        Raises:
            UnsupportedByBackendError, TypeError or ValueError: if the values cannot be
                stacked.
        """
        del values
        self._unsupported('staged loops over the rest of a Python list', 'stack')
