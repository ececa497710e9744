"""Lists whose length a staged `if` decides, and slices of lists at traced bounds, under
torch.export and torch.compile: a list a branch appends to is a StagedList of one more slot
per append the branch may make, and after the `if` the tensor of its elements, of a
run-time length; such a tensor grows again in a later staged `if` or loop (a StagedList
made from it), and outside staged control flow `append` and `pop` give a new tensor. A
Python list sliced at a traced bound is a tensor of the elements, and `+` of such lists
concatenates. Each equals plain Python on the same numbers (each was refused: "a Python
list appended to in a branch of a staged if statement", "append() would change its length",
or torch's "Could not extract specialized integer")."""

import re

import pytest
import torch

import autograph as ag
from autograph.backends import torch as ag_torch
from tests.torch.list_checks import raises_as_python
from tests.torch.list_checks import same
from tests.torch.list_checks import tensors


def one_if(x):
    xs = []
    if x > 0:
        xs.append(x)
    return len(xs), sum(xs)


def two_ifs(x):
    xs = [1.0]
    if x > 0:
        xs.append(x)
    if x > 2:  # grows the tensor the first if left
        xs.append(x * 2)
        xs.append(x * 3)
    return xs


def unrolled_ifs(items, limit):  # a Python loop over a Python list: one staged if each
    kept = []
    for item in items:
        if item < limit:
            kept.append(item)
    return kept


def if_then_loop(n):
    found = []
    if n >= 2:
        found.append(2)
    for i in range(n):  # grows the list the if left
        if i % 3 == 1:
            found.append(i)
    return found


def after_its_loop(n):
    out = [v for v in range(n) if v % 2]
    out.append(n)  # outside staged control flow
    out.append(n * 10)
    return out


def popped_after_its_loop(n):
    out = [v * v for v in range(n)]
    last = out.pop()
    return last, len(out), sum(out)


def pairs(n):
    ranges = []
    if n > 3:
        ranges.append((1, n))  # rows of two
    ranges.append((0, 0))
    return ranges


def gaps(low, high):  # missing_ranges (keon/algorithms): tuples appended under an elif
    result = []
    start = low
    for num in [3, 5]:
        if num == start:
            start += 1
        elif num > start:
            result.append((start, num - 1))
            start = num + 1
    if start <= high:
        result.append((start, high))
    return result


def early_empty(n):  # an early `return []` beside a list a staged loop built
    if n < 2:
        return []
    return [i for i in range(n) if i % 2]


def filtered(low):
    return list(filter(lambda x: low <= x, [4, 1, 5, 2]))


def rotated(k):  # rotate_v3 (keon/algorithms): a Python list sliced at a traced bound
    array = [1, 2, 3, 4, 5, 6, 7]
    k = k % len(array)
    return array[len(array) - k:] + array[:len(array) - k]  # `+` of lists concatenates


def sliced(a, b):
    xs = [5, 1, 7, 2, 9, 4]
    return xs[a:b], xs[b:a:-1], xs[a::2]


def joined(n):
    ys = [1] * n  # a list of a run-time length
    zs = [v for v in range(n) if v % 2]
    return ys + zs


def at_most(n):  # delete_nth_naive (keon/algorithms): count() of the list the ifs grow
    result = []
    for num in [1, 2, 3, 1, 2, 1, 2, 3]:
        if result.count(num) < n:
            result.append(num)
    return result, result.count(2)


CASES = [
    (one_if, [(3.0,), (-1.0,), (0.0,)]),
    (two_ifs, [(3.0,), (1.0,), (-1.0,)]),
    (if_then_loop, [(7,), (1,), (0,), (2,)]),
    (after_its_loop, [(4,), (0,), (7,)]),
    (pairs, [(5,), (2,)]),
    (gaps, [(1, 10), (3, 3), (4, 9), (6, 6)]),
    (early_empty, [(7,), (1,), (2,)]),
    (filtered, [(2,), (9,), (0,)]),
    (rotated, [(3,), (0,), (10,), (-2,)]),
    (sliced, [(1, 4), (-3, 100), (4, 1), (-100, -2)]),
    (joined, [(4,), (0,), (1,)]),
    (at_most, [(2,), (1,), (0,), (5,)]),
]


@pytest.mark.parametrize('fn, calls', CASES, ids=[c[0].__name__ for c in CASES])
def test_exported_equals_python(fn, calls):
    module = ag_torch.export(fn, tuple(tensors(calls[0]))).module()
    for args in calls:
        assert same(module(*tensors(args)), fn(*args)), args


@pytest.mark.parametrize('fn, calls', CASES[:4], ids=[c[0].__name__ for c in CASES[:4]])
def test_compiled_equals_python(fn, calls):
    compiled = ag_torch.compile(fn, fullgraph=True)
    for args in calls:
        assert same(compiled(*tensors(args)), fn(*args)), args


def test_a_python_loop_of_staged_ifs_keeps_what_each_if_appended():
    items = [5, 1, 7, 2, 9]
    program = ag_torch.export(lambda limit: unrolled_ifs(items, limit), (torch.tensor(6),))
    for limit in (6, 0, 10, 2):
        assert program.module()(torch.tensor(limit)).tolist() == unrolled_ifs(items, limit)


def test_pop_after_the_loop_is_pythons_and_raises_for_an_empty_list():
    program = ag_torch.export(popped_after_its_loop, (torch.tensor(4),))
    for n in (4, 1):
        assert same(program.module()(torch.tensor(n)), popped_after_its_loop(n)), n
    raises_as_python(IndexError, program, popped_after_its_loop, 0)


def held_in_a_dict(n):
    state = {'seen': [v for v in range(n)]}
    for i in range(n):
        out = state['seen']
        out.append(i)
    return len(state['seen'])


def test_a_list_the_statement_does_not_carry_as_a_variable_says_why():
    with pytest.raises(ag.StagingError, match=re.escape(
            'inside a staged loop or branch that does not carry it as one of its variables')):
        ag_torch.export(held_in_a_dict, (torch.tensor(4),))


def sieve_and_primes(n):
    sieve = [True for _ in range(n)]  # a list of a run-time length: the if below scouts
    primes = [5]
    for i in range(n):
        if sieve[i]:
            primes.append(i)
            sieve[i] = False
    return primes


def test_a_scouted_if_that_carries_a_staged_list_reads_no_tensor_of_the_scout():
    # the if's plan (its scout's outputs) held the scout's StagedList, and comparing its type
    # (`buffer.dim()`, a read where `ndim` is not) made the scout's buffer a free tensor of
    # the real torch.cond: a constant, so the program returned a FakeTensor
    program = ag_torch.export(sieve_and_primes, (torch.tensor(30),))
    for n in (10, 0, 3):
        assert program.module()(torch.tensor(n)).tolist() == sieve_and_primes(n)


def rows_in_a_branch(n):
    rows = []
    if n > 2:
        rows.append([0] * n)
    return len(rows)


def test_rows_of_a_run_time_length_in_a_branch_say_why_not_that_a_bound_is_missing():
    # the if's own message ("without a bound on its length") replaced torch's reason
    with pytest.raises(ag.StagingError, match=re.escape(
            "The list 'rows' is appended to in a staged loop or branch, and its elements are "
            'lists or tensors of a length known only when the program runs')):
        ag_torch.export(rows_in_a_branch, (torch.tensor(3),))
