"""Lists whose length torch knows only when the program runs: `[0] * n` with a traced `n` is a
tensor of an unbacked size (torch.export and torch.compile allow them), which item
assignment at a traced index, `len`, `[1] + ...` and staged loops and branches carry. Each
exported or compiled function equals plain Python on the same numbers, IndexError included
(torch raised "Could not extract specialized integer from data-dependent expression" for
all of them, or staged an assertion on the size: a RuntimeError)."""

import pytest
import torch

from autograph.backends import torch as ag_torch
from autograph.errors import StagingError
# a table of rows of a run-time length, changed in staged branches inside staged loops
from tests.corpus.functions import table_of_a_staged_size as grid_paths


def fib_table(n):
    memo = [0] * (n + 2)
    memo[1] = 1
    for i in range(2, n + 1):
        memo[i] = memo[i - 1] + memo[i - 2]
    return memo[n]


def coin_ways(amount):
    ways = [1] + [0] * amount
    for coin in (1, 2, 5):
        for total in range(coin, amount + 1):
            ways[total] += ways[total - coin]
    return ways[amount]


def combinations(target):
    # len() of the list bounds a loop; a staged if inside the loop assigns to the list
    combs = [0] * (target + 1)
    combs[0] = 1
    for i in range(0, len(combs)):
        for num in (1, 2, 3):
            if i - num >= 0:
                combs[i] += combs[i - num]
    return combs[target]


def write_and_read(n, i):
    xs = [7] * n
    xs[i] = 3
    return xs[0] + xs[n - 1] + len(xs)


def static_indices(n):
    xs = [0] * n
    xs[1] = 5
    return xs[1] + xs[-1]


def widened(n, i):
    xs = [0] * n
    xs[i] = 0.5  # the list holds a float now, as Python's does
    return sum(xs) + xs[0]


def repeated_pairs(n):
    xs = [1, 2] * n
    return len(xs) + sum(xs)


def identity_trace(size):
    eye = [[0 for _ in range(size)] for _ in range(size)]
    for i in range(size):
        eye[i][i] = 1
    total = 0
    for i in range(size):
        for j in range(size):
            total = total * 2 + eye[i][j]
    return total + len(eye)


def counts_3d(n):
    cube = [[[0 for _ in range(2)] for _ in range(n)] for _ in range(n + 1)]
    for i in range(1, n + 1):
        for j in range(n):
            if j < i:
                cube[i][j][0] = cube[i - 1][j][0] + 1
            else:
                cube[i][j][1] = cube[i - 1][j][1] + j
    return cube[n][n - 1][0] * 100 + cube[n][n - 1][1]


def written_at_python_indices(n, m):
    table = [[0] * m for _ in range(n)]
    table[0][1] = 5  # a row of a table of a run-time size is a copy, written back
    table[-1][-1] += 2
    return table[0][1] * 10 + table[n - 1][m - 1] + len(table)


def _plain(fn, args):
    try:
        return fn(*args)
    except IndexError as error:
        return error


def _check(results, fn, calls):
    for args, got in zip(calls, results):
        expected = _plain(fn, args)
        if isinstance(expected, IndexError):
            assert isinstance(got, IndexError) and 'out of range' in str(got), (args, got)
        else:
            assert not isinstance(got, BaseException), (args, got)
            assert got.item() == pytest.approx(expected) and type(expected)(got.item()) == (
                expected), (args, got)


def _run(module, args):
    try:
        return module(*[torch.tensor(a) for a in args])
    except IndexError as error:
        return error


def list_ops(n, k):
    # `*` repeats, `==` compares whole (each was torch's: a product, or Python's False)
    xs = [0] * n
    ones = [1] * n
    flags = [xs == [0, 0, 0], [0, 0] == xs, xs == [], ones == xs, ones == ones,
             not xs == [0, 0, 0]]
    score = 0
    for bit, flag in enumerate(flags):
        if flag:
            score += 2 ** bit
    return score + 100 * (len(xs * k) + sum(2 * ones) + sum((ones + [5]) * 2))


def josephus(n, k):
    # TheAlgorithms' josephus_iterative: `list(range(...))` shrunk by `pop(i)` in a while loop
    circle = list(range(1, n + 1))
    current = 0
    while len(circle) > 1:
        current = (current + k - 1) % len(circle)
        circle.pop(current)
    return circle[0]


