"""Tests for converters/lists.py."""

import collections

import jax.numpy as jnp
import pytest

import autograph as ag
from autograph.backends import jax as ag_jax
from autograph.converters import lists
from tests.autograph.converters.conftest import golden
from tests.autograph.converters.conftest import source
from tests.autograph.converters.conftest import transform

g_list = []


def f_lists(n):
    l = []
    l.append(n)
    g_list.append(n)
    x = l.pop()
    l.pop(0) if l else None
    return x


def test_golden_only_local_lists_are_rebound():
    assert source(transform(f_lists, lists)) == golden('''
        def f_lists(n):
            l = []
            l = ag__.list_append(l, n)
            g_list.append(n)
            (l, x) = ag__.list_pop(l, None)
            (l.pop(0) if l else None)
            return x
    ''')


def test_python_semantics():
    del g_list[:]
    assert ag.convert(f_lists)(7) == 7
    assert g_list == [7]


def loop_append(n):
    out = []
    for i in range(n):
        out.append(i * i)
        if i % 2:
            out.pop()
    return out


def test_append_pop_in_loop():
    assert ag.convert(loop_append)(6) == [0, 4, 16]


g_table = [0, 0]


def f_items(n, d):
    memo = [0] * (n + 1)
    memo[1] = 1
    memo[-1] += 5  # augmented: operator.iadd(memo[-1], 5)
    d[n] = memo
    g_table[0] = n  # a global: never rebound
    memo[n - 1:n] = [9]  # a slice: Python's own

    def inner():
        memo[0] = 4  # a closure variable: never rebound
    inner()
    return memo, 3 * [n], len([n] * -1)


def test_golden_item_assignment_of_locals_and_repeated_displays():
    code = ag.to_code(f_items)
    assert 'memo = ag__.repeat([0], (n + 1))' in code
    assert 'memo = ag__.set_item(memo, 1, 1)' in code
    assert "memo = ag__.set_item(memo, (- 1), 5, 'iadd')" in code
    assert 'd = ag__.set_item(d, n, memo)' in code
    assert 'g_table[0] = n' in code and 'memo[0] = 4' in code and 'memo[(n - 1):n] = [9]' in code
    assert 'ag__.repeat(3, [n])' in code


def items_at_read_indices(n, primes, calls):
    flags = [True] * (n + 1)
    totients = list(range(n + 1))
    for j in range(len(primes)):
        flags[primes[j]] = False  # an index that reads an item, a value that computes
        totients[primes[j] * 2 % (n + 1)] += totients[primes[j]] * 2
    flags[primes[0]] = calls.pop()  # a value with a call: Python evaluates it first
    flags[primes.pop()] = 0  # an index with a call
    return flags, totients


def test_golden_item_assignment_at_an_index_reading_an_item():
    # TheAlgorithms' totient: `is_prime[i * primes[j]] = False` was left to Python, which
    # refused the staged index
    code = ag.to_code(items_at_read_indices)
    assert 'flags = ag__.set_item(flags, ag__.get_item(primes, j), False)' in code
    assert ("totients = ag__.set_item(totients, ((ag__.get_item(primes, j) * 2) % (n + 1)), "
            "(ag__.get_item(totients, ag__.get_item(primes, j)) * 2), 'iadd')") in code
    # left to Python: Python evaluates the value, then the index
    assert 'flags[ag__.get_item(primes, 0)] = ag__.converted_call(calls.pop' in code
    assert 'flags[ag__.converted_call(primes.pop, (), None, fscope)] = 0' in code
    assert ag.convert(items_at_read_indices)(6, [2, 3, 5], [7, 8]) == items_at_read_indices(
        6, [2, 3, 5], [7, 8]) == ([True, True, 8, False, True, 0, True],
                                  [0, 1, 2, 13, 8, 5, 12])


def augmented_items(grid, k):
    row = grid[0]
    grid[0] += [k]  # list.__iadd__: `row` sees it, as in Python
    grid[1] -= k
    grid[2] //= k
    return grid, row


def test_augmented_item_assignment_with_python_values_is_plain():
    assert (ag.convert(augmented_items)([[1], 5, 7], 2)
            == augmented_items([[1], 5, 7], 2) == ([[1, 2], 3, 3], [1, 2]))
    with pytest.raises(ZeroDivisionError):
        ag.convert(augmented_items)([[1], 5, 7], 0)


def test_item_assignment_and_repetition_with_python_values_are_plain():
    plain, converted = {}, {}
    assert ag.convert(f_items)(3, converted) == f_items(3, plain) == ([4, 1, 9, 5], [3, 3, 3], 0)
    assert converted == plain
    assert g_table[0] == 3
    shared = [1, 2]
    alias = shared
    ag.convert(lambda_free_set)(shared)
    assert alias is shared and shared == [1, 7]  # changed in place, as Python does
    for bad in ([1], {}):
        try:
            lambda_free_set(bad)
        except Exception as e:  # noqa: BLE001 - the same exception either way
            expected = e
        try:
            ag.convert(lambda_free_set)(bad)
        except Exception as e:  # noqa: BLE001
            assert type(e) is type(expected) and str(e) == str(expected)


def lambda_free_set(xs):
    xs[1] = 7
    return xs


def squares_into(n, k):
    xs = [0] * 5 if not hasattr(n, 'dtype') else n * 0 + jnp.zeros(5, jnp.int32)
    for i in range(n):
        xs[i] = i * i
    xs[k] = 0.5  # a float: the list (or array) now holds floats
    return xs


def repeated(n):
    return [0] * n


