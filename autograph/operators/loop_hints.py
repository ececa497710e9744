"""Messages of staged control flow that say what to fix: the structure, the shape, the type."""
from autograph.operators import nest


def _leaves(description):
    if description[0] is nest.LEAF:
        return [description[1]]
    return [leaf for child in description[2] for leaf in _leaves(child)]


def _kind(leaf_type):
    """A leaf's type description as words: a type's name, or a tensor of that type."""
    if isinstance(leaf_type, str):
        return leaf_type
    if isinstance(leaf_type, type):
        return leaf_type.__name__
    return 'tensor ({})'.format(leaf_type)


def _skeleton(description):
    if description[0] is nest.LEAF:
        return nest.LEAF
    return (description[0], description[1], tuple(_skeleton(c) for c in description[2]))


def type_fix(before, after, where):
    """How to make two `nest.describe` results agree: what differs and what to change.

    Args:
        before: the first description (the if branch, or the loop entry).
        after: the second (the else branch, or after one iteration).
        where: what must agree, e.g. 'in both branches'.

    Returns:
        A sentence: build the same structure, give the same shape, or cast to one dtype.
    """
    if _skeleton(before) != _skeleton(after):
        return ('Build the same structure {} (the same number of elements, the same '
                'containers).'.format(where))
    for a, b in zip(_leaves(before), _leaves(after)):
        if a == b:
            continue
        if type(a) is not type(b):  # a backend describes a tensor and a non-tensor apart
            return ('Give it the same kind of value {}: a {} and a {} cannot be one staged '
                    'value, and no cast turns one into the other. If one is a state container '
                    'such as a Flax Variable, assign its value (v[...] or v.value) '
                    'instead.'.format(where, _kind(a), _kind(b)))
        shapes = getattr(a, 'shape', None), getattr(b, 'shape', None)
        if None not in shapes and shapes[0] != shapes[1] and (
                getattr(a, 'dtype', None) == getattr(b, 'dtype', None)):
            return ('Give it the same shape {}: a cast cannot change a shape; build both the '
                    'same way (for example zeros_like(x) rather than zeros([2])), or pad or '
                    'slice one to the shape of the other.'.format(where))
        break
    return 'Give it the same dtype {}: cast it (tf.cast, .astype, Tensor.to).'.format(where)
