"""The compiled executor agrees with the interpreter and eager execution, and stays fast-shaped."""
import collections
import gc
import inspect
import linecache
import tracemalloc
import traceback

import numpy as np
import pytest

import runtime as tf
from runtime.errors import InvalidArgumentError
from runtime.executor import codegen
from runtime.executor import generated
from runtime.executor import interpret
from tests.runtime.op_cases import CASES
from tests.runtime.op_cases import ERROR_CASES
from tests.runtime.op_cases import assert_same
from tests.runtime.op_cases import build_graph
from tests.runtime.op_cases import run_eager
from tests.runtime.op_cases import run_graph
from tests.runtime.op_cases import trace_graph

IDS = [c.id for c in CASES]
# The op table divides floats by zero on purpose (the result is inf, as in TensorFlow).
pytestmark = pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")


def compile_unoptimized(graph, inputs, outputs):
    return codegen.compile(graph, inputs, outputs, optimize=False)


# -- the op table: eager == interpreted == compiled (values and dtypes) ---------------------

@pytest.mark.parametrize("relax", [False, True], ids=["static", "unknown_dims"])
@pytest.mark.parametrize("executor", [codegen.compile, compile_unoptimized],
                         ids=["optimized", "unoptimized"])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_op_case_agrees(case, executor, relax):
    if relax and not (case.relax and case.args):
        relax = False
    compiled, _ = run_graph(case, executor, relax=relax)
    interpreted, _ = run_graph(case, interpret, relax=relax)
    assert_same(compiled, case.expected)
    assert_same(compiled, interpreted)
    assert_same(compiled, run_eager(case))


@pytest.mark.parametrize("case", ERROR_CASES, ids=[c.id for c in ERROR_CASES])
def test_op_error_case_agrees(case):
    with pytest.raises(case.error, match=case.match):
        graph, placeholders, feeds, outputs = build_graph(case)
        codegen.compile(graph, placeholders, outputs)(*feeds)


# -- generated source -----------------------------------------------------------------------

