"""The eager pipeline of tf.data: each transformation as a Python generator of flat elements.

Every function here takes the parent's `make_iter` (a function of no arguments returning a
fresh iterator of flat tuples of numpy values) and returns the child's. Nothing runs until a
consumer iterates, as in TensorFlow, where a dataset is a recipe.
"""
import itertools

import numpy as np

from runtime.errors import InvalidArgumentError


def slices(arrays):
    """Element i is the i-th row of every array."""
    def make_iter():
        count = len(arrays[0]) if arrays else 0
        return (tuple(a[i] for a in arrays) for i in range(count))
    return make_iter


def single(arrays):
    """One element: the arrays themselves."""
    return lambda: iter([tuple(arrays)])


def mapped(parent, fn):
    """fn(flat element) -> flat element."""
    return lambda: (fn(e) for e in parent())


def filtered(parent, predicate):
    """Keeps the elements for which predicate(flat element) is true."""
    return lambda: (e for e in parent() if predicate(e))


def batched(parent, size, drop_remainder):
    """Stacks `size` consecutive elements; a shorter last batch unless drop_remainder."""
    def make_iter():
        it = parent()
        while True:
            rows = list(itertools.islice(it, size))
            if not rows or (drop_remainder and len(rows) < size):
                return
            yield tuple(_stack([r[k] for r in rows]) for k in range(len(rows[0])))
    return make_iter


def _stack(values):
    shapes = {np.shape(v) for v in values}
    if len(shapes) > 1:
        raise InvalidArgumentError(
            f"Cannot batch tensors with different shapes in one component: "
            f"{sorted(shapes)}. Pad them to one shape first, or use batch size 1.", "batch")
    return np.stack(values)


def taken(parent, count):
    """The first `count` elements (all of them when count is -1)."""
    if count < 0:
        return parent
    return lambda: itertools.islice(parent(), count)


def skipped(parent, count):
    """All but the first `count` elements (none when count is -1)."""
    if count < 0:
        return lambda: iter(())
    return lambda: itertools.islice(parent(), count, None)


def repeated(parent, count):
    """The elements `count` times over (for ever when count is -1)."""
    def make_iter():
        epochs = itertools.count() if count < 0 else range(count)
        for _ in epochs:
            yield from parent()
    return make_iter


def zipped(parents):
    """Tuples of the parents' elements, flattened; stops with the shortest."""
    def make_iter():
        for parts in zip(*(p() for p in parents)):
            yield tuple(itertools.chain.from_iterable(parts))
    return make_iter


def enumerated(parent, start):
    """(index, element), the index an int64 counting from `start`."""
    def make_iter():
        for i, e in enumerate(parent(), start):
            yield (np.asarray(i, np.int64),) + e
    return make_iter


def shuffled(parent, buffer_size, seeds):
    """TensorFlow's shuffle: a buffer of `buffer_size` elements, one drawn at random each time.

    Args:
        parent: The parent's make_iter.
        buffer_size: How many elements the buffer holds.
        seeds: A function of no arguments returning the random Generator of one iteration
            (the same stream every time for reshuffle_each_iteration=False).
    """
    def make_iter():
        rng = seeds()
        buffer = []
        for element in parent():
            buffer.append(element)
            if len(buffer) >= buffer_size:
                k = int(rng.integers(len(buffer)))
                buffer[k], buffer[-1] = buffer[-1], buffer[k]
                yield buffer.pop()
        while buffer:
            k = int(rng.integers(len(buffer)))
            buffer[k], buffer[-1] = buffer[-1], buffer[k]
            yield buffer.pop()
    return make_iter


def generated(generator, args, convert):
    """The values a fresh call of generator(*args) yields, each converted by `convert`."""
    return lambda: (convert(v) for v in generator(*args))
