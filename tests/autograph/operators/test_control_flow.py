"""Tests for if_stmt, while_stmt and for_stmt on Python values and on fake staged values.

The functions below are written the way the converter writes them (body/orelse functions plus
get_state/set_state closures), so each can run with Python and with staged inputs.
"""

import pytest

from autograph.errors import LoopVariableError
from autograph.errors import StagingError
from autograph.errors import UndefinedVariableError
from autograph.operators import BranchVariableError
from autograph.backends import base as backends
from autograph.operators import MaybeUndefined
from autograph.operators import Undefined
from autograph.operators import ld
from autograph.operators import Symbol
from autograph.operators import UndefinedReturnValue
from autograph.operators import for_stmt
from autograph.operators import if_stmt
from autograph.operators import range_
from autograph.operators import while_stmt
from autograph.backends import Backend
from tests.autograph.fake_backend import FakeBackend
from tests.autograph.fake_backend import Sym
from tests.autograph.fake_backend import SymArray
from tests.autograph.fake_backend import SymVec
from tests.autograph.fake_backend import registered
from tests.autograph.fake_backend import unwrap


# ---------------------------------------------------------------------------------------------
# if


def abs_diff(a, b, log):
    """if a > b: d = a - b; else: d = b - a. Every branch run is logged."""
    d = Undefined('d', every_branch=True)

    def get_state():
        return (d,)

    def set_state(vars_):
        nonlocal d
        (d,) = vars_

    def body():
        nonlocal d
        log.append('if')
        d = a - b

    def orelse():
        nonlocal d
        log.append('else')
        d = b - a

    if_stmt(a > b, body, orelse, get_state, set_state, ('d',), 1)
    return d


def branch_state(cond, if_value, else_value, nouts=1, names=('x', 'tmp')):
    """Sets x (output) and tmp (not an output) in each branch; returns (x, tmp) after. A
    branch value Undefined('x') stands for a branch that does not assign x, which the
    converter writes only where x is undefined before the statement."""
    undefined = [v for v in (if_value, else_value) if type(v) is Undefined]
    x, tmp = (undefined[0] if undefined else 'x0'), 'tmp0'

    def get_state():
        return (x, tmp)

    def set_state(vars_):
        nonlocal x, tmp
        x, tmp = vars_

    def body():
        nonlocal x, tmp
        x, tmp = if_value, 'tmp-if'

    def orelse():
        nonlocal x
        x = else_value

    if_stmt(cond, body, orelse, get_state, set_state, names, nouts)
    return x, tmp


def test_if_python_runs_one_branch():
    log = []
    assert abs_diff(5, 3, log) == 2
    assert abs_diff(3, 5, log) == 2
    assert log == ['if', 'else']


def test_if_python_truth_is_tested_once():
    class Truth:
        calls = 0

        def __bool__(self):
            Truth.calls += 1
            return False

    log = []
    if_stmt(Truth(), lambda: log.append('if'), lambda: log.append('else'),
            lambda: (), lambda v: None, (), 0)
    assert Truth.calls == 1 and log == ['else']


def test_if_python_leaves_state_alone():
    assert branch_state(True, 1, 2) == (1, 'tmp-if')
    assert branch_state(False, 1, 2) == (2, 'tmp0')


def test_if_staged_runs_both_branches_and_selects(fake):
    log = []
    assert unwrap(abs_diff(Sym(5), Sym(3), log)) == 2
    assert unwrap(abs_diff(Sym(3), Sym(5), log)) == 2
    assert log == ['if', 'else', 'if', 'else']
    assert fake.calls == ['cond', 'cond']


def test_if_staged_restores_non_outputs(fake):
    x, tmp = branch_state(Sym(True), Sym(1), Sym(2))
    assert unwrap(x) == 1 and tmp == 'tmp0'
    x, tmp = branch_state(Sym(False), Sym(1), Sym(2))
    assert unwrap(x) == 2 and tmp == 'tmp0'


