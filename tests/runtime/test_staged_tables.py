"""Tables (lists of lists) sized and indexed by staged values, `return []` beside a list built
in a staged loop, and Python lists changed in place in a staged branch: staged == plain on the
runtime (both executors), and under JAX where shapes allow."""
import jax
import jax.numpy as jnp
import pytest

import autograph as ag
import runtime as tf
from autograph.backends import jax as ag_jax
from tests.realcode.verbatim.keon_array import delete_nth
from tests.realcode.verbatim.keon_dp import int_divide as partitions

EXECUTORS = ["interpreter", "compiled"]


def cube_corner(n, k):
    # a table of three dimensions, its innermost rows of a Python length
    mat = [[[0 for _ in range(3)] for _ in range(n)] for _ in range(n)]
    for i in range(n):
        for j in range(n):
            mat[i][j][i % 3] += i + j
    mat[k][k][0] -= 1
    return sum(mat[k][k]), mat[n - 1][0][(n - 1) % 3]


def primes_below(n):
    # nryoung/algorithms' eratosthenes: `return []` beside a list appended in a staged loop
    primes = []
    if n < 2:
        return []
    for i in range(2, n):
        if all(i % p != 0 for p in primes):
            primes.append(i)
    return primes


def first_or_zero(n):
    if n < 1:
        return [0]
    out = []
    for i in range(n):
        out.append(i * 2)
    return out


@pytest.mark.parametrize("executor", EXECUTORS)
def test_tables_of_a_staged_size(executor):
    # `partitions` is keon/algorithms' int_divide: a table built by a nested comprehension of a
    # staged size, written and read at staged rows and columns
    f = tf.function(partitions, executor=executor)
    for n in (1, 4, 7):
        assert int(f(tf.constant(n))) == partitions(n) == {1: 1, 4: 5, 7: 15}[n]
    g = tf.function(cube_corner, executor=executor)
    for n, k in ((3, 1), (4, 3), (2, -1)):
        assert tuple(int(v) for v in g(tf.constant(n), tf.constant(k))) == cube_corner(n, k)
    with pytest.raises(IndexError):
        cube_corner(2, 5)
    with pytest.raises(IndexError):
        g(tf.constant(2), tf.constant(5))  # when the computation runs, as Python raises
    assert g.experimental_get_tracing_count() == 1


def test_tables_with_python_values_are_python_lists():
    assert ag.convert(partitions)(7) == partitions(7) == 15
    assert ag.convert(cube_corner)(4, 3) == cube_corner(4, 3)
    code = ag.to_code(partitions)
    assert "arr = ag__.set_nested_item(arr, (1, 1), 1)" in code
    assert "ag__.get_item(ag__.get_item(arr, i), (j - 1))" in code
    assert "ag__.set_nested_item(mat, (k, k, 0), 1, 'isub')" in ag.to_code(cube_corner)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_python_list_returned_beside_a_staged_list(executor):
    f = tf.function(primes_below, executor=executor)
    for n in (0, 1, 2, 20):
        assert f(tf.constant(n)).numpy().tolist() == primes_below(n)
    g = tf.function(first_or_zero, executor=executor)
    for n in (0, 3):
        assert g(tf.constant(n)).numpy().tolist() == first_or_zero(n)


def set_in_branch(x):
    memo = [0, 0]
    if x > 0:
        memo[0] = 5
    else:
        memo[1] = x
    return memo[0] + memo[1]


def nested_set_in_branch(x):
    grid = [[x, x], [x, x]]
    stats = {"hits": 0}
    if x > 0:
        grid[0][1] = x * 3
        stats["hits"] = 1
    return grid[0][1] + grid[1][0] + stats["hits"]


@pytest.mark.parametrize("x", [-2, 4])
def test_a_python_list_changed_in_place_in_one_branch_only_changes_there(x):
    # both branches are traced: each starts from its own copy of the lists and dicts it
    # changes, so `memo[0] = 5` in one does not show in the other
    for fn in (set_in_branch, nested_set_in_branch):
        expected = fn(x)
        for executor in EXECUTORS:
            assert int(tf.function(fn, executor=executor)(tf.constant(x))) == expected
        assert int(jax.jit(ag.convert(fn))(jnp.int32(x))) == expected


