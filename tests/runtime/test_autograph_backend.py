"""Tests for runtime.autograph_backend: the hooks alone, and staged Python through tf.function."""
import asyncio
import warnings

import numpy as np
import pytest

import autograph as ag
import runtime as tf
from autograph.operators import backends
from runtime import autograph_backend
from runtime.autograph_backend import BACKEND
from runtime.graph import Graph

# Warnings these tests trigger on purpose: cases trace new functions of the same Python function
# on purpose.
pytestmark = pytest.mark.filterwarnings("ignore::runtime.function.RetracingWarning")


def test_registered_on_import():
    assert autograph_backend.REGISTERED
    assert BACKEND in backends.registered_backends()


def test_is_staged_only_for_graph_values():
    eager = tf.constant(1)
    variable = tf.Variable(1)
    assert not BACKEND.is_staged(eager) and not BACKEND.is_staged(variable)
    assert not BACKEND.is_staged(1) and not BACKEND.is_staged([eager])
    graph = Graph("g")
    with graph.as_default():
        symbolic = graph.placeholder(tf.int32, ())
        assert BACKEND.is_staged(symbolic)
        assert BACKEND.is_staged(eager) and BACKEND.is_staged(variable)
        assert BACKEND.is_staged(tf.TensorArray(tf.int32, size=2))
    assert not BACKEND.is_staged(tf.TensorArray(tf.int32, size=2))


def test_type_of_python_numbers_is_weak_and_tensors_their_dtype():
    assert BACKEND.type_of(0) == "int" and BACKEND.type_of(tf.constant(3)) == "int32"
    assert BACKEND.type_of(0.5) == "float" and BACKEND.type_of(tf.constant(1.0)) == "float32"
    assert BACKEND.type_of(True) == "bool"
    assert BACKEND.type_of(tf.constant(1, tf.int64)) == "int64"
    assert BACKEND.type_of(tf.TensorArray(tf.float32, size=1)) == "TensorArray[float32]"


def test_call_builtin_without_overload_raises_not_implemented():
    with pytest.raises(NotImplementedError):
        BACKEND.call_builtin(sorted, (tf.constant([1]),), {})
    with pytest.raises(NotImplementedError):
        BACKEND.call_builtin(int, (tf.constant("1"),), {"base": 10})


@pytest.fixture(params=["compiled", "interpreter"])
def executor(request):
    return request.param


def _branchy(x):
    if x > 0:
        y = x * 2
    else:
        y = -x
    return y


def test_if_on_a_tensor_stages_a_cond(executor):
    f = tf.function(_branchy, executor=executor)
    assert f(tf.constant(3)).numpy() == 6
    assert f(tf.constant(-4)).numpy() == 4
    assert f.experimental_get_tracing_count() == 1
    ops = [n.op for n in f.get_concrete_function(tf.constant(1)).graph.nodes]
    assert "cond" in ops


def _sum_below(n):
    total = 0
    i = 0
    while i < n:
        total += i
        i += 1
    return total


def test_while_with_python_initial_values(executor):
    f = tf.function(_sum_below, executor=executor)
    assert f(tf.constant(5)).numpy() == 0 + 1 + 2 + 3 + 4
    assert f(tf.constant(0)).numpy() == 0


def _sum_rows(x):
    total = tf.zeros([2])
    for row in x:
        total += row
    return total


def test_for_over_a_tensor_iterates_its_first_dimension(executor):
    f = tf.function(_sum_rows, executor=executor)
    data = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)
    np.testing.assert_array_equal(f(tf.constant(data)).numpy(), [9.0, 12.0])
    ops = [n.op for n in f.get_concrete_function(tf.constant(data)).graph.nodes]
    assert "while" in ops


def _sum_range(start, stop, step):
    total = 0
    for i in tf.range(start, stop, step):
        total += i
    return total


