"""runtime.executor.emitters: the code generator's rule tables for ordinary ops, keyed by op."""
import numpy as np
import pytest

import runtime as tf
from runtime.executor import codegen
from runtime.executor import emitters
from runtime.ops import registry


def test_every_rule_names_a_registered_ordinary_op():
    for table in (emitters.EXPRESSIONS, emitters.STATEMENTS):
        for op in table:
            assert not registry.get_op(op).structured, op
    assert emitters.PYTHON_INDEX_STATEMENTS <= set(emitters.STATEMENTS)


def test_a_rule_for_a_misspelt_op_fails_when_it_is_registered():
    with pytest.raises(KeyError, match="No op named 'castt'"):
        emitters.register_expression("castt")(lambda node, args, ctx: None)
    assert "castt" not in emitters.EXPRESSIONS


def test_a_structured_op_or_a_second_rule_is_refused():
    with pytest.raises(ValueError, match="structured"):
        emitters.register_expression("while")(lambda node, args, ctx: None)
    with pytest.raises(ValueError, match="already has a rule"):
        emitters.register_expression("cast")(lambda node, args, ctx: None)
    with pytest.raises(ValueError, match="already has a rule"):
        emitters.register_statement("getitem")(lambda node, args, ctx, depth: False)


def _source(fn, *specs):
    concrete = tf.function(fn, input_signature=list(specs)).get_concrete_function()
    return codegen.generate(concrete.graph).source


def test_an_expression_rule_writes_the_line_instead_of_a_kernel_call():
    source = _source(lambda x: tf.cast(x, tf.float64), tf.TensorSpec([3], tf.int32))
    assert ".astype(_dt_float64)" in source and "_k_cast" not in source


def test_a_statement_rule_writes_its_lines():
    source = _source(lambda x, i: x[i], tf.TensorSpec([3], tf.float32),
                     tf.TensorSpec([], tf.int32))
    assert "except IndexError:" in source and "_k_getitem(" in source


def test_an_op_without_a_rule_calls_its_kernel():
    source = _source(lambda x: tf.reduce_sum(x), tf.TensorSpec([3], tf.float32))
    assert "_k_reduce_sum(" in source
    compiled = tf.function(lambda x: tf.reduce_sum(x))
    assert compiled(tf.constant(np.ones(3, np.float32))).numpy() == 3.0
