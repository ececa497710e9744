"""User variables named like generated symbols (retval_, do_return, break_) are ordinary names.

The return, break and continue converters mark the symbols they generate, and the operators
recognise them by that mark (`ag__.Symbol`), never by name: a user variable called `retval_` in a
function with a staged early return behaves exactly like any other name.
"""

import pytest

import autograph as ag
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