def test_for_over_a_range_tensor(executor):
    f = tf.function(_sum_range, executor=executor)
    for start, stop, step in [(0, 5, 1), (2, 11, 3), (10, 0, -2), (3, 3, 1), (5, 0, 1)]:
        expected = sum(range(start, stop, step))
        got = f(tf.constant(start), tf.constant(stop), tf.constant(step)).numpy()
        assert got == expected, (start, stop, step)


def _collect_squares(n):
    ta = tf.TensorArray(tf.int32, size=n)
    for i in tf.range(n):
        ta = ta.write(i, i * i)
    total = 0
    for v in ta.stack():
        total += v
    return total


def test_for_with_tensor_array(executor):
    f = tf.function(_collect_squares, executor=executor)
    assert f(tf.constant(4)).numpy() == 0 + 1 + 4 + 9


def _builtins(x):
    return len(x), abs(x[0]), max(x), min(x), sum(x), float(x[1]), int(x[1] * 1.5)


def test_builtins_on_tensors(executor):
    f = tf.function(_builtins, executor=executor)
    out = f(tf.constant([-3.0, 2.0, 7.0]))
    values = [t.numpy() for t in out]
    assert values == [3, 3.0, 7.0, -3.0, 6.0, 2.0, 3]
    assert out[6].dtype == tf.int64 and out[5].dtype == tf.float32


def _any_all(x):
    return any(x), all(x)


def test_any_all_on_tensors(executor):
    f = tf.function(_any_all, executor=executor)
    assert [t.numpy() for t in f(tf.constant([True, False]))] == [True, False]
    assert [t.numpy() for t in f(tf.constant([True, True]))] == [True, True]


def _not_and_assert(x):
    assert x > 0, "x must be positive"
    return not (x > 5)


def test_not_and_assert(executor):
    f = tf.function(_not_and_assert, executor=executor)
    assert f(tf.constant(3)).numpy()
    assert not f(tf.constant(9)).numpy()
    with pytest.raises(tf.errors.InvalidArgumentError, match="x must be positive"):
        f(tf.constant(-1))


def _print_in_branch(x):
    print("traced", x)
    if x > 0:
        print("positive", x)
    return x


def test_print_is_python_at_top_level_and_staged_in_branches(capsys, executor):
    f = tf.function(_print_in_branch, executor=executor)
    f(tf.constant(2))
    f(tf.constant(3))
    f(tf.constant(-1))
    assert capsys.readouterr().out == (
        'traced Tensor("x:0", shape=(), dtype=int32)\npositive 2\npositive 3\n')


def _plain(x):
    if x > 0:
        return "pos"
    return "neg"


def test_eager_tensors_run_as_python():
    import autograph
    converted = autograph.convert(_plain)
    assert converted(tf.constant(1)) == "pos"
    assert converted(tf.constant(-1)) == "neg"


counter = tf.Variable(0)


def _count_down():
    while counter > 0:
        counter.assign_sub(1)
        tf.print(counter)
    return counter


def test_while_without_loop_variables(capsys, executor):
    counter.assign(3)
    f = tf.function(_count_down, executor=executor)
    assert f().numpy() == 0
    assert capsys.readouterr().out == "2\n1\n0\n"


# Lists appended to / popped from in staged loops, and enumerate/zip of tensors: each runs as
# plain Python (eager tensors), converted with eager tensors, and traced with both executors.

def _run_four_ways(fn, *args):
    """Returns [plain, converted, interpreted, compiled] results, each a list of numpy values."""
    def flat(value):  # Python numbers convert as the runtime does (int -> int32)
        values = value if isinstance(value, tuple) else (value,)
        return [tf.convert_to_tensor(v).numpy() for v in values]

    results = [fn(*args), ag.convert(fn)(*args)]
    for executor in ("interpreter", "compiled"):
        results.append(tf.function(fn, executor=executor)(*args))
    return [flat(r) for r in results]


def _assert_all_equal(results):
    expected = results[0]
    for got in results[1:]:
        assert len(got) == len(expected)
        for a, b in zip(expected, got):
            np.testing.assert_array_equal(a, b)
            assert a.dtype == b.dtype


