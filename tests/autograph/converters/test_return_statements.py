"""Tests for converters/return_statements.py."""

import gast

import autograph as ag
from autograph.converters import functions
from autograph.converters import return_statements
from autograph.pyct import parser
from tests.autograph.converters.conftest import golden
from tests.autograph.converters.conftest import source
from tests.autograph.converters.conftest import transform


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
                if x > 0:
                    retval_ = 1
                    do_return = True
                else:
                    for i in range(x):
                        if i == 3:
                            retval_ = i
                            do_return = True
                    if not do_return:
                        retval_ = -1
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
                y = x + 1
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
