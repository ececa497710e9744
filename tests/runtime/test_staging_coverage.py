"""What plain Python expresses, staged (issue #11): the staged function does what the plain one
does on the same numbers, on both executors, and converted code on Python values is plain."""

import numpy as np
import pytest

import autograph as ag
import runtime as tf
from tests.corpus import functions

# Warnings these tests trigger on purpose: corpus functions are traced for each of their inputs, and retrace.
pytestmark = pytest.mark.filterwarnings("ignore::runtime.function.RetracingWarning")


@pytest.fixture(params=["compiled", "interpreter"])
def executor(request):
    return request.param


def _value(t):
    if isinstance(t, (tuple, list)):
        return type(t)(_value(v) for v in t)
    if isinstance(t, tf.Tensor):
        t = t.numpy()
    return t.item() if isinstance(t, np.ndarray | np.generic) else t


def check(fn, executor, *inputs, dtype=None):
    """Checks converted == plain on Python values and staged == plain on tensors."""
    converted = ag.convert(fn)
    staged = tf.function(fn, executor=executor)
    for args in inputs:
        args = args if isinstance(args, tuple) else (args,)
        expected = fn(*args)
        assert converted(*args) == expected, args
        tensors = [tf.constant(a, dtype) if isinstance(a, (int, float)) else a for a in args]
        assert _value(staged(*tensors)) == expected, args


# --- chained comparisons and membership ---------------------------------------------------------

def in_band(x, lo, hi):
    if lo <= x < hi:
        return x * 2
    return x


def test_chained_comparison(executor):
    check(in_band, executor, (0, 1, 3), (1, 1, 3), (2, 1, 3), (3, 1, 3), (5, 1, 3))


def classify(x):
    if x in (1, 2):
        kind = 1
    elif x not in [3, 4, 5]:
        kind = 2
    else:
        kind = 3
    return kind + (10 if x in {7, 8} else 0)


def test_membership_in_a_python_container_of_numbers(executor):
    check(classify, executor, 0, 1, 2, 3, 5, 7, 8)


def in_dict_keys(x):
    return x in {1: "one", 3: "three"}


def test_membership_in_a_dict_tests_its_keys(executor):
    # Python's own test hashes the staged tensor, finds no key and says False: silently wrong.
    check(in_dict_keys, executor, 0, 1, 3)


def chained_floats(x):
    return -1.0 < x <= 1.0 != x


def test_chained_comparison_as_a_value(executor):
    check(chained_floats, executor, -2.0, -0.5, 1.0, 3.0, dtype=tf.float32)


# --- a read that no traced path defines, inside a staged branch ---------------------------------

def read_in_one_branch(a):
    v = 0
    if a > 0:
        if False:
            u = 1
        v = u  # noqa: F821 - unbound on purpose, as in plain Python
    return v


def test_undefined_read_in_a_staged_branch_raises_only_when_the_branch_runs(executor):
    staged = tf.function(read_in_one_branch, executor=executor)
    assert _value(staged(tf.constant(-1))) == read_in_one_branch(-1) == 0
    with pytest.raises(UnboundLocalError):
        read_in_one_branch(3)
    line = read_in_one_branch.__code__.co_firstlineno + 5
    with pytest.raises(UnboundLocalError, match=r"'u'.*\(File \".*test_staging_coverage.py\", "
                       r"line {}: no path that ran assigns 'u'\)".format(line)):
        staged(tf.constant(3))


def read_in_a_loop(a):
    k = 0
    v = 0
    while k < a:
        k += 1
        for _ in range(0):
            u = k
        v = u + 1  # noqa: F821 - unbound on purpose, as in plain Python
    return v


def test_undefined_read_in_a_staged_loop_raises_only_when_the_body_runs(executor):
    staged = tf.function(read_in_a_loop, executor=executor)
    assert _value(staged(tf.constant(0))) == read_in_a_loop(0) == 0
    with pytest.raises(UnboundLocalError):
        read_in_a_loop(2)
    with pytest.raises(UnboundLocalError, match="no path that ran assigns 'u'"):
        staged(tf.constant(2))


# --- Python loops whose exit becomes staged ---------------------------------------------------

def _ops(fn, *args):
    return [n.op for n in tf.function(fn).get_concrete_function(*args).graph.nodes]


def first_above(x):
    for j in range(5):
        if x < j:
            return j
    return -1


def test_for_over_a_range_with_a_staged_return_goes_on_as_a_staged_loop(executor):
    check(first_above, executor, 0, 2, 4, 7, -3)
    ops = _ops(first_above, tf.constant(1))
    assert ops.count("while") == 1 and ops.count("cond") <= 2, ops


