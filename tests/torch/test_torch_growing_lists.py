"""Lists that a staged loop appends to, under torch.export and torch.compile: a buffer whose
capacity bounds the list (the items on entry, plus the loop's iterations times the appends
one iteration may make) and a traced length; after the loop, the tensor of its elements, of a
run-time length. Each exported or compiled function equals plain Python on the same numbers
(the backend refused every one: "torch.while_loop ... a list cannot change its size")."""

import re

import pytest
import torch

import autograph as ag
from autograph.backends import torch as ag_torch
from autograph.errors import LoopVariableError
from tests.torch.list_checks import raises_as_python
from tests.torch.list_checks import same
from tests.torch.list_checks import tensors


def divisors(n):
    return [d for d in range(1, n + 1) if n % d == 0]


def fib_list(n):
    xs = [0, 1]
    for i in range(2, n + 1):
        xs.append(xs[i - 1] + xs[i - 2])  # read inside the loop, at a traced index
    return xs[n]


def evens(x):
    out = []
    for v in x:  # over a tensor's rows
        if v % 2 == 0:
            out.append(v * 10)
    return sum(out), len(out)


def twice(n):
    out = []
    for i in range(n):
        out.append(i)
        if i % 2:
            out.append(-i)  # two appends in one iteration: the capacity counts both
    return out


def popper(n):
    stack = [1]
    for i in range(n):
        stack.append(i)
        if i % 3 == 0:
            stack.pop()
    return len(stack), sum(stack)


def until_found(x, target):
    seen = []
    for v in x:
        if v == target:
            break
        seen.append(v)
    return seen


def bounded_while(n):
    out = []
    while n > 1:
        ag.experimental.set_loop_options(maximum_iterations=64)
        out.append(n)
        n = n // 2
    return len(out), sum(out)


def floats(n):
    out = [1]
    for i in range(n):
        out.append(i / 2)
    return sum(out)


