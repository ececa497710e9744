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


def test_helpers_reuse_one_name_per_root_and_avoid_used_names():
    namer = naming.Namer({'if_body', 'x'})
    first = namer.new_helper('if_body')
    assert first == 'if_body_1'
    assert namer.new_helper('if_body') == first
    assert namer.new_helper('loop_body') == 'loop_body'
    # a name the block itself references is never reused
    assert namer.new_helper('if_body', reserved_locals={'if_body_1'}) == 'if_body_2'
    # plain symbols never take a helper's name
    assert namer.new_symbol('if_body') not in ('if_body', 'if_body_1', 'if_body_2')


def test_sequential_and_nested_blocks_share_helper_names_and_stay_correct():
    import autograph

    def f(n):
        total = 0
        for i in range(n):
            if i % 2:
                total += i
            else:
                j = 0
                while j < i:
                    total -= 1
                    j += 1
        if total > 3:
            total *= 2
        else:
            total += 100
        return total

    code = autograph.to_code(f)
    assert 'if_body_1' not in code and 'loop_body_1' not in code
    assert code.count('def if_body') == 2
    converted = autograph.convert(f)
    assert [converted(n) for n in range(8)] == [f(n) for n in range(8)]
