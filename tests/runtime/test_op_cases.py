"""Every op of the table in op_cases gives the expected value and dtype, eagerly and in graphs."""
import numpy as np
import pytest

from tests.runtime.op_cases import CASES
from tests.runtime.op_cases import DYNAMIC_SHAPE
from tests.runtime.op_cases import ERROR_CASES
from tests.runtime.op_cases import assert_same
from tests.runtime.op_cases import build_graph
from tests.runtime.op_cases import run_eager
from tests.runtime.op_cases import run_graph
from runtime.executor import interpret

IDS = [c.id for c in CASES]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_eager(case):
    assert_same(run_eager(case), case.expected)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_graph_interpreted(case):
    result, outputs = run_graph(case, interpret)
    assert_same(result, case.expected)
    expected = case.expected if isinstance(case.expected, list) else [case.expected]
    for tensor, value in zip(outputs, expected):
        # The static shape and dtype inferred while tracing match the computed value.
        assert tensor.dtype.np_dtype == np.asarray(value).dtype
        if case.id in DYNAMIC_SHAPE:
            assert tensor.shape.is_compatible_with(np.shape(value))
        else:
            assert tuple(tensor.shape) == np.shape(value)


@pytest.mark.parametrize("case", [c for c in CASES if c.relax and c.args],
                         ids=[c.id for c in CASES if c.relax and c.args])
def test_graph_unknown_dims(case):
    result, outputs = run_graph(case, interpret, relax=True)
    assert_same(result, case.expected)
    expected = case.expected if isinstance(case.expected, list) else [case.expected]
    for tensor, value in zip(outputs, expected):
        assert tensor.shape.is_compatible_with(np.shape(value))


@pytest.mark.parametrize("case", ERROR_CASES, ids=[c.id for c in ERROR_CASES])
def test_error_eager(case):
    with pytest.raises(case.error, match=case.match):
        run_eager(case)


@pytest.mark.parametrize("case", ERROR_CASES, ids=[c.id for c in ERROR_CASES])
def test_error_graph(case):
    with pytest.raises(case.error, match=case.match):
        graph, placeholders, feeds, outputs = build_graph(case)
        interpret(graph, placeholders, outputs)(*feeds)