def test_if_staged_converts_python_numbers(fake):
    x, _ = branch_state(Sym(False), 7, 8)
    assert isinstance(x, Sym) and x.value == 8 and x.dtype == 'int32'


def test_if_staged_nested_outputs(fake):
    x, _ = branch_state(Sym(True), (Sym(1), [Sym(2.0)]), (Sym(3), [Sym(4.0)]))
    assert type(x) is tuple and type(x[1]) is list
    assert unwrap(x) == (1, [2.0])


def test_if_staged_undefined_in_else_is_defined_where_the_if_branch_ran(fake):
    x, _ = branch_state(Sym(True), Sym(1), Undefined('x'))
    # A value and a staged flag; reading it checks the flag.
    assert isinstance(x, MaybeUndefined) and unwrap(ld(x)) == 1
    assert fake.calls[-1] == 'check_defined'


def test_if_staged_undefined_in_else_raises_where_python_raises(fake):
    x, _ = branch_state(Sym(False), Sym(1), Undefined('x'))
    with pytest.raises(UnboundLocalError) as e:
        ld(x)
    assert "'x'" in str(e.value) and 'test_control_flow.py", line' in str(e.value)


def test_if_staged_undefined_in_if(fake):
    x, _ = branch_state(Sym(False), Undefined('x'), Sym(2))
    assert unwrap(ld(x)) == 2
    x, _ = branch_state(Sym(True), Undefined('x'), Sym(2))
    with pytest.raises(UnboundLocalError):
        ld(x)


def test_if_staged_undefined_without_zeros_like_is_an_error():
    class NoZeros(FakeBackend):
        def zeros_like(self, value):
            return backends.Backend.zeros_like(self, value)

    with registered(NoZeros()), pytest.raises(UndefinedVariableError) as e:
        branch_state(Sym(True), Sym(1), Undefined('x'))
    assert str(e.value).startswith("'x' must also be initialized in the else branch")


def test_if_staged_undefined_non_output_is_fine(fake):
    x, tmp = Sym(0), Undefined('tmp')

    def set_state(vars_):
        nonlocal x, tmp
        x, tmp = vars_

    def body():
        nonlocal x, tmp
        tmp = Sym(5)  # defined in the if branch only, and not used after the statement
        x = tmp + 1

    def orelse():
        nonlocal x
        x = Sym(-1)

    if_stmt(Sym(True), body, orelse, lambda: (x, tmp), set_state, ('x', 'tmp'), 1)
    assert unwrap(x) == 6 and isinstance(tmp, Undefined)


def test_if_staged_dtype_mismatch(fake):
    with pytest.raises(BranchVariableError) as e:
        branch_state(Sym(True), Sym(1), Sym(2.0))
    assert str(e.value).startswith(
        "'x' has type int32 in the if branch, but type float32 in the else branch")
    assert isinstance(e.value, TypeError) and isinstance(e.value, StagingError)


def test_if_staged_structure_mismatch(fake):
    with pytest.raises(BranchVariableError) as e:
        branch_state(Sym(True), [Sym(1)], [Sym(1), Sym(2)])
    assert str(e.value).startswith(
        "'x' has type [int32] in the if branch, but type [int32, int32] in the else branch")


def test_if_staged_missing_return_without_zeros_like():
    class NoZeros(FakeBackend):
        zeros_like = Backend.zeros_like

    with registered(NoZeros()), pytest.raises(UndefinedVariableError) as e:
        branch_state(Sym(False), Sym(1), UndefinedReturnValue())
    assert str(e.value).startswith('the else branch must also have a return statement')


def test_if_staged_none_output(fake):
    with pytest.raises(StagingError) as e:
        branch_state(Sym(False), Sym(1), None)
    assert str(e.value).startswith("'x' is None at the end of the else branch")


