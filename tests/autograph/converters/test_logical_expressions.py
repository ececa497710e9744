"""Tests for converters/logical_expressions.py."""

import itertools

import pytest

import autograph as ag
from autograph.converters import logical_expressions
from tests.autograph.converters.conftest import golden
from tests.autograph.converters.conftest import source
from tests.autograph.converters.conftest import transform
from tests.autograph.fake_backend import Sym
from tests.autograph.fake_backend import unwrap


def f_logic(a, b, c):
    return a and b or not c


def test_golden():
    assert source(transform(f_logic, logical_expressions)) == golden('''
        def f_logic(a, b, c):
            return ag__.or_((lambda: ag__.and_((lambda: a), (lambda: b), (lambda: ()))), (lambda: ag__.not_(c)), (lambda: ()))
    ''')


def helper(x):
    return x


def operands(a, b, xs):
    return (a and abs(b) > 1 and xs.real,
            a or helper(b),
            a and helper(b)(xs),
            a or [x for x in xs],
            a and b.real + 1)


def guarded_read(i, xs):
    return i < len(xs) and xs[0]


def test_a_pure_right_operand_lists_the_functions_it_calls():
    # names, constants, attribute reads, arithmetic and comparisons are pure; calls are
    # listed for the backend to judge (`Backend.pure_operand`); a call of a computed
    # function, a comprehension or a read at an index (`ag__.get_item`: a staged index
    # checks its range, which `i < n and xs[i]` must not run) is not pure: the lazy form.
    code = ag.to_code(operands)
    assert "lambda: (abs,)" in code and "lambda: (helper,)" in code
    assert code.count('(lambda: ())') == 2  # `xs.real` and `b.real + 1`
    assert "(lambda: ag__.get_item(xs, 0)))" in ag.to_code(guarded_read)
    assert "(lambda: ag__.converted_call(helper(b), (xs,), None, fscope)))" in code
    assert "(lambda: ag__.list_comprehension(xs, (lambda x: x), None, 'x')))" in code


def chain(a, b, c):
    return a and b and c, a or b or c


def test_python_values_keep_operand_results():
    converted = ag.convert(chain)
    for a in (0, 1, '', 'x'):
        for b in (0, 2, None):
            for c in ([], [1]):
                assert converted(a, b, c) == chain(a, b, c)


def short_circuit(log):
    return log.append(1) and log.append(2)


def test_short_circuit():
    log = []
    assert ag.convert(short_circuit)(log) is None
    assert log == [1]


def f_compare(lo, x, hi, xs):
    return lo <= x < hi, x in xs, x not in (1, 2), x < hi


def test_golden_comparisons():
    assert source(transform(f_compare, logical_expressions)) == golden('''
        def f_compare(lo, x, hi, xs):
            return (ag__.compare(lo, '<=', x, '<', (lambda: hi)), ag__.in_(x, xs), ag__.not_in(x, (1, 2)), (x < hi))
    ''')


def logged_chain(log, a, b, c, d):
    def v(name, value):
        log.append(name)
        return value
    return v('a', a) < v('b', b) <= v('c', c) != v('d', d)


def test_chained_comparison_evaluates_each_operand_once_and_lazily():
    converted = ag.convert(logged_chain)
    for args in itertools.product((0, 1, 2), repeat=4):
        plain_log, converted_log = [], []
        assert converted(converted_log, *args) is logged_chain(plain_log, *args)
        assert converted_log == plain_log


def membership(x, xs):
    return x in xs, x not in xs, 0 < x in xs


def test_membership_is_python_on_python_values():
    converted = ag.convert(membership)
    for x in (0, 1, 3, 'a'):
        for xs in ((1, 2), [3], {1}, 'abc', {1: 0}):
            try:
                expected = membership(x, xs)
            except TypeError as e:
                with pytest.raises(type(e), match=str(e)):
                    converted(x, xs)
                continue
            assert converted(x, xs) == expected


def staged_compare(x):
    if 0 <= x < 3:
        return 1
    if x in (5, 7):
        return 2
    if x not in [4]:
        return 3
    return 4


def test_chains_and_membership_on_staged_values(fake):
    converted = ag.convert(staged_compare)
    for x in range(9):
        assert unwrap(converted(Sym(x))) == staged_compare(x)