def long_range(x):
    total = 0
    for j in range(1000):
        total += j
        if total > x:
            break
    return total


def test_a_long_python_range_is_not_unrolled(executor):
    check(long_range, executor, 0, 100, 10**6)
    assert _ops(long_range, tf.constant(1)).count("cond") <= 2


def running_total(x):
    total = 0
    for v in [3, 1, 4, 1, 5]:
        if total > x:
            break
        total += v
    return total


def scaled_sum(x):
    acc = 0.0
    for v in (0.5, 1.5, 2.5):
        acc += v * x
        if acc > 2.0:
            break
    return acc


def test_for_over_a_python_list_of_numbers_with_a_staged_break(executor):
    check(running_total, executor, -1, 0, 4, 100)
    check(scaled_sum, executor, 0.5, 2.0, 0.25, dtype=tf.float32)
    assert _ops(running_total, tf.constant(1)).count("while") == 1


def indexes_a_python_list(x):
    table = [10, 20, 30, 40]
    out = 0
    for j in range(4):
        out += table[j]  # a staged j reads the list as a staged table (ag__.get_item)
        if out > x:
            break
    return out


def test_a_python_list_read_at_the_staged_index_goes_on_as_a_staged_loop(executor):
    check(indexes_a_python_list, executor, 5, 35, 65, 1000)
    ops = _ops(indexes_a_python_list, tf.constant(1))
    assert ops.count("while") == 1, ops


def over_tensors(x, ys):
    best = x * 0
    for y in [ys[0], ys[1], ys[2]]:
        if y > x:
            best = y
            break
    return best


def test_for_over_a_python_list_of_tensors_with_a_staged_break(executor):
    ys = np.array([1, 5, 9], np.int32)
    staged = tf.function(over_tensors, executor=executor)
    for x in (0, 3, 7, 10):
        assert _value(staged(tf.constant(x), tf.constant(ys))) == over_tensors(x, list(ys))


def while_true_break(x):
    n = 0
    while True:
        n += 1
        if x * n > 10:
            break
    return n


def countdown_becomes_staged(x):
    y = 10  # a Python int until the second iteration
    i = 0
    while i < 6 and y > 0:
        y = y - x if i > 0 else y - 1
        i += 1
    return i, y


def test_a_python_while_whose_test_becomes_staged_goes_on_staged(executor):
    check(while_true_break, executor, 1, 3, 20)
    check(countdown_becomes_staged, executor, 1, 4, 20, 0)


def returns_in_loop_then_reads(x):
    for j in range(3):
        last = j * 2
        if x == j:
            return last, True
    return last, False


def test_staged_return_of_a_tuple_from_a_python_loop(executor):
    check(returns_in_loop_then_reads, executor, 0, 1, 2, 5)


# --- what cannot be staged: the message names the variable and the fix --------------------------

def int_becomes_float(n):
    i = 0
    s = 0
    while i < n:
        s = s + 0.5
        i += 1
    return s


def test_a_python_int_loop_variable_that_becomes_a_float_is_a_float_loop_variable(executor):
    assert int_becomes_float(2) == 1.0  # plain Python lets s become a float
    f = tf.function(int_becomes_float, executor=executor)
    result = f(tf.constant(2))
    assert result.dtype is tf.float64 and result.numpy() == 1.0  # weakly typed: widened
    assert f(tf.constant(0)).numpy() == 0.0
    assert f.experimental_get_tracing_count() == 1


# --- an error that tracing raises after staged side effects -------------------------------------

def prints_then_fails(a):
    if a > 0:
        print("positive", a)
    assert a > -5, "too small"
    if False:
        u = 1
    return u  # noqa: F821 - unbound on purpose: plain Python raises here on every call


def test_a_trace_time_error_is_raised_after_the_staged_side_effects_before_it(executor, capsys):
    staged = tf.function(prints_then_fails, executor=executor)
    for x in (3, 7):
        with pytest.raises(UnboundLocalError):
            prints_then_fails(x)
        plain = capsys.readouterr().out
        with pytest.raises(UnboundLocalError, match="'u'"):
            staged(tf.constant(x))
        assert capsys.readouterr().out == plain == "positive {}\n".format(x)
    # The staged assert before the error fails first, as the plain one does.
    with pytest.raises(AssertionError, match="too small"):
        prints_then_fails(-9)
    with pytest.raises(tf.errors.InvalidArgumentError, match="too small"):
        staged(tf.constant(-9))
    assert staged.experimental_get_tracing_count() == 1


