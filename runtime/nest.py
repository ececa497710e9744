"""Nested structures (lists, tuples, namedtuples, dicts) as in tf.nest: one order everywhere.

Lists, tuples (namedtuples included) and dicts (subclasses included) are containers; anything
else is a leaf. Dict items are visited in sorted key order (insertion order when the keys do not
sort), and rebuilt dicts keep the original insertion order. tf.function's trace keys,
tf.cond's branch outputs and tf.while_loop's loop variables all flatten through this module.
"""

__all__ = ["is_nested", "is_namedtuple", "children", "rebuild", "flatten",
           "flatten_with_paths", "map_structure", "pack_sequence_as", "structure_signature",
           "assert_same_structure", "StructureTypeError"]


def is_namedtuple(value):
    """True for instances of classes made by collections.namedtuple / typing.NamedTuple."""
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def is_nested(value):
    """True for the containers that are flattened: list, tuple, dict (and subclasses)."""
    return isinstance(value, (list, tuple, dict))


def sorted_keys(mapping):
    """Returns a dict's keys in flattening order: sorted, or insertion order if unsortable."""
    try:
        return sorted(mapping)
    except TypeError:
        return list(mapping)


def children(value):
    """Returns the items of a container in flattening order (dicts by sorted key).

    Args:
        value: A list, tuple or dict.

    Returns:
        A list of (path suffix such as "[0]", "['a']" or ".field", item) pairs.
    """
    if isinstance(value, dict):
        return [(f"[{k!r}]", value[k]) for k in sorted_keys(value)]
    if is_namedtuple(value):
        return [(f".{f}", v) for f, v in zip(type(value)._fields, value)]
    return [(f"[{i}]", v) for i, v in enumerate(value)]


def rebuild(value, items):
    """Returns a container like `value` holding `items` (given in flattening order).

    Args:
        value: The original list, tuple or dict.
        items: The new items.

    Returns:
        The new container (dicts keep `value`'s insertion order).
    """
    if isinstance(value, dict):
        new = dict(zip(sorted_keys(value), items))
        ordered = {k: new[k] for k in value}
        try:
            return type(value)(ordered)
        except TypeError:
            return ordered
    if is_namedtuple(value):
        return type(value)(*items)
    try:
        return type(value)(items)
    except TypeError:
        return tuple(items) if isinstance(value, tuple) else list(items)


def _items(value):
    """The items of a container in flattening order (children() without the paths)."""
    if isinstance(value, dict):
        return [value[k] for k in sorted_keys(value)]
    return list(value)


def _flatten_into(value, out):
    if isinstance(value, dict):
        for key in sorted_keys(value):
            _flatten_into(value[key], out)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _flatten_into(item, out)
    else:
        out.append(value)


def flatten(structure, expand_composites=False):
    """Returns the leaves of a nested structure, in flattening order.

    Args:
        structure: Any value; lists, tuples and dicts are descended into.
        expand_composites: Accepted for TensorFlow's signature; changes nothing here.

    Returns:
        A list of leaves (`[structure]` for a leaf).
    """
    out = []
    _flatten_into(structure, out)
    return out


def flatten_with_paths(structure, path=""):
    """Flattens a nested structure into (path, leaf) pairs, in flattening order.

    Args:
        structure: A nested structure.
        path: Prefix for the paths.

    Returns:
        A list of (path string such as "[1]['a']" or ".field", leaf) pairs.
    """
    if not is_nested(structure):
        return [(path, structure)]
    out = []
    for suffix, item in children(structure):
        out.extend(flatten_with_paths(item, path + suffix))
    return out


def map_structure(func, *structure, check_types=True, expand_composites=False):
    """Applies `func` to the leaves of one or more structures (TensorFlow's tf.nest).

    Args:
        func: A callable taking one leaf from each structure.
        *structure: One or more nested structures of the same shape.
        check_types: With several structures, whether their containers must also have the
            same types (a list and a tuple then differ).
        expand_composites: Accepted for TensorFlow's signature: the runtime has no
            composite tensors, so it changes nothing.

    Returns:
        A structure like the first, each leaf replaced by `func(*leaves)`.

    Raises:
        ValueError: if no structure is given, or the structures nest differently.
        TypeError: (a StructureTypeError, also a ValueError) if only container types differ
            and `check_types` is True.
    """
    del expand_composites
    if len(structure) == 1:
        return _map_one(func, structure[0])
    if not structure:
        raise ValueError("map_structure expected at least one structure, found none.")
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types=check_types)
    flats = [flatten(s) for s in structure]
    return pack_sequence_as(structure[0], [func(*leaves) for leaves in zip(*flats)])


def _map_one(fn, structure):
    if not is_nested(structure):
        return fn(structure)
    return rebuild(structure, [_map_one(fn, item) for item in _items(structure)])


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """Fills `structure`'s leaves with the items of `flat_sequence`, in flattening order.

    Args:
        structure: A nested structure (the template).
        flat_sequence: A sequence with one item per leaf of `structure`.
        expand_composites: Accepted for TensorFlow's signature; changes nothing here.

    Returns:
        The new structure.

    Raises:
        ValueError: if `flat_sequence` does not have one item per leaf.
    """
    flat = list(flat_sequence)
    count = len(flatten(structure))
    if len(flat) != count:
        raise ValueError(f"pack_sequence_as: the structure has {count} leaves but "
                         f"{len(flat)} values were given.")
    items = iter(flat)
    return _map_one(lambda _: next(items), structure)


def structure_signature(structure, check_types=True):
    """Describes a structure without its leaves; equal signatures mean the same structure.

    Args:
        structure: A nested structure.
        check_types: When False, lists and tuples (not namedtuples) describe alike.

    Returns:
        A hashable, printable description: '*' for a leaf.
    """
    if is_namedtuple(structure):
        return (type(structure).__name__,
                tuple(structure_signature(v, check_types) for v in structure))
    if isinstance(structure, (list, tuple)):
        kind = type(structure).__name__ if check_types else "seq"
        return (kind, tuple(structure_signature(v, check_types) for v in structure))
    if isinstance(structure, dict):
        return ("dict", tuple((k, structure_signature(structure[k], check_types))
                              for k in sorted_keys(structure)))
    return "*"


class StructureTypeError(TypeError, ValueError):
    """Two structures nest alike but with different container types (TensorFlow raises
    TypeError here; it is also a ValueError, what the runtime raised before)."""


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
    """Raises unless two structures nest the same way (leaves may differ).

    Args:
        nest1: A nested structure.
        nest2: A nested structure.
        check_types: When False, a list and a tuple of the same length match.
        expand_composites: Accepted for TensorFlow's signature; changes nothing here.

    Raises:
        ValueError: if the structures differ.
        StructureTypeError: (a TypeError and a ValueError) if only container types differ.
    """
    del expand_composites
    a = structure_signature(nest1, check_types)
    b = structure_signature(nest2, check_types)
    if a != b and check_types and (structure_signature(nest1, False)
                                   == structure_signature(nest2, False)):
        raise StructureTypeError(
            f"The two structures don't have the same sequence type, so not the same nested "
            f"structure: {a} and {b}. Pass check_types=False to match a list with a tuple.")
    if a != b:
        raise ValueError(f"The two structures don't have the same nested structure: "
                         f"{a} and {b}.")
