"""Tests for pyct/naming.py."""

from autograph.pyct import naming
from autograph.pyct import parser


def test_new_symbols_avoid_used_names_keywords_and_builtins():
    namer = naming.Namer.for_tree(parser.parse('''
        def f(if_body, x):
            import os.path as p
            global g
            break_ = len
    '''))
    assert namer.new_symbol('if_body') == 'if_body_1'
    assert namer.new_symbol('if_body') == 'if_body_2'
    assert namer.new_symbol('break_') == 'break_1'
    assert namer.new_symbol('p') == 'p_1'
    assert namer.new_symbol('g') == 'g_1'
    assert namer.new_symbol('len') == 'len_1'
    assert namer.new_symbol('for') == 'for_1'
    assert namer.new_symbol('fresh') == 'fresh'
    assert namer.generated == {'if_body_1', 'if_body_2', 'break_1', 'p_1', 'g_1', 'len_1',
                               'for_1', 'fresh'}


def test_reserved_locals():
    namer = naming.Namer(set())
    assert namer.new_symbol('a', reserved_locals={'a'}) == 'a_1'
    namer.reserve('b')
    assert namer.new_symbol('b') == 'b_1'