def test_if_staged_without_outputs(fake):
    log = []
    if_stmt(Sym(True), lambda: log.append('if'), lambda: log.append('else'),
            lambda: (), lambda v: None, (), 0)
    assert log == ['if', 'else'] and fake.calls == ['cond']


def test_if_backend_without_type_of_checks_structure_only():
    class NoTypes(FakeBackend):
        type_of = Backend.type_of

    with registered(NoTypes()):
        x, _ = branch_state(Sym(False), Sym(1), Sym(2))
        assert unwrap(x) == 2
        with pytest.raises(BranchVariableError):
            branch_state(Sym(True), (Sym(1),), Sym(2))


# ---------------------------------------------------------------------------------------------
# while


def count_up(n, step=1, test_log=None):
    """i = 0; s = 0; while i < n: s = s + i; i = i + step. Returns (i, s)."""
    i = 0
    s = 0

    def get_state():
        return (i, s)

    def set_state(vars_):
        nonlocal i, s
        i, s = vars_

    def test():
        if test_log is not None:
            test_log.append(i)
        return i < n

    def body():
        nonlocal i, s
        s = s + i
        i = i + step

    while_stmt(test, body, get_state, set_state, ('i', 's'), {})
    return i, s


def test_while_python():
    log = []
    assert count_up(5, test_log=log) == (5, 10)
    assert log == [0, 1, 2, 3, 4, 5]  # the test runs once per iteration plus once, as in Python
    assert count_up(0) == (0, 0)
    assert count_up(2.5, 0.5) == (2.5, 5.0)


def test_while_staged(fake):
    i, s = count_up(Sym(5))
    assert (unwrap(i), unwrap(s)) == (5, 10)
    assert i.dtype == 'int32' and s.dtype == 'int32'  # Python 0s were converted
    assert 'while_loop' in fake.calls


def test_while_staged_zero_iterations(fake):
    i, s = count_up(Sym(0))
    assert (unwrap(i), unwrap(s)) == (0, 0)


def test_while_staged_dtype_change(fake):
    x = Sym(8)

    def set_state(vars_):
        nonlocal x
        (x,) = vars_

    def body():
        nonlocal x
        x = x / 2

    with pytest.raises(LoopVariableError) as e:
        while_stmt(lambda: x > 1, body, lambda: (x,), set_state, ('x',), {})
    assert str(e.value).startswith(
        "'x' has type int32 before the loop, but type float32 after one iteration")
    assert isinstance(e.value, TypeError)


def test_while_staged_undefined_on_entry(fake):
    y = Undefined('y')

    def set_state(vars_):
        nonlocal y
        (y,) = vars_

    def body():
        nonlocal y
        y = Sym(1)

    # The body gives y its type; after a loop of no iteration, reading y raises.
    while_stmt(lambda: Sym(False), body, lambda: (y,), set_state, ('y',), {})
    assert isinstance(y, MaybeUndefined)
    with pytest.raises(UnboundLocalError):
        ld(y)
    n = Sym(0)

    def set_state2(vars_):
        nonlocal y, n
        y, n = vars_

    def body2():
        nonlocal y, n
        y = n * 10
        n = n + 1

    y = Undefined('y')
    while_stmt(lambda: n < 3, body2, lambda: (y, n), set_state2, ('y', 'n'), {})
    assert unwrap(ld(y)) == 20


def test_while_staged_return_value_that_no_path_sets_needs_no_type(fake):
    state = [UndefinedReturnValue()]

    def set_state(vars_):
        state[:] = vars_

    # No traced path returns: the return value is not a loop variable and stays undefined.
    while_stmt(lambda: Sym(False), lambda: None, lambda: tuple(state), set_state,
               (Symbol.RETURN_VALUE,), {})
    assert isinstance(state[0], UndefinedReturnValue)
    assert fake.calls == ['while_loop']