def search_rows(grid, target):
    # keon/algorithms' search_in_a_sorted_matrix: a list of rows read at staged positions
    i, j = len(grid) - 1, 0
    while i >= 0 and j < len(grid[0]):
        if grid[i][j] > target:
            i -= 1
        elif grid[i][j] < target:
            j += 1
        else:
            return i * 10 + j
    return -1


@pytest.mark.parametrize("target", [5, 9, 0])
def test_a_python_table_read_at_staged_positions(target):
    grid = [[1, 3, 5], [2, 6, 9], [4, 7, 10]]
    expected = search_rows(grid, target)
    assert int(tf.function(search_rows)(grid, tf.constant(target))) == expected
    assert int(ag_jax.jit(search_rows)(grid, jnp.int32(target))) == expected


def fill(memo, n):
    for i in range(n):
        memo[i] = 7


def filled_by_a_helper(n):
    memo = [0, 0, 0]
    fill(memo, n)  # the helper changes the caller's list in place
    return memo[0] + memo[2]


def assigned_through_an_alias(x):
    memo = [0, 0, 0]
    alias = memo
    if x > 0:
        memo[x] = 5
    return alias[1] + memo[1]


@pytest.mark.parametrize("n", [0, 2, 3])
def test_a_list_assigned_at_a_staged_index_changes_in_place_for_every_name(n):
    # the staged loop or if carries the list as a staged value; afterwards the list object
    # itself gets the final elements, so a caller's name and an alias see them
    for fn, arg in ((filled_by_a_helper, n), (assigned_through_an_alias, n - 1)):
        expected = fn(arg)
        for executor in EXECUTORS:
            assert int(tf.function(fn, executor=executor)(tf.constant(arg))) == expected
        assert int(jax.jit(ag.convert(fn))(jnp.int32(arg))) == expected


def halves(n):
    out = [1, 2]
    for i in range(n):
        out.append(i / 2)  # a float appended to ints: Python's list holds both
    return out


def widening_append(n, b):
    out = []
    x = b
    for i in range(n):
        out.append(x)
        x = x + 0.5 * i  # the loop widens `x` (and so the list) to float64
    return out


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_list_built_in_a_staged_loop_widens_as_pythons_holds_wider_values(executor):
    f = tf.function(halves, executor=executor)
    result = f(tf.constant(3))
    assert result.dtype == tf.float64 and result.numpy().tolist() == halves(3)
    g = tf.function(widening_append, executor=executor)
    result = g(tf.constant(4), tf.constant(1, tf.int32))
    assert result.numpy().tolist() == widening_append(4, 1)


def int_then_floats(a, r, n):
    series = []
    for i in range(n):
        if i == 0:
            series.append(a)  # an int in the if branch ...
        else:
            series.append(a * r)  # ... a float in the else branch (TheAlgorithms' geometric_series)
    return sum(series)


def test_a_list_given_an_int_in_one_branch_and_a_float_in_the_other_says_so():
    # the else branch widened the if branch's list inside its own graph: the runtime said
    # "The tensor 'tensor_array_write:0' belongs to graph 'cond_true'" (a leak it made itself)
    f = tf.function(int_then_floats)
    with pytest.raises(ag.errors.BranchVariableError, match=r"(?s)'series' has type "
                       r"TensorArray\[int32\] in the if branch, but type "
                       r"TensorArray\[float64\] in the else branch"):
        f(tf.constant(2), tf.constant(0.5, tf.float64), tf.constant(3))


