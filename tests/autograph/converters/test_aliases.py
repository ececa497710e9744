"""Tests for converters/aliases.py: writes through `row = dp[i]` become writes through `dp`.

Each function runs plain and converted on Python values (they must agree, the lists they
change included); the golden sources pin where the rewrite is made, and the functions where
it must not be made would change another list if it were (so the equivalence fails then).
Staged behaviour is in the shared corpus (`*_through_*alias*` in
tests/corpus/real_features.py), which runs every way on every backend.
"""
import copy

import numpy as np
import pytest

import autograph as ag
from autograph.converters import aliases
from tests.autograph.converters.conftest import golden
from tests.autograph.converters.conftest import source
from tests.autograph.converters.conftest import transform


def table_rows(a, b):
    dp = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        row = dp[i]
        prev = dp[i - 1]
        for j in range(1, len(b) + 1):
            if a[i - 1] == b[j - 1]:
                row[j] = prev[j - 1] + 1
            else:
                row[j] = max(prev[j], row[j - 1])
    return dp


def test_writes_through_a_row_go_through_the_table():
    assert source(transform(table_rows, aliases)) == golden('''
        def table_rows(a, b):
            dp = [([0] * (len(b) + 1)) for _ in range((len(a) + 1))]
            for i in range(1, (len(a) + 1)):
                row = dp[i]
                prev = dp[(i - 1)]
                for j in range(1, (len(b) + 1)):
                    if (a[(i - 1)] == b[(j - 1)]):
                        (dp, row) = ag__.write_through(dp, (i,), row, (j,), (prev[(j - 1)] + 1))
                    else:
                        (dp, row) = ag__.write_through(dp, (i,), row, (j,), max(prev[j], row[(j - 1)]))
            return dp
    ''')


def name_alias(x):
    a = [1]
    b = a
    b.append(x)
    y = b.pop(0)
    b[0] += 1
    del b[1:]
    return a, b, y


def test_a_name_alias_and_its_methods():
    assert source(transform(name_alias, aliases)) == golden('''
        def name_alias(x):
            a = [1]
            b = a
            a.append(x)
            b = a
            y = a.pop(0)
            b = a
            a[0] += 1
            b = a
            del a[1:]
            b = a
            return (a, b, y)
    ''')


def row_replaced(x):
    dp = [[0, 0], [0, 0]]
    row = dp[0]
    dp[0] = [7, 7]  # row still holds the old row
    row[1] = x
    return dp, row


def index_rebound(x):
    dp = [[0, 0], [0, 0]]
    i = 0
    row = dp[i]
    i += 1
    row[1] = x
    return dp


def rows_inserted(x):
    dp = [[0, 0], [1, 1]]
    row = dp[0]
    dp.insert(0, [5, 5])  # dp[0] is another list now
    row[0] = x
    return dp


def _swap(table):
    table[0], table[1] = table[1], table[0]


def table_passed_to_a_function(x):
    dp = [[0, 0], [1, 1]]
    row = dp[0]
    _swap(dp)
    row[0] = x
    return dp


def table_aliased_again(x):
    dp = [[0, 0], [1, 1]]
    row = dp[0]
    q = dp
    q[0] = [9, 9]
    row[0] = x
    return dp, q


def row_rebound_in_a_branch(x):
    dp = [[0, 0], [1, 1]]
    row = dp[0]
    if x > 1:
        row = [4, 4]
    row[0] = x
    return dp, row


def sliced_copy(x):
    dp = [[0, 0], [1, 1]]
    row = dp[0][:]
    row[0] = x
    return dp, row


@pytest.mark.parametrize('fn', [row_replaced, index_rebound, rows_inserted,
                                table_passed_to_a_function, table_aliased_again,
                                row_rebound_in_a_branch, sliced_copy])
def test_no_rewrite_where_the_alias_may_hold_another_list(fn):
    assert 'row = ' in source(transform(fn, aliases))
    assert source(transform(fn, aliases)).count('row[0] = x') + source(
        transform(fn, aliases)).count('row[1] = x') == 1
    for x in (1, 3):
        assert ag.convert(fn)(x) == fn(x)


def in_place_and_after(x, rows):
    row = rows[1]
    for k in range(3):
        if x > k:
            row[k % 2] += x
        row.append(k)
    total = row[0] + row[-1]
    row.sort()
    return total


def nested_function_keeps_its_own_scope(x):
    grid = [[0, 0]]
    row = grid[0]

    def put(v):
        row[0] = v  # the closure's row: not rewritten (not in this block)
    put(x)
    row[1] = x
    return grid


def read_before_the_write_in_the_next_iteration(x):
    grid = [[0, 0], [0, 0]]
    row = grid[0]
    for i in range(2):
        row[1] = row[1] + x
        row = grid[1]  # a rebinding: the writes before it are not rewritten
    return grid


def names_bound_again_after_the_writes(x):
    dp = [[0, 0], [0, 0]]
    i = 0
    row = dp[i]
    row[0] = x
    i += 1  # after the last write: the writes are rewritten
    row = dp[i]  # a binding of its own
    row[1] = x * 2
    return dp, i


