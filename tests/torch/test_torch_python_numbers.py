"""A Python number that staged control flow carries becomes a tensor, but keeps the meaning of
a number: `i += 1` binds `i` to a new value, as Python does with an int, and leaves every
other name bound to the old one (`found = i`). A tensor changed in place would change them
all. Each function runs plain on eager tensors, exported, and compiled with fullgraph=True."""
import pytest
import torch

from autograph.backends import torch as ag_torch


def index_before_increment(x):
    i = 0
    found = -1
    for v in x:
        found = i
        i += 1
    return found


def index_before_increment_in_a_branch(x):
    i = 0
    found = -1
    for v in x:
        if v > 0.5:
            found = i
            i += 2
        i += 1
    return found, i


def alias_after_a_staged_loop(x):
    n = 0
    while x.sum() > n:
        n += 1
    m = n
    n += 1
    k = m * 2  # arithmetic of numbers: a number again
    j = k
    k -= 3
    return m, n, j, k


def alias_after_a_staged_if(x):
    if x.sum() > 0:
        k = 1
    else:
        k = 3
    j = k
    k *= 4
    k //= 3
    return j, k


def sum_of_rows_from_zero(x):
    total = 0
    count = 0
    for row in x:
        previous = count
        total += row  # a tensor from the first row on, as in Python
        count += 1
    return total, previous, count


def sum_of_positive_elements(x):
    # the int 0 joins the float sum in a staged if: weakly typed, as Python's number is
    total = 0
    for v in x:
        if v > 0:
            total += v
    return total


def counter_becomes_a_float(x):
    # an int counter from a staged loop becomes a float in the next one, as in Python
    n = 0
    while x.sum() > n:
        n += 1
    for v in x:
        if v > 0.5:
            n = n / 2
    return n


FUNCTIONS = [index_before_increment, index_before_increment_in_a_branch,
             alias_after_a_staged_loop, alias_after_a_staged_if, sum_of_rows_from_zero,
             sum_of_positive_elements, counter_becomes_a_float]
INPUTS = [torch.tensor([0.1, 0.7, 0.3, 0.9, 0.2]), torch.tensor([-0.4, 0.2, 0.3, 0.1, -0.9]),
          torch.tensor([0.9, 0.8, 0.6, 2.0, 0.5])]


def _same(got, expected):
    flat_got = got if isinstance(got, tuple) else (got,)
    flat_expected = expected if isinstance(expected, tuple) else (expected,)
    assert len(flat_got) == len(flat_expected)
    for a, b in zip(flat_got, flat_expected):
        assert torch.as_tensor(a).double().tolist() == pytest.approx(
            torch.as_tensor(b).double().tolist())


@pytest.mark.parametrize('fn', FUNCTIONS, ids=lambda f: f.__name__)
def test_exported_and_compiled_equal_plain_python(fn):
    program = ag_torch.export(fn, (INPUTS[0],)).module()
    compiled = ag_torch.compile(fn)
    for x in INPUTS:
        expected = fn(x)
        _same(program(x), expected)
        _same(compiled(x), expected)


def test_the_increment_makes_a_new_value_in_the_graph():
    """`i += 1` on the staged counter is an `add`, not a copy changed in place."""
    program = ag_torch.export(index_before_increment, (INPUTS[0],))
    targets = {str(node.target) for module in program.graph_module.modules()
               if isinstance(module, torch.fx.GraphModule) for node in module.graph.nodes}
    assert 'aten.add.Tensor' in targets and 'aten.add_.Tensor' not in targets


def test_a_tensor_of_the_user_still_changes_in_place():
    def fn(x, y):
        y += 1  # the caller's tensor, as in eager torch
        if x.sum() > 0:
            z = y * 2
        else:
            z = y - 1
        z += 1
        return z

    x = torch.ones(3)
    program = ag_torch.export(fn, (x, torch.zeros(3))).module()
    mine = torch.zeros(3)
    assert program(x, mine).tolist() == [3.0, 3.0, 3.0]
    assert mine.tolist() == [1.0, 1.0, 1.0]


def halve_an_int_tensor(r, x):
    while x.sum() > 1:
        x = x / 2
        r = r / 2  # an int64 tensor becomes a float one, as in eager torch
    return r, x


def test_a_loop_variable_tensor_widens_to_the_dtype_the_body_gives_it():
    args = (torch.tensor(8), torch.tensor([4.0, 4.0]))
    program = ag_torch.export(halve_an_int_tensor, args).module()
    compiled = ag_torch.compile(halve_an_int_tensor)
    for r in (8, 5, 0):
        call = (torch.tensor(r), torch.tensor([4.0, 4.0]))
        want = halve_an_int_tensor(*call)
        for got in (program(*call), compiled(*call)):
            assert got[0].dtype == want[0].dtype
            _same(got, want)


def quarter_while_divisible(n):
    while n > 0 and n % 4 == 0:
        n /= 4  # an int: Python makes a float
    return n


def halved_below_one(n):
    while n > 1:
        n *= 0.5
    return n


def test_an_augmented_assignment_that_widens_an_int_tensor_makes_a_new_value():
    # eager torch raises "result type Float can't be cast to the desired output type Long"
    # for these in place; converted code gives Python's float, and leaves the caller's
    # tensor alone
    program = ag_torch.export(quarter_while_divisible, (torch.tensor(16),)).module()
    compiled = ag_torch.compile(quarter_while_divisible)
    for n in (16, 48, 7, 0):
        mine = torch.tensor(n)
        for run in (program, compiled):
            got = run(mine)
            assert got.item() == quarter_while_divisible(n), (n, run)
            assert mine.item() == n
    halved = ag_torch.export(halved_below_one, (torch.tensor(3),)).module()
    for n in (3, 1, 8):
        assert halved(torch.tensor(n)).item() == halved_below_one(n)
    with pytest.raises(RuntimeError, match="can't be cast"):
        quarter_while_divisible(torch.tensor(16))  # eager torch, unconverted
