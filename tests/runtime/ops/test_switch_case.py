"""Tests for runtime.ops.switch_case: eager, traced, both executors, str(graph) and errors."""
import numpy as np
import pytest

import runtime as tf
from runtime.executor import codegen

EXECUTORS = ["interpreter", "compiled"]
INDICES = [-3, -1, 0, 1, 2, 3, 9]


def plain(i, x):
    """The reference: what the staged switch computes, in plain Python on numpy values."""
    if i == 0:
        return x + 1.0
    if i == 1:
        return x * 2.0
    return x - 3.0  # the last branch is the default


def three_way(i, x):
    return tf.switch_case(i, [lambda: x + 1.0, lambda: x * 2.0, lambda: x - 3.0])


def test_eager_runs_only_the_picked_function():
    calls = []

    def branch(k):
        return lambda: calls.append(k) or k * 10

    assert tf.switch_case(1, [branch(0), branch(1), branch(2)]) == 10
    assert tf.switch_case(tf.constant(0), [branch(0), branch(1)]) == 0
    assert calls == [1, 0]


def test_eager_out_of_range_runs_default_or_last():
    fns = [lambda: "a", lambda: "b"]
    assert tf.switch_case(5, fns) == "b"
    assert tf.switch_case(-1, fns, default=lambda: "d") == "d"
    assert tf.switch_case(1, fns, default=lambda: "d") == "b"


def test_branch_fns_as_pairs_and_dict():
    assert tf.switch_case(1, [(1, lambda: "one"), (0, lambda: "zero")]) == "one"
    assert tf.switch_case(0, {0: lambda: "zero", 1: lambda: "one"}) == "zero"


@pytest.mark.parametrize("executor", EXECUTORS)
def test_staged_matches_plain_python(executor):
    f = tf.function(three_way, executor=executor,
                    input_signature=[tf.TensorSpec([], tf.int32), tf.TensorSpec([2])])
    x = np.array([1.5, -2.0], np.float32)
    for i in INDICES:
        np.testing.assert_array_equal(f(tf.constant(i), tf.constant(x)).numpy(), plain(i, x))
    assert f.experimental_get_tracing_count() == 1


def test_both_executors_agree_with_default_and_structures():
    def fn(i, x):
        return tf.switch_case(
            i, [lambda: {"a": x, "b": (x + 1, tf.constant(1))},
                lambda: {"a": x * x, "b": (x - 1, tf.constant(2))}],
            default=lambda: {"a": -x, "b": (x, tf.constant(3))})

    results = {}
    for executor in EXECUTORS:
        f = tf.function(fn, executor=executor)
        results[executor] = [f(tf.constant(i), tf.constant(3.0)) for i in INDICES]
    for got_i, got_c, i in zip(results["interpreter"], results["compiled"], INDICES):
        assert got_i["a"].numpy() == got_c["a"].numpy() == {0: 3.0, 1: 9.0}.get(i, -3.0)
        assert got_i["b"][1].numpy() == got_c["b"][1].numpy() == {0: 1, 1: 2}.get(i, 3)


def test_str_graph():
    f = tf.function(three_way, input_signature=[tf.TensorSpec([], tf.int32),
                                                tf.TensorSpec([2])])
    assert str(f.get_concrete_function().graph) == """\
graph three_way(%i: int32[], %x: float32[2]) {
  %switch_case = switch_case(%i, %x) : float32[2]
    branch_0 switch_case_branch_0(%x: float32[2]) {
      %Const = constant() {value=1.0} : float32[]
      %add = add(%x, %Const) : float32[2]
      return (%add)
    }
    branch_1 switch_case_branch_1(%x: float32[2]) {
      %Const = constant() {value=2.0} : float32[]
      %multiply = multiply(%x, %Const) : float32[2]
      return (%multiply)
    }
    branch_2 switch_case_branch_2(%x: float32[2]) {
      %Const = constant() {value=3.0} : float32[]
      %subtract = subtract(%x, %Const) : float32[2]
      return (%subtract)
    }
  %Identity = identity(%switch_case) : float32[2]
  return (%Identity)
}"""


def test_compiled_source_is_an_if_chain():
    f = tf.function(three_way, input_signature=[tf.TensorSpec([], tf.int32),
                                                tf.TensorSpec([2])])
    source = codegen.generate(f.get_concrete_function().graph).source
    assert "if i_1 == 0:" in source and "elif i_1 == 1:" in source and "else:" in source


def test_shapes_merge_and_tf_names():
    @tf.function
    def f(i):
        return tf.switch_case(i, [lambda: tf.zeros([2]), lambda: tf.zeros([3])])

    graph = f.get_concrete_function(tf.constant(0)).graph
    node = next(n for n in graph.nodes if n.op == "switch_case")
    assert node.outputs[0].shape == [None]
    assert [n.op for n in graph.as_graph_def().node if n.name == "switch_case"] == [
        "StatelessCase"]