def _stack_doubles(n):
    l = []
    for i in tf.range(n):
        l.append(i * 2)
    return tf.stack(l)


def _pop_sum(n):
    l = [1, 2, 3, 4, 5]
    total = 0
    while n > 0:
        x = l.pop()
        total = total + x
        n = n - 1
    l.append(total)
    return tf.stack(l)


def _pairs_below(n):
    l = []
    for i in tf.range(n):
        for j in tf.range(i):
            l.append(tf.stack([i, j]))
    return tf.stack(l)


def _positives(x):
    l = [0.0]
    for v in x:
        if v > 0:
            l.append(v)
    return tf.stack(l), len(l)


def _enumerate_zip(t, u):
    total = 0
    for i, v in enumerate(t):
        total = total + i * v
    for k, v in enumerate(t, 10):
        total = total + k - v
    for a, b in zip(t, u):
        total = total + a * b
    for i, (a, b) in enumerate(zip(u, t)):
        total = total + i * (a - b)
    return total


def _enumerate_range(n):
    l = []
    for i, v in enumerate(tf.range(3, n, 2)):
        l.append(i * 100 + v)
    return tf.stack(l)


@pytest.mark.parametrize("fn, args", [
    (_stack_doubles, (4,)), (_stack_doubles, (1,)), (_pop_sum, (3,)), (_pop_sum, (0,)),
    (_pairs_below, (4,)), (_positives, ([1.5, -2.0, 3.0, 0.0, 4.0],)),
    (_enumerate_zip, ([1, 2, 3], [4, 5, 6, 7])), (_enumerate_zip, ([5, -1], [2])),
    (_enumerate_range, (10,)),
], ids=lambda v: getattr(v, "__name__", "args"))
def test_lists_enumerate_zip_in_staged_loops_agree_with_python(fn, args):
    args = tuple(tf.constant(a) for a in args)
    _assert_all_equal(_run_four_ways(fn, *args))


def test_list_built_in_a_staged_loop_is_a_tensor_array(executor):
    f = tf.function(_stack_doubles, executor=executor)
    np.testing.assert_array_equal(f(tf.constant(3)).numpy(), [0, 2, 4])
    empty = f(tf.constant(0))
    assert empty.shape == (0,) and empty.dtype == tf.int32
    assert f.experimental_get_tracing_count() == 1
    ops = [n.op for n in f.get_concrete_function(tf.constant(1)).graph.nodes]
    assert ops.count("tensor_array_new") == 1 and "tensor_array_stack" in ops


def test_zip_of_tensors_of_unknown_length(executor):
    spec = tf.TensorSpec([None], tf.int32)
    f = tf.function(_enumerate_zip, input_signature=[spec, spec], executor=executor)
    for t, u in [([1, 2, 3], [4, 5, 6, 7]), ([4, 5, 6, 7], [1, 2, 3]), ([], [1])]:
        expected = _enumerate_zip(t, u)
        got = f(tf.constant(np.array(t, np.int32)), tf.constant(np.array(u, np.int32)))
        assert got.numpy() == expected


def _mixed_dtypes(n):
    l = []
    for i in tf.range(n):
        l.append(i)
        l.append(tf.cast(i, tf.float32))
    return tf.stack(l)


def test_a_float_appended_to_an_int_list_makes_it_a_float_list():
    # Python's list then holds a float: stacked, the elements are floats (before, a TypeError)
    result = tf.function(_mixed_dtypes)(tf.constant(2))
    assert result.dtype == tf.float32 and result.numpy().tolist() == [0.0, 0.0, 1.0, 1.0]


def _mixed_shapes(n):
    l = []
    for _ in tf.range(n):
        l.append(tf.zeros([2]))
        l.append(tf.zeros([3]))
    return tf.stack(l)


def _pop_first(n):
    l = [1, 2]
    for _ in tf.range(n):
        x = l.pop(0)
    return tf.stack(l)


def _stack_axis_1(n):
    l = []
    for _ in tf.range(n):
        l.append(tf.zeros([2]))
    return tf.stack(l, axis=1)