def test_names_may_be_bound_again_after_the_last_write():
    assert source(transform(names_bound_again_after_the_writes, aliases)) == golden('''
        def names_bound_again_after_the_writes(x):
            dp = [[0, 0], [0, 0]]
            i = 0
            row = dp[i]
            (dp, row) = ag__.write_through(dp, (i,), row, (0,), x)
            i += 1
            row = dp[i]
            (dp, row) = ag__.write_through(dp, (i,), row, (1,), (x * 2))
            return (dp, i)
    ''')


@pytest.mark.parametrize('fn,args', [
    (table_rows, ([1, 2, 3, 2], [2, 3, 2, 1])),
    (names_bound_again_after_the_writes, (3,)),
    (name_alias, (5,)),
    (in_place_and_after, (2, [[1, 2], [3, 4, 5]])),
    (nested_function_keeps_its_own_scope, (3,)),
    (read_before_the_write_in_the_next_iteration, (2,)),
])
def test_converted_acts_as_plain_on_python_values(fn, args):
    plain_args, converted_args = copy.deepcopy(args), copy.deepcopy(args)
    assert ag.convert(fn)(*converted_args) == fn(*plain_args)
    assert converted_args == plain_args  # the lists the function changed, changed alike


def test_the_rewritten_write_keeps_its_line():
    node = transform(table_rows, aliases)
    loop = node.body[1]
    branch = loop.body[2].body[0]
    write, = branch.body
    assert write.lineno == write.value.lineno == table_rows.__code__.co_firstlineno + 7


def index_changed_by_a_closure(x):
    dp = [[0, 0], [0, 0]]
    i = 0

    def step():
        nonlocal i
        i += 1
    row = dp[i]
    step()  # i is 1 now; row is still dp[0]
    row[1] = x
    return dp


def table_changed_by_a_closure(x):
    dp = [[0, 0], [0, 0]]

    def fresh_first_row():
        dp[0] = [5, 5]
    row = dp[0]
    fresh_first_row()  # dp[0] is another list now
    row[1] = x
    return dp


TABLE = [[0, 0], [0, 0]]


def _replace_table():
    global TABLE
    TABLE = [[1, 1], [1, 1]]


def global_table_bound_again_by_a_call(x):
    global TABLE
    TABLE = [[0, 0], [0, 0]]
    row = TABLE[0]
    _replace_table()  # TABLE is another table now; row is the old one's row
    row[1] = x
    return TABLE, row


@pytest.mark.parametrize('fn', [index_changed_by_a_closure, table_changed_by_a_closure,
                                global_table_bound_again_by_a_call])
def test_no_rewrite_where_a_call_may_change_what_the_binding_read(fn):
    assert 'row[1] = x' in source(transform(fn, aliases))
    assert ag.convert(fn)(3) == fn(3)


def table_read_by_a_closure(x):
    dp = [[0, 0], [0, 0]]

    def first():
        return dp[0][0]  # reads only: the rewrite stands
    row = dp[1]
    row[0] = first() + x
    return dp


def test_a_closure_that_only_reads_the_table_keeps_the_rewrite():
    assert '(dp, row) = ag__.write_through(dp, (1,), row, (0,), (first() + x))' in source(
        transform(table_read_by_a_closure, aliases))
    assert ag.convert(table_read_by_a_closure)(3) == table_read_by_a_closure(3)


def test_a_method_call_through_a_row_stays_on_the_row():
    # `rows[1].append(k)` would be no list operator for converters/lists (a method call of a
    # name only); the item assignment is written through the table
    text = source(transform(in_place_and_after, aliases))
    assert 'row.append(k)' in text and 'row.sort()' in text
    assert "(rows, row) = ag__.write_through(rows, (1,), row, ((k % 2),), x, 'iadd')" in text


def table_cell_passed_to_a_call_by_a_closure(x):
    dp = [[1, 2], [3, 4]]
    half = lambda: divmod(dp[1][0], 2)[0]  # gets a cell: cannot replace a row
    row = dp[0]
    row[1] = abs(x) + half()
    return dp


def table_passed_to_a_call_by_a_closure(x):
    dp = [[1, 2], [3, 4]]
    swap = lambda: _swap(dp)  # may replace the rows
    row = dp[0]
    swap()
    row[1] = abs(x)
    return dp


def test_what_a_closure_passes_to_a_call_counts_at_its_depth():
    kept = source(transform(table_cell_passed_to_a_call_by_a_closure, aliases))
    assert '(dp, row) = ag__.write_through(dp, (0,), row, (1,), (abs(x) + half()))' in kept
    assert 'row[1] = abs(x)' in source(transform(table_passed_to_a_call_by_a_closure, aliases))
    for fn in (table_cell_passed_to_a_call_by_a_closure, table_passed_to_a_call_by_a_closure):
        assert ag.convert(fn)(3) == fn(3)


def copied_by_an_index_array(x):
    arr = np.zeros((3, 2))
    rows = np.array([0, 2])
    picked = arr[rows]  # numpy gives a copy: writes to it leave arr alone
    picked[0] = x
    picked[1][1] += x
    return arr.tolist(), picked.tolist()


