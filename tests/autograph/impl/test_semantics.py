"""Converted functions behave like the originals on mixed constructs (Python values)."""

import contextlib

import pytest

import autograph as ag

G = 0


def uses_global(c):
    global G
    if c:
        G = 1
    else:
        G = 2
    return G


def defs_imports_classes_in_loop(n):
    for i in range(n):
        def h():
            return i * 10
        if i == 1:
            import json as mod  # pylint: disable=g-import-not-at-top
            class K(object):  # pylint: disable=unused-variable
                v = i
    return h(), mod.dumps([K.v])


def with_try_while_else(xs):
    out = []
    with contextlib.suppress(ZeroDivisionError):
        for x in xs:
            out.append(1 // x)
    try:
        while xs:
            xs = xs[1:]
            if len(xs) == 1:
                return out, 'early'
        else:
            out.append('else')
    finally:
        out.append('fin')
    return out


def star_args(n, *args, key=None, **kw):
    total = sum(args) + n
    while total > 10:
        total -= 3
        if key and total % 2:
            break
    else:
        total = -total
    return total, sorted(kw)


def deleted_in_branch(x):
    del_me = 1
    if x:
        del del_me
    try:
        return del_me
    except UnboundLocalError as e:
        return str(e)


CASES = [
    (uses_global, [(1,), (0,)]),
    (defs_imports_classes_in_loop, [(3,)]),
    (with_try_while_else, [([1, 2, 0, 4],), ([5],), ([],)]),
    (star_args, [(3, 4, 5), (30, 1, 2), (12,)]),
    (deleted_in_branch, [(0,), (1,)]),
]


@pytest.mark.parametrize('fn,arg_sets', CASES, ids=[c[0].__name__ for c in CASES])
def test_same_results(fn, arg_sets):
    converted = ag.convert(fn)
    assert converted is not fn
    for args in arg_sets:
        assert converted(*args) == fn(*args), args


def test_keyword_arguments_and_results():
    assert ag.convert(star_args)(3, 4, 5, key=1, z=2) == star_args(3, 4, 5, key=1, z=2) == (
        9, ['z'])
    assert ag.convert(with_try_while_else)([1, 2, 0, 4]) == ([1, 0, 'fin'], 'early')
    assert "'del_me'" in ag.convert(deleted_in_branch)(1)


class _Private(object):

    def __init__(self, n):
        self.__n = n

    def twice(self):
        __local = self.__n
        if __local > 0:
            return self.__helper(__local)
        return 0

    def __helper(self, v):
        return 2 * v


def test_class_private_names_are_mangled_like_the_compiler_does():
    obj = _Private.__new__(_Private)
    ag.convert(_Private.__init__)(obj, 21)
    assert obj._Private__n == 21  # pylint: disable=protected-access
    assert ag.convert(obj.twice)() == 42
