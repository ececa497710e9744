"""Tests for runtime.autograph_backend: the hooks alone, and staged Python through tf.function."""
import numpy as np
import pytest

import runtime as tf
from autograph.operators import backends
from runtime import autograph_backend
from runtime.autograph_backend import BACKEND
from runtime.graph import Graph


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


def test_type_of_matches_python_numbers_and_tensors():
    assert BACKEND.type_of(0) == BACKEND.type_of(tf.constant(3)) == "int32"
    assert BACKEND.type_of(0.5) == BACKEND.type_of(tf.constant(1.0)) == "float32"
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
    assert out[6].dtype == tf.int32 and out[5].dtype == tf.float32


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
