"""Flattening of nested loop and branch state (lists, tuples, namedtuples, dicts) into leaves."""

import collections
import enum

from autograph.operators import backends
from autograph.operators.variables import MaybeUndefined


class Kind(enum.Enum):
    """Kinds of node in a `structure` or `describe` description; values document them."""

    LEAF = ('A value that is not a container (a staged value, a number, None, any other '
            'object): flatten yields it as one leaf.')


LEAF = Kind.LEAF


class _DefaultDict(collections.namedtuple('_DefaultDict', ['factory'])):
    """The container type of a `collections.defaultdict` in a structure: it is rebuilt with
    its `default_factory` (`int` for `defaultdict(int)`), which its type alone does not give."""


def _is_namedtuple(value):
    return isinstance(value, tuple) and hasattr(type(value), '_fields')


class _Keys(tuple):
    """A dict's keys in flattening order (sorted, or insertion order when unsortable). Its
    `order` is the insertion order, which the rebuilt dict keeps (so iterating it after staged
    control flow gives Python's order); as a tuple it compares and hashes by the keys alone,
    so two dicts of one key set have one structure whatever order their keys were added in."""

    def __new__(cls, d):
        order = tuple(d)
        try:
            keys = super().__new__(cls, sorted(order))
        except TypeError:
            keys = super().__new__(cls, order)
        keys.order = order
        return keys


def _sorted_keys(d):
    return _Keys(d)


def _is_container(value):
    """Containers are exact list/tuple/dict, namedtuples, and unstaged subclasses of those."""
    kind = type(value)
    if kind is tuple or kind is list or kind is dict or kind is MaybeUndefined:
        return True
    if isinstance(value, (list, tuple, dict)):
        return not backends.is_staged(value)
    return False


def structure(value):
    """Describes the nesting of `value`, without its leaves.

    Args:
        value: a leaf, or a list, tuple, namedtuple or dict of such values, nested.

    Returns:
        A hashable description: LEAF for a leaf, else (container type, keys or length, children).
    """
    if not _is_container(value):
        return LEAF
    if type(value) is MaybeUndefined:
        return (MaybeUndefined, value.symbol_name, (structure(value.value), LEAF))
    if isinstance(value, dict):
        keys = _sorted_keys(value)
        kind = (_DefaultDict(value.default_factory)
                if type(value) is collections.defaultdict else type(value))
        return (kind, keys, tuple(structure(value[k]) for k in keys))
    return (type(value), len(value), tuple(structure(v) for v in value))


def flatten(value):
    """Returns the leaves of `value`, depth first; dict entries in sorted key order.

    Args:
        value: a nested structure (see `structure`).

    Returns:
        A list of leaves.
    """
    leaves = []
    _flatten_into(value, leaves)
    return leaves


def _flatten_into(value, leaves):
    if not _is_container(value):
        leaves.append(value)
    elif type(value) is MaybeUndefined:
        _flatten_into(value.value, leaves)
        leaves.append(value.defined)
    elif isinstance(value, dict):
        for k in _sorted_keys(value):
            _flatten_into(value[k], leaves)
    else:
        for v in value:
            _flatten_into(v, leaves)


def pack(struct, leaves):
    """Rebuilds a nested value from its `structure` and its flat leaves.

    Args:
        struct: a description returned by `structure`.
        leaves: a sequence with exactly as many leaves as `struct` has.

    Returns:
        The nested value.

    Raises:
        ValueError: if the number of leaves does not match the structure.
    """
    leaves = list(leaves)
    value, used = _pack(struct, leaves, 0)
    if used != len(leaves):
        raise ValueError('expected {} leaves for the structure, found {}'.format(
            used, len(leaves)))
    return value


def _pack(struct, leaves, pos):
    if struct is LEAF:
        if pos >= len(leaves):
            raise ValueError('too few leaves for the structure: found {}'.format(len(leaves)))
        return leaves[pos], pos + 1
    kind, keys_or_len, children = struct
    items = []
    for child in children:
        item, pos = _pack(child, leaves, pos)
        items.append(item)
    if kind is MaybeUndefined:
        return MaybeUndefined(items[0], items[1], keys_or_len), pos
    if type(kind) is _DefaultDict or issubclass(kind, dict):
        by_key = dict(zip(keys_or_len, items))
        entries = [(k, by_key[k]) for k in getattr(keys_or_len, 'order', keys_or_len)]
        if type(kind) is _DefaultDict:
            return collections.defaultdict(kind.factory, entries), pos
        return kind(entries), pos
    if issubclass(kind, tuple) and kind is not tuple:
        return kind(*items), pos
    return kind(items), pos


def describe(value, type_of):
    """Describes `value` as its structure with each leaf replaced by `type_of(leaf)`.

    Args:
        value: a nested structure.
        type_of: a function from a leaf to a hashable type description.

    Returns:
        A hashable description; two values can be staged interchangeably when they are equal.
    """
    if not _is_container(value):
        return (LEAF, type_of(value))
    if type(value) is MaybeUndefined:
        return (MaybeUndefined, value.symbol_name,
                (describe(value.value, type_of), describe(value.defined, type_of)))
    if isinstance(value, dict):
        keys = _sorted_keys(value)
        return (type(value), keys, tuple(describe(value[k], type_of) for k in keys))
    return (type(value), len(value), tuple(describe(v, type_of) for v in value))


def same_description(before, after, compatible):
    """Compares two `describe` results, leaf types through `compatible(before, after)`.

    Args:
        before: a `describe` result (loop entry, or the if branch).
        after: a `describe` result (after one iteration, or the else branch).
        compatible: function of two leaf type descriptions returning a bool.

    Returns:
        True when the structures are equal and every pair of leaf types is compatible.
    """
    if before[0] is LEAF or after[0] is LEAF:
        return before[0] == after[0] and compatible(before[1], after[1])
    if before[0] is not after[0] or before[1] != after[1]:
        return False
    return all(same_description(a, b, compatible) for a, b in zip(before[2], after[2]))


def render(description):
    """Renders a `describe` result for error messages, e.g. `[int32, (float32, bool)]`.

    Args:
        description: a value returned by `describe`.

    Returns:
        A short string.
    """
    if description[0] is LEAF:
        return str(description[1])
    kind, keys, children = description
    parts = [render(c) for c in children]
    if kind is MaybeUndefined:
        return '{} (or undefined)'.format(parts[0])
    if issubclass(kind, dict):
        return '{' + ', '.join('{!r}: {}'.format(k, p) for k, p in zip(keys, parts)) + '}'
    if kind is list:
        return '[' + ', '.join(parts) + ']'
    if kind is tuple:
        return '(' + ', '.join(parts) + (',)' if len(parts) == 1 else ')')
    return '{}({})'.format(kind.__name__, ', '.join(parts))


def map_leaves(fn, value):
    """Applies `fn` to every leaf of `value`, keeping the structure.

    Args:
        fn: a function of one leaf.
        value: a nested structure.

    Returns:
        The same structure with `fn(leaf)` for each leaf.
    """
    return pack(structure(value), [fn(leaf) for leaf in flatten(value)])
