"""runtime.function_calls: the generated entries run exactly what the general call path runs.

A Function's steady call signature (tensors, number arrays, Python primitives, keywords), and a
ConcreteFunction's, get a generated `__call__` (`function_calls.entry`). Each test here makes
the entry exist, then calls with something that the entry must not run (another dtype or
shape, another Python value, a tape, a graph being built, ...) and checks the result against
plain Python or the general path.
"""
import collections
import copy
import gc
import inspect
import random
import threading
import types
import warnings
import weakref

import numpy as np
import pytest

import autograph
import runtime as tf
from runtime import config
from runtime.function import calls as function_calls
from runtime.function import tracing as function_tracing
from runtime.errors import InvalidArgumentError
from runtime.function import RetracingWarning
from runtime.function import polymorphic as function_module
from runtime.tensor import EagerTensor

# Warnings these tests trigger on purpose: tests of the call paths retrace on purpose.
pytestmark = pytest.mark.filterwarnings("ignore::runtime.function.RetracingWarning")


@pytest.fixture(params=["compiled", "interpreter"])
def executor(request):
    return request.param


def _entry(fn):
    """The generated entry that calling the Function `fn` runs, or None (the general path)."""
    call = type(fn).__dict__.get("__call__")
    return call.__func__ if type(call) is staticmethod else None


def _steady(fn, *args, **kwargs):
    """Calls `fn` until it has its generated entry; returns the last result."""
    for _ in range(3):
        result = fn(*args, **kwargs)
    assert type(_entry(fn)) is types.FunctionType, "the signature has no entry"
    return result


def scale_add(a, b):
    return a * b + a


def test_another_dtype_or_shape_with_the_same_call_pattern_retraces(executor):
    f = tf.function(scale_add, executor=executor)
    out = _steady(f, tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0]))
    assert out.dtype is tf.float32 and list(out.numpy()) == [4.0, 10.0]
    out = f(tf.constant([1, 2]), tf.constant([3, 4]))
    assert out.dtype is tf.int32 and out.numpy().tolist() == [4, 10]
    out = f(tf.constant([1.0, 2.0, 3.0]), tf.constant([1.0, 1.0, 1.0]))
    assert out.shape == (3,) and out.numpy().tolist() == [2.0, 4.0, 6.0]
    out = f(tf.constant(np.float64(2.0)), tf.constant(np.float64(3.0)))
    assert out.dtype is tf.float64 and out.numpy() == 8.0
    assert f.experimental_get_tracing_count() == 4
    # the first signature again: its table entry, then its own generated entry
    for _ in range(3):
        assert f(tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])).numpy().tolist() == [4.0, 10.0]
    assert f.experimental_get_tracing_count() == 4


def times_length(x):
    return x * x.shape[0]  # the static shape is read while tracing


def test_another_shape_of_the_same_dtype_retraces(executor):
    f = tf.function(times_length, executor=executor)
    assert _steady(f, tf.constant([1.0, 1.0])).numpy().tolist() == [2.0, 2.0]
    assert f(tf.constant([1.0, 1.0, 1.0])).numpy().tolist() == [3.0, 3.0, 3.0]
    assert f(tf.constant([[1.0], [1.0]])).numpy().tolist() == [[2.0], [2.0]]
    assert f.experimental_get_tracing_count() == 3


def test_an_equal_but_distinct_dtype_object_takes_the_general_path():
    f = tf.function(scale_add)
    _steady(f, tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0]))
    labelled = np.dtype("f4", metadata={"unit": "m"})  # == float32, another object
    x = tf.constant(np.array([1.0, 2.0], np.float32).astype(labelled))
    assert x._value.dtype is not np.dtype("f4")
    for _ in range(3):
        assert f(x, tf.constant([3.0, 4.0])).numpy().tolist() == [4.0, 10.0]
    assert f.experimental_get_tracing_count() == 1


def power(x, n):
    return x ** n


def test_a_python_scalar_argument_keys_the_trace(executor):
    f = tf.function(power, executor=executor)
    x = tf.constant(3.0)
    n = 2
    assert _steady(f, x, n).numpy() == 9.0
    n += 1  # a new value of the same Python type
    assert f(x, n).numpy() == 27.0
    assert f(x, 2).numpy() == 9.0
    assert f(x, 2.5).numpy() == np.float32(3.0) ** np.float32(2.5)
    assert f(x, True).numpy() == 3.0  # equal to 1, but a bool: another trace
    assert f(x, tf.constant(2.0)).numpy() == 9.0
    assert f.experimental_get_tracing_count() == 5
    for n in (2, 3, 2, 3, 3, 3, 2, 2, 2):  # alternating, then steady: table, then entries
        assert f(x, n).numpy() == 3.0 ** n
    assert f.experimental_get_tracing_count() == 5


