"""Tests for converters/functions.py: function scopes, signatures, lambdas."""

import autograph as ag
from autograph.converters import functions
from tests.autograph.converters.conftest import golden
from tests.autograph.converters.conftest import source
from tests.autograph.converters.conftest import transform


def f_fn(x, y=2, *a, k=3, **kw):
    """Doc."""
    def inner(z):
        return z
    return x


def test_function_scope_golden():
    assert source(transform(f_fn, functions)) == golden('''
        def tf__f_fn(x, y=None, *a, k=None, **kw):
            'Doc.'
            with ag__.FunctionScope('f_fn', 'fscope') as fscope:

                def inner(z):
                    with ag__.FunctionScope('inner', 'fscope_1') as fscope_1:
                        return z
                return x
    ''')


def test_defaults_and_docstring_come_from_the_original():
    converted = ag.convert(f_fn)
    assert converted(1) == 1
    assert converted.__defaults__ == (2,)
    assert converted.__kwdefaults__ == {'k': 3}
    assert converted.__doc__ == 'Doc.'
    assert converted.__name__ == 'f_fn'


def annotated(x: 'not evaluated again', y: int = 4) -> 'ret':
    return x + y


def test_annotations_are_not_reevaluated():
    converted = ag.convert(annotated)
    assert converted(1) == 5
    assert converted.__annotations__ == {'x': 'not evaluated again', 'y': int, 'return': 'ret'}


top_lambda = lambda y: y and y * 2  # noqa: E731


def test_top_level_lambda_golden():
    assert source(transform(top_lambda, functions)) == golden('''
        (lambda y: ag__.with_function_scope((lambda lscope: (y and (y * 2))), 'lscope'))
    ''')


def test_lambda_results():
    converted = ag.convert(top_lambda)
    assert [converted(v) for v in (0, 3, '')] == [0, 6, '']
