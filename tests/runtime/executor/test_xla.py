"""tf.function(jit_compile=True): graphs lowered to JAX and run by jax.jit (runtime/executor/xla).

The op-case table runs a third way here (the interpreter's and the code generator's runs are in
tests/runtime/test_op_cases.py); the corpus's XLA way is in tests/corpus/test_corpus.py.
"""
import subprocess
import sys

import numpy as np
import pytest

import runtime as tf
from benchmarks import workloads
from runtime.executor import xla
from runtime.ops import registry
from tests.runtime.op_cases import CASES
from tests.runtime.op_cases import assert_same
from tests.runtime.op_cases import run_graph

pytestmark = pytest.mark.filterwarnings("ignore::runtime.function.RetracingWarning")

# Op cases XLA cannot run, with the reason its NotLowerableError gives.
CANNOT = {
    "add_strings": "no string type", "equal_strings": "no string type",
    "identity": "no string type",  # the case is an identity of strings
    "range_tensor_limit": "depends on the values", "where_indices": "depends on the values",
    # issue #34's names
    "boolean_mask": "depends on the values", "boolean_mask_2d": "depends on the values",
    "boolean_mask_axis1": "depends on the values",
    "assert_less_holds": "cannot raise an error",
    "vectorized_map": "only TensorArrays that are created",
}
CANNOT.update((case_id, "no XLA lowering yet") for case_id in (
    "argsort", "argsort_descending_ties", "band_part_lower_bidiagonal",
    "band_part_upper_triangle", "cholesky", "conv1d", "conv2d_same_stride2", "conv2d_valid",
    "cumprod_exclusive", "cumsum", "cumsum_axis1", "cumsum_exclusive_reverse", "det_batch",
    "diag", "diag_part", "gather_nd_elements", "gather_nd_rows", "inv", "is_finite", "is_nan",
    "max_pool2d_same", "max_pool2d_valid", "pad_constant", "pad_reflect", "pad_symmetric",
    "relu", "solve", "sort", "sort_descending_rows", "tile", "top_k"))


def test_every_op_has_a_lowering_or_a_reason():
    xla.import_jax()
    ops = set(registry.OPS)
    assert set(xla.LOWER) <= ops and set(xla.CANNOT_LOWER) <= ops
    assert not set(xla.LOWER) & set(xla.CANNOT_LOWER)
    missing = sorted(ops - set(xla.LOWER) - set(xla.CANNOT_LOWER))
    assert missing == [], f"ops with neither an XLA lowering nor a reason: {missing}"


def test_a_rule_for_an_unknown_op_fails_at_registration():
    with pytest.raises(KeyError, match="no_such_op"):
        xla.register_lowering("no_such_op")


def _check_case(case, relax):
    if case.id in CANNOT:
        with pytest.raises(xla.NotLowerableError, match=CANNOT[case.id]):
            run_graph(case, xla.compile, relax=relax)
        return
    result, _ = run_graph(case, xla.compile, relax=relax)
    assert_same(result, case.expected)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_op_case_compiled_with_xla(case):
    _check_case(case, relax=False)


@pytest.mark.parametrize("case", [c for c in CASES if c.relax and c.args],
                         ids=[c.id for c in CASES if c.relax and c.args])
def test_op_case_with_unknown_dims_compiled_with_xla(case):
    _check_case(case, relax=True)


def test_cannot_list_is_current():
    assert set(CANNOT) <= {c.id for c in CASES}


def test_runtime_does_not_import_jax():
    code = ("import sys, runtime as tf; f = tf.function(lambda x: x + 1); f(tf.constant(1)); "
            "assert 'jax' not in sys.modules, 'jax imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_without_jax_jit_compile_says_how_to_install_it(monkeypatch):
    import importlib.util
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "jax" else real(name, *a))
    with pytest.raises(ImportError, match=r"pip install jax"):
        tf.function(lambda x: x, jit_compile=True)


def test_an_op_without_lowering_is_named_with_its_line():
    def noisy(x):
        tf.print("x is", x)
        return x + 1

    f = tf.function(noisy, jit_compile=True)
    with pytest.raises(xla.NotLowerableError, match=r"cannot compile op 'print'.*prints"):
        f(tf.constant(1))