def test_get_concrete_function_still_raises_a_trace_time_error():
    with pytest.raises(UnboundLocalError):
        tf.function(prints_then_fails).get_concrete_function(tf.TensorSpec([], tf.int32))


def prints_then_reads_in_a_loop(a):
    k = 0
    while k < a % 3:
        k += 1
        if False:
            u = 1
        print("iteration", k, a)
        v = u  # noqa: F821 - unbound on purpose
    return k


def test_a_loop_body_runs_its_prints_before_an_undefined_read_fails(executor, capsys):
    # Found by the 20,000-program fuzz run (seed '20261123:17077'): the print was lost.
    staged = tf.function(prints_then_reads_in_a_loop, executor=executor)
    assert _value(staged(tf.constant(3))) == prints_then_reads_in_a_loop(3) == 0
    for a in (1, 2):
        with pytest.raises(UnboundLocalError):
            prints_then_reads_in_a_loop(a)
        plain = capsys.readouterr().out
        with pytest.raises(UnboundLocalError, match="'u'"):
            staged(tf.constant(a))
        assert capsys.readouterr().out == plain == "iteration 1 {}\n".format(a)


def long_unrolled_chain(x):
    v = x
    for _ in range(300):  # a Python loop: 300 single-use scalar expressions in a row
        v = (min(v, x + 5) + 1) % 7
    return v


def test_a_long_chain_of_scalar_expressions_compiles(executor):
    # Found by the 20,000-program fuzz run (seed '20261123:17972'): the compiled executor
    # inlined the whole chain into one expression, nested too deep for Python's parser.
    check(long_unrolled_chain, executor, 0, 3, -4)


def returns_from_a_loop_that_appends(a):
    values = []
    v = 0
    for i in range(a % 5):
        if i > 2:
            u = i
            return v, i
        v = (u if i > 5 else i) + 1
        values.append(i)
    return v, len(values)


def test_a_branch_that_always_raises_keeps_a_staged_list_it_does_not_change(executor):
    # Found by the 20,000-program fuzz run (seed '20261124:11830'): the placeholder outputs of
    # the failing branch asked zeros_like for a TensorArray, which crashed.
    staged = tf.function(returns_from_a_loop_that_appends, executor=executor)
    for a in (0, 3, 4, 9):
        assert _value(staged(tf.constant(a))) == returns_from_a_loop_that_appends(a)


def both_branches_fail_after_printing(p, q):
    if p:
        if q:
            print("q", q)
        if False:
            u = 1
        v = u  # noqa: F821 - unbound on purpose
    else:
        print("not p", p)
        if False:
            w = 1
        v = w  # noqa: F821 - unbound on purpose
    return v


def test_when_both_staged_branches_fail_each_runs_its_prints_first(executor, capsys):
    # Found by the 20,000-program fuzz run (seed '20261125:16249').
    staged = tf.function(both_branches_fail_after_printing, executor=executor)
    for p in (True, False):
        for q in (True, False):
            with pytest.raises(UnboundLocalError):
                both_branches_fail_after_printing(p, q)
            plain = capsys.readouterr().out
            with pytest.raises(UnboundLocalError):
                staged(tf.constant(p), tf.constant(q))
            assert capsys.readouterr().out == plain


# --- a local function that assigns variables through `nonlocal` ---------------------------------

charge = functions.nonlocal_writer_called_in_staged_control_flow


def test_a_local_function_assigning_through_nonlocal_in_staged_control_flow(executor):
    # TensorFlow's AutoGraph (2.21) does not see these assignments: both branches' calls run
    # while tracing, or the tensor leaks out of its branch (README, beyond TensorFlow)
    check(charge, executor, (2.0, 0), (0.25, 0), (2.0, 3), (-1.5, 2), (0.0, 1))
    assert _value(tf.function(charge, executor=executor)(tf.constant(2.0), tf.constant(0))) == \
        (-0.75, 1)


def test_activity_counts_a_nonlocal_writers_call_as_an_assignment():
    import gast

    from autograph.pyct import anno
    from autograph.pyct import parser
    from autograph.pyct import qual_names
    from autograph.pyct import transformer
    from autograph.pyct.static_analysis import activity
    from autograph.pyct.static_analysis.annos import NodeAnno

    node = parser.parse_entity(charge)
    node = qual_names.resolve(node)
    node = activity.resolve(node, transformer.EntityInfo("charge", "<test>", None), None)
    branch = next(n for n in gast.walk(node) if isinstance(n, gast.If))
    body = anno.getanno(branch, NodeAnno.BODY_SCOPE)
    assert {str(q) for q in body.bound} == {"total", "count"}  # the call to pay() binds them
