"""What the differential fuzzer found under torch.export (tests/torch/fuzz_way.py), each
reduced to a few lines: the exported program must agree with plain Python on every input."""

import contextlib
import io

import numpy as np
import pytest
import torch

import autograph as ag
from autograph.backends import torch as ag_torch
from tests.fuzz.vector_ops import reduce_sum
from tests.fuzz.vector_ops import stack


def _run(fn, *args):
    """(result, printed text) of fn on Python numbers, or of its exported program on tensors."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = fn(*args)
    if isinstance(result, torch.Tensor):
        result = result.tolist()
    elif isinstance(result, tuple):
        result = tuple(r.tolist() if isinstance(r, torch.Tensor) else r for r in result)
    return result, out.getvalue()


def _agrees(fn, inputs):
    tensors = [tuple(torch.tensor(a) for a in args) for args in inputs]
    program = ag_torch.export(fn, tensors[0]).module()
    for args, staged in zip(inputs, tensors):
        assert _run(program, *staged) == _run(fn, *args), args


def print_in_branch(a, p):
    k = 0
    while k < 2:
        k += 1
        if not p:
            print('k', a, k)  # `a` is a tensor of the enclosing function
    return a


def test_a_branch_prints_a_tensor_it_does_not_compute():
    _agrees(print_in_branch, [(2.5, False), (2.5, True)])


def index_in_branch(b, x, v):
    if x > 0.0:
        y = v[0]
    else:
        y = v[b % 4] - v[-1]  # a traced index inside a torch.cond branch
    return y


def test_a_traced_index_in_a_branch():
    _agrees(index_in_branch, [(-1, 0.0, [7, -1, -2, 1]), (6, 0.0, [7, -1, -2, 1]),
                              (1, 1.0, [7, -1, -2, 1])])


def matrix_index_in_loop(a, m):
    k = 0
    s = 0
    while k < a:
        s = s + m[k % 2, -(k % 3) - 1]
        k += 1
    return s


def test_traced_indices_in_a_loop():
    m = np.array([[1, 2, 3], [4, 5, 6]])
    _agrees(matrix_index_in_loop, [(0, m), (5, m)])


def view_or_value(p, b, m):
    return m[1, 2] if p else b  # a view of m in one branch, an input in the other


def test_branches_giving_a_view_and_a_tensor():
    m = np.array([[5, -3, -12], [0, 4, -1]])
    _agrees(view_or_value, [(True, 4, m), (False, 4, m)])


def unused_if_that_prints(a, b):
    f = 1.0
    if a == 10 or b < 0:
        if b != a:
            f = f * 3.0
            print('changed', a)
        f = 2.0  # the nested if's output is never read
    return f


def test_a_staged_if_whose_outputs_nobody_reads_still_prints():
    _agrees(unused_if_that_prints, [(-2, -2), (10, 3), (1, 1)])


def first_assigned_in_loop(a, v):
    k = 0
    while k < a:
        k += 1
        u = v[k % 4]  # a traced index in the discarded pass that finds u's type
    return k


def test_a_traced_index_where_the_loop_assigns_a_new_variable():
    _agrees(first_assigned_in_loop, [(3, [1, 2, 3, 4]), (0, [1, 2, 3, 4])])


def grows(n):
    items = []
    i = 0
    while i < n:
        items.append(i)
        i += 1
    return len(items)


def written_at_its_length(n):  # what the message says to write
    items = [0] * n
    i = 0
    while i < n:
        items[i] = i
        i += 1
    return len(items), sum(items)


def test_a_list_growing_in_a_staged_loop_is_refused_saying_how_to_write_it():
    with pytest.raises(ag.StagingError, match=r"(?s)The list 'items'.*torch.while_loop.*"
                       r"items = \[0\] \* n.*items\[i\] = value"):
        ag_torch.export(grows, (torch.tensor(3),))
    program = ag_torch.export(written_at_its_length, (torch.tensor(3),))
    for n in (3, 0, 7):
        got = [t.item() for t in program.module()(torch.tensor(n))]
        assert got == [grows(n), sum(range(n))] == list(written_at_its_length(n))


def dead_before_if_in_loop(b):
    v = b
    f = 0.25
    for _ in range(b % 4):
        if b < 2:
            u = 1
        else:
            u = 2  # u: assigned in both branches before any read
            f = f + 1.0
        v = (u + v) % 100
    return v, f


def test_a_value_of_a_discarded_pass_is_not_a_constant_of_the_program():
    # u held a tensor of autograph's discarded pass over the loop body when the if was
    # staged: it was the if's operand, a fake tensor kept in the graph as a constant, and
    # the program returned fake tensors. Neither branch reads it: it is no operand now.
    _agrees(dead_before_if_in_loop, [(9,), (-2,), (11,)])


def float_assigned_in_both_branches_in_a_loop(a, b, x):
    f = 1.5
    k = 0
    while k < b % 3:
        k += 1
        if a < x:
            u = -3.75
        else:
            u = 0.0
        f = (u + f) % 8.0
    return f


def test_a_python_float_assigned_in_both_branches_in_a_loop():
    # fuzz seed 'torch:27' of the generator with math calls, reduced
    _agrees(float_assigned_in_both_branches_in_a_loop,
            [(7, 20, 0.0), (-1, 20, 0.0), (1, 4, 3.0), (0, 3, 1.0)])


def walrus_in_the_right_operand_of_an_if_test(a, b, x):
    v2, v3, f4, k7 = b, a, 1.5, 0
    while k7 < b % 3:
        k7 += 1
        if (a < x) and (w8 := 2 % 3) < k7:  # the if becomes two nested ifs
            u9 = 0.0 - 3.75
            v3 = -k7
        else:
            u9 = 0.0
            v3 += 3
            v2 //= 2
        f4 = (u9 + f4) % 8.0
    return v2, v3, f4


def test_an_operand_only_copied_by_a_nested_if_is_not_a_constant_of_the_program():
    # fuzz seed 'torch:27' (generator with math calls), reduced: the outer if's operand u9
    # (a tensor of the discarded pass) was copied for the nested if's discarded run, which
    # counted as a read, so it stayed the outer torch.cond's operand: a constant
    _agrees(walrus_in_the_right_operand_of_an_if_test,
            [(7, 20, 0.0), (-1, 20, 0.0), (-1, 5, 3.0), (0, 3, 1.0)])


def loop_assigning_a_variable_before_reading_it(a, x):
    v = a
    if a == 1:
        if a == 0:
            return v
    for i in range(2):  # staged by the return flag of the if above
        v = x  # v: the loop carries it in, though the body assigns it before reading it
        if i >= 1:
            return v
    return v


def test_a_loop_variable_assigned_before_it_is_read_is_an_operand_of_the_enclosing_if():
    # fuzz seed '20261205:122', reduced: the loop in the staged `if not do_return` took v's
    # value from outside the torch.cond as its initial value, but the discarded pass over
    # the branch saw no read of v (the body assigns v first), so it was no operand of the
    # cond and became a constant of the program, a fake tensor returned as the result
    _agrees(loop_assigning_a_variable_before_reading_it, [(1, 4), (0, 2), (2, 3)])


def grown_with_return(a, p, m):
    l = []  # noqa: E741
    for _ in range(a % 3):
        if p:
            return -1.0, 0
        l.append(float(m[0, 0]))
    total = reduce_sum(stack(l))
    u = m[1, 0] * -1
    if a == 1:
        if p:
            total = 0.0
    return total, u


def test_a_list_grown_in_a_loop_with_a_return_then_a_branch():
    # (seed 29220002:1161) the list is a tensor of a run-time length after the loop; the
    # lifting pass compared its shape with a free tensor's, which asked torch for the
    # length ("Could not guard on data-dependent expression Eq(u0, 2)")
    m = np.array([[4, 3, 7], [9, 20, 3]])
    _agrees(grown_with_return, [(a, p, m) for a in (1, 0, 2, 4) for p in (False, True)])


def passed_through_a_loop(a, x):
    k = 0
    while k < x:
        k += 1
        if False:
            return (k, 1.5)
    j = 0
    while j < x:
        j += 1
        if False:
            return (j, f6)  # noqa: F821 - f6 is assigned below, in the loop
        f6 = a  # no operation reads `a`: the loop only carries it
    return (2, -0.5)


def test_a_tensor_a_loop_only_carries_is_an_input_of_the_enclosing_cond():
    # (seed 29220003:359) the loop nested in the cond of `if not do_return` carried `a` out
    # without an operation reading it, so the cond's lifting pass did not see it: `a`, a fake
    # tensor of the trace, became a constant of the program, which returned fake tensors
    _agrees(passed_through_a_loop, [(4.75, -12), (1.0, 3), (2.5, 0)])


def negation_in_a_branch(a):
    f4 = (a + 0.25) % 8.0
    c5 = not (f4 == 0.0)
    if a < a:
        u18 = 1
    else:
        u18 = (2 if c5 else 3)  # a select on the negation, inside the branch
        if a >= a:
            f4 = a
            f4 *= -1.0
    return (u18, f4)


def test_a_negation_made_outside_a_branch_is_selected_on_as_it_is():
    # (seed 29220003:1291) `where(not p, ...)` is `where(p, ...)` with the values swapped,
    # but inside the branch `p` was a tensor of the enclosing graph that the branch does not
    # read (it reads `not p`): it became a constant of the program, which returned fake
    # tensors. The swap is made only where the graph being traced has `p`.
    _agrees(negation_in_a_branch, [(-0.25,), (0.0,), (3.5,), (-0.25 - 8.0,)])