def select(x, mode, offset):
    if mode == "double":
        x = x * 2.0
    if offset is not None:
        x = x + offset
    return x


def test_string_and_none_arguments_key_the_trace(executor):
    f = tf.function(select, executor=executor)
    x = tf.constant(1.0)
    assert _steady(f, x, "double", None).numpy() == 2.0
    assert f(x, "same", None).numpy() == 1.0
    assert f(x, "double", 1.0).numpy() == 3.0
    assert f(x, "double", None).numpy() == 2.0


def test_python_numbers_under_an_input_signature_are_fed_as_tensors(executor):
    f = tf.function(power, executor=executor, input_signature=[tf.TensorSpec([], tf.float32)] * 2)
    x = tf.constant(3.0)
    for n in (2.0, 2.0, 2.0, 3.0, 3, 2.0):
        assert f(x, n).numpy() == 3.0 ** n
    assert f.experimental_get_tracing_count() == 1


def hinted_power(x: tf.Tensor, n: tf.Tensor):
    return x ** n


def test_python_numbers_hinted_as_tensors_are_fed_as_tensors(executor):
    f = tf.function(hinted_power, executor=executor, experimental_follow_type_hints=True)
    x = tf.constant(3.0)
    for n in (2.0, 2.0, 2.0, 3.0, 2.0):
        assert f(x, n).numpy() == 3.0 ** n
    assert f.experimental_get_tracing_count() == 1


def scaled_by_default(x, scale=[2.0]):  # noqa: B006 - the mutable default is the point
    return x * scale[0]


def test_a_mutated_default_argument_retraces():
    f = tf.function(scaled_by_default)
    x = tf.constant(3.0)
    for _ in range(3):
        assert f(x).numpy() == 6.0
    scaled_by_default.__defaults__[0][0] = 5.0
    try:
        assert f(x).numpy() == 15.0 == scaled_by_default(3.0)
    finally:
        scaled_by_default.__defaults__[0][0] = 2.0


def plus_default(x, y=tf.constant(1.0)):
    return x + y


def test_an_input_signature_with_a_defaulted_tensor_is_called_again():
    f = tf.function(plus_default, input_signature=[tf.TensorSpec([], tf.float32)] * 2)
    for _ in range(3):
        assert f(tf.constant(3.0)).numpy() == 4.0
    assert f(tf.constant(3.0), tf.constant(5.0)).numpy() == 8.0


def test_an_input_signature_with_none_dims_runs_every_size(executor):
    f = tf.function(scale_add, executor=executor,
                    input_signature=[tf.TensorSpec([None], tf.float32)] * 2)
    for n in (2, 2, 2, 5, 5, 5, 2):
        ones = tf.constant(np.ones(n, np.float32))
        assert f(ones, ones).numpy().tolist() == [2.0] * n
    assert f.experimental_get_tracing_count() == 1
    with pytest.raises(ValueError):
        f(tf.constant([1, 2]), tf.constant([1, 2]))


def test_reduce_retracing_gives_the_plain_results(executor):
    f = tf.function(scale_add, executor=executor, reduce_retracing=True)
    for n in (2, 2, 2, 3, 3, 3, 4, 2):
        x = tf.constant(np.arange(n, dtype=np.float32))
        assert f(x, x).numpy().tolist() == scale_add(x.numpy(), x.numpy()).tolist()
    assert f.experimental_get_tracing_count() == 2


def test_keywords_nested_values_and_another_arity_take_the_general_path(executor):
    f = tf.function(scale_add, executor=executor)
    x, y = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
    _steady(f, x, y)
    assert f(x, b=y).numpy().tolist() == [4.0, 10.0]
    assert f(b=y, a=x).numpy().tolist() == [4.0, 10.0]
    assert f(x, np.array([3.0, 4.0], np.float32)).numpy().tolist() == [4.0, 10.0]
    with pytest.raises(TypeError):
        f(x)
    with pytest.raises(TypeError):
        f(x, y, y)

    def total(*values):
        return tf.add_n(list(values))

    g = tf.function(total, executor=executor)
    assert _steady(g, x, y).numpy().tolist() == [4.0, 6.0]
    assert g(x, y, y).numpy().tolist() == [7.0, 10.0]
    assert g(x).numpy().tolist() == [1.0, 2.0]


