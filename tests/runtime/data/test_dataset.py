"""Tests for runtime.data.dataset run eagerly: sources, transformations and their specs.

Expected values are worked out by hand from TensorFlow's documented semantics."""
import numpy as np
import pytest

import runtime as tf


def values(ds):
    """The elements as Python values (tuples and dicts kept)."""
    def py(v):
        if isinstance(v, tuple):
            return tuple(py(x) for x in v)
        if isinstance(v, dict):
            return {k: py(x) for k, x in v.items()}
        return v.numpy().tolist()
    return [py(e) for e in ds]


def test_from_tensor_slices_slices_structures_and_keeps_lists_as_tensors():
    ds = tf.data.Dataset.from_tensor_slices(([1, 2, 3], [4.0, 5.0, 6.0]))
    assert values(ds) == [(1, 4.0), (2, 5.0), (3, 6.0)]
    assert ds.element_spec == (tf.TensorSpec((), tf.int32), tf.TensorSpec((), tf.float32))
    rows = tf.data.Dataset.from_tensor_slices([(1, 1), (2, 2)])  # a list is one tensor
    assert values(rows) == [[1, 1], [2, 2]]
    assert rows.element_spec == tf.TensorSpec((2,), tf.int32)
    named = tf.data.Dataset.from_tensor_slices({"a": [1, 2], "b": [[1.0], [2.0]]})
    assert values(named) == [{"a": 1, "b": [1.0]}, {"a": 2, "b": [2.0]}]
    assert len(ds) == 3 and int(ds.cardinality()) == 3


def test_from_tensor_slices_refuses_scalars_and_unequal_lengths():
    with pytest.raises(ValueError, match="rank at least 1"):
        tf.data.Dataset.from_tensor_slices(3)
    with pytest.raises(ValueError, match="one first dimension"):
        tf.data.Dataset.from_tensor_slices(([1, 2], [1, 2, 3]))


def test_from_tensors_and_range():
    assert values(tf.data.Dataset.from_tensors([1, 2])) == [[1, 2]]
    ds = tf.data.Dataset.range(2, 9, 3)
    assert values(ds) == [2, 5, 8]
    assert ds.element_spec == tf.TensorSpec((), tf.int64)
    assert values(tf.data.Dataset.range(3, output_type=tf.int32)) == [0, 1, 2]


def test_map_filter_batch():
    ds = tf.data.Dataset.range(7).map(lambda x: x * 10).filter(lambda x: x % 20 == 0)
    assert values(ds) == [0, 20, 40, 60]
    assert values(ds.batch(3)) == [[0, 20, 40], [60]]
    assert values(ds.batch(3, drop_remainder=True)) == [[0, 20, 40]]
    assert ds.batch(3).element_spec == tf.TensorSpec((None,), tf.int64)
    assert ds.batch(3, drop_remainder=True).element_spec == tf.TensorSpec((3,), tf.int64)
    assert int(ds.cardinality()) == tf.data.UNKNOWN_CARDINALITY


def test_map_unpacks_tuples_and_traces_once():
    calls = []

    def swap(x, y):
        calls.append(1)  # a Python side effect: runs at tracing only, as in TensorFlow
        return y, x

    ds = tf.data.Dataset.from_tensor_slices(([1, 2, 3], [4, 5, 6])).map(swap)
    assert values(ds) == [(4, 1), (5, 2), (6, 3)]
    assert values(ds) == [(4, 1), (5, 2), (6, 3)]
    assert len(calls) == 1


def test_map_converts_control_flow():
    def clip(x):
        if x > 2:
            x = x * 0 + 2
        return x

    assert values(tf.data.Dataset.range(5).map(clip)) == [0, 1, 2, 2, 2]


def test_take_skip_repeat_enumerate_zip():
    ds = tf.data.Dataset.range(5)
    assert values(ds.take(2)) == [0, 1]
    assert values(ds.skip(3)) == [3, 4]
    assert values(ds.take(2).repeat(2)) == [0, 1, 0, 1]
    assert values(ds.repeat().take(7)) == [0, 1, 2, 3, 4, 0, 1]
    assert int(ds.repeat().cardinality()) == tf.data.INFINITE_CARDINALITY
    assert values(ds.skip(3).enumerate(start=1)) == [(1, 3), (2, 4)]
    zipped = tf.data.Dataset.zip((ds, ds.map(lambda x: x * x).take(3)))
    assert values(zipped) == [(0, 0), (1, 1), (2, 4)]
    assert len(zipped) == 3
    assert values(tf.data.Dataset.zip(ds.take(1), ds.skip(4))) == [(0, 4)]


def test_shuffle_is_a_permutation_and_deterministic_with_a_seed():
    ds = tf.data.Dataset.range(20).shuffle(8, seed=3)
    first, second = values(ds), values(ds)
    assert sorted(first) == list(range(20))
    assert first != list(range(20))
    assert first != second  # reshuffled each pass, as TensorFlow's default
    again = tf.data.Dataset.range(20).shuffle(8, seed=3)
    assert values(again) == first and values(again) == second  # same seed, same orders
    fixed = tf.data.Dataset.range(20).shuffle(8, seed=3, reshuffle_each_iteration=False)
    assert values(fixed) == values(fixed)
    # a buffer of 1 cannot reorder anything
    assert values(tf.data.Dataset.range(5).shuffle(1, seed=0)) == [0, 1, 2, 3, 4]


def test_reduce_prefetch_and_numpy_iterator():
    ds = tf.data.Dataset.range(1, 5).prefetch(tf.data.AUTOTUNE)
    total = ds.reduce(np.int64(0), lambda state, x: state + x)
    assert total.numpy() == 10 and total.dtype is tf.int64
    pair = ds.reduce((np.int64(0), np.int64(1)), lambda s, x: (s[0] + x, s[1] * x))
    assert [p.numpy() for p in pair] == [10, 24]
    assert [a.tolist() for a in ds.batch(2).as_numpy_iterator()] == [[1, 2], [3, 4]]


def test_from_generator_checks_what_it_yields():
    ds = tf.data.Dataset.from_generator(lambda: iter([(1, 2), (3, 4)]),
                                        output_types=(tf.int32, tf.int32))
    assert values(ds) == [(1, 2), (3, 4)]
    assert ds.element_spec == (tf.TensorSpec(None, tf.int32), tf.TensorSpec(None, tf.int32))
    shaped = tf.data.Dataset.from_generator(
        lambda: iter([[1.0, 2.0]]), output_signature=tf.TensorSpec((3,), tf.float32))
    with pytest.raises(ValueError, match="not compatible with the element_spec"):
        values(shaped)


def test_iterator_next_and_end():
    it = iter(tf.data.Dataset.from_tensor_slices([1, 2]))
    assert next(it).numpy() == 1
    assert it.get_next().numpy() == 2
    with pytest.raises(StopIteration):
        next(it)
    with pytest.raises(tf.errors.OutOfRangeError, match="End of sequence"):
        it.get_next()


def test_bad_arguments_say_what_to_do():
    with pytest.raises(ValueError, match="positive batch_size"):
        tf.data.Dataset.range(3).batch(0)
    with pytest.raises(ValueError, match="scalar bool"):
        tf.data.Dataset.range(3).filter(lambda x: x)
    with pytest.raises(TypeError, match="infinite"):
        len(tf.data.Dataset.range(3).repeat())
    with pytest.raises(tf.errors.InvalidArgumentError, match="different shapes"):
        list(tf.data.Dataset.from_generator(lambda: iter([[1], [1, 2]]), tf.int32).batch(2))
