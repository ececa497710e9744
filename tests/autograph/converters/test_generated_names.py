"""User variables named like generated symbols (retval_, do_return, break_) are ordinary names.

The return, break and continue converters mark the symbols they generate, and the operators
recognise them by that mark (`ag__.Symbol`), never by name: a user variable called `retval_` in a
function with a staged early return behaves exactly like any other name.
"""

import gast
import pytest

import autograph as ag
from autograph.impl import conversion
from autograph.pyct import anno
from autograph.pyct import parser
from tests.corpus.functions import CORPUS
from tests.autograph.fake_backend import Sym
from tests.autograph.fake_backend import SymVec
from tests.autograph.fake_backend import unwrap


def named_like_return(x):
    retval_ = x * 2
    do_return = x + 1
    if x > 2:
        return retval_ + do_return
    retval_ = retval_ - 1
    return retval_


def named_like_break(xs):
    break_ = 0
    continue_ = 0
    for v in xs:
        if v > 3:
            break
        if v < 1:
            continue
        break_ += v
        continue_ += 1
    return break_ * 10 + continue_


def named_like_loop_return(xs):
    retval_ = 7
    for v in xs:
        if v > retval_:
            return v
    return retval_


def bare_return_beside_user_retval(x):
    retval_ = 1
    if x > 0:
        return retval_
    return


@pytest.mark.parametrize('fn, inputs', [
    (named_like_return, [0, 3, 5]),
    (named_like_break, [[1, 2, 5, 1], [0, 2, 2], [4]]),
    (named_like_loop_return, [[1, 9, 2], [1, 2], [8]]),
])
def test_user_names_like_generated_ones_behave_as_any_name(fake, fn, inputs):
    converted = ag.convert(fn)
    for value in inputs:
        expected = fn(value)
        assert converted(value) == expected
        staged = Sym(value) if isinstance(value, int) else SymVec(value)
        assert unwrap(converted(staged)) == expected


def test_messages_use_the_users_words_not_generated_names(fake):
    converted = ag.convert(bare_return_beside_user_retval)
    assert converted(1) == 1 and converted(0) is None
    with pytest.raises(ag.StagingError) as info:
        converted(Sym(1))
    message = str(info.value)
    # The user's `retval_` is not the return value; the generated one is recognised by its mark.
    assert message.startswith(
        'the else branch returns None (a bare `return`, or `return None`) while the other '
        'branch returns a value')
    assert 'retval__' not in message and 'do_return' not in message
    assert 'line %d, in bare_return_beside_user_retval' % (
        bare_return_beside_user_retval.__code__.co_firstlineno + 2) in message


def test_generated_symbols_are_passed_as_marks():
    code = ag.to_code(named_like_return)
    # The user's `retval_` is passed by its name; the generated `retval__1` by its mark.
    assert "(ag__.Symbol.DO_RETURN, ag__.Symbol.RETURN_VALUE, 'retval_')" in code


# -- the `ag__` references that converters generate carry anno.Basic.GENERATED -------------

def every_kind_of_generated_call(n, table):
    memo = [1] + [0] * n
    ag.experimental.set_list_options(memo, maximum_size=64)
    assert n >= 0, 'n'
    total = sum(v * v for v in range(n) if v % 2)
    squares = [v * v for v in range(n)]
    first = (lambda k: table[k])(0)
    return memo + squares, total, first, table[n] if n < len(table) else max(n, 1)


def _unmarked_and_wrapped(fn):
    """The `ag__` names of fn's conversion that lack the mark, and the generated calls that
    call_trees wrapped in converted_call anyway (as source text)."""
    node, _ = conversion.convert_tree(fn)
    unmarked, wrapped = [], []
    for n in gast.walk(node):
        if isinstance(n, gast.Name) and n.id == 'ag__':
            if not anno.hasanno(n, anno.Basic.GENERATED):
                unmarked.append(n)
        elif anno.hasanno(n, anno.Basic.CALLEE):
            callee = anno.getanno(n, anno.Basic.CALLEE)
            while isinstance(callee, gast.Attribute):
                callee = callee.value
            if anno.hasanno(callee, anno.Basic.GENERATED):
                wrapped.append(parser.unparse(n).strip())
    return unmarked, wrapped


def test_every_generated_ag_reference_is_marked_and_left_unwrapped():
    assert every_kind_of_generated_call(3, [7, 8]) == (
        [1, 0, 0, 0, 0, 1, 4], 1, 7, 3)
    code = ag.to_code(every_kind_of_generated_call)
    for operator in ('repeat', 'list_options', 'assert_stmt', 'reduce_generator',
                     'list_comprehension', 'list_concat', 'get_item', 'converted_call'):
        assert 'ag__.%s(' % operator in code
    failures = {}
    for fn in [every_kind_of_generated_call] + [case.fn for case in CORPUS]:
        unmarked, wrapped = _unmarked_and_wrapped(fn)
        if unmarked or wrapped:
            failures[fn.__name__] = (len(unmarked), wrapped)
    assert failures == {}
