"""`for x in dataset` inside tf.function: staged as one loop, equal to the eager run.

Each function runs three ways: plain Python over the eager dataset (the reference), and as a
tf.function on each executor. Datasets are arguments, so a dataset of another size reuses
the trace, as with TensorFlow's DatasetSpec."""
import numpy as np
import pytest

import runtime as tf

EXECUTORS = ["compiled", "interpreter"]


def _py(value):
    if isinstance(value, (tuple, list)):
        return tuple(_py(v) for v in value)
    return np.asarray(value).tolist()


def sum_until_big(ds):
    total = tf.constant(0, tf.int64)
    for x in ds:
        if x > 5:
            break
        total += x
    return total


def first_big(ds):
    for x in ds:
        if x > 5:
            return x * 10
    return tf.constant(-1, tf.int64)


def pairs(ds):
    acc = tf.constant(0.0)
    for i, (x, y) in ds.enumerate():
        acc += tf.cast(i, tf.float32) * x - y
    return acc


def transformed_inside(ds):
    out = tf.constant(0, tf.int64)
    for batch in ds.map(lambda v: v * 3).filter(lambda v: v % 2 == 0).batch(2):
        out = out * 100 + tf.reduce_sum(batch)
    return out


def nested(ds):
    total = tf.constant(0, tf.int64)
    for x in ds:
        for y in ds.take(2):
            total += x * y
    return total


def reduced(ds):
    return ds.reduce(tf.constant(0, tf.int64), lambda s, x: s * 2 + x)


def zipped(ds):
    total = tf.constant(0, tf.int64)
    for a, b in tf.data.Dataset.zip((ds, ds.skip(1))):
        total += a * b
    return total


CASES = [
    (sum_until_big, lambda: tf.data.Dataset.range(10), lambda: tf.data.Dataset.range(4)),
    (first_big, lambda: tf.data.Dataset.range(10), lambda: tf.data.Dataset.range(4)),
    (pairs, lambda: tf.data.Dataset.from_tensor_slices(([1.0, 2.0, 4.0], [0.5, 0.0, 1.0])),
     lambda: tf.data.Dataset.from_tensor_slices(([3.0], [1.0]))),
    (transformed_inside, lambda: tf.data.Dataset.range(9), lambda: tf.data.Dataset.range(2)),
    (nested, lambda: tf.data.Dataset.range(1, 4), lambda: tf.data.Dataset.range(5, 6)),
    (reduced, lambda: tf.data.Dataset.range(1, 6), lambda: tf.data.Dataset.range(0)),
    (zipped, lambda: tf.data.Dataset.range(5), lambda: tf.data.Dataset.range(2)),
]


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("fn, first, second", CASES, ids=[c[0].__name__ for c in CASES])
def test_staged_equals_eager_with_one_trace(fn, first, second, executor):
    staged = tf.function(fn, executor=executor)
    for make in (first, second):
        assert _py(staged(make())) == _py(fn(make()))
    assert staged.experimental_get_tracing_count() == 1
    whiles = [n for n in staged.get_concrete_function(first()).graph.nodes if n.op == "while"]
    assert whiles  # a staged loop, not one unrolled per element


def test_known_results():
    # Worked out by hand, so that an agreeing but wrong pair of runs fails.
    assert sum_until_big(tf.data.Dataset.range(10)).numpy() == 15
    assert tf.function(first_big)(tf.data.Dataset.range(10)).numpy() == 60
    # batches [0, 6], [12, 18], [24]
    assert tf.function(transformed_inside)(tf.data.Dataset.range(9)).numpy() == 63024
    assert tf.function(reduced)(tf.data.Dataset.range(1, 4)).numpy() == 11


def test_another_element_spec_traces_again():
    @tf.function
    def f(ds):
        total = tf.constant(0, tf.int64)
        for x in ds:
            total += tf.reduce_sum(x)
        return total

    assert f(tf.data.Dataset.range(3)).numpy() == 3
    assert f(tf.data.Dataset.range(4).map(lambda x: tf.cast(x, tf.int64))).numpy() == 6
    assert f.experimental_get_tracing_count() == 1  # the same element_spec
    assert f(tf.data.Dataset.range(3).batch(2)).numpy() == 3
    assert f.experimental_get_tracing_count() == 2


def test_a_concrete_function_takes_another_dataset():
    f = tf.function(sum_until_big)
    concrete = f.get_concrete_function(tf.data.Dataset.range(3))
    assert concrete(tf.data.Dataset.range(5)).numpy() == 10
    assert "DatasetSpec(TensorSpec(shape=(), dtype=tf.int64" in str(
        f.pretty_printed_concrete_signatures())


