"""What the exported graph holds: no more than the same program written by hand needs (the
figures are in docs/torch.md, "Benchmarks"), and each shortcut exactly as right as the
torch.cond or torch.while_loop it replaces."""

import operator

import torch

from autograph.backends import torch as ag_torch
from benchmarks.workloads import collatz


def _nodes(program):
    return [n for module in program.graph_module.modules()
            if isinstance(module, torch.fx.GraphModule)
            for n in module.graph.nodes if n.op == 'call_function']


def _dead(program):
    return [n.format_node() for n in _nodes(program)
            if not n.users and n.target is not operator.getitem]


def _targets(program):
    return [n.target for n in _nodes(program)]


def test_no_operation_whose_value_nothing_reads():
    # the while loop's first test (autograph's probe), the loop variables made for the
    # discarded pass, and the gradient tie of a loop that carries no floats were dead nodes
    program = ag_torch.export(collatz, (torch.tensor(27),))
    assert _dead(program) == []
    assert program.module()(torch.tensor(27)).item() == collatz(27) == 111


def scalar_if(x, n):
    if x > n:
        y = x - n
        n += 1
    else:
        y = n * 2
    return y, n


def test_an_if_of_a_few_safe_scalar_operations_is_a_where():
    program = ag_torch.export(scalar_if, (torch.tensor(5), torch.tensor(2)))
    assert torch.ops.higher_order.cond not in _targets(program)
    module = program.module()
    for x, n in [(5, 2), (1, 2), (2, 2)]:
        args = (torch.tensor(x), torch.tensor(n))
        assert [t.item() for t in module(*args)] == list(scalar_if(x, n))
        assert args[1].item() == n  # `n += 1` in the branch did not change the input
    # the branch that changes n in place runs on a copy of it; the other one needs none
    assert _targets(program).count(torch.ops.aten.clone.default) == 1


def guarded_division(a, b):
    if b != 0:
        q = a // b  # raises for b == 0: both branches may not run
    else:
        q = a * 0
    return q


def test_an_if_that_could_fail_on_its_untaken_path_stays_a_cond():
    program = ag_torch.export(guarded_division, (torch.tensor(7), torch.tensor(2)))
    assert torch.ops.higher_order.cond in _targets(program)
    module = program.module()
    assert module(torch.tensor(7), torch.tensor(2)).item() == 3
    assert module(torch.tensor(7), torch.tensor(0)).item() == 0


def loop_in_branch(x, n):
    if n > 0:
        while n != 0:  # runs forever for n < 0: never on the untaken path
            x = x + 1
            n = n - 1
    return x


def test_an_if_with_a_loop_stays_a_cond():
    program = ag_torch.export(loop_in_branch, (torch.tensor(0), torch.tensor(3)))
    assert torch.ops.higher_order.cond in _targets(program)
    assert program.module()(torch.tensor(0), torch.tensor(-2)).item() == 0


def walrus_test(b):
    s = b * 0
    m = b
    while (m := m - 1) > 0:  # the probe's first test assigns m: the loop tests it again
        s = s + m
    return s, m


def test_a_walrus_in_a_staged_while_test():
    module = ag_torch.export(walrus_test, (torch.tensor(3),)).module()
    for b in (0, 3, 7):
        assert [t.item() for t in module(torch.tensor(b))] == list(walrus_test(b))


def test_an_integer_loop_is_not_guarded_and_a_float_loop_is():
    # torch 2.13 differentiates a while_loop run zero times as if it ran once; only a loop
    # carrying floats carries gradients, so only it runs under a torch.cond on its test
    ints = _main(ag_torch.export(steps_over, (torch.tensor(1.5),)))  # reads a float
    assert torch.ops.higher_order.while_loop in ints
    assert torch.ops.higher_order.cond not in ints
    floats = _main(ag_torch.export(halve, (torch.tensor(5.0),)))
    assert torch.ops.higher_order.cond in floats
    assert torch.ops.higher_order.while_loop not in floats  # inside the cond


def _main(program):
    return [n.target for n in program.graph_module.graph.nodes if n.op == 'call_function']


def steps_over(x):
    k = 0
    while x * k < 10.0:
        k = k + 1
    return k


