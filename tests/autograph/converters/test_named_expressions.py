"""Tests for converters/named_expressions.py and the `:=` checks of conversion.check_supported.

Behaviour with Python values and staged values is in the shared corpus (`walrus_*` in
tests/corpus/functions.py) and the differential fuzzer ("walrus" feature); these pin the
rewrites and the places that stay unsupported.
"""

import linecache
import warnings
import zlib

import pytest

import autograph as ag
from autograph import errors
from autograph.converters import named_expressions
from tests.autograph.converters.conftest import golden
from tests.autograph.converters.conftest import source
from tests.autograph.converters.conftest import transform


def while_test(items):
    out = []
    while (item := items.pop()) > 0:
        out.append(item)
    return out, item


def test_while_test_moves_into_the_body():
    assert source(transform(while_test, named_expressions)) == golden('''
        def while_test(items):
            out = []
            while True:
                if (not ((item := items.pop()) > 0)):
                    break
                out.append(item)
            return (out, item)
    ''')


def while_else(n, stop):
    total = 0
    while (n := n - 1) > 0:
        if n == stop:
            break
        total += n
    else:
        total = -total
    return total, n


def test_while_else_runs_only_when_the_test_fails():
    assert source(transform(while_else, named_expressions)) == golden('''
        def while_else(n, stop):
            total = 0
            else_ = False
            while True:
                if (not ((n := (n - 1)) > 0)):
                    else_ = True
                    break
                if (n == stop):
                    break
                total += n
            if else_:
                total = (- total)
            return (total, n)
    ''')
    converted = ag.convert(while_else)
    for n, stop in [(0, 9), (5, 9), (5, 2), (8, 7), (8, 1)]:
        assert converted(n, stop) == while_else(n, stop), (n, stop)


def and_or_test(x, log):
    if log.append('a') or x > 0 and (m := log.append('m') or x * 3) > 5:
        r = m
    elif not (x < -5 or (k := x * x) > 40):
        r = -k
    else:
        r = 0
    return r


def test_later_operands_become_nested_ifs_in_python_order():
    converted = ag.convert(and_or_test)
    for x in (-9, -6, -3, 0, 1, 2, 4):
        plain_log, converted_log = [], []
        assert converted(x, converted_log) == and_or_test(x, plain_log), x
        assert converted_log == plain_log, x  # the same operands evaluated, in order


def first_operand(s):
    if (n := len(s)) > 2 and s[n - 1] == 'x':
        return n
    return -n


def test_first_operand_is_evaluated_in_place():
    assert 'ag__.and_(ag__.evaluated(((n := ' in ag.to_code(first_operand)
    converted = ag.convert(first_operand)
    for s in ('', 'ab', 'abcx', 'abcd'):
        assert converted(s) == first_operand(s), s


def comprehension_in_branch(xs, flag):
    last = None
    if flag:
        ys = [(last := v) * 2 for v in xs]
    return last


def test_comprehension_binds_in_the_function():
    converted = ag.convert(comprehension_in_branch)
    for xs, flag in (([1, 2], True), ([1, 2], False), ([], True)):
        assert converted(xs, flag) == comprehension_in_branch(xs, flag)


@pytest.mark.parametrize('code, where', [
    ('def f(x):\n    return abs(x or (y := 1) + y)\n',
     'an operand of `and`/`or` after the first'),
    ('def f(x):\n    return [(y := x) if x else 0]\n', 'a branch of a conditional expression'),
    ('def f(x):\n    return 0 < x < (y := 3)\n', 'a chained comparison after its first link'),
    ('def f(x):\n    assert x, (m := "no")\n', 'the message of an assert'),
    ('def f(x):\n    if x:\n        return [v for v in x if v or (w := v)]\n',
     'an operand of `and`/`or` after the first'),
])
def test_lazy_operands_are_named(code, where):
    namespace = {}
    filename = '<walrus %d>' % (zlib.crc32(code.encode()))
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
    exec(compile(code, filename, 'exec'), namespace)  # pylint: disable=exec-used
    fn = namespace['f']
    with pytest.raises(errors.ConversionError) as e:
        ag.convert(fn, strict=True)
    assert 'an assignment expression (:=) in %s at %s:' % (where, filename) in str(e.value)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        assert ag.convert(fn) is fn
    assert len(caught) == 1 and where in str(caught[0].message)


def lambda_own_scope(x):
    g = lambda v: (w := v + 1) * w  # noqa: E731 - binds in the lambda
    if x > 0 and (z := g(x)) > 4:
        return z
    return g(-x)


def test_lambda_assignment_stays_in_the_lambda():
    converted = ag.convert(lambda_own_scope)
    for x in (-3, 1, 2, 5):
        assert converted(x) == lambda_own_scope(x)


def whole_values(x, log):
    z = (x > 10) or (q := log.append('q') or x + 1) > 3
    v = (a := x + 1) if x > 0 else -x
    x > 2 and log.append((k := x * 2))
    r = (x < 0) or ((y := x * 3) > 4 and (w := y - 1) > 6)
    return z, v, r


def test_whole_values_become_statements_in_python_order():
    assert source(transform(whole_values, named_expressions)).startswith(golden('''
        def whole_values(x, log):
            value_ = (x > 10)
            if (not value_):
                value_ = ((q := (log.append('q') or (x + 1))) > 3)
            z = value_
            if (x > 0):
                value_1 = (a := (x + 1))
            else:
                value_1 = (- x)
            v = value_1
    '''))
    with warnings.catch_warnings():
        warnings.simplefilter('error')  # converted: no "could not convert" warning
        converted = ag.convert(whole_values, strict=True)
    assert converted is not whole_values
    for x in (-2, 0, 1, 2, 3, 11):
        plain_log, converted_log = [], []
        assert converted(x, converted_log) == whole_values(x, plain_log), x
        assert converted_log == plain_log, x