def test_a_dataset_made_inside_from_a_tensor_argument():
    @tf.function
    def f(x):
        total = tf.constant(0.0)
        for row in tf.data.Dataset.from_tensor_slices(x).batch(2):
            total += tf.reduce_sum(row)
        return total

    assert f(tf.constant([1.0, 2.0, 3.0])).numpy() == 6.0
    assert f(tf.constant([1.0, 2.0, 3.0, 4.0, 5.0])).numpy() == 15.0
    assert f.experimental_get_tracing_count() == 2  # (a new shape, as for any tensor)

    @tf.function(input_signature=[tf.TensorSpec([None]), tf.TensorSpec([None])])
    def pairs(x, y):
        total = tf.constant(0.0)
        for a, b in tf.data.Dataset.from_tensor_slices((x, y)):
            total += a * b
        return total

    assert pairs(tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])).numpy() == 11.0
    with pytest.raises(tf.errors.InvalidArgumentError, match="one first dimension"):
        pairs(tf.constant([1.0, 2.0]), tf.constant([3.0]))


def test_a_dataset_closed_over_is_read_at_every_call():
    ds = tf.data.Dataset.range(4).shuffle(4, seed=1)

    @tf.function
    def f():
        out = tf.constant(0, tf.int64)
        for x in ds:
            out = out * 10 + x
        return out

    first, second = f().numpy(), f().numpy()
    assert sorted(str(first).zfill(4)) == ["0", "1", "2", "3"]
    assert first != second  # each run is a new pass, reshuffled


def test_guide_loop_over_a_dataset_keeps_the_graph_small():
    # The tf.function guide, "Looping over Python data": a dataset from_generator gives the
    # same graph for 3 and for 10 elements (a Python list unrolls one copy per element).
    def measure_graph_size(f, *args):
        return len(f.get_concrete_function(*args).graph.as_graph_def().node)

    @tf.function
    def train(dataset):
        loss = tf.constant(0)
        for x, y in dataset:
            loss += tf.abs(y - x)  # Some dummy computation.
        return loss

    small_data = [(1, 1)] * 3
    big_data = [(1, 1)] * 10
    assert measure_graph_size(train, small_data) < measure_graph_size(train, big_data)
    sizes = [measure_graph_size(train, tf.data.Dataset.from_generator(
        lambda: data, (tf.int32, tf.int32))) for data in (small_data, big_data)]
    assert sizes[0] == sizes[1]
    assert train(tf.data.Dataset.from_generator(lambda: [(1, 4)] * 3,
                                                (tf.int32, tf.int32))).numpy() == 9


def test_guide_iterator_is_consumed_at_every_call(capfd):
    # The guide, "Using Python iterators and generators": a tf.data iterator passed to a
    # tf.function gives the next value at every call (a Python iterator would repeat 1).
    @tf.function
    def good_consume_next(iterator):
        tf.print("Value:", next(iterator))

    ds = tf.data.Dataset.from_tensor_slices([1, 2, 3])
    iterator = iter(ds)
    good_consume_next(iterator)
    good_consume_next(iterator)
    good_consume_next(iterator)
    captured = capfd.readouterr()
    assert (captured.out + captured.err).split("\n")[:3] == ["Value: 1", "Value: 2",
                                                              "Value: 3"]
    with pytest.raises(tf.errors.OutOfRangeError, match="End of sequence"):
        good_consume_next(iterator)


def test_plain_python_iteration_in_a_graph_is_refused():
    @tf.function(autograph=False)
    def f(ds):
        return [x for x in ds]

    with pytest.raises(TypeError, match="iterated by plain Python while a graph"):
        f(tf.data.Dataset.range(2))


def test_len_in_a_graph_says_to_use_cardinality():
    @tf.function
    def f(ds):
        return len(ds)

    with pytest.raises(TypeError, match=r"use dataset.cardinality\(\) inside tf.function"):
        f(tf.data.Dataset.range(3))
    assert len(tf.data.Dataset.range(3)) == 3  # eagerly it is the count

    @tf.function
    def g(ds):
        kept = ds.filter(lambda x: x > 0)
        return ds.cardinality(), ds.batch(2).cardinality(), kept.cardinality()

    assert [int(c) for c in g(tf.data.Dataset.range(5))] == [5, 3, tf.data.UNKNOWN_CARDINALITY]
    assert [int(c) for c in g(tf.data.Dataset.range(2))] == [2, 1, tf.data.UNKNOWN_CARDINALITY]