def test_generated_source_is_straight_line_numpy():
    graph = trace_graph("f", [("x", tf.float32, (3,)), ("y", tf.int32, ())],
                   lambda x, y: (tf.identity(x + 1.0) * tf.cast(tf.cast(y, tf.int64),
                                                                 tf.float32), y // 2, y))
    assert codegen.generate(graph).source == (
        "def f(x, y):\n"
        "    try:\n"
        "        y_1 = int(y)\n"
        "        add = x + _float32_1_0\n"
        "        cast_1 = _int32(y_1).astype(_dt_float32)\n"
        "        multiply = _np_multiply(add, cast_1, out=add)\n"
        "        floordiv = y_1 // 2\n"
        "        return (multiply, _int32(floordiv), y)\n"
        "    except Exception as _e:\n"
        "        _annotate_error(_e)\n"
        "        raise\n")
    x = np.array([1, 2, 3], np.float32)
    y = np.array(7, np.int32)
    out = codegen.compile(graph)(x, y)
    assert out[0].tolist() == [14.0, 21.0, 28.0] and out[0].dtype == np.float32
    assert out[1] == 3 and out[1].dtype == np.int32
    assert out[2] is y  # an input returned unchanged is the caller's own object


def test_kernel_fallback_and_large_values_are_freed():
    graph = trace_graph("g", [("x", tf.int32, (2048,)), ("d", tf.int32, (2048,))],
                   lambda x, d: tf.reduce_sum((x + 1) // d))
    source = codegen.generate(graph).source
    # Integer floordiv by a non-constant needs the kernel's zero check: the kernel is called.
    assert "floordiv = _k_floordiv(add, d)\n" in source
    assert "del add\n" in source and "del floordiv\n" in source
    x = np.arange(2048, dtype=np.int32)
    d = np.full(2048, 3, np.int32)
    assert codegen.compile(graph)(x, d)[0] == sum((i + 1) // 3 for i in range(2048))


def test_scalar_inputs_become_numpy_scalars():
    graph = trace_graph("h", [("x", tf.float32, ())], lambda x: x * 2.0)
    fn = codegen.compile(graph)
    out = fn(np.array(1.5, np.float32))[0]
    assert type(out) is np.float32 and out == 3.0
    assert fn(np.float32(2.0))[0] == 4.0


def test_source_registered_in_linecache_and_traceback_names_node():
    graph = trace_graph("divide_all", [("x", tf.int32, (2,)), ("y", tf.int32, (2,))],
                   lambda x, y: x // y)
    fn = codegen.compile(graph)
    code = fn.__code__
    assert code.co_filename.startswith("<runtime-graph divide_all#")
    assert linecache.getline(code.co_filename, 1) == "def divide_all(x, y):\n"
    with pytest.raises(InvalidArgumentError) as info:
        fn(np.array([1, 2], np.int32), np.array([1, 0], np.int32))
    message = str(info.value)
    assert message.startswith("While executing floordiv = floordiv(x, y): Integer division")
    text = "".join(traceback.format_exception(info.value))
    assert "floordiv = _k_floordiv(x, y)" in text  # the generated line, from linecache
    with pytest.raises(InvalidArgumentError) as reference:
        interpret(graph, graph.inputs, graph.outputs)(np.array([1, 2], np.int32),
                                                      np.array([1, 0], np.int32))
    assert str(reference.value) == message


def test_registered_source_lines_read_like_the_list_linecache_would_hold():
    graph = trace_graph("halve", [("x", tf.int32, ())], lambda x: x // 2 + 1)
    fn = codegen.compile(graph)
    filename = fn.__code__.co_filename
    entry = linecache.cache[filename]
    source = "".join(entry[2])
    expected = source.splitlines(True)
    assert source.startswith("def halve(x):\n") and len(expected) > 3
    lines = linecache.getlines(filename)
    assert len(lines) == len(expected) and list(lines) == expected and bool(lines)
    assert [lines[i] for i in range(-len(expected), len(expected))] == expected + expected
    assert lines[1:3] == expected[1:3] and lines[::-1] == expected[::-1]
    assert lines.index(expected[2]) == 2 and expected[-1] in lines
    with pytest.raises(IndexError):
        lines[len(expected)]  # pylint: disable=pointless-statement
    assert [linecache.getline(filename, i + 1) for i in range(len(expected))] == expected
    assert linecache.getline(filename, len(expected) + 1) == ""
    assert inspect.getsource(fn) == source
    assert entry[0] == len(source)
    assert len(generated.SourceLines("")) == 0 and list(generated.SourceLines("a\nb")) == ["a\n", "b"]


def test_registered_source_leaves_linecache_with_its_function_only():
    graph = trace_graph("halve", [("x", tf.int32, ())], lambda x: x // 2 + 1)
    fn = codegen.compile(graph)
    other = codegen.compile(graph)
    filename, other_name = fn.__code__.co_filename, other.__code__.co_filename
    assert filename != other_name and filename in linecache.cache
    del fn
    gc.collect()
    assert filename not in linecache.cache and other_name in linecache.cache
    assert linecache.getline(other_name, 1) == "def halve(x):\n"
    replaced = (1, None, ["x = 1\n"], other_name)  # someone else's entry under that name
    linecache.cache[other_name] = replaced
    del other
    gc.collect()
    assert linecache.cache.pop(other_name) is replaced


def test_line_labels_give_back_each_mapped_node_name_and_short_form():
    labels = {3: generated.NodeLabel("add", "add = add(x, y)"),
              4: generated.NodeLabel("n\tl\n", "odd\tname\n = print(é)"),
              9: generated.NodeLabel("", ""),
              12: generated.NodeLabel("print_1", "print(x)")}
    packed = generated.LineLabels(labels)
    for line in range(0, 14):
        got = packed.get(line)
        if line in labels:
            assert (got.name, got.short()) == (labels[line].name, labels[line].short())
        else:
            assert got is None
    assert generated.LineLabels({}).get(1) is None


def test_error_inside_loop_body_names_inner_node():
    def build(n, d):
        return tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + 10 // (d - i)),
                             (tf.constant(0), tf.constant(0)))[1]
    graph = trace_graph("loop_div", [("n", tf.int32, ()), ("d", tf.int32, ())], build)
    fn = codegen.compile(graph)
    assert fn(np.array(3, np.int32), np.array(5, np.int32))[0] == 10 // 5 + 10 // 4 + 10 // 3
    with pytest.raises(InvalidArgumentError, match=r"^While executing floordiv = floordiv\("):
        fn(np.array(3, np.int32), np.array(1, np.int32))


# -- control flow ---------------------------------------------------------------------------

def collatz(n):
    steps = tf.constant(0)

    def body(n, steps):
        n = tf.cond(n % 2 == 0, lambda: n // 2, lambda: 3 * n + 1)
        return n, steps + 1

    return tf.while_loop(lambda n, steps: n != 1, body, (n, steps))[1]


def test_collatz_uses_native_while_and_if():
    graph = trace_graph("collatz", [("n", tf.int32, ())], collatz)
    source = codegen.generate(graph).source
    assert "while loop_var != 1:" in source and "        if " in source and "else:" in source
    assert "_k_" not in source  # every op inlined as a Python operator
    fn = codegen.compile(graph)
    for n, steps in [(27, 111), (1, 0), (6, 8)]:
        out = fn(np.array(n, np.int32))[0]
        assert out == steps and out.dtype == np.int32


Pair = collections.namedtuple("Pair", "a b")


def nested_loop(x, n):
    """A loop over a nested structure, with a cond returning a dict inside a loop."""
    def body(i, state):
        pair, d = state["pair"], state["d"]
        out = tf.cond(i % 2 == 0,
                      lambda: {"u": pair.a + x, "v": d[0] * 2},
                      lambda: {"u": pair.a - 1.0, "v": d[0] + 1})
        inner = tf.while_loop(lambda j, acc: j < i, lambda j, acc: (j + 1, acc + j),
                              (tf.constant(0), tf.constant(0)))[1]
        return i + 1, {"pair": Pair(out["u"], pair.b + inner), "d": [out["v"]]}

    init = {"pair": Pair(tf.zeros([2]), tf.constant(0)), "d": [tf.constant(1)]}
    i, state = tf.while_loop(lambda i, s: i < n, body, (tf.constant(0), init))
    return state["pair"].a, state["pair"].b, state["d"][0], i


def nested_loop_python(x, n):
    a, b, d = np.zeros(2, np.float32), 0, 1
    for i in range(n):
        if i % 2 == 0:
            a, d = a + x, d * 2
        else:
            a, d = a - 1.0, d + 1
        b += sum(range(i))
    return a, b, d, n


@pytest.mark.parametrize("n", [0, 1, 5])
def test_nested_structures_agree(n):
    graph = trace_graph("nested", [("x", tf.float32, (2,)), ("n", tf.int32, ())], nested_loop)
    x = np.array([0.5, -1.0], np.float32)
    feeds = (x, np.array(n, np.int32))
    compiled = codegen.compile(graph)(*feeds)
    interpreted = interpret(graph, graph.inputs, graph.outputs)(*feeds)
    a, b, d, i = nested_loop_python(x, n)
    assert_same(list(compiled), [a, np.int32(b), np.int32(d), np.int32(i)])
    assert_same(list(compiled), list(interpreted))


def test_million_iteration_loop_runs_in_bounded_memory():
    graph = trace_graph("count", [("n", tf.int32, ())],
                   lambda n: tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + 2.0),
                                           (tf.constant(0), tf.constant(0.0, tf.float64))))
    fn = codegen.compile(graph)
    tracemalloc.start()
    try:
        i, s = fn(np.array(1_000_000, np.int32))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert i == 1_000_000 and s == 2_000_000.0
    assert peak < 100_000  # a few scalars alive at a time, not one per iteration


# -- state: variables, TensorArray, print ---------------------------------------------------

def test_variables_read_at_call_time_and_writes_ordered():
    v = tf.Variable(1.0)

    def build(x):
        before = v.read_value()
        v.assign_add(x)
        after = v.read_value()
        v.assign(after * 10.0)
        return before, after

    graph = trace_graph("state", [("x", tf.float32, ())], build)
    fn = codegen.compile(graph)
    before, after = fn(np.array(2.0, np.float32))
    assert (before, after, v.numpy()) == (1.0, 3.0, 30.0)
    v.assign(5.0)
    before, after = fn(np.array(1.0, np.float32))
    assert (before, after, v.numpy()) == (5.0, 6.0, 60.0)


def test_tensor_array_loop_agrees():
    def build(x):
        ta = tf.TensorArray(tf.float32, size=x.shape[0])

        def body(i, ta):
            return i + 1, ta.write(i, x[i] * tf.cast(i, tf.float32))

        _, ta = tf.while_loop(lambda i, ta: i < x.shape[0], body, (tf.constant(0), ta))
        return ta.stack()

    graph = trace_graph("ta", [("x", tf.float32, (4, 2))], build)
    x = np.arange(8, dtype=np.float32).reshape(4, 2)
    out = codegen.compile(graph)(x)[0]
    assert out.tolist() == [[0, 0], [2, 3], [8, 10], [18, 21]] and out.dtype == np.float32
    again = codegen.compile(graph)(x)[0]  # a fresh TensorArray per call
    assert again.tolist() == out.tolist()
    assert_same(out, interpret(graph, graph.inputs, graph.outputs)(x)[0])


def _printed(text, value):
    tf.print(text)
    return value + 1


def test_print_order_matches_interpreter(capsys):
    def build(n):
        tf.print("start", n)

        def body(i):
            tf.print("step", i)
            return (i + 1,)

        i = tf.while_loop(lambda i: i < n, body, (tf.constant(0),))[0]
        tf.cond(i > 1, lambda: _printed("big", i), lambda: _printed("small", i))
        tf.print("end")
        return i

    graph = trace_graph("prints", [("n", tf.int32, ())], build)
    codegen.compile(graph)(np.array(2, np.int32))
    compiled = capsys.readouterr().out
    assert compiled == "start 2\nstep 0\nstep 1\nbig\nend\n"
    interpret(graph, graph.inputs, graph.outputs)(np.array(2, np.int32))
    assert capsys.readouterr().out == compiled


def test_function_compiled_and_interpreted_agree():
    def f(x):
        total = tf.constant(0.0)
        while tf.reduce_sum(x) > 1:
            x = tf.tanh(x)
            total += 1.0
        return x, total

    x = tf.constant(np.array([1.0, 2.0, 3.0, 4.0, 5.0], np.float32))
    fast = tf.function(f, executor="compiled")(x)
    slow = tf.function(f, executor="interpreter")(x)
    for a, b in zip(fast, slow):
        assert_same(a.numpy(), b.numpy())
    assert fast[1].numpy() > 0