@pytest.mark.parametrize("executor", EXECUTORS)
def test_side_effects_run_only_in_the_taken_branch(executor, capsys):
    @tf.function(executor=executor)
    def f(i):
        return tf.switch_case(i, [lambda: (tf.print("zero"), tf.constant(0))[1],
                                  lambda: (tf.print("one"), tf.constant(1))[1]])

    assert f(tf.constant(1)).numpy() == 1
    assert f(tf.constant(0)).numpy() == 0
    assert capsys.readouterr().out == "one\nzero\n"
    graph = f.get_concrete_function(tf.constant(0)).graph
    assert [n.op for n in graph.as_graph_def().node if n.name == "switch_case"] == ["Case"]


def test_unused_outputs_and_operands_are_pruned():
    @tf.function(executor="compiled")
    def f(i, x, y):
        a, _ = tf.switch_case(i, [lambda: (x + 1.0, y * 2.0), lambda: (x - 1.0, y * 3.0)])
        return a

    assert f(tf.constant(1), tf.constant(5.0), tf.constant(7.0)).numpy() == 4.0
    graph = f.get_concrete_function(tf.constant(1), tf.constant(5.0), tf.constant(7.0)).graph
    source = codegen.generate(graph).source
    assert "y_1 *" not in source and "x_1 + " in source


def test_dtype_mismatch_names_the_branches():
    @tf.function
    def f(i):
        return tf.switch_case(i, [lambda: tf.constant(1), lambda: tf.constant(1.0)])

    with pytest.raises(TypeError, match=r"branch_fns\[0\] .* and branch_fns\[1\] .* return "
                                        r"different dtypes for output #0: int32 and float32"):
        f(tf.constant(0))


def test_structure_mismatch_names_the_default():
    @tf.function
    def f(i):
        return tf.switch_case(i, [lambda: tf.constant(1)],
                              default=lambda: (tf.constant(1), tf.constant(2)))

    with pytest.raises(ValueError, match=r"branch_fns\[0\] .* and default .* must return the "
                                         r"same nested structure"):
        f(tf.constant(0))


@pytest.mark.parametrize("bad, error, message", [
    ([], ValueError, "at least one function"),
    ([1], TypeError, r"branch_fns\[0\] must be a callable"),
    ({0: lambda: 1, 2: lambda: 2}, ValueError, r"keys must be 0, 1, \.\.\., 1, found \[0, 2\]"),
    ("f", TypeError, "must be a list of callables"),
])
def test_bad_branch_fns(bad, error, message):
    with pytest.raises(error, match=message):
        tf.switch_case(0, bad)


def test_index_must_be_an_integer_scalar():
    with pytest.raises(TypeError, match="scalar integer branch_index, found float32"):
        tf.switch_case(tf.constant(1.0), [lambda: 1])
    with pytest.raises(TypeError, match="scalar integer branch_index, found int32 tensor of "
                                        r"shape \(2,\)"):
        tf.switch_case(tf.constant([0, 1]), [lambda: 1])


def _loss(i, x, v):
    """Each branch a different function of x and of a Variable read inside one branch."""
    y = tf.switch_case(i, [lambda: tf.math.sin(x) * x, lambda: x * x * 3.0 + v,
                           lambda: tf.exp(x * 0.5) * v], default=lambda: x * 0.0 + 7.0)
    return tf.reduce_sum(y * v)


_V = tf.Variable(np.array([0.5, -1.5, 2.0]))
_staged_loss = tf.function(lambda i, x: _loss(i, x, _V))


@tf.function
def _staged_grads(i, x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        value = _loss(i, x, _V)
    return tape.gradient(value, [x, _V], unconnected_gradients=tf.UnconnectedGradients.ZERO)


def _numeric(f, at):
    out = np.zeros_like(at)
    for k in range(at.size):
        plus, minus = at.copy(), at.copy()
        plus[k] += 1e-6
        minus[k] -= 1e-6
        out[k] = (f(plus) - f(minus)) / 2e-6
    return out


@pytest.mark.parametrize("index", [0, 1, 2, 3, -1])
def test_gradient_matches_finite_differences(index):
    x0 = np.array([0.3, -0.7, 1.1])
    v0 = _V.numpy().copy()
    i = tf.constant(index)
    expected_x = _numeric(lambda a: float(_staged_loss(i, tf.constant(a))), x0)

    def with_v(a):
        _V.assign(a)
        return float(_staged_loss(i, tf.constant(x0)))

    expected_v = _numeric(with_v, v0)
    _V.assign(v0)
    gx, gv = _staged_grads(i, tf.constant(x0))
    np.testing.assert_allclose(gx.numpy(), expected_x, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gv.numpy(), expected_v, rtol=1e-6, atol=1e-8)
    # The staged gradient is itself a switch_case on the same index.
    graph = _staged_grads.get_concrete_function(i, tf.constant(x0)).graph
    assert sum(n.op == "switch_case" for n in graph.get_operations()) == 2
    # Eagerly only the picked branch runs, recorded op by op: the same numbers.
    x = tf.constant(x0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        value = _loss(i, x, _V)
    ex, ev = tape.gradient(value, [x, _V], unconnected_gradients=tf.UnconnectedGradients.ZERO)
    np.testing.assert_allclose(ex.numpy(), expected_x, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(ev.numpy(), expected_v, rtol=1e-6, atol=1e-8)