@pytest.mark.parametrize("fn, error, message", [
    (_mixed_shapes, ValueError,
     "Cannot append a value of shape (3,) to the list 'l', whose elements have shape (2,): "
     "the elements of a list built in a staged loop must keep one shape."),
    (_stack_axis_1, ValueError,
     "tf.stack of a TensorArray (a list built in a staged loop) stacks along axis 0 only, "
     "found axis=1. Stack along axis 0 and then use tf.transpose."),
], ids=lambda v: getattr(v, "__name__", "x"))
def test_staged_list_errors_name_the_list(fn, error, message):
    with pytest.raises(error) as e:
        tf.function(fn)(tf.constant(2))
    assert str(e.value) == message


def test_pop_at_an_index_of_a_staged_list(executor):
    # pop(0) raised "is not supported: ... can only remove its last element"
    f = tf.function(_pop_first, executor=executor)
    assert f(tf.constant(1)).numpy().tolist() == [2]
    with pytest.raises(IndexError, match="pop index out of range"):
        f(tf.constant(3))


def test_pop_from_empty_staged_list_fails_at_run_time(executor):
    f = tf.function(_pop_sum, executor=executor)
    assert f(tf.constant(5)).numpy().tolist() == [15]
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        f(tf.constant(6))
    assert "Tried to pop from an empty list (a TensorArray of size 0)." in str(e.value)


# -- tf.autograph.experimental.set_loop_options ------------------------------------------------
# The reference for a bound N is the plain Python loop that also stops after N iterations
# (tf.while_loop's maximum_iterations: no error); without staging, the bound has no effect.

# each test traces per argument value on purpose
_RETRACES = pytest.mark.filterwarnings("ignore:.*triggered tf.function retracing")


def _collatz_bounded(n, limit):
    steps = 0
    while n != 1:
        tf.autograph.experimental.set_loop_options(maximum_iterations=limit)
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps, n


def _collatz_reference(n, limit):
    steps = 0
    while n != 1 and steps < limit:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps, n


def _range_sum_bounded(n, limit):
    total = 0
    for i in tf.range(n):
        tf.autograph.experimental.set_loop_options(maximum_iterations=limit)
        total += i * i
    return total


def _first_above_bounded(xs, threshold, limit):
    found = -1
    count = 0
    for x in xs:
        tf.autograph.experimental.set_loop_options(maximum_iterations=limit)
        count += 1
        if x > threshold:
            found = count - 1
            break
    return found, count


def _first_above_reference(xs, threshold, limit):
    found, count = -1, 0
    for x in xs[:max(limit, 0)]:
        count += 1
        if x > threshold:
            found = count - 1
            break
    return found, count


def _squares_bounded(n, limit):
    out = []
    for i in tf.range(n):
        tf.autograph.experimental.set_loop_options(maximum_iterations=limit)
        out.append(i * i)
    return tf.stack(out)


@_RETRACES
@pytest.mark.parametrize("n", [27, 6, 1])
@pytest.mark.parametrize("limit", [0, 1, 5, 200, -3])
def test_maximum_iterations_bounds_a_staged_while(executor, n, limit):
    f = tf.function(_collatz_bounded, executor=executor)
    want = _collatz_reference(n, limit)
    as_python_int = f(tf.constant(n), limit)
    as_tensor = f(tf.constant(n), tf.constant(limit))
    assert tuple(int(v) for v in as_python_int) == want
    assert tuple(int(v) for v in as_tensor) == want


@_RETRACES
@pytest.mark.parametrize("n, limit", [(10, 3), (2, 5), (0, 4), (7, 0), (7, 7)])
def test_maximum_iterations_bounds_a_staged_for(executor, n, limit):
    f = tf.function(_range_sum_bounded, executor=executor)
    want = sum(i * i for i in range(min(n, limit)))
    assert int(f(tf.constant(n), limit)) == want  # Python bound: a counted loop of min(n, N)
    assert int(f(tf.constant(n), tf.constant(limit))) == want  # staged bound


