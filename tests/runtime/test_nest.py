"""Tests for runtime.nest: one flattening order (sorted dict keys) for the whole runtime."""
import collections

import pytest

from runtime import control_flow
from runtime.function import keys as function_keys
from runtime import nest

Point = collections.namedtuple("Point", "y x")


def test_flatten_sorts_dict_keys_and_keeps_sequence_order():
    value = {"b": [1, (2, 3)], "a": Point(y=4, x=5), "c": None}
    assert nest.flatten(value) == [4, 5, 1, 2, 3, None]
    assert nest.flatten(7) == [7]


def test_unsortable_keys_fall_back_to_insertion_order():
    assert nest.flatten({1: "one", "a": "letter"}) == ["one", "letter"]


def test_pack_sequence_as_inverts_flatten_and_keeps_insertion_order():
    value = {"b": [1, (2, 3)], "a": Point(y=4, x=5)}
    packed = nest.pack_sequence_as(value, [40, 50, 10, 20, 30])
    assert packed == {"b": [10, (20, 30)], "a": Point(y=40, x=50)}
    assert list(packed) == ["b", "a"]
    assert type(packed["a"]) is Point


def test_pack_sequence_as_checks_the_count():
    with pytest.raises(ValueError, match="has 2 leaves but 3 values were given"):
        nest.pack_sequence_as((1, 2), [1, 2, 3])


def test_map_structure_and_paths():
    value = {"z": [1, 2], "a": Point(3, 4)}
    assert nest.map_structure(lambda v: v * 10, value) == {"z": [10, 20], "a": Point(30, 40)}
    assert nest.flatten_with_paths(value) == [
        ("['a'].y", 3), ("['a'].x", 4), ("['z'][0]", 1), ("['z'][1]", 2)]


def test_assert_same_structure():
    nest.assert_same_structure({"a": (1, [2])}, {"a": (5, [6])})
    nest.assert_same_structure([1, 2], (3, 4), check_types=False)
    with pytest.raises(ValueError, match="same nested structure"):
        nest.assert_same_structure([1, 2], (3, 4))
    with pytest.raises(ValueError, match="same nested structure"):
        nest.assert_same_structure({"a": 1}, {"b": 1})


def test_control_flow_and_function_keys_use_this_module():
    assert control_flow.flatten is nest.flatten
    assert control_flow.pack_sequence_as is nest.pack_sequence_as
    assert function_keys.flatten is nest.flatten
    assert function_keys.map_structure is nest.map_structure