def test_while_staged_structure_change(fake):
    acc = [Sym(0)]
    n = Sym(0)

    def set_state(vars_):
        nonlocal acc, n
        acc, n = vars_

    def body():
        nonlocal acc, n
        acc = acc + [n]
        n = n + 1

    with pytest.raises(LoopVariableError) as e:
        while_stmt(lambda: n < 3, body, lambda: (acc, n), set_state, ('acc', 'n'), {})
    assert str(e.value).startswith(
        "'acc' has type [int32] before the loop, but type [int32, int32] after one iteration")


def test_while_python_condition_becoming_staged_goes_on_staged(fake):
    x = 0

    def set_state(vars_):
        nonlocal x
        (x,) = vars_

    def body():
        nonlocal x
        x = x + 1 if isinstance(x, Sym) else Sym(x + 1)

    while_stmt(lambda: x < 3, body, lambda: (x,), set_state, ('x',), {})
    assert unwrap(x) == 3
    assert fake.calls.count('while_loop') == 1


def test_while_staged_nested_loop_vars(fake):
    state = (Sym(0), {'a': Sym(1.0), 'b': [Sym(True)]})

    def set_state(vars_):
        nonlocal state
        (state,) = vars_

    def body():
        nonlocal state
        n, d = state
        state = (n + 1, {'b': [n < 1], 'a': d['a'] * 2.0})

    while_stmt(lambda: state[0] < 3, body, lambda: (state,), set_state, ('state',), {})
    assert unwrap(state[0]) == 3 and unwrap(state[1]['a']) == 8.0
    assert unwrap(state[1]['b']) == [False]


# ---------------------------------------------------------------------------------------------
# for


def total(iterable, limit=None):
    """s = 0; for v in iterable: if s > limit: break; s = s + v. Returns (s, n seen)."""
    s = 0
    seen = 0
    stop = False

    def get_state():
        return (s, seen, stop)

    def set_state(vars_):
        nonlocal s, seen, stop
        s, seen, stop = vars_

    def body(v):
        nonlocal s, seen, stop
        seen = seen + 1
        if limit is not None and s + v > limit:  # python-only check in the test helper
            stop = True
            return
        s = s + v

    extra_test = None if limit is None else (lambda: not stop)
    for_stmt(iterable, extra_test, body, get_state, set_state, ('s', 'seen', 'stop'), {})
    return s, seen


def test_for_python_iterables():
    assert total([1, 2, 3]) == (6, 3)
    assert total(range(5)) == (10, 5)
    assert total(v * 2 for v in range(3)) == (6, 3)
    assert total({1: 'a', 5: 'b'}.keys()) == (6, 2)
    assert total({'a': 1, 'b': 5}.values()) == (6, 2)
    assert total([]) == (0, 0)


def test_for_python_break_takes_no_extra_element():
    pulled = []

    def gen():
        for v in [1, 2, 3, 4, 5]:
            pulled.append(v)
            yield v

    assert total(gen(), limit=4) == (3, 3)
    assert pulled == [1, 2, 3]


def test_for_python_extra_test_before_first_iteration():
    pulled = []

    def gen():
        pulled.append('next')
        yield 1

    log = []
    for_stmt(gen(), lambda: False, log.append, lambda: (), lambda v: None, (), {})
    assert log == [] and pulled == []


@pytest.mark.parametrize('items, expected', [([1, 2, 3], 3), ([5, 1], 5), ([1, 1, 0, 9], 11)])
def test_for_python_staged_break_goes_on_under_staged_guards(fake, items, expected):
    s = Sym(0)
    done = False  # becomes staged in the first iteration

    def set_state(vars_):
        nonlocal s, done
        s, done = vars_

    def body(v):
        nonlocal s, done
        s = s + v
        done = s > 2

    def go_on():
        return not done if isinstance(done, bool) else done == False  # noqa: E712

    for_stmt(items, go_on, body, lambda: (s, done), set_state, ('s', 'done'), {})
    assert unwrap(s) == expected
    # The fake backend has no `stack`: each remaining element runs under a staged if.
    assert fake.calls.count('cond') >= len(items) - 1