def halve(x):
    while x > 1.0:
        x = x / 2
    return x


def first_match(scores, threshold):
    found = -1
    for i in range(scores.shape[0]):
        if scores[i] > threshold:
            found = i
            break
    return found


def test_a_break_flag_is_the_comparison_itself():
    # The body runs only while the flag is false (the loop's test reads it), so `break`
    # under `if score > threshold` makes the flag that comparison: no logical_or of the old
    # flag, and no where of True and False. The Python loop's first iterations test the
    # flag once more before the loop is staged; that test is discarded (no dead node).
    scores = torch.linspace(0.0, 1.0, 16)
    program = ag_torch.export(first_match, (scores, torch.tensor(0.5)))
    assert _dead(program) == []
    targets = _targets(program)
    assert torch.ops.aten.logical_or.default not in targets
    # found = i, in the first iteration (a Python one: the flag is still Python False) and
    # in the loop's body; the flag itself needs no where
    assert targets.count(torch.ops.aten.where.self) == 2
    module = program.module()
    for threshold in (0.5, -1.0, 2.0, 0.99):
        expected = first_match(scores, torch.tensor(threshold))  # eager: plain Python
        assert module(scores, torch.tensor(threshold)).item() == expected


def counted_match(scores, threshold):
    found = -1
    i = 0
    for score in scores:
        if score > threshold:
            found = i
            break
        i += 1  # under `if not break_`: a where whose condition is a negation
    return found, i


def test_a_negated_condition_swaps_the_where_and_a_loop_test_has_no_negation():
    # `where(not p, a, b)` is `where(p, b, a)`, and the loop's `index < n and not break_`
    # is one comparison of bools: no logical_not left in the graph
    scores = torch.linspace(0.0, 1.0, 16)
    program = ag_torch.export(counted_match, (scores, torch.tensor(0.5)))
    targets = _targets(program)
    assert torch.ops.aten.logical_not.default not in targets
    assert torch.ops.aten.logical_and.default not in targets
    assert _dead(program) == []
    module = program.module()
    for threshold in (0.5, -1.0, 2.0, 0.99, 0.0):
        expected = counted_match(scores, torch.tensor(threshold))  # eager: plain Python
        assert [t.item() for t in module(scores, torch.tensor(threshold))] == list(expected)


def test_a_break_no_one_reads_of_is_the_index_and_its_guard_selects_only_what_is_read():
    # The benchmark's first_match: after the loop only `found` is read. The break flag is
    # no loop variable (a break sets the index past the end), and `i += 1` under
    # `if not break_` needs no where: once the flag is set the loop stops, and no one reads i.
    from benchmarks.torch_cond import FunctionModule
    from benchmarks.torch_cond import first_match as plain, first_match_hand as hand
    args = (torch.linspace(0.0, 1.0, 64), torch.tensor(0.7))
    program = ag_torch.export(plain, args)
    (loop,) = [n for n in _nodes(program) if n.target is torch.ops.higher_order.while_loop]
    assert len(loop.args[2]) == 3  # the index, found and i
    targets = _targets(program)
    assert targets.count(torch.ops.aten.where.self) == 1  # found
    assert targets.count(torch.ops.aten.where.ScalarSelf) == 1  # the index, on a break
    written = torch.export.export(FunctionModule(hand), args)
    assert len(_nodes(program)) <= 1.2 * len(_nodes(written))
    module = program.module()
    for threshold in (0.7, -1.0, 2.0, 0.0, 1.0):
        case = (args[0], torch.tensor(threshold))
        assert module(*case).item() == plain(*case) == hand(*case).item()


def either(x, flag):
    if x > 0 and not flag:
        y = x + 1
    else:
        y = x - 1
    z = 3 if not flag else 4
    return y, z


def test_and_not_and_a_negated_select_agree_with_python():
    program = ag_torch.export(either, (torch.tensor(1), torch.tensor(False)))
    module = program.module()
    for x in (-2, 0, 3):
        for flag in (False, True):
            expected = either(x, flag)
            got = module(torch.tensor(x), torch.tensor(flag))
            assert [t.item() for t in got] == list(expected), (x, flag)
