"""Tests for converters/control_flow.py: if, while and for, Python and staged."""

import pytest

import autograph as ag
from autograph.converters import control_flow
from autograph.converters import functions
from tests.autograph.converters.conftest import ANALYSE
from tests.autograph.converters.conftest import golden
from tests.autograph.converters.conftest import source
from tests.autograph.converters.conftest import transform
from tests.autograph.fake_backend import Sym
from tests.autograph.fake_backend import SymVec
from tests.autograph.fake_backend import unwrap


def f_if(x):
    if x > 0:
        y = 1
    else:
        z = 2
    return y


def test_if_golden():
    assert source(transform(f_if, functions, ANALYSE, control_flow)) == golden('''
        def tf__f_if(x):
            with ag__.FunctionScope('f_if', 'fscope') as fscope:

                def get_state():
                    return (y,)

                def set_state(vars_):
                    nonlocal y
                    (y,) = vars_

                def if_body():
                    nonlocal y
                    y = 1

                def else_body():
                    nonlocal y
                    z = 2
                y = ag__.Undefined('y')
                ag__.if_stmt((x > 0), if_body, else_body, get_state, set_state, ('y',), 1)
                return y
    ''')


def f_while(n):
    i = 0
    while i < n:
        i += 1
    return i


def test_while_golden():
    assert source(transform(f_while, functions, ANALYSE, control_flow)) == golden('''
        def tf__f_while(n):
            with ag__.FunctionScope('f_while', 'fscope') as fscope:
                i = 0

                def get_state():
                    return (i,)

                def set_state(vars_):
                    nonlocal i
                    (i,) = vars_

                def loop_body():
                    nonlocal i
                    i += 1

                def loop_test():
                    return (i < n)
                ag__.while_stmt(loop_test, loop_body, get_state, set_state, ('i',), {})
                return i
    ''')


def f_for(xs):
    s = 0
    for x in xs:
        s += x
    return s


def test_for_golden():
    assert source(transform(f_for, functions, ANALYSE, control_flow)) == golden('''
        def tf__f_for(xs):
            with ag__.FunctionScope('f_for', 'fscope') as fscope:
                s = 0

                def get_state():
                    return (s,)

                def set_state(vars_):
                    nonlocal s
                    (s,) = vars_

                def loop_body(itr):
                    nonlocal s
                    x = itr
                    s += x
                ag__.for_stmt(xs, None, loop_body, get_state, set_state, ('s',), {'iterate_names': 'x'})
                return s
    ''')


def test_python_values():
    assert ag.convert(f_if)(1) == 1
    assert ag.convert(f_while)(4) == 4
    assert ag.convert(f_for)([1, 2, 3]) == 6
    assert ag.convert(f_for)(iter([5, 6])) == 11


def test_branch_only_variable_raises_python_unbound_local_error():
    with pytest.raises(UnboundLocalError) as converted_info:
        ag.convert(f_if)(-1)
    with pytest.raises(UnboundLocalError) as original_info:
        f_if(-1)
    assert str(converted_info.value) == str(original_info.value)


def test_staged_if_while_for(fake):
    def f_sym_if(x):
        if x > 0:
            y = x * 2
        else:
            y = -x
        return y
    assert unwrap(ag.convert(f_sym_if)(Sym(3))) == 6
    assert unwrap(ag.convert(f_sym_if)(Sym(-4))) == 4
    assert unwrap(ag.convert(f_while)(Sym(5))) == 5
    assert unwrap(ag.convert(f_for)(SymVec([1, 2, 3], 'int32'))) == 6
    assert fake.calls == ['cond', 'cond', 'while_loop', 'while_loop']


def loop_var_only_in_branch(n):
    for i in range(n):
        if i == 0:
            first = i + 100
        last = first
    return last


def test_variable_defined_in_an_earlier_iteration_persists():
    assert ag.convert(loop_var_only_in_branch)(3) == loop_var_only_in_branch(3) == 100


def assigned_only_in_nested_block(xs):
    out = []
    for x in xs:
        if x:
            value = x * 2
        else:
            value = -1
        out.append(value)
    return out


def test_variable_bound_only_in_helpers_compiles():
    assert ag.convert(assigned_only_in_nested_block)([1, 0, 2]) == [2, -1, 4]


counter = 0


def uses_global(n):
    global counter
    while n > 0:
        counter += n
        n -= 1
    return counter


def test_global_loop_variable():
    global counter
    counter = 0
    assert ag.convert(uses_global)(3) == 6 and counter == 6


def closure_counter():
    total = 0

    def add(n):
        nonlocal total
        for i in range(n):
            if i % 2:
                total += i
        return total
    return add


def test_nonlocal_loop_variable():
    add = closure_counter()
    converted = ag.convert(add)
    assert converted(4) == 4 and converted(4) == 8 and add(0) == 8


class Accumulator(object):

    def __init__(self):
        self.value = 0

    def run(self, n):
        while self.value < n:
            self.value += 3
        return self.value


def test_attribute_loop_variable():
    acc = Accumulator()
    assert ag.convert(acc.run)(10) == 12 and acc.value == 12


def late_binding(n):
    fns = []
    for i in range(n):
        fns.append(lambda: i)
        gen = (i * k for k in range(2))
    if n:
        last = lambda: i  # noqa: E731
        i = 'changed'
    return [f() for f in fns], list(gen), last()


def test_closures_in_blocks_see_later_assignments():
    assert ag.convert(late_binding)(3) == late_binding(3) == (
        ['changed'] * 3, ['', 'changed'], 'changed')


def closure_writes(x):
    v = 0

    def bump(d):
        nonlocal v
        v += d
    for _ in range(x):
        return -1
    v = 5
    bump(2)
    return v


def test_closures_that_rebind_a_variable_share_it():
    assert ag.convert(closure_writes)(0) == closure_writes(0) == 7
    assert ag.convert(closure_writes)(2) == -1


def rows_through_targets(grid, ws, n):
    for i in range(n):
        for row in grid[1:]:
            row[0] = row[0] + i
        for j, row in enumerate(grid):
            row[1] = row[1] + j
        for row, w in zip(grid, ws):
            row[2] = row[2] + w
    return grid[0][1] + grid[1][0]


@pytest.mark.parametrize('n', [3, 0])
def test_a_staged_loop_carries_a_list_whose_rows_a_for_loop_changes(fake, n):
    # `for row in grid: row[0] = ...` changes grid, which no statement assigns: the staged
    # loop must carry it (it did not, and the body's values leaked out of the loop)
    def grid():
        return [[1, 2, 3], [4, 5, 6]]

    plain, converted, staged = grid(), grid(), grid()
    expected = rows_through_targets(plain, [10, 20], n)
    assert ag.convert(rows_through_targets)(converted, [10, 20], n) == expected
    assert unwrap(ag.convert(rows_through_targets)(staged, [10, 20], Sym(n))) == expected
    assert converted == plain
    assert [[unwrap(v) for v in row] for row in staged] == plain  # the caller's rows change
    assert fake.calls.count('while_loop') == 1