def test_keyword_calls_bind_by_name(executor):
    f = tf.function(scale_add, executor=executor)
    x, y = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
    assert _steady(f, a=x, b=y).numpy().tolist() == [4.0, 10.0]
    assert f(b=y, a=x).numpy().tolist() == [4.0, 10.0]
    assert f(a=y, b=x).numpy().tolist() == [6.0, 12.0]
    assert f(x, b=y).numpy().tolist() == [4.0, 10.0]
    assert f(a=x, b=tf.constant(2.0)).numpy().tolist() == [3.0, 6.0]
    assert f.experimental_get_tracing_count() == 2


def weighted(x, **parts):
    return x + parts["a"] * 10.0 + parts["b"] * 100.0


def test_keyword_tensors_are_fed_in_the_graph_input_order(executor):
    f = tf.function(weighted, executor=executor)
    one, two, three = tf.constant(1.0), tf.constant(2.0), tf.constant(3.0)
    assert _steady(f, one, b=two, a=three).numpy() == 231.0
    assert f(one, a=two, b=three).numpy() == 321.0
    assert f(three, b=one, a=two).numpy() == 123.0


def total(**parts):
    return tf.add_n(list(parts.values()))


def test_an_extra_keyword_takes_the_general_path(executor):
    f = tf.function(total, executor=executor)
    one, two = tf.constant(1.0), tf.constant(2.0)
    assert _steady(f, a=one, b=two).numpy() == 3.0
    assert f(a=one, b=two, c=two).numpy() == 5.0
    assert f(a=one).numpy() == 1.0
    g = tf.function(scale_add, executor=executor)
    _steady(g, one, two)
    with pytest.raises(TypeError, match="unexpected keyword argument 'c'"):
        g(one, two, c=two)


def scaled(x, *, scale=2.0, shift=None):
    return x * scale if shift is None else x * scale + shift


def test_keyword_python_values_and_omitted_defaults(executor):
    f = tf.function(scaled, executor=executor)
    x = tf.constant(3.0)
    assert _steady(f, x, scale=3.0, shift=None).numpy() == 9.0
    assert f(x, scale=4.0, shift=None).numpy() == 12.0
    assert f(x, scale=3.0).numpy() == 9.0  # a default filled in: the general path
    assert f(x).numpy() == 6.0
    assert f(x, shift=1.0, scale=3.0).numpy() == 10.0
    assert f(x, scale=3, shift=None).numpy() == 9.0
    assert f(x, scale=3.0, shift=None).numpy() == 9.0


def clash(arg_0, rest, kwargs):
    return arg_0 + rest * kwargs


def test_parameters_named_like_the_entry_s_own(executor):
    f = tf.function(clash, executor=executor)
    one, two, three = tf.constant(1.0), tf.constant(2.0), tf.constant(3.0)
    assert _steady(f, kwargs=three, rest=two, arg_0=one).numpy() == 7.0
    assert f(kwargs=one, rest=two, arg_0=three).numpy() == 5.0
    assert _steady(f, one, two, three).numpy() == 7.0
    assert f(one, rest=three, kwargs=two).numpy() == 7.0


def test_numpy_arrays_are_fed_as_the_tensors_they_convert_to(executor):
    f = tf.function(scale_add, executor=executor)
    a, b = np.array([1.0, 2.0], np.float32), np.array([3.0, 4.0], np.float32)
    assert _steady(f, a, b).numpy().tolist() == [4.0, 10.0]
    with pytest.raises(TypeError, match="can't multiply sequence"):  # as plain Python
        f([1.0, 2.0], [3.0, 4.0])
    assert f(tf.constant(a), b).numpy().tolist() == [4.0, 10.0]  # the same trace
    assert f(a.astype(np.float64), b.astype(np.float64)).dtype is tf.float64
    assert f(a[:1], b[:1]).numpy().tolist() == [4.0]
    assert f(np.float32(1.0), np.float32(3.0)).numpy() == 4.0
    traces = f.experimental_get_tracing_count()
    assert f(a, b).numpy().tolist() == [4.0, 10.0]
    assert f.experimental_get_tracing_count() == traces


def echo(t):
    return tf.identity(t)


def test_string_arrays_take_the_general_path(executor):
    f = tf.function(echo, executor=executor)
    text = np.array(["ab", "c"])
    for _ in range(3):  # converted to a string tensor each time, not fed as it is
        assert f(text).numpy().tolist() == tf.constant(text).numpy().tolist() == [b"ab", b"c"]


