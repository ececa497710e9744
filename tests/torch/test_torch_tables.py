"""A Python list or tuple of numbers (a global table, a list argument, rows of numbers) read at
a traced index: one constant tensor read at that index (`Backend.stack`), as on the runtime
and JAX backends; the element stands for a Python number. Before, torch asked the index for
a Python int ("Could not extract specialized integer from data-dependent expression")."""

import logging
import math

import pytest
import torch

from autograph.backends import torch as ag_torch

SQUARES = [0, 1, 4, 9, 16, 25, 36, 49, 64, 81]
GRID = ((1, 2, 3), (4, 5, 6))


def digit_square_sum(n):
    total = 0
    while n > 0:
        total += SQUARES[n % 10]
        n //= 10
    return total


def binary_search(items, target):
    lo, hi = 0, len(items) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if items[mid] == target:
            return mid
        if items[mid] < target:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1


def grid_cell(i, j):
    found = GRID[i][j]
    found += 1  # a number: the table is unchanged
    return found, GRID[i][j]


def counted_from_the_end(k):
    return SQUARES[-k]


@pytest.mark.parametrize('fn, calls', [
    (digit_square_sum, [(145,), (0,), (99,)]),
    (binary_search, [([1, 3, 5, 7, 9], 7), ([1, 3, 5, 7, 9], 4), ([1, 3, 5, 7, 9], 1)]),
    (grid_cell, [(0, 2), (1, 0)]),
    (counted_from_the_end, [(1,), (10,)]),
])
def test_a_table_read_at_a_traced_index_equals_python(fn, calls):
    def tensors(call):
        return [torch.tensor(a) if type(a) is int else a for a in call]

    def staged(*values):  # the list argument stays a Python list
        it = iter(values)
        return fn(*[next(it) if type(a) is int else a for a in calls[0]])

    program = ag_torch.export(staged, tuple(a for a in tensors(calls[0])
                                            if isinstance(a, torch.Tensor))).module()
    for call in calls:
        got = program(*[a for a in tensors(call) if isinstance(a, torch.Tensor)])
        want = fn(*call)
        if isinstance(want, tuple):
            assert [g.item() for g in got] == list(want)
        else:
            assert got.item() == want


def test_an_index_out_of_range_raises_indexerror_when_run():
    program = ag_torch.export(counted_from_the_end, (torch.tensor(1),)).module()
    with pytest.raises(IndexError, match='list index out of range'):
        program(torch.tensor(11))


def test_a_carried_python_float_takes_the_default_dtype_of_the_call():
    def halve(x):
        y = 10.0
        while y > x:
            y = y / 2
        return y

    before = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        out = ag_torch.export(halve, (torch.tensor(1.0),)).module()(torch.tensor(1.0))
    finally:
        torch.set_default_dtype(before)
    assert out.dtype == torch.float64 and out.item() == 0.625


def factorials_of_digits(n):
    total = 0
    while n > 0:
        total += math.factorial(n % 5)  # the backend's factorial table, read in the loop
        n = n // 5
    return total


@pytest.mark.parametrize('fn, example', [(digit_square_sum, 145), (factorials_of_digits, 57)])
def test_a_table_read_in_a_staged_loop_exports_on_the_meta_device(fn, example):
    # torch.tensor on meta makes a real meta tensor, which the trace refused as a loop operand
    program = ag_torch.export(fn, (torch.tensor(example, device='meta'),))
    devices = {str(n.meta['val'].device) for n in program.graph.nodes
               if isinstance(n.meta.get('val'), torch.Tensor)}
    assert devices == {'meta'}
    cpu = ag_torch.export(fn, (torch.tensor(example),)).module()
    assert cpu(torch.tensor(example)).item() == fn(example)


def ragged_row(i):
    rows = [[1, 2], [3]]  # rows of different lengths: no one tensor holds them
    return rows[i][0]


def test_a_list_that_cannot_be_staged_read_at_a_traced_index_says_what_to_do():
    # Python's TypeError for an index that is no int, where torch said "Could not extract
    # specialized integer from data-dependent expression"
    with pytest.raises(TypeError, match=r'cannot be used as a Python int .*Index a tensor'):
        ag_torch.export(ragged_row, (torch.tensor(1),))


def table_written_through_a_row(n):
    dp = [[0, 0, 0] for _ in range(4)]
    for i in range(1, n):
        row = dp[i]  # `row[j] = ...` becomes `dp[i][j] = ...` (converters/aliases.py)
        row[1] = dp[i - 1][1] + i
    return dp[n - 1][1]


class _Records(logging.Handler):
    def __init__(self):
        super().__init__()
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def test_a_table_written_at_a_traced_index_exports_without_torch_noise():
    # torch.export logs "Unable to find user code corresponding to {u0}" when the index,
    # asked for as a Python int first, turns out to be known only at run time: the backend
    # answers that itself, so the log would only confuse
    records = _Records()
    logger = logging.getLogger('torch.fx.experimental.symbolic_shapes')
    logger.addHandler(records)
    try:
        program = ag_torch.export(table_written_through_a_row, (torch.tensor(4),)).module()
    finally:
        logger.removeHandler(records)
    assert program(torch.tensor(4)).item() == table_written_through_a_row(4) == 6
    assert not [m for m in records.messages if 'Unable to find user code' in m]
    assert logger.isEnabledFor(logging.WARNING)  # it would have been seen


def cell_read_before_its_row_changes(a):
    t = [[0, 0], [0, 0], [0, 0]]
    t[-(a % 3) - 1][0] = 11  # at a traced index: the rows become tensors
    v = t[2][1]  # a number, in Python
    t[2][1] = 5  # changes the row, not v
    return v


def cell_read_before_a_write_at_a_traced_index(a):
    t = [[0, 0], [0, 0], [0, 0]]
    if a > 10:
        return -1
    v = t[2][1]
    t[-(a % 3) - 1][-1] = 5  # t is a table tensor here: `t[2]` is its row, `[1]` a view
    return v + 10 * t[2][1]


@pytest.mark.parametrize('fn', [cell_read_before_its_row_changes,
                                cell_read_before_a_write_at_a_traced_index])
def test_a_number_read_from_a_table_does_not_change_with_the_table(fn):
    # a tensor that stands for a list gives a copy of an element (torch's view changed
    # with the row: found by the fuzzer, a silent wrong value)
    program = ag_torch.export(fn, (torch.tensor(20),)).module()
    for a in (20, 1, 3):
        assert torch.as_tensor(program(torch.tensor(a))).item() == fn(a), a
