"""Tests for runtime.autograph_builtins (truth values, builtins) and staged `raise` on the
runtime backend, on both executors."""
import numpy as np
import pytest

import autograph as ag
import runtime as tf
from runtime import autograph_builtins
from runtime.autograph_backend import BACKEND
from runtime.graph import Graph

EXECUTORS = ["interpreter", "compiled"]


class Custom(Exception):
    """A user-defined exception class."""


def validate(n):
    total = 0
    i = 0
    while i < n:
        total += i
        i += 1
        if total > 10:
            tf.print("total", total)
            raise Custom(f"total {total:>4} at i={i!r}") from KeyError(i)
    if n < 0:
        raise ValueError
    return total


@pytest.mark.parametrize("executor", EXECUTORS)
def test_staged_raise_when_the_branch_runs(executor, capsys):
    f = tf.function(validate, executor=executor)
    assert f(tf.constant(3)).numpy() == validate(3) == 3
    with pytest.raises(ValueError) as e:
        f(tf.constant(-1))
    assert e.value.args == ()
    with pytest.raises(Custom) as e:
        f(tf.constant(7))
    assert capsys.readouterr().out == "total 15\n"  # the print staged before the raise ran
    with pytest.raises(Custom) as plain:
        validate(7)
    assert e.value.args == plain.value.args == ("total   15 at i=6",)
    assert repr(e.value.__cause__) == repr(plain.value.__cause__) == "KeyError(6)"
    assert f.experimental_get_tracing_count() == 1


def test_truth_of_numbers():
    graph = Graph("g")
    with graph.as_default():
        x = graph.placeholder(tf.float32, ())
        flag = graph.placeholder(tf.bool, ())
        vector = graph.placeholder(tf.int32, (3,))
        assert autograph_builtins.truth(x).dtype is tf.bool
        assert autograph_builtins.truth(flag) is flag
        assert autograph_builtins.truth(vector) is vector  # cond refuses it as ambiguous
    assert autograph_builtins.truth(5) == 5


