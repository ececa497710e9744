"""Tests for `return` inside staged branches and loops (return-value placeholders).

The functions are written as the converter writes `return` (do_return / retval_ state), so the
same function runs with Python and with staged values.
"""

import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from autograph.errors import UndefinedVariableError
from autograph.operators import Symbol
from autograph.operators import UndefinedReturnValue
from autograph.operators import for_stmt
from autograph.operators import if_stmt
from autograph.operators import len_
from autograph.operators import not_
from autograph.operators import while_stmt
from autograph.backends import Backend
from tests.autograph.fake_backend import FakeBackend
from tests.autograph.fake_backend import Sym
from tests.autograph.fake_backend import SymVec
from tests.autograph.fake_backend import registered
from tests.autograph.fake_backend import unwrap

NAMES = (Symbol.DO_RETURN, Symbol.RETURN_VALUE)


def sign(x, return_in_else=False):
    """if x > 0: return 1 / return -1 after; or the mirror image with the return in else."""
    do_return = False
    retval_ = UndefinedReturnValue()

    def get_state():
        return (do_return, retval_)

    def set_state(vars_):
        nonlocal do_return, retval_
        do_return, retval_ = vars_

    def returns():
        nonlocal do_return, retval_
        do_return = True
        retval_ = 1 if not return_in_else else -1

    def tail():
        nonlocal do_return, retval_
        do_return = True
        retval_ = -1 if not return_in_else else 1

    if return_in_else:
        if_stmt(x > 0, lambda: None, returns, get_state, set_state, NAMES, 2)
    else:
        if_stmt(x > 0, returns, lambda: None, get_state, set_state, NAMES, 2)
    if_stmt(not_(do_return), tail, lambda: None, get_state, set_state, NAMES, 2)
    return retval_


def first_above(xs, limit, loop='for'):
    """for x in xs: if x > limit: return x / return -1 (or the same as a while loop)."""
    do_return = False
    retval_ = UndefinedReturnValue()
    i = 0

    def get_state():
        return (do_return, retval_)

    def set_state(vars_):
        nonlocal do_return, retval_
        do_return, retval_ = vars_

    def body(x):
        def returns():
            nonlocal do_return, retval_
            do_return = True
            retval_ = x

        if_stmt(x > limit, returns, lambda: None, get_state, set_state, NAMES, 2)

    def extra_test():
        return not_(do_return)

    if loop == 'for':
        for_stmt(xs, extra_test, body, get_state, set_state, NAMES, {})
    else:
        def get_loop_state():
            return (do_return, retval_, i)

        def set_loop_state(vars_):
            nonlocal do_return, retval_, i
            do_return, retval_, i = vars_

        def while_body():
            nonlocal i
            body(xs[i])
            i = i + 1

        def test():
            in_range = i < len_(xs)
            return in_range and extra_test() if isinstance(in_range, bool) else (
                in_range & extra_test())

        while_stmt(test, while_body, get_loop_state, set_loop_state, NAMES + ('i',), {})

    def tail():
        nonlocal do_return, retval_
        do_return = True
        retval_ = -1

    if_stmt(not_(do_return), tail, lambda: None, get_state, set_state, NAMES, 2)
    return retval_


@pytest.mark.parametrize('return_in_else', [False, True])
def test_return_in_one_branch(fake, return_in_else):
    for x in (3, -3):
        expected = sign(x, return_in_else)
        assert expected == (1 if x > 0 else -1)
        result = sign(Sym(x), return_in_else)
        assert isinstance(result, Sym) and result.value == expected
    assert fake.calls.count('cond') == 4  # the scratch probe of the other branch is discarded


def test_return_in_one_branch_without_hooks_is_an_error():
    class NoHooks(FakeBackend):
        zeros_like = Backend.zeros_like

    with registered(NoHooks()), pytest.raises(UndefinedVariableError) as e:
        sign(Sym(3))
    assert str(e.value).startswith('the else branch must also have a return statement')


def test_return_inside_staged_for_loop(fake):
    assert first_above([1, 5, 7], 4) == 5
    assert first_above([1, 2], 4) == -1
    assert unwrap(first_above(SymVec([1, 5, 7]), Sym(4))) == 5
    assert unwrap(first_above(SymVec([1, 2]), Sym(4))) == -1
    assert unwrap(first_above(SymVec([], 'int32'), Sym(4))) == -1


def test_return_inside_staged_while_loop(fake):
    assert first_above([1, 5, 7], 4, loop='while') == 5
    assert unwrap(first_above(SymVec([1, 5, 7]), Sym(4), loop='while')) == 5
    assert unwrap(first_above(SymVec([1, 2]), Sym(4), loop='while')) == -1


def test_return_inside_staged_loop_without_scratch_is_an_error():
    class NoScratch(FakeBackend):
        scratch = Backend.scratch

    with registered(NoScratch()), pytest.raises(UndefinedVariableError) as e:
        first_above(SymVec([1, 5]), Sym(4))
    assert str(e.value).startswith(
        'the return value of a return statement inside a staged for loop has no type')


def plain_total(values, limit):
    """The plain Python loop that `total_with_break` is the converted form of."""
    s = 0
    for v in values:
        if s + v > limit:
            break
        s = s + v
    return s


def total_with_break(values, limit):
    """for v in values: if s + v > limit: break; s = s + v  (as the converter writes it)."""
    s = 0
    break_ = False

    def get_state():
        return (s, break_)

    def set_state(vars_):
        nonlocal s, break_
        s, break_ = vars_

    def body(v):
        def do_break():
            nonlocal break_
            break_ = True

        def do_add():
            nonlocal s
            s = s + v

        if_stmt(s + v > limit, do_break, do_add, get_state, set_state, ('s', 'break_'), 2)

    for_stmt(values, lambda: not_(break_), body, get_state, set_state, ('s', 'break_'), {})
    return s


@given(st.lists(st.integers(-50, 50), max_size=8), st.integers(-20, 100))
@settings(max_examples=60, deadline=None)
def test_break_loop_equivalence(values, limit):
    expected = plain_total(values, limit)
    assert total_with_break(values, limit) == expected
    with registered() as backend:
        staged = total_with_break(SymVec(values, 'int32'), Sym(limit))
    assert isinstance(staged, Sym) and staged.value == expected
    assert backend.calls[0] == 'while_loop'
