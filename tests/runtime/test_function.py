"""Tests for runtime.function: cache keys, signatures, retracing, methods, concrete functions."""
import collections
import gc
import warnings

import numpy as np
import pytest

import runtime as tf
from runtime import config
from runtime.function import Function
from runtime.function import RetracingWarning

Point = collections.namedtuple("Point", ["x", "y"])


@pytest.fixture(params=["compiled", "interpreter"])
def executor(request):
    return request.param


def _counting(executor, **options):
    """Returns (Function adding its args, list of traced argument reprs)."""
    traces = []

    def add(a, b=1):
        traces.append((a, b))
        return a + b

    return tf.function(add, executor=executor, **options), traces


# -- construction ---------------------------------------------------------------------------

def test_decorator_with_and_without_arguments():
    @tf.function
    def f(x):
        return x * 2

    @tf.function(autograph=False, executor="interpreter")
    def g(x):
        return x * 3

    assert isinstance(f, Function) and isinstance(g, Function)
    assert f(tf.constant(2)).numpy() == 4
    assert g(tf.constant(2)).numpy() == 6
    assert f.__name__ == "f" and f.python_function.__name__ == "f"


def test_unknown_executor_is_rejected():
    with pytest.raises(ValueError, match="executor='compiled', 'interpreter' or 'xla'"):
        tf.function(lambda x: x, executor="jit")


def test_input_signature_must_hold_tensor_specs():
    with pytest.raises(TypeError, match="only \\(nested\\) TensorSpecs"):
        tf.function(lambda x: x, input_signature=[3])
    with pytest.raises(TypeError, match="list or tuple of TensorSpecs"):
        tf.function(lambda x: x, input_signature=tf.TensorSpec([], tf.int32))


# -- cache keys -----------------------------------------------------------------------------

def test_tensors_key_on_shape_and_dtype(executor):
    f, traces = _counting(executor)
    assert f(tf.constant(1), tf.constant(2)).numpy() == 3
    assert f(tf.constant(5), tf.constant(6)).numpy() == 11
    assert len(traces) == 1
    f(tf.constant([1, 2]), tf.constant(1))
    f(tf.constant(1.0), tf.constant(1.0))
    assert len(traces) == 3
    assert f.experimental_get_tracing_count() == 3


def test_python_values_key_on_type_and_value(executor):
    f, traces = _counting(executor)
    assert f(1).numpy() == 2
    assert f(1).numpy() == 2
    assert f(2).numpy() == 3
    assert f(True, 0).numpy() == 1  # True == 1 in Python, but a different key
    assert f(1.0).numpy() == 2.0
    assert [t for t in traces] == [(1, 1), (2, 1), (True, 0), (1.0, 1)]


def test_default_and_keyword_arguments_bind_to_the_same_key(executor):
    f, traces = _counting(executor)
    f(tf.constant(1))
    f(tf.constant(1), 1)
    f(a=tf.constant(1), b=1)
    assert len(traces) == 1


def test_nested_structures_key_on_their_flattened_leaves(executor):
    def total(point, items, opts):
        return point.x + point.y + items[0] + items[1] * opts["scale"]

    f = tf.function(total, executor=executor)
    out = f(Point(tf.constant(1), tf.constant(2)), [tf.constant(3), tf.constant(4)],
            {"scale": 10})
    assert out.numpy() == 1 + 2 + 3 + 40
    out = f(Point(tf.constant(5), tf.constant(5)), [tf.constant(0), tf.constant(1)],
            {"scale": 10})
    assert out.numpy() == 20
    assert f.experimental_get_tracing_count() == 1
    f(Point(tf.constant(5), tf.constant(5)), [tf.constant(0), tf.constant(1)], {"scale": 2})
    f(Point(tf.constant(5), tf.constant(5)), (tf.constant(0), tf.constant(1)), {"scale": 2})
    assert f.experimental_get_tracing_count() == 3