def test_loops_conds_and_tensor_arrays_agree_with_the_numpy_executor():
    ns = np.arange(1, 17, dtype=np.int32)
    expected = tf.function(workloads.collatz_vector)(ns)
    got = tf.function(workloads.collatz_vector, jit_compile=True)(ns)
    assert got.dtype == expected.dtype and got.numpy().tolist() == expected.numpy().tolist()


def test_variables_are_state_threaded_through_loops_and_branches():
    total = tf.Variable(0.0)
    count = tf.Variable(0, dtype=tf.int64)

    def accumulate(x):
        for i in tf.range(tf.shape(x)[0]):
            if x[i] > 0:
                total.assign_add(x[i])
            else:
                count.assign_add(tf.constant(1, tf.int64))
        return total.read_value() * 2.0

    f = tf.function(accumulate, jit_compile=True)
    x = np.array([1.0, -2.0, 3.0, -4.0], np.float32)
    assert float(f(x)) == 8.0 and float(total.numpy()) == 4.0 and int(count.numpy()) == 2
    assert float(f(x)) == 16.0 and int(count.numpy()) == 4  # the new values are read again
    assert count.numpy().dtype == np.int64


def test_switch_case_lowers_to_lax_switch():
    def pick(i, x):
        return tf.switch_case(i, [lambda: x + 1.0, lambda: x * 2.0, lambda: -x])

    f = tf.function(pick, jit_compile=True)
    x = np.float32(3.0)
    assert [float(f(np.int32(i), x)) for i in (0, 1, 2, 7, -1)] == [4.0, 6.0, -3.0, -3.0, -3.0]


def test_a_growing_tensor_array_is_not_lowerable():
    def grow(n):
        ta = tf.TensorArray(tf.float32, 0, dynamic_size=True)
        for i in tf.range(n):
            ta = ta.write(i, tf.cast(i, tf.float32))
        return ta.stack()

    with pytest.raises(xla.NotLowerableError, match=r"tensor_array_new.*fixed size"):
        tf.function(grow, jit_compile=True)(np.int32(3))


def test_branches_of_different_shapes_are_named():
    def ragged(x, p):
        if p > 0:
            y = x
        else:
            y = x[:2]
        return y

    x = np.arange(4, dtype=np.float32)
    assert tf.function(ragged)(x, np.int32(1)).shape == (4,)  # the numpy executor runs it
    with pytest.raises(xla.NotLowerableError, match=r"op 'cond'.*keep one shape"):
        tf.function(ragged, jit_compile=True)(x, np.int32(1))


def test_a_cheap_cond_is_a_select_and_its_untaken_branch_cannot_fail():
    def safe_div(x, d):
        if d != 0:
            y = x // d
        else:
            y = x
        return y

    x = np.arange(6, dtype=np.int32)
    f = tf.function(safe_div, jit_compile=True)
    for d in (2, 0):
        expected = tf.function(safe_div)(x, np.int32(d)).numpy()
        assert f(x, np.int32(d)).numpy().tolist() == expected.tolist()
    from runtime.executor import xla_structured
    graph = f.get_concrete_function(x, np.int32(2)).graph
    branches = [sub for n in graph.nodes for _, sub in n.subgraphs()]
    assert branches and xla_structured._selectable(branches)  # lowered without lax.cond


def test_an_elif_chain_of_cheap_branches_is_one_nest_of_selects():
    def classify(n):
        counts = [0, 0, 0, 0]
        for i in tf.range(1, n + 1):
            if i % 15 == 0:
                counts[0] += 1
            elif i % 3 == 0:
                counts[1] += 1
            elif i % 5 == 0:
                counts[2] += 1
            else:
                counts[3] += 1
        return counts

    f = tf.function(classify, jit_compile=True)
    for n in (0, 1, 15, 31):
        expected = [int(v) for v in tf.function(classify)(np.int32(n))]
        assert [int(v) for v in f(np.int32(n))] == expected
    from runtime.executor import xla_structured
    graph = f.get_concrete_function(np.int32(31)).graph
    conds = [node for loop in graph.nodes for _, body in loop.subgraphs()
             for node in body.nodes if node.op == "cond"]
    assert conds  # the outer `if`, whose else branch holds the elif's cond
    branches = [conds[0].attrs["false_graph"], conds[0].attrs["true_graph"]]
    assert any(n.op == "cond" for g in branches for n in g.nodes)
    assert xla_structured._selectable(branches)  # lowered without lax.cond
    assert xla_structured._select_cost(branches[0]) > 3  # the nested cond's ops count