def test_every_output_structure_is_packed_by_the_entry(executor):
    def pair(x):
        return x + 1.0, x * 2.0

    def nothing(x):
        del x

    def nested(x):
        return {"a": [x, None], "b": (x + 1.0,)}

    x = tf.constant([1.0, 2.0])
    got = _steady(tf.function(pair, executor=executor), x)
    assert type(got) is tuple and [t.numpy().tolist() for t in got] == [[2.0, 3.0], [2.0, 4.0]]
    assert _steady(tf.function(nothing, executor=executor), x) is None
    out = _steady(tf.function(nested, executor=executor), x)
    assert out["a"][1] is None and type(out["b"]) is tuple
    assert out["a"][0].numpy().tolist() == [1.0, 2.0] and out["b"][0].numpy().tolist() == [2, 3]
    constant = _steady(tf.function(lambda: tf.constant(4.0), executor=executor))
    assert type(constant) is EagerTensor and constant.numpy() == 4.0
    assert _steady(tf.function(lambda x: (), executor=executor), x) == ()
    single = _steady(tf.function(lambda x: (x * 3.0,), executor=executor), x)
    assert type(single) is tuple and [type(t) for t in single] == [EagerTensor]
    assert single[0].numpy().tolist() == [3.0, 6.0]
    f = tf.function(pair, executor=executor)
    first, again = _steady(f, x), f(x)  # each call makes its own tensors
    assert "result_1._value = out_1" in inspect.getsource(_entry(f))  # no packer
    assert [type(t) for t in again] == [EagerTensor, EagerTensor]
    assert first[0] is not again[0] and [t.numpy().tolist() for t in again] == [
        [2.0, 3.0], [2.0, 4.0]]


def test_a_variable_read_in_the_graph_is_read_at_every_call(executor):
    v = tf.Variable(2.0)

    def times_v(x):
        return x * v

    f = tf.function(times_v, executor=executor)
    x = tf.constant(3.0)
    assert _steady(f, x).numpy() == 6.0
    v.assign(5.0)
    assert f(x).numpy() == 15.0


def times(x, v):
    return x * v


def test_a_different_variable_argument_retraces(executor):
    f = tf.function(times, executor=executor)
    x, a, b = tf.constant(3.0), tf.Variable(2.0), tf.Variable(4.0)
    for _ in range(3):
        assert f(x, a).numpy() == 6.0
    assert f(x, b).numpy() == 12.0
    a.assign(10.0)
    assert f(x, a).numpy() == 30.0
    assert f.experimental_get_tracing_count() == 2


def checked_sqrt(x):
    assert x >= 0.0, "negative input"
    return tf.sqrt(x)


def test_an_error_raised_inside_propagates_and_later_calls_still_run(executor):
    f = tf.function(checked_sqrt, executor=executor)
    assert _steady(f, tf.constant(4.0)).numpy() == 2.0
    with pytest.raises(InvalidArgumentError, match="negative input"):
        f(tf.constant(-1.0))
    assert f(tf.constant(9.0)).numpy() == 3.0


def test_a_gradient_tape_records_a_steady_call(executor):
    f = tf.function(scale_add, executor=executor)
    x, y = tf.constant(3.0), tf.constant(2.0)
    _steady(f, x, y)
    with tf.GradientTape() as tape:
        tape.watch(x)
        out = f(x, y)
    assert out.numpy() == 9.0 and tape.gradient(out, x).numpy() == 3.0  # d(xy + x)/dx = y + 1
    assert f(x, y).numpy() == 9.0


def test_run_functions_eagerly_runs_the_python_function(executor):
    calls = []

    def counted(x):
        calls.append(x)
        return x + 1.0

    f = tf.function(counted, executor=executor)
    x = tf.constant(1.0)
    _steady(f, x)
    traced = len(calls)
    config.run_functions_eagerly(True)
    try:
        assert f(x).numpy() == 2.0 and f(x).numpy() == 2.0
    finally:
        config.run_functions_eagerly(False)
    assert len(calls) == traced + 2 and all(type(c) is type(x) for c in calls[traced:])
    assert f(x).numpy() == 2.0 and len(calls) == traced + 2


def test_a_steady_function_called_while_tracing_another_is_traced_inline(executor):
    v = tf.Variable(1.0)
    c = tf.constant(2.0)

    def read(x):
        return x * v

    inner = tf.function(read, executor=executor)
    assert _steady(inner, c).numpy() == 2.0

    def outer():
        return inner(c) + 1.0  # an eager tensor argument, while `outer` is traced

    f = tf.function(outer, executor=executor)
    assert f().numpy() == 3.0
    v.assign(10.0)
    assert f().numpy() == 21.0  # not the value `inner` had while `outer` was traced
    assert inner(c).numpy() == 20.0