@_RETRACES
@pytest.mark.parametrize("threshold, limit", [(4.0, 10), (4.0, 2), (8.0, 3), (10.0, 10),
                                              (0.0, 0)])
def test_maximum_iterations_with_break(executor, threshold, limit):
    xs = [1.0, 5.0, 9.0, 2.0]
    f = tf.function(_first_above_bounded, executor=executor)
    got = f(tf.constant(xs), tf.constant(threshold), tf.constant(limit))
    assert tuple(int(v) for v in got) == _first_above_reference(xs, threshold, limit)


@_RETRACES
@pytest.mark.parametrize("n, limit", [(5, 3), (2, 4), (0, 2)])
def test_maximum_iterations_with_a_list_built_in_the_loop(executor, n, limit):
    f = tf.function(_squares_bounded, executor=executor)
    got = f(tf.constant(n), tf.constant(limit)).numpy().tolist()
    assert got == [i * i for i in range(min(n, limit))]


def test_maximum_iterations_has_no_effect_on_python_loops():
    # TensorFlow's documentation: the options only apply to a loop staged as a while_loop.
    # Eagerly (and with Python numbers) the loop runs as Python, bound or not.
    converted = ag.convert(_collatz_bounded)
    assert converted(27, 5) == _collatz_bounded(27, 5) == (111, 1)
    steps, n = converted(tf.constant(27), 5)
    assert (int(steps), int(n)) == (111, 1)


def test_maximum_iterations_must_be_an_integer():
    with pytest.raises(TypeError) as e:
        tf.function(_collatz_bounded)(tf.constant(27), 2.5)
    assert "maximum_iterations" in str(e.value) and "found float 2.5" in str(e.value)
    assert "while loop" in str(e.value)


def _dead_nodes(graph):
    read = {id(t.node) for node in graph.nodes for t in node.inputs}
    read |= {id(t.node) for t in graph.outputs}
    return [n.name for n in graph.nodes
            if id(n) not in read and not n.stateful and not n.is_placeholder]


def test_graph_names_loop_variables_and_keeps_no_dead_test():
    from examples.collatz import collatz_steps  # pylint: disable=import-outside-toplevel
    from examples.early_exit import steps_to_exceed  # pylint: disable=import-outside-toplevel
    graph = tf.function(collatz_steps).get_concrete_function(tf.TensorSpec((), tf.int32)).graph
    text = str(graph)
    assert "while_body(%steps: int32[], %n: int32[])" in text
    assert "%loop_var" not in text
    # The test that decides whether the loop is staged ran in a discarded graph.
    assert _dead_nodes(graph) == [] and [n.op for n in graph.nodes].count("not_equal") == 0
    graph = tf.function(steps_to_exceed).get_concrete_function(
        tf.TensorSpec((), tf.int32), tf.TensorSpec((), tf.int32)).graph
    assert "while_cond(%steps: int32[], %value: int32[], %break: bool[]" in str(graph)
    assert _dead_nodes(graph) == []
    assert "greater_equal" not in [n.op for n in graph.nodes]  # only in the loop body


def test_range_with_unit_step_takes_its_length_without_division():
    from examples.early_exit import first_index_above  # pylint: disable=import-outside-toplevel
    f = tf.function(first_index_above, input_signature=[
        tf.TensorSpec([None], tf.float32), tf.TensorSpec([], tf.float32)])
    graph = f.get_concrete_function().graph
    ops = [n.op for n in graph.nodes]
    assert "floordiv" not in ops and "negative" not in ops  # max(len, 0) only
    for values, threshold, want in [([1.0, 5.0, 9.0, 2.0], 4.0, 1), ([1.0, 2.0], 4.0, -1),
                                    ([], 0.0, -1), ([7.0], 4.0, 0)]:
        assert int(f(tf.constant(values, tf.float32), tf.constant(threshold))) == want
        assert first_index_above(values, threshold) == want