def view_of_a_row(x):
    arr = np.zeros((3, 2))
    row = arr[1]  # a view: writes to it change arr, through either name
    row[0] = x
    return arr.tolist(), row.tolist()


@pytest.mark.parametrize('fn', [copied_by_an_index_array, view_of_a_row])
def test_a_container_that_may_copy_is_written_through_the_alias(fn):
    # write_through writes through the base only where indexing gives the element itself
    # (a Python list, tuple or dict) or a staged value standing for it
    assert 'ag__.write_through(arr, ' in source(transform(fn, aliases))
    assert ag.convert(fn)(3.0) == fn(3.0)


def index_changed_by_a_closure_not_called_between(x):
    dp = [[0, 0], [0, 0]]
    i = 1
    one = lambda: 1

    def step():
        nonlocal i
        i += 1
    row = dp[i]
    row[0] += one() + x  # one() cannot change i: only step() can
    step()
    return dp, i


def _run_all(fns):
    for fn in fns:
        fn()


def index_changed_by_a_closure_passed_away(x):
    dp = [[0, 0], [0, 0]]
    i = 0

    def step():
        nonlocal i
        i += 1
    row = dp[i]
    _run_all([step])  # step leaves the function: any call may run it
    row[1] = x
    return dp, i


def test_a_closure_counts_where_it_may_run():
    kept = source(transform(index_changed_by_a_closure_not_called_between, aliases))
    assert "ag__.write_through(dp, (i,), row, (0,), (one() + x), 'iadd')" in kept
    refused = source(transform(index_changed_by_a_closure_passed_away, aliases))
    assert 'row[1] = x' in refused
    for fn in (index_changed_by_a_closure_not_called_between,
               index_changed_by_a_closure_passed_away):
        assert ag.convert(fn)(3) == fn(3)


def rows_of_a_loop(grid, k):
    for row in grid:
        row[k] += 1
        if row[0] > 1:
            row[1] = 0
    return grid


def test_writes_through_a_loop_target_go_through_the_iterated_list():
    assert source(transform(rows_of_a_loop, aliases)) == golden('''
        def rows_of_a_loop(grid, k):
            for (row_index, row) in enumerate(grid):
                (grid, row) = ag__.write_through(grid, (row_index,), row, (k,), 1, 'iadd', iterated=True)
                if (row[0] > 1):
                    (grid, row) = ag__.write_through(grid, (row_index,), row, (1,), 0, iterated=True)
            return grid
    ''')


def keys_of_a_dict(d):
    for key in d:  # a dict gives its keys: `d[row_index]` is no element of it
        key[0] = 1
    return d


def rows_with_enumerate_shadowed(grid):
    enumerate = None  # pylint: disable=redefined-builtin,unused-variable
    for row in grid:
        row[0] = 5
    return grid


@pytest.mark.parametrize('fn, args', [
    (rows_of_a_loop, ([[1, 2], [3, 4]], 0)),
    (rows_of_a_loop, ((bytearray(b'\x01\x02'), [5, 6]), 1)),
    (rows_of_a_loop, (np.array([[1, 2], [3, 4]]), 1)),  # rows are views of the array
    (keys_of_a_dict, ({(1, 2): 'a'},)),  # TypeError: a tuple key is no list
    (rows_with_enumerate_shadowed, ([[1], [2]],)),
])
def test_a_loop_target_written_through_acts_as_plain(fn, args):
    def run(f):
        a = copy.deepcopy(args)
        try:
            return f(*a), a
        except Exception as e:  # pylint: disable=broad-except
            return type(e), str(e), a
    got, want = run(ag.convert(fn)), run(fn)
    assert str(got) == str(want)


def test_no_loop_rewrite_where_enumerate_is_a_local():
    assert 'enumerate' not in source(transform(rows_with_enumerate_shadowed, aliases)).split(
        'for')[1]


def rows_of_a_slice_and_an_enumerate(grid, f):
    for k, row in enumerate(grid):
        row[0] = k + f(k)  # a call of a parameter: the loop's index is the function's own
    for row in grid[1:]:
        row[1] += 10
    return grid


def test_a_loop_over_enumerate_or_a_slice_writes_through_the_list():
    assert source(transform(rows_of_a_slice_and_an_enumerate, aliases)) == golden('''
        def rows_of_a_slice_and_an_enumerate(grid, f):
            for (k, row) in enumerate(grid):
                (grid, row) = ag__.write_through(grid, (k,), row, (0,), (k + f(k)), iterated=True)
            for (row_index, row) in enumerate(grid[1:]):
                (grid, row) = ag__.write_through(grid, ((row_index + 1),), row, (1,), 10, 'iadd', iterated=True)
            return grid
    ''')
    args = ([[1, 2], [3, 4], [5, 6]], lambda k: k * k)
    assert ag.convert(rows_of_a_slice_and_an_enumerate)(*copy.deepcopy(args)) == (
        rows_of_a_slice_and_an_enumerate(*copy.deepcopy(args))) == [[0, 2], [2, 14], [6, 16]]