def test_init_scope_while_tracing_runs_a_steady_function_eagerly(executor):
    inner = tf.function(scale_add, executor=executor)
    c = tf.constant(3.0)
    _steady(inner, c, c)
    seen = []

    def outer(x):
        with tf.init_scope():
            eager = inner(c, c)
            seen.append(eager)
        return x + eager

    f = tf.function(outer, executor=executor)
    assert f(tf.constant(1.0)).numpy() == 13.0
    assert type(seen[0]) is type(c) and seen[0].numpy() == 12.0


def test_a_scope_open_in_another_thread_gives_the_same_results(executor):
    f = tf.function(scale_add, executor=executor)
    x = tf.constant([1.0, 2.0])
    _steady(f, x, x)
    entered, release = threading.Event(), threading.Event()

    def hold_a_tape():
        with tf.GradientTape():
            entered.set()
            release.wait(10)

    thread = threading.Thread(target=hold_a_tape)
    thread.start()
    try:
        assert entered.wait(10)
        for _ in range(3):
            assert f(x, x).numpy().tolist() == [2.0, 6.0]
        assert f(x + 1.0, x).numpy().tolist() == [4.0, 9.0]
    finally:
        release.set()
        thread.join()


def subtract(a, b):  # only for the detector test: each Python function has one detector
    return a - b


def test_the_entry_counts_calls_for_the_retracing_detector():
    x = tf.constant(1.0)
    steady = tf.function(subtract)
    _steady(steady, x, x)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RetracingWarning)
        for _ in range(6):  # a new Function of the same Python function, traced once
            tf.function(subtract)(x, x)
            for _ in range(10):  # while the steady one is called through its entry
                steady(x, x)


def detector_history(a, b):  # only for the history test: each Python function has one detector
    return a - b


def test_entry_calls_enter_the_detector_history_as_untraced_calls():
    # The entry stops counting at HISTORY calls since the latest trace (the detector reads no
    # more); the history must be that of every call, kept by a deque of the last HISTORY.
    rng = random.Random(14)
    x = tf.constant(1.0)
    steady = tf.function(detector_history)
    reference = collections.deque([2, 0], maxlen=function_tracing.HISTORY)  # trace, table call
    assert steady(x, x).numpy() == 0.0 and steady(x, x).numpy() == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RetracingWarning)
        for _ in range(40):
            if rng.random() < 0.4:  # a new Function of the same Python function traces
                assert tf.function(detector_history)(x, x).numpy() == 0.0
                reference.append(2)
            else:
                for _ in range(rng.randrange(1, 25)):
                    assert steady(x, x).numpy() == 0.0
                    reference.append(0)
            assert _entry(steady) is not None
            assert steady._detector.calls() == tuple(reference)


def test_a_function_with_an_entry_is_still_a_function_where_users_see_it():
    f = tf.function(scale_add)
    x, y = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
    _steady(f, x, y)
    assert isinstance(f, function_module.Function)
    assert type(f).__name__ == "Function" and type(f).__qualname__ == "Function"
    assert repr(type(f)) == "<class 'runtime.function.Function'>"
    assert repr(f) == f"<runtime.Function scale_add at 0x{id(f):x}>"
    assert f.__name__ == "scale_add" and f.__wrapped__ is scale_add
    assert inspect.signature(f) == inspect.signature(scale_add)
    assert autograph.to_code(f) == autograph.to_code(scale_add)
    assert f.python_function is scale_add


def twice_scale_add(a, b):
    return STEADY_SCALE_ADD(a, b) * 2.0


STEADY_SCALE_ADD = tf.function(scale_add)


def test_a_function_with_an_entry_runs_unconverted_from_converted_code():
    x, y = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
    _steady(STEADY_SCALE_ADD, x, y)
    assert autograph.convert(twice_scale_add)(x, y).numpy().tolist() == [8.0, 20.0]
    assert _steady(tf.function(twice_scale_add), x, y).numpy().tolist() == [8.0, 20.0]


def test_entries_that_change_give_the_results_of_each_signature(monkeypatch):
    # a class of the Function's own is renewed every _ENTRY_CHANGES changes of its entry
    monkeypatch.setattr(function_module, "_ENTRY_CHANGES", 2)
    f = tf.function(scale_add)
    floats = (np.array([1.0, 2.0], np.float32), np.array([3.0, 4.0], np.float32))
    ints = (np.array([1, 2, 3], np.int32), np.array([2, 2, 2], np.int32))
    classes = []
    for k in range(8):
        a, b = floats if k % 2 == 0 else ints
        for _ in range(2):
            got = f(tf.constant(a), tf.constant(b))
            assert got.numpy().dtype == a.dtype and got.numpy().tolist() == (a * b + a).tolist()
        assert "dtype_0" in _entry(f).__code__.co_freevars  # the entry of this signature
        assert _entry(f)(tf.constant(a), tf.constant(b)).numpy().tolist() == (a * b + a).tolist()
        if type(f) not in classes:
            classes.append(type(f))
    assert len(classes) == 3  # made at k=0, renewed at k=3 and k=6
    assert all(cls.__base__ is function_module.Function for cls in classes)
    assert f.experimental_get_tracing_count() == 2