def test_item_assignment_and_repetition_under_jax():
    staged = ag_jax.jit(squares_into)
    for n, k in ((3, -1), (5, 0)):
        expected = squares_into(n, k)
        assert staged(jnp.asarray(n), jnp.asarray(k)).tolist() == expected
    with pytest.raises(IndexError, match='list assignment index out of range'):
        squares_into(3, 7)
    with pytest.raises(IndexError, match='list assignment index out of range'):
        staged(jnp.asarray(3), jnp.asarray(7))  # raised when the computation runs
    with pytest.raises(ag.StagingError, match=r'set_list_options\(name, maximum_size=N\).*or use a Python int N >= n'):
        ag_jax.jit(repeated)(jnp.asarray(3))


def f_in_place(n, queue):
    xs = [3, 1, 2]
    xs.extend([n, n + 1])
    xs.insert(0, n)
    xs.remove(1)
    xs.sort()
    ys = list(xs)
    ys.reverse()
    ys.sort(key=lambda v: -v, reverse=True)
    zs = [1]
    zs.clear()
    queue.extend(range(n))  # an argument's own extend (a deque): the name rebound to it
    q = queue
    q.extend((7,))
    g_list.sort()  # a global: never rebound
    return xs, ys, zs, q is queue


def test_golden_in_place_list_methods_rebind_local_names():
    converted = source(transform(f_in_place, lists))
    for line in ("xs = ag__.list_method(xs, 'extend', ([n, (n + 1)],), 'xs', {})",
                 "xs = ag__.list_method(xs, 'insert', (0, n), 'xs', {})",
                 "xs = ag__.list_method(xs, 'remove', (1,), 'xs', {})",
                 "xs = ag__.list_method(xs, 'sort', (), 'xs', {})",
                 "ys = ag__.list_method(ys, 'sort', (), 'ys', {'key': ",
                 "zs = ag__.list_method(zs, 'clear', (), 'zs', {})",
                 "queue = ag__.list_method(queue, 'extend', (range(n),), 'queue', {})",
                 'g_list.sort()'):
        assert line in converted, line


def test_in_place_list_methods_with_python_values_are_plain():
    del g_list[:]
    g_list.extend([2, 1])
    expected_queue, queue = collections.deque([5]), collections.deque([5])
    expected = f_in_place(4, expected_queue)
    g_list[:] = [2, 1]
    assert ag.convert(f_in_place)(4, queue) == expected
    assert queue == expected_queue and g_list == [1, 2]


def removes_a_missing_value(n):
    xs = [n]
    xs.remove(n + 1)
    return xs


def test_in_place_list_method_errors_are_pythons():
    with pytest.raises(ValueError) as python:
        removes_a_missing_value(2)
    with pytest.raises(ValueError) as converted:
        ag.convert(removes_a_missing_value)(2)
    assert str(converted.value) == str(python.value)


def inserts_in_a_staged_loop(xs):
    out = [0]
    for x in xs:
        out.insert(0, x)
    return out


def test_an_in_place_change_in_a_staged_loop_says_what_stages():
    with pytest.raises(ag.StagingError, match=r"out\.insert\(\) changes the Python list 'out' "
                       r'in place inside a staged loop.*Only append\(\) and pop\(\)'):
        ag_jax.jit(inserts_in_a_staged_loop)(jnp.arange(3))
    assert ag.convert(inserts_in_a_staged_loop)([1, 2]) == [2, 1, 0]


def deletes(n, d):
    xs = [1, 2, 3, 4, 5, 6]
    del xs[0]
    del xs[1:3]
    del d[n]  # a dict: its own __delitem__
    return xs, d


def test_del_of_an_item_of_a_local_is_list_method_and_plain_with_python_values():
    converted = source(transform(deletes, lists))
    assert "xs = ag__.list_method(xs, '__delitem__', (0,), 'xs', {})" in converted
    assert "xs = ag__.list_method(xs, '__delitem__', (slice(1, 3, None),), 'xs', {})" in (
        converted)
    assert ag.convert(deletes)(2, {2: 'a', 3: 'b'}) == deletes(2, {2: 'a', 3: 'b'})
    with pytest.raises(KeyError) as python:
        deletes(9, {})
    with pytest.raises(KeyError) as staged:
        ag.convert(deletes)(9, {})
    assert staged.value.args == python.value.args


def deletes_in_staged_branches(x):
    xs = [1, 2, 3]
    if x > 0:
        del xs[0]  # each branch deletes from its own copy
    else:
        del xs[-1]
    return xs[0] * 10 + xs[1]


def test_del_in_staged_branches_changes_each_branchs_copy():
    # before, both branches deleted from the one list while they were traced: IndexError
    # here, and a wrong list where one branch deletes (`[1, 3]` for x <= 0 on the runtime)
    for x in (1, -1):
        assert int(ag_jax.jit(deletes_in_staged_branches)(jnp.asarray(x))) == (
            deletes_in_staged_branches(x))


def plus_a_display(xs, arr):
    alias, path = xs, xs
    path = path + [7]  # a new list: `alias` keeps its elements
    out = alias
    out += [8, 9]  # in place: `alias` sees them
    arr += [1, 2]  # a numpy array adds elementwise
    try:
        (1,) + [2]
    except TypeError as e:
        error = str(e)
    return alias, path, out is alias, arr.tolist(), [0] + arr.tolist(), error


def test_plus_of_a_list_display_with_python_values_is_plain():
    import numpy as np  # pylint: disable=import-outside-toplevel
    assert ag.convert(plus_a_display)([1], np.array([10, 20])) == plus_a_display(
        [1], np.array([10, 20])) == ([1, 8, 9], [1, 7], True, [11, 22], [0, 11, 22],
                                     'can only concatenate tuple (not "list") to tuple')
    assert 'ag__.list_plus(path, [7])' in ag.to_code(plus_a_display)
    assert 'out = ag__.list_plus(out, [8, 9], True)' in ag.to_code(plus_a_display)
