"""Runs every corpus function every way and checks that all agree with plain Python.

1. plain Python;
2. converted by autograph, called with Python values;
3. on every backend, through the one harness (tests/corpus/harness.py): traced by
   runtime.function with tensor inputs and run by the reference interpreter, the same run by
   the compiled executor, the same run lowered to XLA (jit_compile=True), and converted and
   jax.jit-ted on JAX values (the PyTorch way is in
   tests/torch/test_corpus_torch.py, beside the other tests that need torch).

They must agree on the result, on what is printed to stdout, and on the exception type.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import autograph as ag
import runtime as tf
from autograph.backends import jax as ag_jax
from runtime.executor.xla import NotLowerableError
from tests.corpus.functions import CORPUS
from tests.corpus.harness import Way
from tests.corpus.harness import assert_same
from tests.corpus.harness import check
from tests.corpus.harness import numpy_to_python
from tests.corpus.harness import run_plain

# Warnings these tests trigger on purpose: each corpus function is traced for each of its inputs,
# and retraces on purpose.
pytestmark = pytest.mark.filterwarnings("ignore::runtime.function.RetracingWarning")

_IDS = [c.fn.__name__ for c in CORPUS]


class RuntimeWay(Way):
    """runtime.function with tensor inputs, run by one of its executors."""

    def __init__(self, executor):
        self.name = 'runtime-' + executor
        self.executor = executor

    def to_staged(self, value):
        return tf.constant(value)

    def run(self, case, args):
        return tf.function(case.fn, executor=self.executor)(*args)

    def to_python(self, value):
        if isinstance(value, tf.Tensor):
            value = value.numpy()
        if isinstance(value, (list, tuple)):
            return type(value)(self.to_python(v) for v in value)
        if isinstance(value, dict):
            return {k: self.to_python(v) for k, v in value.items()}
        return numpy_to_python(value)


class JaxWay(Way):
    """Converted, then jax.jit-ted, on JAX values: numbers become jax arrays (traced by
    jax.jit); other arguments stay Python values closed over by the jitted function."""

    name = 'jax'
    cannot_express = {
        # It returns the dict's keys, strings: a jitted function can only return arrays.
        'for_dict_items': (TypeError, 'jax.jit cannot return strings'),
        # A list whose length depends on a traced condition: a JAX array has a fixed size, so
        # the staged list needs a bound, which only a loop's maximum_iterations gives.
        'list_appended_in_staged_branch': (ag.StagingError, 'a list grows under a traced if'),
        # A loop over range(n) of a traced n appends: no static bound on the list's length.
        'list_extended_in_a_staged_loop': (ag.errors.UnboundedListError,
                                           'a list grows in a traced loop'),
        'list_grown_by_plus_in_a_staged_loop': (ag.errors.UnboundedListError,
                                                'a list grows in a traced loop'),
        # `[0] * (n + 1)` of a traced n: an array of a length known only when it runs
        'table_of_a_staged_size': (ag.StagingError, 'a list of a traced length'),
    }

    def to_staged(self, value):
        return jnp.asarray(value)

    def run(self, case, args):
        converted = ag.convert(case.fn)
        traced = [isinstance(a, jax.Array) for a in args]

        def call(*values):
            it = iter(values)
            return converted(*[next(it) if t else a for a, t in zip(args, traced)])

        # ag_jax.jit re-raises failed staged checks as Python does
        result = ag_jax.jit(call)(*[a for a, t in zip(args, traced) if t])
        jax.effects_barrier()  # staged prints are done before stdout is read
        return result

    def to_python(self, value):
        if isinstance(value, jax.Array):
            value = np.asarray(value)
        if isinstance(value, (list, tuple)):
            return type(value)(self.to_python(v) for v in value)
        if isinstance(value, dict):
            return {k: self.to_python(v) for k, v in value.items()}
        return numpy_to_python(value)


class XlaWay(RuntimeWay):
    """runtime.function(jit_compile=True): the traced graph lowered to JAX, run by jax.jit."""

    cannot_express = {
        name: (NotLowerableError, 'prints each time it runs')
        for name in ('if_print', 'while_print', 'fizzbuzz_print')}
    cannot_express.update({
        name: (NotLowerableError, 'raises from staged code (check_defined, py_function or assert)')
        for name in ('assert_ok', 'first_assigned_in_loop', 'assigned_in_one_branch',
                     'undefined_read_in_a_branch', 'walrus_in_while_and_test',
                     'match_values_guard_and_wildcard', 'match_capture_as_and_guard_binding',
                     'best_so_far_guarded_by_a_first_flag',
                     'or_reads_a_variable_before_it_is_assigned',
                     'and_reads_a_variable_only_once_assigned')})
    cannot_express.update({
        # a staged raise (and a table read's IndexError or KeyError) is a py_function
        name: (NotLowerableError, 'raises from staged code (py_function)')
        for name in ('raise_in_staged_branch', 'raise_user_defined_after_a_print',
                     'raise_class_and_raise_from', 'raise_in_staged_while',
                     'raise_after_a_loop_that_returns', 'raise_in_elif_chain_with_else',
                     'raise_in_a_staged_loop_body', 'raise_with_str_in_message',
                     'table_read_at_a_staged_index', 'dict_of_numbers_at_a_staged_key',
                     'tuple_index_out_of_range', 'max_and_min_of_generators',
                     'table_written_at_staged_indices_in_a_loop', 'table_of_a_staged_size',
                     'table_written_in_staged_branches',
                     'for_range_indexing_a_list_staged_break',
                     'lcs_length_with_rows_read_at_a_staged_index',
                     'grid_row_changed_through_an_alias_in_a_staged_loop',
                     # list.index's ValueError
                     'searches_of_lists_of_staged_numbers', 'most_common_digit',
                     'table_rows_changed_through_loop_targets')})
    cannot_express.update({
        'for_dict_items': (NotLowerableError, 'returns strings'),
        'list_appended_in_staged_branch': (NotLowerableError, 'a list that grows'),
        'list_extended_in_a_staged_loop': (NotLowerableError, 'a list that grows'),
        'list_grown_by_plus_in_a_staged_loop': (NotLowerableError, 'a list that grows'),
    })

    def __init__(self):
        super().__init__('xla')

    def run(self, case, args):
        return tf.function(case.fn, jit_compile=True)(*args)


WAYS = [RuntimeWay('interpreter'), RuntimeWay('compiled'), XlaWay(), JaxWay()]


@pytest.mark.parametrize("case", CORPUS, ids=_IDS)
def test_converted_matches_plain(case):
    converted = ag.convert(case.fn)
    for args in case.inputs:
        expected = run_plain(case.fn, args)
        actual = run_plain(converted, args)
        assert actual[1] == expected[1], (args, "exception", expected[1], actual[1])
        assert actual[2] == expected[2], (args, "stdout")
        assert_same(expected[0], actual[0], ("converted", args))


@pytest.mark.parametrize("way", WAYS, ids=[w.name for w in WAYS])
@pytest.mark.parametrize("case", CORPUS, ids=_IDS)
def test_staged_matches_plain(case, way):
    check(way, case)


def test_every_backend_has_a_way():
    names = {b.name for b in ag.backends.registered_backends()}
    assert {'runtime', 'jax'} <= names
    # torch's way is tests/torch/test_corpus_torch.py (its tests import torch)
    assert {w.name.partition('-')[0] for w in WAYS} | {'torch'} >= names - {'fake'}


def test_cannot_express_lists_are_short_and_current():
    for way in WAYS:
        assert set(way.cannot_express) <= set(_IDS)
        assert len(way.cannot_express) <= len(CORPUS) // 4


def test_corpus_is_large_enough():
    # The corpus is the project's main equivalence check; it must stay broad.
    assert len(CORPUS) >= 60
    assert sum(c.stageable for c in CORPUS) >= 50