def residue_counts(n, v):
    out = []
    for i in range(n):
        if out.count(i % 3) < 2:  # keon/algorithms' delete_nth_naive counts its staged list
            out.append(i % 3)
    return out.count(v), out.count(1.5), out.count(True), len(out)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_count_of_a_list_built_in_staged_control_flow(executor):
    f = tf.function(residue_counts, executor=executor)
    for n, v in ((7, 1), (0, 0), (2, 2)):
        assert tuple(int(c) for c in f(tf.constant(n), tf.constant(v))) == residue_counts(n, v)
    with pytest.raises(AttributeError, match="no attribute 'count'"):
        tf.TensorArray(tf.int32, size=1).count(0)  # a TensorArray of the user's own, as in TF


@pytest.mark.parametrize("n", [0, 1, 2])
def test_a_defaultdict_changed_in_a_staged_branch_keeps_its_factory(n):
    # keon/algorithms' delete_nth: a defaultdict of counts changed in a staged branch
    array = [1, 2, 1, 1, 3, 2]
    for executor in EXECUTORS:
        out = tf.function(delete_nth, executor=executor)(array, tf.constant(n))
        assert out.numpy().tolist() == delete_nth(array, n)


def key_order_after_staged_flow(x, seen):
    d = {"b": 1, "a": 2}
    if x > 0:
        d["b"] = x
    while x < 3:
        d["a"] = d["a"] + 1
        x = x + 1
    seen.append(list(d))  # Python's iteration order, recorded while tracing
    return d["a"] + d["b"]


@pytest.mark.parametrize("target", EXECUTORS + ["jax"])
def test_a_dict_through_staged_control_flow_keeps_pythons_key_order(target):
    seen = []
    if target == "jax":
        f = ag_jax.jit(lambda x: key_order_after_staged_flow(x, seen))
        as_value = jnp.int32
    else:
        f = tf.function(lambda x: key_order_after_staged_flow(x, seen), executor=target)
        as_value = tf.constant
    for x in (1, -2):
        assert int(f(as_value(x))) == key_order_after_staged_flow(x, seen)
    assert seen and all(order == ["b", "a"] for order in seen)


def bubble_sorted(xs, n):
    # a swap by unpacking, at staged positions, in a staged loop
    xs = list(xs)
    for i in range(n):
        for j in range(len(xs) - 1 - i):
            if xs[j] > xs[j + 1]:
                xs[j], xs[j + 1] = xs[j + 1], xs[j]
    return xs


def swap_and_name(xs, i, j):
    xs[i], xs[j] = xs[j], xs[i]
    k, xs[0] = xs[1], 9
    return xs, k


def test_a_swap_by_unpacking_items():
    assert ag.convert(swap_and_name)([1, 2, 3], 0, 2) == swap_and_name([1, 2, 3], 0, 2)
    code = ag.to_code(swap_and_name)
    assert "xs = ag__.set_item(xs, i, unpacked_)" in code
    assert "xs = ag__.set_item(xs, j, unpacked_1)" in code
    with pytest.raises(ValueError, match="too many values to unpack"):
        ag.convert(_three_into_two)()
    data = [5, 1, 4, 2, 8, 0]
    staged = [tf.function(bubble_sorted, executor=e) for e in EXECUTORS]
    for n in (0, 2, 6):
        for f in staged:
            assert [int(v) for v in f(data, tf.constant(n))] == bubble_sorted(data, n)
        assert [int(v) for v in jax.jit(ag.convert(bubble_sorted))(data, n)] == bubble_sorted(data, n)


def _three_into_two():
    xs = [0, 0]
    xs[0], xs[1] = 1, 2, 3
    return xs


def fib_bounded(n):
    memo = [0] * (n + 1)
    ag.experimental.set_list_options(memo, maximum_size=8)
    if n > 0:
        memo[1] = 1
    for i in range(2, n + 1):
        memo[i] = memo[i - 1] + memo[i - 2]
    return memo[n], len(memo)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_the_runtime_needs_no_list_bound_and_ignores_it(executor):
    # the runtime's staged lists have a run-time length: a list longer than its
    # maximum_size is what Python gives (under JAX, whose buffers are fixed, ListFullError)
    f = tf.function(fib_bounded, executor=executor)
    for n in (0, 1, 7, 12):
        assert tuple(int(v) for v in f(tf.constant(n))) == fib_bounded(n)
    with pytest.raises(ag.errors.ListFullError, match="'memo' holds at most 8"):
        ag_jax.jit(fib_bounded)(jnp.int32(12))
    assert tuple(int(v) for v in ag_jax.jit(fib_bounded)(jnp.int32(7))) == fib_bounded(7)