def _sum_range(a, b, step):
    total = 0
    for i in range(a, b, step):
        total += i
    return total


@pytest.mark.parametrize("a, b, step", [(0, 5, 1), (2, 9, 1), (9, 2, 1), (0, 10, 3),
                                        (10, -3, -4), (-2, 3, 1)])
def test_staged_range_agrees_with_python(executor, a, b, step):
    f = tf.function(_sum_range, executor=executor)
    assert int(f(tf.constant(a), tf.constant(b), step)) == _sum_range(a, b, step)
    assert int(f(a, tf.constant(b), step)) == _sum_range(a, b, step)


# The two examples of TensorFlow's set_loop_options documentation.
def _tf_doc_maximum_iterations():
    n = 0
    for i in tf.range(10):
        tf.autograph.experimental.set_loop_options(maximum_iterations=3)
        n += 1
    return n


def _tf_doc_shape_invariants():
    v = tf.constant((0,))
    for i in tf.range(3):
        tf.autograph.experimental.set_loop_options(
            shape_invariants=[(v, tf.TensorShape([None]))]
        )
        v = tf.concat((v, [i]), 0)
    return v


def test_tensorflow_documentation_examples(executor):
    assert int(tf.function(_tf_doc_maximum_iterations, executor=executor)()) == 3
    got = tf.function(_tf_doc_shape_invariants, executor=executor)()
    assert got.numpy().tolist() == [0, 0, 1, 2]


def _sum_over_known_length(xs, limit):
    total = 0.0
    for x in xs:
        tf.autograph.experimental.set_loop_options(maximum_iterations=limit)
        total += x
    return total


@_RETRACES
@pytest.mark.parametrize("limit", [0, 2, 4, 9])
def test_maximum_iterations_with_a_static_length(executor, limit):
    # Both the length (4) and the bound are Python ints: the count is min(4, limit).
    xs = [1.0, 2.0, 4.0, 8.0]
    f = tf.function(_sum_over_known_length, executor=executor)
    assert float(f(tf.constant(xs), limit)) == sum(xs[:limit])


def _while_else_bounded(n, limit):
    i = 0
    total = 0
    while i < n:
        tf.autograph.experimental.set_loop_options(maximum_iterations=limit)
        i += 1
        if i % 2 == 0:
            continue
        if total > 100:
            break
        total += i
    else:
        total = -total
    return i, total


def _while_else_reference(n, limit):
    # Stopped by the bound, the loop ends without a break: its else clause runs.
    i = total = count = 0
    broke = False
    while i < n and count < limit:
        count += 1
        i += 1
        if i % 2 == 0:
            continue
        if total > 100:
            broke = True
            break
        total += i
    return i, total if broke else -total


@_RETRACES
@pytest.mark.parametrize("n, limit", [(10, 3), (10, 100), (50, 40), (5, 0)])
def test_maximum_iterations_with_continue_break_and_else(executor, n, limit):
    f = tf.function(_while_else_bounded, executor=executor)
    got = f(tf.constant(n), tf.constant(limit))
    assert tuple(int(v) for v in got) == _while_else_reference(n, limit)


def _sum_with_nested_coroutine_and_generator(n):
    async def doubled(v):
        await asyncio.sleep(0)
        return v * 2

    def counting(k):
        for i in range(k):
            yield i

    total = 0
    while n > 0:  # staged when n is a tensor
        total += n
        n -= 1
    return total + sum(counting(3)) + asyncio.run(doubled(3))


def test_a_nested_async_def_or_generator_leaves_the_enclosing_function_converted():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "could not convert" warning
        staged = tf.function(_sum_with_nested_coroutine_and_generator)
        graph = staged.get_concrete_function(tf.constant(4)).graph
        result = staged(tf.constant(4))
        converted = ag.convert(_sum_with_nested_coroutine_and_generator)
    assert int(result) == converted(4) == _sum_with_nested_coroutine_and_generator(4) == 19
    assert any(node.op == "while" for node in graph.nodes)  # the loop was staged
