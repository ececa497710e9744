"""A staged if statement, conditional expression or loop is staged once, after its plan.

Each function below is written the way the converter writes it, so that it runs with Python
values and with the fake backend's staged ones. The fake backend drops what is staged in its
scratch, so `fake.calls` shows the real staging only: one `cond` or `while_loop` per
statement means the statement was not staged again.
"""

import pytest

from autograph.errors import StagingError
from autograph.operators import Undefined
from autograph.operators import and_
from autograph.operators import not_
from autograph.operators.variables import Symbol
from autograph.operators import if_stmt
from autograph.operators import if_exp
from autograph.operators import list_append
from autograph.operators import while_stmt
from autograph.operators import MaybeUndefined
from autograph.operators import ld
from autograph.operators import staged_block
from tests.autograph.fake_backend import Sym
from tests.autograph.operators.test_control_flow import count_up
from tests.autograph.fake_backend import SymArray
from tests.autograph.fake_backend import unwrap


def appends_in_branches(c, x):
    """if c: a.append(x) else: b.append(x); return a, b (both lists start empty)."""
    a, b = [], []

    def get_state():
        return (a, b)

    def set_state(vars_):
        nonlocal a, b
        a, b = vars_

    def body():
        nonlocal a
        a = list_append(a, x)

    def orelse():
        nonlocal b
        b = list_append(b, x)

    if_stmt(c, body, orelse, get_state, set_state, ('a', 'b'), 2)
    return a, b


def appends_in_loop(n, log):
    """out = []; i = 0; while i < n: log body; out.append(i); i += 1. Returns out."""
    out, i = [], 0

    def get_state():
        return (out, i)

    def set_state(vars_):
        nonlocal out, i
        out, i = vars_

    def test():
        return i < n

    def body():
        nonlocal out, i
        log.append('body')
        out = list_append(out, i)
        i = i + 1

    while_stmt(test, body, get_state, set_state, ('out', 'i'), {})
    return out


def items(array):
    return [unwrap(v) for v in array.items]


def test_an_if_that_appends_in_both_branches_is_staged_once(fake):
    assert appends_in_branches(True, 1) == ([1], [])
    a, b = appends_in_branches(Sym(True), Sym(1))
    assert isinstance(a, SymArray) and isinstance(b, SymArray)
    assert (items(a), items(b)) == ([1], [])
    # both lists made staged lists from one plan, then one cond
    assert fake.calls.count('new_list') == 2 and fake.calls.count('cond') == 1
    a, b = appends_in_branches(Sym(False), Sym(1))
    assert (items(a), items(b)) == ([], [1])


def test_a_loop_that_appends_is_staged_once(fake):
    log = []
    assert appends_in_loop(3, log) == [0, 1, 2] and log == ['body'] * 3
    log.clear()
    out = appends_in_loop(Sym(3), log)
    assert items(out) == [0, 1, 2]
    assert fake.calls.count('while_loop') == 1 and fake.calls.count('new_list') == 1


def test_a_loop_without_lists_or_undefined_variables_is_not_scouted(fake):
    log = []
    i, s = count_up(Sym(4), test_log=log)
    assert (unwrap(i), unwrap(s)) == (4, 6)
    # the test is probed once, then the fake while_loop tests i = 0..4: no scout's tests
    assert [unwrap(v) for v in log] == [0, 0, 1, 2, 3, 4] and fake.calls.count('while_loop') == 1


def defined_in_if_only(c, hint):
    """if c: y = 1 (y undefined before, the else branch leaves it so). Returns y."""
    y = Undefined('y', every_branch=hint)
    log = []

    def get_state():
        return (y,)

    def set_state(vars_):
        nonlocal y
        (y,) = vars_

    def body():
        nonlocal y
        log.append('if')
        y = Sym(1)

    def orelse():
        log.append('else')

    if_stmt(c, body, orelse, get_state, set_state, ('y',), 1)
    return y, log


def test_the_first_branch_looks_at_the_other_when_it_may_leave_an_output_undefined(fake):
    y, log = defined_in_if_only(Sym(True), hint=False)
    assert isinstance(y, MaybeUndefined) and unwrap(ld(y)) == 1
    # the if branch, a look at the else branch in a scratch, then the else branch: no
    # second staging of the statement
    assert log == ['if', 'else', 'else'] and fake.calls.count('cond') == 1
    y, _ = defined_in_if_only(Sym(False), hint=False)
    with pytest.raises(UnboundLocalError):
        ld(y)


def test_a_wrong_every_branch_mark_is_an_error_not_a_wrong_value(fake):
    # The converter marks only names that every branch assigns; a wrong mark cannot go
    # unnoticed: the second branch shows that the first's outputs did not fit.
    with pytest.raises(StagingError) as e:
        defined_in_if_only(Sym(True), hint=True)
    assert str(e.value).startswith("'y' is assigned differently than planned in a staged if "
                                   'statement')


def test_a_conditional_expression_is_a_staged_block(fake):
    log = []

    def value(v, name):
        def fn():
            log.append(name)
            return v
        return fn

    result = if_exp(Sym(False), value(Sym(1), 'if'), value(Sym(2), 'else'), 'a if c else b')
    assert unwrap(result) == 2 and log == ['if', 'else'] and fake.calls.count('cond') == 1


def test_unforeseen_names_the_variable_and_the_statement():
    error = staged_block.unforeseen('while loop', "'total'")
    assert isinstance(error, StagingError)
    assert str(error).startswith("'total' is assigned differently than planned in a staged "
                                 'while loop: autograph stages code more than once')


def first_at_least(xs_len, limit, seen):
    """i = 0; while i < xs_len: (seen: break_); if i >= limit: break; i += 1. Returns i.

    Written as the converter writes a `while` with `break`: the flag is a loop variable that
    the loop's test reads (`not break_`) and that guards what follows the `break`.
    """
    i = 0
    break_ = False

    def get_state():
        return (i, break_)

    def set_state(vars_):
        nonlocal i, break_
        i, break_ = vars_

    def test():
        return and_(lambda: not_(break_), lambda: i < xs_len)

    def body():
        seen.append(break_)

        def if_state():
            return (break_,)

        def set_if_state(vars_):
            nonlocal break_
            (break_,) = vars_

        def on_limit():
            nonlocal break_
            break_ = True

        if_stmt(i >= limit, on_limit, lambda: None, if_state, set_if_state, (Symbol.BREAK,), 1)

        def step_state():
            return (i,)

        def set_step_state(vars_):
            nonlocal i
            (i,) = vars_

        def step():
            nonlocal i
            i = i + 1

        if_stmt(not_(break_), step, lambda: None, step_state, set_step_state, ('i',), 1)

    while_stmt(test, body, get_state, set_state, ('i', Symbol.BREAK), {})
    return i


def test_a_loop_body_sees_its_break_flag_as_python_false(fake):
    seen = []
    assert first_at_least(10, 3, seen) == 3 and seen == [False] * 4
    seen.clear()
    i = first_at_least(Sym(10), Sym(3), seen)
    assert unwrap(i) == 3
    # The test ran `not break_`, so the body runs only with the flag false: it gets a Python
    # False, not the staged flag, and the `if` guarding `i += 1` selects on the staged
    # `i >= limit` alone. Before this, every entry of `seen` was a Sym (e48f10d).
    assert seen and all(flag is False for flag in seen)