def pops(n, j):
    # a while loop that only pops needs no bound; pop(i) outside a loop, IndexError included
    xs = [2] * n
    total = 0
    while len(xs) > 0:
        v = xs.pop(0)
        total = total * 3 + v + len(xs)
    first = [5, 6, 7] + [1] * n
    v = first.pop(j)
    return total * 10 + v + len(first)


CASES = [
    (fib_table, [(10,), (0,), (1,), (2,), (25,)]),
    (coin_ways, [(6,), (0,), (1,), (12,)]),
    (combinations, [(4,), (0,), (1,), (7,)]),
    (write_and_read, [(4, 2), (4, -4), (4, -1), (4, 4), (2, -3), (0, 0)]),
    (static_indices, [(4,), (2,), (1,), (0,)]),
    (widened, [(3, 1), (3, 0), (3, -1), (3, 3)]),
    (repeated_pairs, [(3,), (0,), (-2,)]),
    (grid_paths, [(3,), (0,), (1,), (5,)]),
    (identity_trace, [(3,), (0,), (1,), (4,)]),
    (counts_3d, [(3,), (1,), (4,)]),  # n == 0: empty rows (see below)
    (written_at_python_indices, [(2, 3), (1, 2), (3, 2), (2, 1)]),
    (list_ops, [(3, 2), (0, 3), (2, -1), (3, 0), (1, 1)]),
    # not n == 0: circle[0] of an empty list of a run-time length is torch's error (docs/torch.md)
    (josephus, [(7, 3), (1, 2), (5, 1), (8, 4)]),
    (pops, [(3, 1), (0, 0), (2, -1), (1, 9), (0, -4)]),
]


@pytest.mark.parametrize('fn, calls', CASES, ids=[c[0].__name__ for c in CASES])
def test_exported_equals_python(fn, calls):
    program = ag_torch.export(fn, tuple(torch.tensor(a) for a in calls[0]))
    module = program.module()
    _check([_run(module, args) for args in calls], fn, calls)


COMPILED = CASES[:3] + CASES[7:9] + CASES[-3:]


@pytest.mark.parametrize('fn, calls', COMPILED, ids=[c[0].__name__ for c in COMPILED])
def test_compiled_equals_python(fn, calls):
    compiled = ag_torch.compile(fn, fullgraph=True)
    _check([_run(compiled, args) for args in calls], fn, calls)


def tensor_alias(x, i):
    y = x
    x[i] = 5  # a tensor's assignment: in place, as eager torch's (y sees it)
    return y.sum()


def truncated(x, i):
    x[i] = 2.5  # into an int tensor (not a list): torch's cast, as eager torch's
    return x.sum()


@pytest.mark.parametrize('fn', [tensor_alias, truncated])
def test_assignment_to_a_tensor_at_a_traced_index_is_torchs(fn):
    program = ag_torch.export(fn, (torch.zeros(4, dtype=torch.int64), torch.tensor(1)))
    for i in (1, -1, 0):
        expected = fn(torch.zeros(4, dtype=torch.int64), torch.tensor(i))  # eager torch
        assert program.module()(torch.zeros(4, dtype=torch.int64), torch.tensor(i)).item() == (
            expected.item())


def empty_rows(n, m):
    table = [[0] * m for _ in range(n)]
    return len(table)


def test_a_table_of_empty_rows_raises_a_staging_error_when_run():
    # torch lays a table out with rows at least one long (torch_lists._nonempty_rows); a
    # table of no rows has no rows to see, so any width is fine
    module = ag_torch.export(empty_rows, (torch.tensor(2), torch.tensor(3))).module()
    assert module(torch.tensor(4), torch.tensor(1)).item() == 4
    assert module(torch.tensor(0), torch.tensor(0)).item() == 0
    with pytest.raises(StagingError, match=r'empty rows .*Make each row one longer'):
        module(torch.tensor(2), torch.tensor(0))


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


def test_items_assigned_at_indices_that_read_a_staged_lists_items():
    program = ag_torch.export(linear_sieve_totients, (torch.tensor(10),)).module()
    for n in (1, 10, 20):
        assert program(torch.tensor(n)).tolist() == linear_sieve_totients(n)