def _trace_marks():
    """(traces, mark): `mark(name)`, left unconverted, appends `name` to `traces` each time a
    branch calling it is traced."""
    traces = []

    @ag.do_not_convert
    def mark(name):
        traces.append(name)

    return traces, mark


def test_a_python_list_that_one_branch_replaces_by_a_staged_list():
    # The if's scout does not look ahead for the Python list it carries; the else branch
    # gives it a TensorArray, so the scout is staged again looking ahead (staged_if._Unfit)
    # and the if branch's list becomes a TensorArray like it.
    traces, mark = _trace_marks()

    def f(c, x):
        out = [x]
        if c > 0:
            mark("if")
        else:
            mark("else")
            out = tf.TensorArray(tf.int32, size=0, dynamic_size=True).write(0, x + 1)
        return out.stack()

    g = tf.function(f)
    assert g(tf.constant(1), tf.constant(5)).numpy().tolist() == [5]
    assert g(tf.constant(-1), tf.constant(5)).numpy().tolist() == [6]
    # one trace: scout (if, else), the scout again looking (if, a look at else, else), the
    # staging (if, else)
    assert traces == ["if", "else", "if", "else", "else", "if", "else"]


def test_an_if_that_appends_to_a_python_list_traces_each_branch_twice():
    # once in the if's scout, which finds the list to make staged, and once staged
    traces, mark = _trace_marks()

    def f(c, x):
        out = [x]
        if c > 0:
            mark("if")
            out.append(x * 2)
        else:
            mark("else")
        return len(out)

    plain = [f(1, 3), f(-1, 3)]
    traces.clear()
    g = tf.function(f)
    assert [int(g(tf.constant(c), tf.constant(3))) for c in (1, -1)] == plain == [2, 1]
    assert traces == ["if", "else", "if", "else"]


def linear_sieve_totients(n):
    # TheAlgorithms' totient: items assigned at indices that read a staged list's items
    # (`is_prime[i * primes[j]] = False`), which Python's own assignment refused
    is_prime = [True for _ in range(n + 1)]
    totients = [i - 1 for i in range(n + 1)]
    primes = []
    for i in range(2, n + 1):
        if is_prime[i]:
            primes.append(i)
        for j in range(len(primes)):
            if i * primes[j] >= n:
                break
            is_prime[i * primes[j]] = False
            if i % primes[j] == 0:
                totients[i * primes[j]] = totients[i] * primes[j]
                break
            totients[i * primes[j]] = totients[i] * (primes[j] - 1)
    return totients


@pytest.mark.parametrize("executor", EXECUTORS)
def test_items_assigned_at_indices_that_read_a_staged_lists_items(executor):
    f = tf.function(linear_sieve_totients, executor=executor)
    for n in (1, 10, 20):
        assert f(tf.constant(n, tf.int64)).numpy().tolist() == linear_sieve_totients(n)


def row_of_mixed_ints(x, b):
    t = [[0] * 3 for _ in range(3)]
    t[2][0] += int(x) % 13  # an int64 (of a float64's int) beside the rows' int32s
    for _ in range(b % 4):
        r = t[0]
        r[2] = r[2] + t[b % 3][1] % 7 + 1  # the table stacked: its rows' dtypes joined
    return t[0][2] + t[2][0] * 10


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_table_whose_rows_hold_ints_of_several_widths_stacks(executor):
    # "Expected a tensor of dtype int32, found int64" (runtime fuzz seed 29270004:1770)
    f = tf.function(row_of_mixed_ints, executor=executor)
    for x, b in ((1.25, 3), (20.5, 0), (-3.0, 7)):
        got = f(tf.constant(x, tf.float64), tf.constant(b))
        assert int(got) == row_of_mixed_ints(x, b)
