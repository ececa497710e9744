"""runtime.executor.emit_context: what structured ops' emit rules see of the code generator."""
import pytest

import runtime as tf
from runtime.executor import codegen
from runtime.executor import emit_context
from runtime.ops import registry


def _generator():
    return codegen._Generator(tf.Graph("g"))


def test_a_rule_sees_the_context_not_the_generator():
    ctx = _generator().context
    assert isinstance(ctx, emit_context.EmitContext)
    for internal in ("lines", "env", "tail", "targets", "namer", "namespace", "interval"):
        with pytest.raises(AttributeError):
            getattr(ctx, internal)


def test_lines_written_apart_are_added_in_order_with_their_labels():
    gen = _generator()
    ctx = gen.context
    graph = tf.Graph("h")
    x = graph.placeholder(tf.float32, [])
    ctx.line(0, "a = 1")
    result, lines = ctx.lines_of(lambda: ctx.line(1, "b = 2", x.node) or "done")
    assert result == "done" and lines.texts == ["    b = 2"] and gen.lines == ["a = 1"]
    assert not lines.only("pass") and ctx.line_count() == 1
    ctx.line(0, "while True:", x.node)
    ctx.add_lines(lines)
    assert gen.lines == ["a = 1", "while True:", "    b = 2"]
    assert sorted(gen.line_nodes) == [2, 3]
    assert gen.line_nodes[3].name == x.node.name


def test_an_else_that_would_only_pass_is_left_out():
    @tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
    def f(n):
        total = tf.constant(0)
        for i in tf.range(n):
            if i % 3 == 0:
                total += i
        return total
    source = codegen.generate(f.get_concrete_function().graph).source
    assert "if " in source and "else:" not in source and "pass" not in source
    assert f(tf.constant(10)).numpy() == 0 + 3 + 6 + 9


@pytest.mark.parametrize("n, header", [
    (None, "for i in range(i, n_1):"),  # counted: the header is a range
    ("flag", "while True:"),  # a test that needs statements: a break after them
])
def test_the_while_rule_decides_its_header_before_writing_it(n, header):
    if n is None:
        def f(n):
            i = tf.constant(0)
            total = tf.constant(0)
            while i < n:
                total += i
                i += 1
            return total
    else:
        def f(n):
            i = tf.constant(0)
            while tf.reduce_sum(tf.fill([2], i)) < n:
                i += 1
            return i
    g = tf.function(f, input_signature=[tf.TensorSpec([], tf.int32)])
    source = codegen.generate(g.get_concrete_function().graph).source
    assert header in source
    assert g(tf.constant(5)).numpy() == (10 if n is None else 3)


def test_every_structured_op_emits_through_the_context():
    assert {"cond", "while", "switch_case"} <= registry.CONTROL_FLOW
    for op in registry.CONTROL_FLOW:
        assert callable(registry.EMIT[op])