def test_a_dropped_function_releases_its_entry_without_the_collector():
    f = tf.function(scale_add)
    x = tf.constant([1.0, 2.0])
    _steady(f, x, x)
    entry = weakref.ref(_entry(f))
    gc.disable()
    try:
        del f
        assert entry() is None  # nor what it holds (the executor and its constants)
    finally:
        gc.enable()


def test_a_copy_of_a_function_with_an_entry_outlives_the_original():
    f = tf.function(scale_add)
    x, y = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
    _steady(f, x, y)
    g = copy.copy(f)  # shares the original's state (a shallow copy), and so its entry
    z = tf.constant([1, 2])
    assert _steady(g, z, z).numpy().tolist() == [2, 6]
    assert f(x, y).numpy().tolist() == [4.0, 10.0] and g(x, y).numpy().tolist() == [4.0, 10.0]
    del f
    gc.collect()
    for _ in range(3):
        assert g(x, y).numpy().tolist() == [4.0, 10.0] and g(z, z).numpy().tolist() == [2, 6]
    assert _steady(g, x, y).numpy().tolist() == [4.0, 10.0]


def test_a_function_made_by_the_type_of_one_with_an_entry_is_a_new_one():
    f = tf.function(scale_add)
    x, y = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
    _steady(f, x, y)
    g = type(f)(subtract)  # the type named Function that f's entry is the __call__ of
    assert type(g) is function_module.Function and _entry(g) is None
    for _ in range(3):
        assert g(x, y).numpy().tolist() == [-2.0, -2.0]
        assert f(x, y).numpy().tolist() == [4.0, 10.0]


def test_methods_have_an_entry_per_instance(executor):
    class Scaler:
        def __init__(self, k):
            self.k = tf.Variable(k)

        @tf.function(executor=executor)
        def __call__(self, x):
            return x * self.k

    a, b = Scaler(2.0), Scaler(3.0)
    x = tf.constant(1.0)
    for _ in range(3):
        assert a(x).numpy() == 2.0 and b(x).numpy() == 3.0
    assert _entry(a.__call__) is not None and _entry(b.__call__) is not None
    assert type(a.__call__) is not type(b.__call__)  # each bound Function has its own
    assert isinstance(Scaler.__dict__["__call__"], function_module.Function)


def test_a_kept_call_of_a_collected_function_says_so():
    f = tf.function(scale_add)
    x = tf.constant(1.0)
    _steady(f, x, x)
    call = f.__call__
    assert call(x, x).numpy() == 2.0
    del f
    gc.collect()
    with pytest.raises(ReferenceError, match="garbage collected"):
        call(x)


# -- ConcreteFunction ------------------------------------------------------------------------

def test_a_concrete_function_with_none_dims_checks_the_known_ones(executor):
    concrete = tf.function(scale_add, executor=executor).get_concrete_function(
        tf.TensorSpec([None, 2], tf.float32), tf.TensorSpec([], tf.float32))
    two = tf.constant(2.0)
    for rows in (1, 3, 1):
        out = concrete(tf.constant(np.ones((rows, 2), np.float32)), two)
        assert out.numpy().tolist() == [[3.0, 3.0]] * rows
    assert "_call" in vars(concrete)
    with pytest.raises(InvalidArgumentError, match=r"expected to have shape \(None, 2\)"):
        concrete(tf.constant(np.ones((3, 3), np.float32)), two)
    with pytest.raises(InvalidArgumentError, match=r"expected to have shape \(None, 2\)"):
        concrete(tf.constant(np.ones(2, np.float32)), two)
    with pytest.raises(InvalidArgumentError, match="expected to be a float32 tensor"):
        concrete(tf.constant(np.ones((1, 2), np.float64)), two)
    assert concrete(tf.constant([[1.0, 2.0]]), b=two).numpy().tolist() == [[3.0, 6.0]]


def test_a_concrete_function_of_unknown_rank_runs_every_rank():
    def first_plus(x):
        return tf.reduce_sum(x) + 1.0

    concrete = tf.function(first_plus).get_concrete_function(tf.TensorSpec(None, tf.float32))
    for shape in ((), (2,), (2, 3), ()):
        assert concrete(tf.constant(np.ones(shape, np.float32))).numpy() == np.prod(shape) + 1


