"""Tests for flattening and rebuilding nested state."""

import collections

import pytest

from autograph.operators import nest

Point = collections.namedtuple('Point', ['x', 'y'])


def test_flatten_and_pack_round_trip():
    value = (1, [2, Point(3, {'b': 5, 'a': 4})], {'k': (6,)}, 'leaf')
    leaves = nest.flatten(value)
    assert leaves == [1, 2, 3, 4, 5, 6, 'leaf']
    rebuilt = nest.pack(nest.structure(value), [v * 10 if isinstance(v, int) else v
                                                for v in leaves])
    assert rebuilt == (10, [20, Point(30, {'a': 40, 'b': 50})], {'k': (60,)}, 'leaf')
    assert type(rebuilt[1]) is list and type(rebuilt[1][1]) is Point


def test_a_rebuilt_dict_keeps_its_insertion_order():
    value = {'b': 1, 'a': 2, 'c': {'z': 3, 'y': 4}}
    assert nest.flatten(value) == [2, 1, 4, 3]  # flattening order: sorted keys
    rebuilt = nest.pack(nest.structure(value), nest.flatten(value))
    assert list(rebuilt) == ['b', 'a', 'c'] and list(rebuilt['c']) == ['z', 'y']
    counts = collections.defaultdict(int, {'q': 1, 'p': 2})
    again = nest.pack(nest.structure(counts), [20, 10])
    assert list(again.items()) == [('q', 10), ('p', 20)] and again['new'] == 0
    # two dicts of one key set added in another order have one structure
    assert nest.structure({'a': 1, 'b': 2}) == nest.structure({'b': 1, 'a': 2})
    assert hash(nest.structure({'a': 1, 'b': 2})) == hash(nest.structure({'b': 1, 'a': 2}))
    unsortable = {2: 'x', 'k': 'y'}
    assert list(nest.pack(nest.structure(unsortable), ['u', 'v'])) == [2, 'k']


def test_leaf_structure():
    assert nest.structure(3) is nest.LEAF
    assert nest.flatten(3) == [3]
    assert nest.pack(nest.LEAF, [7]) == 7


def test_pack_checks_leaf_count():
    struct = nest.structure((1, 2))
    with pytest.raises(ValueError):
        nest.pack(struct, [1])
    with pytest.raises(ValueError):
        nest.pack(struct, [1, 2, 3])


def test_describe_and_render():
    desc = nest.describe([1, (2.0, True), {'a': 1}, Point(1, 2)], lambda v: type(v).__name__)
    assert nest.render(desc) == "[int, (float, bool), {'a': int}, Point(int, int)]"
    assert nest.render(nest.describe((1,), lambda v: 'i')) == '(i,)'
    assert nest.describe([1], str) != nest.describe((1,), str)
    assert nest.describe({'a': 1, 'b': 2}, str) == nest.describe({'b': 2, 'a': 1}, str)