def worklist(n):
    stack = [n]
    total = 0
    while stack:  # a list's truth: len > 0, also as the output of the bound's torch.cond
        ag.experimental.set_loop_options(maximum_iterations=64)
        v = stack.pop()
        total += v
        if v > 1:
            stack.append(v // 2)
            stack.append(v // 3)
    return total


CASES = [
    (divisors, [(12,), (1,), (0,), (28,), (-3,)]),
    (fib_list, [(10,), (1,), (2,), (30,)]),
    (evens, [([1, 2, 3, 4],), ([2, 2, 6, 8],), ([1, 3, 5, 7],)]),
    (twice, [(5,), (0,), (1,), (8,)]),
    (popper, [(7,), (0,), (3,)]),
    (until_found, [([1, 2, 3, 4], 3), ([1, 2, 3, 4], 9), ([1, 2, 3, 4], 1)]),
    (bounded_while, [(9,), (1,), (1000,)]),
    (floats, [(3,), (0,)]),
    (worklist, [(10,), (0,), (1,), (7,)]),
]


@pytest.mark.parametrize('fn, calls', CASES, ids=[c[0].__name__ for c in CASES])
def test_exported_equals_python(fn, calls):
    program = ag_torch.export(fn, tuple(tensors(calls[0])))
    module = program.module()
    for args in calls:
        if len(args) and isinstance(args[0], list) and len(args[0]) != len(calls[0][0]):
            continue
        assert same(module(*tensors(args)), fn(*args)), args


@pytest.mark.parametrize('fn, calls', CASES[:4], ids=[c[0].__name__ for c in CASES[:4]])
def test_compiled_equals_python(fn, calls):
    compiled = ag_torch.compile(fn, fullgraph=True)
    for args in calls:
        assert same(compiled(*tensors(args)), fn(*args)), args


def nested(n):
    out = []
    for i in range(n):
        for j in range(i):
            out.append(j)  # a staged loop nested in the loop appends: no bound
    return len(out)


def unbounded_while(n):
    out = []
    while n > 1:
        out.append(n)
        n = n // 2
    return len(out)


@pytest.mark.parametrize('fn', [nested, unbounded_while])
def test_a_list_without_a_bound_is_refused_saying_how_to_write_it(fn):
    with pytest.raises(ag.StagingError, match=r"(?s)The list 'out'.*no bound of its length "
                       r'is known.*for loop over a range.*maximum_iterations=N'):
        ag_torch.export(fn, (torch.tensor(5),))


def overflows(n):
    out = []
    for i in range(n):
        ag.experimental.set_loop_options(maximum_iterations=3)
        out.append(i)
    return len(out)


def test_a_loop_of_a_users_bound_stops_there_as_tensorflows_does():
    # set_loop_options(maximum_iterations=N) stops the staged loop after N iterations
    # (TensorFlow's rule, and the other backends'); the list holds what it appended
    program = ag_torch.export(overflows, (torch.tensor(5),))
    assert program.module()(torch.tensor(5)).item() == 3
    assert program.module()(torch.tensor(2)).item() == 2


def sized(n):
    out = []
    ag.experimental.set_list_options(out, maximum_size=3)
    for i in range(n):
        out.append(i)
    return len(out)


def test_a_list_of_a_users_size_that_needs_more_raises_list_full_error():
    program = ag_torch.export(sized, (torch.tensor(2),))
    assert program.module()(torch.tensor(3)).item() == 3
    with pytest.raises(ag.errors.ListFullError, match="'out' holds at most 3 elements"):
        program.module()(torch.tensor(5))


def odd_extremes(n):
    odds = [v for v in range(n) if v % 2]
    ordered = sorted(odds, reverse=True)
    return min(odds), max(odds), ordered[0], ordered[len(ordered) // 2]


def test_builtins_of_a_list_after_the_loop_are_pythons():
    # sorted() of it, and min() of an empty one raises Python's ValueError (torch's own
    # min raised IndexError: "Expected reduction dim 0 to have non-zero size")
    program = ag_torch.export(odd_extremes, (torch.tensor(6),))
    for n in (6, 9, 2):
        assert same(program.module()(torch.tensor(n)), odd_extremes(n)), n
    raises_as_python(ValueError, program, odd_extremes, 1)


def rows_of_a_run_time_length(n):
    table = [[0] * n for i in range(n) if i >= 0]  # appended in a staged loop
    return len(table)


def test_rows_of_a_run_time_length_appended_are_refused_saying_why():
    # (rows that do not depend on the loop, `[[0] * n for _ in range(n)]`, are one tensor
    # of rows: tests/torch/test_torch_run_time_lists.py)
    with pytest.raises(ag.StagingError, match=re.escape(
            'its elements are lists or tensors of a length known only')):
        ag_torch.export(rows_of_a_run_time_length, (torch.tensor(4),))


def first_then_successors(n, a):
    # TheAlgorithms' geometric_series tests `if not series:` of the list its loop appends to
    series = []
    for _ in range(n):
        if not series:
            series.append(a)
        else:
            series.append(a + 1)
    return series


def ints_then_halves(n, a):
    out = []
    for _ in range(n):
        out.append(a)
        out.append(a / 2)  # a float beside the ints: the buffer of ints would truncate it
    return out


def test_truth_of_a_list_a_staged_loop_appends_to_is_whether_it_has_an_element():
    # the StagedList object itself was always true: [2, 2, 2] where Python gives [1, 2, 2]
    program = ag_torch.export(first_then_successors, tuple(tensors((3, 1))))
    for n, a in ((3, 1), (1, 5), (0, 1)):
        assert same(program.module()(*tensors((n, a))), first_then_successors(n, a))


def test_a_float_appended_to_a_list_of_ints_is_refused_not_truncated():
    # the buffer's cast gave [1, 0, 1, 0] where Python gives [1, 0.5, 1, 0.5]; the buffer
    # takes the float dtype, which the loop then refuses as a change of its variable's type
    with pytest.raises(LoopVariableError, match="'out' has type"):
        ag_torch.export(ints_then_halves, tuple(tensors((2, 1))))


def complex_then_halves(x, n):
    xs = [x]
    for i in range(n):
        xs.append(0.5 * i)  # a float beside a complex: the list stays complex
    return sum(xs)


def test_a_float_appended_to_a_list_of_complex_numbers_keeps_them_complex():
    # the buffer was "widened" to a float dtype, dropping the imaginary parts: the loop then
    # refused the change of its variable's type ('xs' ... complex64 ... float32)
    x = torch.tensor(1j, dtype=torch.complex64)
    program = ag_torch.export(complex_then_halves, (x, torch.tensor(3)))
    for n in (0, 3):
        got = program.module()(x, torch.tensor(n))
        assert got.dtype == torch.complex64 and complex(got) == complex_then_halves(1j, n)


def sorted_divisors(num):
    # TheAlgorithms' factors_of_a_number: `facs.sort()` of the list a staged loop appends to
    facs = []
    if num < 1:
        return facs
    facs.append(1)
    for i in range(2, num + 1):
        if num % i == 0:
            facs.append(num // i)
    facs.sort()
    return facs


def test_sort_of_a_list_a_staged_loop_appends_to_is_its_sorted_list():
    # it raised a StagingError ("is not staged: only append(), pop() ...")
    program = ag_torch.export(sorted_divisors, tuple(tensors((12,))))
    for num in (12, 1, 0, 7):
        assert same(program.module()(*tensors((num,))), sorted_divisors(num)), num


def harmonic_sum(first, difference, terms):
    # TheAlgorithms' sum_of_harmonic_progression: a comprehension over the list a staged
    # loop appended to (a tensor of a run-time length after the loop)
    progression = [1 / first]
    first = 1 / first
    for _ in range(terms - 1):
        first += difference
        progression.append(first)
    return sum([1 / step for step in progression]), [2 * step for step in progression]


def test_a_comprehension_over_a_list_of_a_run_time_length_is_a_staged_loop():
    # iterating it in Python raised "Could not guard on data-dependent expression"
    example = (torch.tensor(1.0, dtype=torch.float64), torch.tensor(2.0, dtype=torch.float64),
               torch.tensor(5))
    program = ag_torch.export(harmonic_sum, example).module()
    for first, difference, terms in ((1.0, 2.0, 5), (0.5, 1.5, 3), (1.0, 1.0, 1)):
        total, doubled = program(torch.tensor(first, dtype=torch.float64),
                                 torch.tensor(difference, dtype=torch.float64),
                                 torch.tensor(terms))
        expected = harmonic_sum(first, difference, terms)
        assert abs(total.item() - expected[0]) < 1e-12 and doubled.tolist() == expected[1]
