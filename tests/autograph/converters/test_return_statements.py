"""Tests for converters/return_statements.py."""

import gast
import pytest

import autograph as ag
from autograph.converters import functions
from autograph.converters import return_statements
from autograph.pyct import parser
from tests.autograph.converters.conftest import golden
from tests.autograph.converters.conftest import source
from tests.autograph.converters.conftest import transform
from tests.autograph.fake_backend import Sym
from tests.autograph.fake_backend import SymVec


def f_return(x):
    if x > 0:
        return 1
    for i in range(x):
        if i == 3:
            return i
    return -1


def test_golden():
    assert source(transform(f_return, functions, return_statements)) == golden('''
        def tf__f_return(x):
            with ag__.FunctionScope('f_return', 'fscope') as fscope:
                do_return = False
                retval_ = ag__.UndefinedReturnValue()
                if (x > 0):
                    retval_ = 1
                    do_return = True
                else:
                    for i in range(x):
                        if (i == 3):
                            retval_ = i
                            do_return = True
                    if (not do_return):
                        retval_ = (- 1)
                        do_return = True
                return fscope.ret(retval_, do_return)
    ''')


def single_return(x):
    y = x + 1
    return y


def test_a_single_final_return_stays():
    assert source(transform(single_return, functions, return_statements)) == golden('''
        def tf__single_return(x):
            with ag__.FunctionScope('single_return', 'fscope') as fscope:
                y = (x + 1)
                return y
    ''')


def test_rewrite_conditional_returns_moves_the_rest_into_else():
    node = parser.parse('''
        if a:
            return 1
        b = 2
        return b
    ''', single_node=False)
    stmts = return_statements.rewrite_conditional_returns(node.body)
    assert len(stmts) == 1 and isinstance(stmts[0], gast.If)
    assert parser.unparse(stmts).strip() == golden('''
        if a:
            return 1
        else:
            b = 2
            return b
    ''')


def many_returns(x):
    while x < 100:
        x *= 2
        if x % 3 == 0:
            return 'three', x
        try:
            if x == 64:
                return 'try', x
        finally:
            x += 1
    if x > 1000:
        return
    return x


def bare_return(log):
    log.append(1)
    if log:
        return
    log.append(2)


def test_python_semantics():
    converted = ag.convert(many_returns)
    for x in range(1, 40):  # x <= 0 never leaves the loop
        assert converted(x) == many_returns(x), x
    log = []
    assert ag.convert(bare_return)(log) is None and log == [1]


def loop_may_fall_off(x):
    for i in x:
        if i > 2:
            return i


def test_function_that_may_fall_off_tells_ret():
    assert source(transform(loop_may_fall_off, functions, return_statements)) == golden('''
        def tf__loop_may_fall_off(x):
            with ag__.FunctionScope('loop_may_fall_off', 'fscope') as fscope:
                do_return = False
                retval_ = ag__.UndefinedReturnValue()
                for i in x:
                    if (i > 2):
                        retval_ = i
                        do_return = True
                return fscope.ret(retval_, do_return, may_fall_off=True)
    ''')


def value_or_bare_return(x):
    if x > 0:
        return 1
    return


def test_bare_return_beside_value_returns_sets_none():
    assert source(transform(value_or_bare_return, functions, return_statements)) == golden('''
        def tf__value_or_bare_return(x):
            with ag__.FunctionScope('value_or_bare_return', 'fscope') as fscope:
                do_return = False
                retval_ = ag__.UndefinedReturnValue()
                if (x > 0):
                    retval_ = 1
                    do_return = True
                else:
                    retval_ = None
                    do_return = True
                return fscope.ret(retval_, do_return)
    ''')


def ends_in_while_true(x):
    while True:
        x += 1
        if x > 3:
            return x


def ends_in_raise(x):
    for i in x:
        if i > 2:
            return i
    raise ValueError('no element above 2')


def ends_in_try(x):
    try:
        if x:
            return x
        return -1
    except ValueError:
        raise


def test_functions_that_cannot_fall_off_keep_the_plain_epilogue():
    for fn in (ends_in_while_true, ends_in_raise, ends_in_try, f_return):
        code = source(transform(fn, functions, return_statements))
        assert code.endswith('return fscope.ret(retval_, do_return)'), fn.__name__


def test_falling_off_after_staged_returns_is_a_staging_error(fake):
    converted = ag.convert(loop_may_fall_off)
    # Plain Python values: unchanged, None when no return runs.
    assert converted([1, 2]) is None and converted([1, 5, 7]) == 5
    with pytest.raises(ag.StagingError) as info:
        converted(SymVec([1, 2]))
    assert str(info.value) == (
        'loop_may_fall_off returns a value on some paths and ends without a return statement '
        '(returning None) on others, and which one happens depends on a staged condition (a '
        'return inside a staged if or loop). A staged function must return a value of the '
        'same type on every path: add a return statement with a value at the end of '
        'loop_may_fall_off, after the loops and branches that return.\n'
        '  File "%s", line %d, in loop_may_fall_off\n'
        '    for i in x:' % (__file__, loop_may_fall_off.__code__.co_firstlineno + 1))


def test_staged_choice_between_value_and_bare_return_is_an_error(fake):
    converted = ag.convert(value_or_bare_return)
    assert converted(1) == 1 and converted(0) is None
    with pytest.raises(ag.StagingError) as info:
        converted(Sym(1))
    assert str(info.value).startswith(
        'the else branch returns None (a bare `return`, or `return None`) while the other '
        'branch returns a value')