def _plus(k):
    def plus(a, b):
        return a * b + k

    return plus


def test_entries_share_their_compiled_source():
    before = len(function_calls._FACTORIES)
    for k in range(3):
        f = tf.function(_plus(float(k)))
        assert _steady(f, tf.constant(1.0), tf.constant(2.0)).numpy() == 2.0 + k
    assert len(function_calls._FACTORIES) <= before + 1


# -- a tensor checked once (EagerTensor._sig) ----------------------------------------------------

def test_run_functions_eagerly_twice_then_off_traces_again(executor):
    calls = []

    def counted(x):
        calls.append(x)
        return x * 2.0

    f = tf.function(counted, executor=executor)
    x = tf.constant(3.0)
    _steady(f, x)
    traced = len(calls)
    config.run_functions_eagerly(True)
    config.run_functions_eagerly(True)  # a second True is no second switch
    try:
        assert f(x).numpy() == 6.0 and len(calls) == traced + 1
    finally:
        config.run_functions_eagerly(False)
    assert f(x).numpy() == 6.0 and f(x).numpy() == 6.0 and len(calls) == traced + 1
    config.run_functions_eagerly(False)  # already off: nothing changes
    assert f(x).numpy() == 6.0 and len(calls) == traced + 1


def test_a_tensor_checked_once_runs_every_later_call_as_plain(executor):
    f = tf.function(scale_add, executor=executor)
    a, b = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
    for _ in range(5):
        assert f(a, b).numpy().tolist() == [4.0, 10.0]
    # the same tensors, now marked, to a function of another signature and back
    g = tf.function(lambda x: tf.reduce_sum(x), executor=executor)
    for _ in range(4):
        assert g(a).numpy() == 3.0
        assert f(a, b).numpy().tolist() == [4.0, 10.0]
        assert f(b, a).numpy().tolist() == [6.0, 12.0]
        assert f(a, a).numpy().tolist() == [2.0, 6.0]
    assert f.experimental_get_tracing_count() == 1


def sum_times_rows(x):
    return tf.reduce_sum(x) * x.shape[0]  # the static shape: a constant of the trace


def _plain_sum_times_rows(tensor):
    value = np.asarray(tensor)
    return value.sum() * value.shape[0]


# Reshaping an array in place (setting .shape) is what the test is about; NumPy 2.5
# deprecates it.
@pytest.mark.filterwarnings("ignore:Setting the shape on a NumPy array:DeprecationWarning")
def test_a_marked_tensor_keeps_its_shape_when_an_array_it_gave_is_reshaped(executor):
    f = tf.function(sum_times_rows, executor=executor)
    x = tf.constant([1.0, 2.0, 3.0, 4.0])
    for _ in range(4):
        assert f(x).numpy() == 40.0
    given = x.numpy()
    given.shape = (2, 2)  # reshaping the arrays handed out in place ...
    given_too = np.asarray(x)
    given_too.shape = (4, 1)
    assert x.shape == (4,)  # ... leaves the tensor as it is (the data is shared)
    given[0, 0] = 11.0
    assert x.numpy().tolist() == [11.0, 2.0, 3.0, 4.0]
    assert f(x).numpy() == 80.0 == _plain_sum_times_rows(x)


# Reshaping an array in place (setting .shape) is what the test is about; NumPy 2.5
# deprecates it.
@pytest.mark.filterwarnings("ignore:Setting the shape on a NumPy array:DeprecationWarning")
def test_a_user_array_reshaped_in_place_after_the_check_is_not_run_as_checked(executor):
    f = tf.function(sum_times_rows, executor=executor)
    array = np.arange(4.0, dtype=np.float32)
    x = tf.constant(array)  # wraps the user's array object
    for _ in range(4):
        assert f(x).numpy() == 24.0
    array.shape = (2, 2)  # in place, on the user's own object
    # the tensor has kept the shape it was checked with (or, if it had not, it retraces):
    # either way the result is that of plain numpy on the tensor's value
    assert f(x).numpy() == _plain_sum_times_rows(x)


# Reshaping an array in place (setting .shape) is what the test is about; NumPy 2.5
# deprecates it.
@pytest.mark.filterwarnings("ignore:Setting the shape on a NumPy array:DeprecationWarning")
def test_a_tensor_sharing_its_array_with_another_is_marked_on_a_view(executor):
    f = tf.function(sum_times_rows, executor=executor)
    x = tf.constant(np.arange(4.0, dtype=np.float32))
    same = tf.identity(x)  # another tensor of the same array object
    assert same is not x and same._value is x._value
    for _ in range(4):
        assert f(same).numpy() == 24.0
    x._value.shape = (2, 2)  # (as any holder of that array object could)
    assert f(same).numpy() == _plain_sum_times_rows(same)