def staged_total(iterable, limit=None):
    """Like `total`, but the break condition is computed with staged-safe operations."""
    s = 0
    stop = False

    def get_state():
        return (s, stop)

    def set_state(vars_):
        nonlocal s, stop
        s, stop = vars_

    def body(v):
        nonlocal s, stop
        if limit is None:
            s = s + v
            return
        over = s + v > limit

        def get_inner():
            return (s, stop)

        def body_if():
            nonlocal stop
            stop = True if isinstance(over, bool) else Sym(True)

        def body_else():
            nonlocal s
            s = s + v

        if_stmt(over, body_if, body_else, get_inner, set_state, ('s', 'stop'), 2)

    def extra_test():
        return not stop if isinstance(stop, bool) else stop == False  # noqa: E712 - staged

    for_stmt(iterable, None if limit is None else extra_test, body, get_state, set_state,
             ('s', 'stop'), {})
    return s


def test_for_staged_vector(fake):
    assert staged_total([1, 2, 3, 4]) == 10
    result = staged_total(SymVec([1, 2, 3, 4]))
    assert unwrap(result) == 10 and result.dtype == 'int32'
    assert fake.calls == ['while_loop']


def test_for_staged_break_matches_python(fake):
    assert staged_total([1, 2, 3, 4], limit=5) == 3
    assert unwrap(staged_total(SymVec([1, 2, 3, 4]), limit=Sym(5))) == 3
    assert unwrap(staged_total(SymVec([], 'int32'), limit=Sym(5))) == 0


def test_for_staged_range(fake):
    assert staged_total(range_(1, 5)) == 10
    assert unwrap(staged_total(range_(1, Sym(5)))) == 10
    assert unwrap(staged_total(range_(Sym(10), 0, -3))) == 10 + 7 + 4 + 1


def test_for_staged_tensor_array(fake):
    array = SymArray('int32').write(0, 3).write(1, 4)
    assert unwrap(staged_total(array)) == 7
    assert unwrap(staged_total(array, limit=Sym(3))) == 3


def test_for_staged_undefined_on_entry(fake):
    last = Undefined('last')

    def set_state(vars_):
        nonlocal last
        (last,) = vars_

    def body(v):
        nonlocal last
        last = v

    for_stmt(SymVec([1, 7]), None, body, lambda: (last,), set_state, ('last',), {})
    assert unwrap(ld(last)) == 7
    last = Undefined('last')
    for_stmt(SymVec([]), None, body, lambda: (last,), set_state, ('last',), {})
    with pytest.raises(UnboundLocalError):
        ld(last)


def test_for_staged_dtype_change(fake):
    x = Sym(1)

    def set_state(vars_):
        nonlocal x
        (x,) = vars_

    def body(v):
        nonlocal x
        x = v

    with pytest.raises(LoopVariableError) as e:
        for_stmt(SymVec([0.5]), None, body, lambda: (x,), set_state, ('x',), {})
    assert str(e.value).startswith(
        "'x' has type int32 before the loop, but type float32 after one iteration")


def test_for_staged_unsupported_iterable(fake):
    with pytest.raises(StagingError) as e:
        for_stmt(Sym(3), None, lambda v: None, lambda: (), lambda v: None, (), {})
    assert str(e.value).startswith("backend 'fake' cannot iterate over Sym(3, int32)")


def test_for_backend_without_iterate_hook():
    class NoIterate(FakeBackend):
        iterate = Backend.iterate

    with registered(NoIterate()):
        with pytest.raises(StagingError) as e:
            for_stmt(SymVec([1]), None, lambda v: None, lambda: (), lambda v: None, (), {})
    assert str(e.value).startswith("backend 'fake' cannot iterate over <")
