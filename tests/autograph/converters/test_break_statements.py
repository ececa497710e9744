"""Tests for converters/break_statements.py."""

import autograph as ag
from autograph.converters import break_statements
from tests.autograph.converters.conftest import golden
from tests.autograph.converters.conftest import source
from tests.autograph.converters.conftest import transform


def f_break(n):
    for i in range(n):
        if i > 2:
            break
        n += 1
    else:
        n = -1
    while n:
        n -= 1
        if n == 5:
            break
    return n


def test_golden():
    assert source(transform(f_break, break_statements)) == golden('''
        def f_break(n):
            break_ = False
            for i in range(n):
                if (i > 2):
                    break_ = True
                if (not break_):
                    n += 1
            if (not break_):
                n = (- 1)
            break_1 = False
            while ((not break_1) and n):
                n -= 1
                if (n == 5):
                    break_1 = True
            return n
    ''')


def test_python_semantics():
    converted = ag.convert(f_break)
    for n in range(4, 12):  # for n < 4 the else clause sets n = -1: an endless loop
        assert converted(n) == f_break(n), n


def else_without_break(xs):
    out = []
    for x in xs:
        out.append(x)
    else:
        out.append('else')
    while out and out[-1] == 'else':
        out.pop()
    else:
        out.append('done')
    return out


def test_else_without_break_moves_after_the_loop():
    assert ag.convert(else_without_break)([1, 2]) == [1, 2, 'done']


def nested(m):
    found = []
    for i in range(m):
        for j in range(m):
            if j > i:
                break
            if (i + j) % 3 == 2:
                found.append((i, j))
                break
        else:
            found.append(('no break', i))
        if len(found) > 4:
            break
    return found


def test_nested_loops_break_only_the_inner_one():
    assert ag.convert(nested)(6) == nested(6)


def break_in_try(xs):
    total = 0
    for x in xs:
        try:
            if x < 0:
                break
            total += 10 // x
        except ZeroDivisionError:
            total -= 1
        else:
            total += 100
        finally:
            total += 1000
    return total


def test_break_inside_try_skips_else_but_runs_finally():
    for xs in ([1, 0, 2], [1, -1, 2], [], [-5]):
        assert ag.convert(break_in_try)(xs) == break_in_try(xs), xs