def test_results_fed_back_are_checked_and_marked(executor):
    f = tf.function(lambda x: x * 2.0, executor=executor)
    x = tf.constant([1.0])
    for _ in range(10):
        x = f(x)
    assert x.numpy().tolist() == [1024.0] and x.dtype is tf.float32
    assert f.experimental_get_tracing_count() == 1
    # a result of another shape or dtype fed back takes the general path (a new trace)
    y = f(tf.constant([1.0, 2.0]))
    assert f(y).numpy().tolist() == [4.0, 8.0] and f.experimental_get_tracing_count() == 2
    z = f(tf.constant([1.0], dtype=tf.float64))
    assert f(z).dtype is tf.float64 and f.experimental_get_tracing_count() == 3


class _Raising:
    """An object whose every missing attribute raises an error of its own (no AttributeError)."""

    def __getattr__(self, name):
        raise RuntimeError(f"no {name} here")


class _Pretending:
    """An object with every attribute an EagerTensor has, but none of its marks."""

    _sig = function_calls.sig(np.dtype(np.float32), (3,))  # equal to a mark, another object
    _value = np.ones(2, np.float32)


def test_objects_that_are_no_tensors_take_the_path_of_a_function_without_entry(executor):
    # a steady entry reads the marks of its arguments first: what is no marked EagerTensor,
    # however its attributes behave, gets what a Function without an entry gives it
    x, y = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
    for odd in (_Raising(), _Pretending(), np.float32(2.0), [1.0, 2.0], None, "a"):
        outcomes = []
        for f in (tf.function(scale_add, executor=executor),
                  tf.function(scale_add, executor=executor)):
            if outcomes:
                _steady(f, x, y)
            try:
                result = f(odd, y)
                outcomes.append(("result", result.dtype, result.numpy().tolist()))
            except Exception as e:  # noqa: BLE001 - compared
                outcomes.append((type(e), str(e)))
        assert outcomes[0] == outcomes[1], odd


def test_a_fresh_tensor_beside_a_marked_one_is_checked(executor):
    f = tf.function(scale_add, executor=executor)
    x, y = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
    _steady(f, x, y)
    for a, b in ((tf.constant([2.0, 2.0]), y), (x, tf.constant([1.0, 1.0])),
                 (tf.constant([1.0, 2.0, 3.0]), tf.constant([1.0, 1.0, 1.0])),
                 (tf.constant([[1.0, 2.0]]), y)):
        plain = np.asarray(a) * np.asarray(b) + np.asarray(a)
        got = f(a, b)
        assert got.numpy().dtype == plain.dtype and got.numpy().tolist() == plain.tolist()
    assert f.experimental_get_tracing_count() == 3


def test_a_marked_tensor_of_another_signature_takes_the_general_path(executor):
    f = tf.function(lambda x: x + 1, executor=executor)
    ints, floats = tf.constant([1, 2]), tf.constant([1.0, 2.0])
    for _ in range(3):
        assert f(ints).numpy().tolist() == [2, 3]
    for _ in range(3):
        out = f(floats)
        assert out.dtype is tf.float32 and out.numpy().tolist() == [2.0, 3.0]
    assert f(ints).dtype is tf.int32 and f(ints).numpy().tolist() == [2, 3]


def test_marks_are_one_object_per_dtype_and_shape():
    a = function_calls.sig(np.dtype(np.float32), (2, 3))
    assert function_calls.sig(np.dtype(np.float32), (2, 3)) is a
    assert function_calls.sig(np.dtype(np.float32), (3, 2)) is not a
    assert function_calls.sig(np.dtype(np.float64), (2, 3)) is not a


def test_numpy_and_array_hand_out_views_of_the_value():
    x = tf.constant([[1, 2], [3, 4]])
    for given in (x.numpy(), np.asarray(x), np.array(x, copy=False)):
        assert given is not x._value and np.shares_memory(given, x._value)
        assert given.tolist() == [[1, 2], [3, 4]]
    copied = np.array(x, copy=True)
    assert not np.shares_memory(copied, x._value) and copied.tolist() == [[1, 2], [3, 4]]
    assert np.asarray(x, dtype=np.float64).dtype == np.float64
    scalar = tf.constant(2.5).numpy()
    assert type(scalar) is np.float32 and scalar == 2.5