def test_numpy_arrays_become_tensors_keyed_on_shape_and_dtype(executor):
    f = tf.function(lambda x: x * 2, executor=executor)
    out = f(np.array([1.0, 2.0]))
    assert isinstance(out, tf.Tensor) and out.dtype == tf.float64
    np.testing.assert_array_equal(out.numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(f(np.array([3.0, 4.0])).numpy(), [6.0, 8.0])
    assert f.experimental_get_tracing_count() == 1
    f(np.array([3, 4], dtype=np.int32))
    assert f.experimental_get_tracing_count() == 2


class Holder:
    def __init__(self, value):
        self.value = value


def test_other_objects_key_on_identity_and_are_held_weakly(executor):
    f = tf.function(lambda h, x: x + h.value, executor=executor)
    first = Holder(1)
    assert f(first, tf.constant(1)).numpy() == 2
    first.value = 100  # same object: the trace is reused, the attribute is frozen
    assert f(first, tf.constant(1)).numpy() == 2
    second = Holder(10)
    assert f(second, tf.constant(1)).numpy() == 11
    assert f.experimental_get_tracing_count() == 2
    assert len(f._cache) == 2
    del first
    gc.collect()
    assert len(f._cache) == 1  # the dead object's trace was dropped


def test_variables_key_on_identity(executor):
    f = tf.function(lambda v: v * 2, executor=executor)
    v1 = tf.Variable(1.0)
    v2 = tf.Variable(1.0)
    assert f(v1).numpy() == 2.0
    v1.assign(4.0)
    assert f(v1).numpy() == 8.0  # read at call time
    assert f(v2).numpy() == 2.0
    assert f.experimental_get_tracing_count() == 2


# -- input signatures and reduce_retracing --------------------------------------------------

def test_input_signature_converts_python_values_and_checks_arity(executor):
    f = tf.function(lambda x: x + 1, executor=executor,
                    input_signature=[tf.TensorSpec([None], tf.float32)])
    np.testing.assert_array_equal(f([1.0, 2.0]).numpy(), [2.0, 3.0])
    np.testing.assert_array_equal(f(tf.constant([5.0])).numpy(), [6.0])
    with pytest.raises(TypeError, match="too many positional arguments"):
        f(tf.constant([1.0]), tf.constant([1.0]))
    with pytest.raises(ValueError, match="incompatible with input_signature"):
        f(tf.constant(1.0))
    assert f.experimental_get_tracing_count() == 1
    concrete = f.get_concrete_function()
    assert concrete is f.get_concrete_function(tf.TensorSpec([3], tf.float32))
    with pytest.raises(ValueError, match="incompatible with input_signature"):
        f.get_concrete_function(tf.TensorSpec([3], tf.int32))


def test_nested_input_signature(executor):
    f = tf.function(lambda pair: pair[0] * pair[1], executor=executor,
                    input_signature=[(tf.TensorSpec([], tf.int32), tf.TensorSpec([], tf.int32))])
    assert f((tf.constant(3), tf.constant(4))).numpy() == 12
    with pytest.raises(ValueError):
        f((tf.constant(3),))


def test_reduce_retracing_generalises_shapes(executor):
    shapes = []

    def double(x):
        shapes.append(tuple(x.shape))
        return x * 2

    f = tf.function(double, executor=executor, reduce_retracing=True)
    f(tf.constant([1]))
    np.testing.assert_array_equal(f(tf.constant([1, 2])).numpy(), [2, 4])
    np.testing.assert_array_equal(f(tf.constant([1, 2, 3])).numpy(), [2, 4, 6])
    f(tf.constant([[1]]))  # a different rank: traced on its own
    assert shapes == [(1,), (None,), (1, 1)]


# -- retracing warnings ---------------------------------------------------------------------

def test_retracing_warning_names_the_changed_argument(executor):
    f = tf.function(lambda num_steps: num_steps, executor=executor)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in (1, 2, 3, 4, 5):
            f(n)
        assert not caught
        f(10)
        f(20)
    messages = [str(w.message) for w in caught if w.category is RetracingWarning]
    assert len(messages) == 2
    assert "traced 7 times" in messages[1]
    assert ("argument `num_steps` is a Python int whose value changed: 10 -> 20; pass a "
            "tensor to avoid retracing") in messages[1]
    assert caught[0].filename == __file__


def test_retracing_warning_for_shapes():
    f = tf.function(lambda x: x)
    with pytest.warns(RetracingWarning, match=r"argument `x` is a tensor whose shape "
                                              r"changed: \(5,\) -> \(6,\)"):
        for n in range(1, 7):
            f(tf.zeros([n]))


# -- methods --------------------------------------------------------------------------------

class Scaler:
    def __init__(self, factor):
        self.factor = factor
        self.traces = 0

    @tf.function
    def scale(self, x):
        self.traces += 1
        return x * self.factor


def test_methods_bind_per_instance():
    a, b = Scaler(2), Scaler(3)
    assert a.scale(tf.constant(5)).numpy() == 10
    assert b.scale(tf.constant(5)).numpy() == 15
    assert a.scale(tf.constant(6)).numpy() == 12
    assert (a.traces, b.traces) == (1, 1)
    assert a.scale is a.scale
    assert a.scale.python_function.__self__ is a
    assert isinstance(Scaler.scale, Function)


def test_instances_are_held_weakly():
    unbound = Scaler.__dict__["scale"]
    s = Scaler(2)
    s.scale(tf.constant(1))
    assert len(unbound._bound) == 1
    del s
    gc.collect()
    assert len(unbound._bound) == 0


# -- concrete functions ---------------------------------------------------------------------

def test_concrete_function_call_forms(executor):
    f = tf.function(lambda a, b: a - b, executor=executor)
    concrete = f.get_concrete_function(tf.TensorSpec([], tf.int32), tf.TensorSpec([], tf.int32))
    assert concrete(tf.constant(5), tf.constant(3)).numpy() == 2
    assert concrete(b=tf.constant(5), a=tf.constant(3)).numpy() == -2
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected to have shape"):
        concrete(tf.constant([5]), tf.constant(3))
    with pytest.raises(TypeError):
        concrete(tf.constant(5))


def test_concrete_function_nested_structure_mismatch(executor):
    f = tf.function(lambda pair: pair[0] + pair[1], executor=executor)
    concrete = f.get_concrete_function([tf.constant(1), tf.constant(2)])
    assert concrete([tf.constant(3), tf.constant(4)]).numpy() == 7
    with pytest.raises(TypeError, match="nesting structure differs"):
        concrete([tf.constant(3), tf.constant(4), tf.constant(5)])


def test_structured_outputs(executor):
    def outputs(x):
        return {"double": x * 2, "none": None, "const": 7, "pair": (x, x + 1)}

    f = tf.function(outputs, executor=executor)
    out = f(tf.constant(3))
    assert out["double"].numpy() == 6 and out["none"] is None
    assert out["const"].numpy() == 7 and out["const"].dtype == tf.int32
    assert [t.numpy() for t in out["pair"]] == [3, 4]
    structure = f.get_concrete_function(tf.constant(3)).structured_outputs
    assert sorted(structure) == ["const", "double", "none", "pair"]
    assert structure["none"] is None


def test_returning_a_variable_returns_its_value(executor):
    v = tf.Variable(3)
    f = tf.function(lambda: v, executor=executor)
    assert f().numpy() == 3
    v.assign(4)
    assert f().numpy() == 4


def test_non_tensor_return_value_is_a_type_error():
    f = tf.function(lambda: object())
    with pytest.raises(TypeError, match="must return zero or more Tensors"):
        f()


def test_variable_created_on_a_later_trace_raises():
    made = []

    def maybe_create(x, create):
        if create:
            made.append(tf.Variable(1))
        return x

    f = tf.function(maybe_create)
    f(tf.constant(1), False)
    with pytest.raises(ValueError, match="only supports singleton tf.Variables"):
        f(tf.constant(1), True)


def test_run_functions_eagerly_requires_a_bool():
    with pytest.raises(TypeError, match="Python bool"):
        config.run_functions_eagerly(1)
    assert config.functions_run_eagerly() is False


def test_nested_function_call_is_traced_inline(executor):
    inner = tf.function(lambda x: x + 1, executor=executor)
    outer = tf.function(lambda x: inner(x) * 2, executor=executor)
    assert outer(tf.constant(3)).numpy() == 8
    assert inner.experimental_get_tracing_count() == 0
    node_ops = [n.op for n in outer.get_concrete_function(tf.constant(3)).graph.nodes]
    assert "add" in node_ops and "mul" in " ".join(node_ops)


def test_fast_path_matches_slow_path(executor):
    f = tf.function(lambda a, b: a * b + 1, executor=executor)
    for i in range(5):
        assert f(tf.constant(float(i)), tf.constant(2.0)).numpy() == 2.0 * i + 1
    assert f.experimental_get_tracing_count() == 1
    assert len(f._fast) == 1


def test_autograph_converts_the_python_function_of_a_tf_function():
    import autograph as ag

    def absolute(x):
        if x > 0:
            return x
        return -x

    traced = tf.function(absolute)
    assert ag.to_code(traced) == ag.to_code(absolute)
    assert ag.to_code(traced).startswith("def tf__absolute(x):")
    converted = ag.convert(traced)
    assert getattr(converted, "__ag_converted__", False) and converted(-3) == 3


def test_the_trace_cache_keeps_the_most_recently_used_traces(monkeypatch):
    from runtime.function import polymorphic  # pylint: disable=import-outside-toplevel
    monkeypatch.setattr(polymorphic, "MAX_TRACES", 4)
    staged = tf.function(lambda x: tf.reduce_sum(x) * 2)
    with pytest.warns(RetracingWarning):  # the retracing warning is kept
        for n in range(1, 11):  # ten shapes, keyword calls (not the positional fast paths)
            assert float(staged(x=tf.ones([n])).numpy()) == 2 * n
    assert staged.experimental_get_tracing_count() == 10
    assert len(staged._concretes()) == 4  # pylint: disable=protected-access
    for n in (7, 8, 9, 10):  # kept: no new trace
        assert float(staged(x=tf.ones([n])).numpy()) == 2 * n
    assert staged.experimental_get_tracing_count() == 10
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RetracingWarning)
        assert float(staged(x=tf.ones([1])).numpy()) == 2  # dropped: traced again
        assert float(staged(tf.ones([2])).numpy()) == 4
    assert staged.experimental_get_tracing_count() == 12
    assert len(staged._concretes()) == 4  # pylint: disable=protected-access


def test_a_trace_dropped_from_the_cache_leaves_the_positional_table_too(monkeypatch):
    from runtime.function import polymorphic  # pylint: disable=import-outside-toplevel
    monkeypatch.setattr(polymorphic, "MAX_TRACES", 2)
    staged = tf.function(lambda x: x + 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RetracingWarning)
        for n in range(1, 6):
            for _ in range(2):  # twice: the second call is served by the positional table
                assert staged(tf.ones([n])).numpy().tolist() == [2.0] * n
    assert staged.experimental_get_tracing_count() == 5
    kept = {id(c) for c in staged._concretes()}  # pylint: disable=protected-access
    assert {id(c) for c in staged._fast.values()} <= kept  # pylint: disable=protected-access