def worklist(n):
    stack = [n]
    total = 0
    while stack:  # a staged list once a staged branch appends to it: its truth is len > 0
        v = stack.pop()
        total += v
        if v > 1:
            stack.append(v // 2)
            stack.append(v // 3)
    return total


@pytest.mark.parametrize("executor", EXECUTORS)
def test_the_truth_of_a_staged_list_is_that_it_is_not_empty(executor):
    # the loop's test was the list itself: "must return a scalar bool, found variant tensor"
    f = tf.function(worklist, executor=executor)
    assert [int(f(tf.constant(n))) for n in (10, 0, 1, 7)] == [
        worklist(n) for n in (10, 0, 1, 7)] == [24, 0, 1, 15]


def popcount(n):
    count = 0
    while n:
        if n & 1:
            count += 1
        n >>= 1
    return count, not n, (n or 9), (count and 3 or 5)


_POPCOUNT = {executor: tf.function(popcount, executor=executor) for executor in EXECUTORS}


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("n", [0, 1, 13, 255])
def test_truth_in_if_while_not_and_or(executor, n):
    f = _POPCOUNT[executor]
    got = [np.asarray(v).item() for v in f(tf.constant(n))]
    assert got == list(popcount(n))


def test_truth_of_a_vector_is_still_ambiguous():
    def f(v):
        if v:
            return 1
        return 0

    with pytest.raises(TypeError, match="scalar bool"):
        tf.function(f)(tf.constant([1, 2]))


@pytest.mark.parametrize("before, after, compatible", [
    ("int", "int32", True), ("int", "float64", True), ("int32", "int", True),
    ("float", "int32", False), ("int32", "float", False), ("float", "float32", True),
    ("bool", "int64", True), ("int32", "int64", True), ("float32", "float64", True),
    ("int32", "float32", False), ("float64", "int64", False), ("int32", "string", False),
    ("TensorArray[int32]", "int32", False),
])
def test_compatible_types_are_pythons_weak_typing(before, after, compatible):
    assert BACKEND.compatible_types(before, after) is compatible


def squares_mod(n, reverse=False):
    out = []
    for i in range(n):
        out.append((i * 7) % 5 - 2.5)
    return sum(out), len(out), any(out), all(out), sorted(out, reverse=reverse)


def extremes(n):
    out = []
    for i in range(n):
        out.append((i * 7) % 5)
    return max(out), min(out), max(out, default=-1)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("n", [0, 1, 6])
def test_builtins_of_a_list_built_in_a_staged_loop(executor, n):
    for reverse in (False, True):
        f = tf.function(squares_mod, executor=executor)
        total, length, some, every, ordered = f(tf.constant(n), reverse)
        plain = squares_mod(n, reverse)
        assert (total.numpy(), int(length), bool(some), bool(every)) == plain[:4]
        assert ordered.numpy().tolist() == plain[4]
    f = tf.function(extremes, executor=executor)
    if n == 0:
        with pytest.raises(ValueError) as staged:
            f(tf.constant(n))
        with pytest.raises(ValueError) as plain:
            extremes(n)
        assert str(staged.value) == str(plain.value)  # Python's own words
    else:
        assert [int(v) for v in f(tf.constant(n))] == list(extremes(n))


def fib_memo(n):
    memo = [0] * (n + 1)
    memo[1] = 1
    for i in range(2, n + 1):
        memo[i] = memo[i - 1]
        memo[i] += memo[i - 2]
    return memo[n], len(memo), sum(list(range(1, n + 1)))


def out_of_range(n, k):
    xs = [0, 1] * n
    xs[k] = 0.5  # a float: the list now holds floats
    return xs


@pytest.mark.parametrize("executor", EXECUTORS)
def test_lists_of_a_staged_length_with_item_assignment(executor):
    f = tf.function(fib_memo, executor=executor)
    for n in (1, 2, 10, 40):
        assert [int(v) for v in f(tf.constant(n, tf.int64))] == list(fib_memo(n))
    g = tf.function(out_of_range, executor=executor)
    for n, k in ((2, 3), (2, -4), (0, 0), (2, 4), (2, -5)):
        try:
            expected = out_of_range(n, k)
        except IndexError as e:
            with pytest.raises(IndexError, match="list assignment index out of range"):
                g(tf.constant(n), tf.constant(k))
            assert str(e) == "list assignment index out of range"
        else:
            assert g(tf.constant(n), tf.constant(k)).numpy().tolist() == expected
    assert g.experimental_get_tracing_count() == 1
    # a float scale keeps TensorFlow's elementwise product (Python would refuse it)
    scaled = tf.function(scale_list)(tf.constant(2.0))
    assert scaled.numpy().tolist() == [2.0, 4.0]


def scale_list(x):
    return [1.0, 2.0] * x


def grow_lists(n):
    # lists of a staged length are lists: `+` concatenates, `append` grows, `*` repeats,
    # `==` compares whole, a float widens them (each was an elementwise op or a crash)
    zeros = [0] * n
    ones = [1] + [0] * n
    ones += [5]
    count = list(range(n))
    count.append(7)
    for i in range(n):
        zeros.append(i)
    floats = [0] * n
    floats.append(2.5)
    return (zeros + [9], ones, count, [2, 3] * n * 2, floats, [0] * n == [0, 0, 0],
            [0] * n != [], ones == [1] + [0] * n + [5])


def pop_in_an_expression(n):
    stack = []
    total = 0
    for i in range(n):
        stack.append(i)
    while len(stack) > 1:
        total += stack.pop()
    return total


def test_a_pop_inside_an_expression_of_a_staged_list_says_how_to_write_it():
    # it was Python's "'TensorArray' object has no attribute 'pop'"
    with pytest.raises(TypeError, match=r"stack\.pop\(\) is part of a larger expression.*"
                                        r"Write `value = stack\.pop\(\)` on a line of its own"):
        tf.function(pop_in_an_expression)(tf.constant(4))
    assert pop_in_an_expression(4) == 6


@pytest.mark.parametrize("executor", EXECUTORS)
def test_lists_of_a_staged_length_are_lists(executor):
    f = tf.function(grow_lists, executor=executor)
    for n in (0, 1, 3):
        got = [v.numpy().tolist() for v in f(tf.constant(n))]
        assert got == list(grow_lists(n)), n


def table_of_sums(w, n):
    # TheAlgorithms' knapsack: `[0] * (w + 1)` rows written with an int64 argument's sums
    dp = [[0] * (w + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        dp[i][1] = dp[i - 1][1] + w
    return dp[n][1]


def repeated(n):
    return [0] * n, [0.1] * n, [True] * n, [1, 2.5] * n


@pytest.mark.parametrize("executor", EXECUTORS)
def test_repeated_python_numbers_have_the_dtype_of_carried_python_numbers(executor):
    # Python's floats are doubles, and under enable_x64 its ints are int64: `[0] * n` was
    # int32 there, and writing an int64 argument's sum into it raised ("TensorArray dtype is
    # int32 but Op is trying to write dtype int64"); `[0.1] * n` was float32
    before = tf.config.x64_enabled()
    try:
        for x64, int_dtype in ((False, tf.int32), (True, tf.int64)):
            tf.config.enable_x64(x64)
            ints, floats, bools, mixed = tf.function(repeated, executor=executor)(
                tf.constant(3, tf.int64))
            assert (ints.dtype, floats.dtype, bools.dtype, mixed.dtype) == (
                int_dtype, tf.float64, tf.bool, tf.float64)
            assert [ints.numpy().tolist(), floats.numpy().tolist(), bools.numpy().tolist(),
                    mixed.numpy().tolist()] == [list(r) for r in repeated(3)]
        f = tf.function(table_of_sums, executor=executor)
        assert f(tf.constant(5, tf.int64), tf.constant(3, tf.int64)).numpy() == 15
        assert table_of_sums(5, 3) == 15
    finally:
        tf.config.enable_x64(before)


def fill_prefix(n, k):
    out = [0, 0, 0, 0]
    for i in range(n):
        out[i] = i * 10  # a Python list carried by a staged loop: a staged value
    doubles = [1]
    for i in range(n):
        doubles.append(doubles[-1] * 2)  # a staged list read at -1
    return out, doubles[k]


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_python_list_assigned_at_a_staged_index_and_a_staged_list_read_at_one(executor):
    f = tf.function(fill_prefix, executor=executor)
    for n, k in ((3, -1), (0, 0), (4, 2)):
        out, item = f(tf.constant(n), tf.constant(k))
        # `out` stays a Python list (of tensors now): its items were assigned in place
        assert ([int(v) for v in out], int(item)) == fill_prefix(n, k)
    for n, k in ((5, 0), (2, 3)):  # past the end of `out`, then of `doubles`
        with pytest.raises(IndexError) as plain:
            fill_prefix(n, k)
        with pytest.raises(IndexError):
            f(tf.constant(n), tf.constant(k))
    assert "assignment" in str(plain.value) or "list index" in str(plain.value)
    with pytest.raises(TypeError, match="'TensorArray' object is not subscriptable"):
        tf.TensorArray(tf.float32, size=1)[0]  # a TensorArray of the user's own, as in TF


def coin_count(coins, value):
    ways = [1] + [0] * value  # a list: concatenated, not an elementwise sum
    for coin in coins:
        for i in range(coin, value + 1):
            ways[i] += ways[i - coin]
    return ways[value], len(ways)


def fib_from_generator(n):
    def fib():
        a, b = 0, 1
        while True:
            yield a
            a, b = b, a + b
    f = fib()
    return [f.__next__() for _ in range(n + 1)]


@pytest.mark.parametrize("executor", EXECUTORS)
def test_concatenated_lists_and_python_iterators_in_staged_loops(executor):
    f = tf.function(coin_count, executor=executor)
    for coins, value in (([1, 2, 3], 4), ([2, 5, 3, 6], 10), ([2], 3), ([2], 0)):
        assert [int(v) for v in f(coins, tf.constant(value))] == list(coin_count(coins, value))
    assert "ag__.list_concat([1], ag__.repeat([0], value))" in ag.to_code(coin_count)
    assert ag.convert(fib_from_generator)(5) == fib_from_generator(5) == [0, 1, 1, 2, 3, 5]
    with pytest.raises(ag.StagingError, match=r"A Python iterator is advanced \(__next__\(\)\) "
                                              r"inside a staged loop"):
        tf.function(fib_from_generator, executor=executor)(tf.constant(5))


def first_then_successors(n, a, r):
    # TheAlgorithms' geometric_series: `if not all((...))` of staged numbers, then `if not
    # series:` of the list the loop appends to
    if not all((n, a, r)):
        return [-1]
    series = []
    for _ in range(n):
        if not series:
            series.append(a)
        else:
            series.append(a * r)
    return series


@pytest.mark.parametrize("executor", EXECUTORS)
def test_truth_of_a_staged_list_and_all_of_staged_numbers(executor):
    # `not series` of a TensorArray raised a TypeError ("Expected a tensor ... found
    # TensorArray"); all((n, a, r)) asked a tensor for a Python bool
    f = tf.function(first_then_successors, executor=executor)
    for args in ((4, 2, 3), (1, 5, 2), (0, 2, 2), (3, 0, 2)):
        got = f(*[tf.constant(a, tf.int64) for a in args]).numpy().tolist()
        assert got == first_then_successors(*args), args


def sorted_divisors(num, descending):
    # TheAlgorithms' factors_of_a_number: appends in a staged loop, then `facs.sort()`, and
    # an early `return facs` of the Python list in a staged branch
    facs = []
    if num < 1:
        return facs
    facs.append(1)
    for i in range(2, num + 1):
        if num % i == 0:
            facs.append(num // i)
    facs.sort(reverse=descending)
    return facs


@pytest.mark.parametrize("executor", EXECUTORS)
def test_sort_of_a_staged_list_is_its_sorted_list(executor):
    # `facs.sort()` raised a StagingError ("is not staged: only append(), pop() ...")
    f = tf.function(sorted_divisors, executor=executor)
    for num, descending in ((12, False), (12, True), (1, False), (0, False), (7, True)):
        got = f(tf.constant(num, tf.int64), descending)
        assert np.asarray(got).tolist() == sorted_divisors(num, descending), num


def josephus(num_people, step_size):
    # TheAlgorithms' josephus_iterative: pop at a staged index of list(range(...))
    circle = list(range(1, num_people + 1))
    current = 0
    while len(circle) > 1:
        current = (current + step_size - 1) % len(circle)
        circle.pop(current)
    return circle[0]


def pop_at(n, k):
    evens = []
    for i in range(n):
        evens.append(2 * i)
    last = evens.pop(k)  # a staged list built in a staged loop
    return evens, last


@pytest.mark.parametrize("executor", EXECUTORS)
def test_pop_at_a_staged_index(executor):
    # pop(i) raised an AttributeError ("'SymbolicTensor' object has no attribute
    # '_list_name'") for a tensor standing for a list, and a ValueError for a staged list
    f = tf.function(josephus, executor=executor)
    for n, k in ((7, 3), (1, 2), (5, 1), (10, 4)):
        assert f(tf.constant(n, tf.int64), tf.constant(k, tf.int64)).numpy() == josephus(n, k)
    g = tf.function(pop_at, executor=executor)
    for n, k in ((4, 1), (4, -1), (3, 0)):
        rest, last = g(tf.constant(n), tf.constant(k))
        assert (rest.numpy().tolist(), int(last)) == pop_at(n, k)
    with pytest.raises(IndexError, match="pop index out of range"):
        g(tf.constant(3), tf.constant(3))


def count_up_to(x):
    total = 0
    for i in range(1, x + 1):
        total += i
    return total


def checked_factorial(number):
    # TheAlgorithms' factorial: the ValueError for a float runs before the range of it
    if number != int(number):
        raise ValueError("factorial() only accepts integral values")
    value = 1
    for i in range(1, number + 1):
        value *= i
    return value


@pytest.mark.parametrize("executor", EXECUTORS)
def test_range_of_a_float_raises_pythons_type_error_when_it_runs(executor):
    # tf.range counted in floats: range(1, 3.5) gave 1 + 2 + 3 = 6.0 where Python raises
    with pytest.raises(TypeError, match="'float' object cannot be interpreted as an integer"):
        tf.function(count_up_to, executor=executor)(tf.constant(2.5, tf.float64))
    f = tf.function(checked_factorial, executor=executor)
    with pytest.raises(ValueError, match="only accepts integral values"):
        f(tf.constant(2.5, tf.float64))
    assert f(tf.constant(4, tf.int64)).numpy() == 24
