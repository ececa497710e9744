"""Tests for impl/api.py: convert, converted_call, to_code, do_not_convert, verbosity."""

import functools
import gc
import linecache
import logging
import math
import operator
import textwrap
import warnings
import weakref

import pytest

import autograph as ag
from autograph.impl import ag_namespace
from autograph.impl import api
from tests.autograph.fake_backend import Sym
from tests.autograph.fake_backend import registered
from tests.autograph.fake_backend import unwrap


def branchy(x, scale=2, *rest, bias=0, **extra):
    if x > 0:
        y = x * scale
    else:
        y = -x
    return y + bias + len(rest) + len(extra)


def test_convert_as_call_and_decorators():
    converted = ag.convert(branchy)
    assert converted(3) == 6 and converted(-3, bias=1) == 4
    assert converted(1, 3, 'r', k=1) == 5
    assert ag.convert()(branchy)(2) == 4
    assert ag.convert(recursive=False)(branchy)(2) == 4

    @ag.convert
    def decorated(n):
        return [i for i in range(n) if i % 2]
    assert decorated(6) == [1, 3, 5]


def test_convert_returns_converted_function_once_converted():
    converted = ag.convert(branchy)
    assert converted is not branchy
    assert ag.convert(converted) is converted
    assert converted.__name__ == converted.__qualname__ == 'branchy'


def make_closure(k):
    def add(x):
        if x:
            return x + k
        return k
    return add


def test_each_closure_gets_its_own_cells():
    add1, add10 = make_closure(1), make_closure(10)
    assert ag.convert(add1)(5) == 6 and ag.convert(add10)(5) == 15
    assert ag.convert(add1)(0) == 1


def test_cache_holds_no_strong_reference_to_functions_or_closures():
    class Big(object):
        pass
    payload = Big()
    probe = weakref.ref(payload)

    def make(p):
        def uses(x):
            if x:
                return p
            return None
        return uses
    fn = make(payload)
    ref = weakref.ref(fn)
    assert ag.convert(fn)(1) is payload
    del fn, payload
    gc.collect()
    assert ref() is None and probe() is None


def test_recursive_nested_function_is_collected():
    def make():
        def fact(n):
            if n <= 1:
                return 1
            return n * fact(n - 1)
        return fact
    fact = make()
    ref = weakref.ref(fact)
    assert ag.convert(fact)(5) == 120
    del fact
    gc.collect()
    assert ref() is None


class Shape(object):

    def __init__(self, n):
        self.n = n

    def area(self, scale=1):
        if self.n > 0:
            return self.n * self.n * scale
        return 0

    def __call__(self, x):
        return x * self.n if x else -1


def test_methods_partials_callables_and_classes():
    s = Shape(3)
    assert ag.convert(s.area)(2) == 18
    assert ag.convert(Shape.area)(s) == 9
    assert ag.convert(functools.partial(branchy, scale=5))(2) == 10
    assert ag.convert(s)(2) == 6 and ag.convert(s)(0) == -1
    assert ag.convert(Shape) is Shape


@pytest.mark.parametrize('value, shown', [
    (3, 'int: 3'),
    ('fn', "str: 'fn'"),
    ([1, 2], 'list: [1, 2]'),
])
def test_convert_rejects_values_that_are_not_callable(value, shown):
    with pytest.raises(TypeError) as info:
        ag.convert(value)
    assert str(info.value) == (
        'autograph.convert expected a callable (a function, method or callable object), '
        'found %s. convert takes a function: pass the function itself, not the result of '
        'calling it.' % shown)
    with pytest.raises(TypeError):
        ag.convert(recursive=False)(value)


def test_convert_still_accepts_builtins_and_c_callables():
    assert ag.convert(len) is len
    getter = operator.itemgetter(1)
    assert ag.convert(getter) is getter


def uses_everything(n):
    s = Shape(n)
    p = functools.partial(branchy, bias=1)
    return s.area(), s(2), p(n), math.sqrt(n), len([n]), abs(-n), max(n, 2)


def test_converted_call_handles_every_kind_of_callable():
    assert ag.convert(uses_everything)(4) == uses_everything(4)


def test_converted_call_directly():
    assert ag.converted_call(branchy, (3,), {'bias': 1}) == 7
    assert ag.converted_call(Shape(2).area, (), None) == 4
    assert ag.converted_call(len, ([1, 2],), None) == 2
    assert ag.converted_call(dict, (), {'a': 1}) == {'a': 1}


def test_do_not_convert_and_module_allowlist():
    calls = []

    @ag.do_not_convert
    def marked(x):
        calls.append(x)
        return x
    assert ag.convert(marked) is marked

    def calls_marked(x):
        return marked(x)
    assert ag.convert(calls_marked)(1) == 1 and calls == [1]
    assert api._module_is_allowlisted('numpy.linalg')  # pylint: disable=protected-access
    assert api._module_is_allowlisted('json.decoder')  # pylint: disable=protected-access
    assert not api._module_is_allowlisted(__name__)  # pylint: disable=protected-access
    api.do_not_convert_module('my_private_lib')
    try:
        assert api._module_is_allowlisted('my_private_lib.sub')  # pylint: disable=protected-access
    finally:
        api.DO_NOT_CONVERT_MODULES.discard('my_private_lib')
        api._module_decisions.clear()  # pylint: disable=protected-access


def test_verbosity_logs_converted_calls(caplog):
    ag.set_verbosity(1)
    try:
        with caplog.at_level(logging.INFO, logger='autograph'):
            ag.convert(uses_everything)(2)
    finally:
        ag.set_verbosity(0)
    messages = [r.getMessage() for r in caplog.records]
    assert any(m.startswith('Converted call: <built-in function len>\n    args: ([2],)\n'
                            '    kwargs: None') for m in messages), messages
    # 9 calls in uses_everything, and 2 (len, len) in branchy, which p(n) converts.
    assert sum(m.startswith('Converted call: ') for m in messages) == 11


def test_strict_mode_from_argument_and_environment(monkeypatch):
    def gen():
        yield 1
    with pytest.raises(ag.ConversionError, match='generator function'):
        ag.convert(gen, strict=True)
    monkeypatch.setenv('AUTOGRAPH_STRICT', '1')
    with pytest.raises(ag.ConversionError, match='generator function'):
        ag.convert(gen)


def test_unconvertible_function_warns_once():
    def gen2():
        yield 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        assert list(ag.convert(gen2)()) == [2]
        assert list(ag.convert(gen2)()) == [2]

        def calls_gen():
            return list(gen2())
        assert ag.convert(calls_gen)() == [2]
    assert len(caught) == 1 and 'gen2' in str(caught[0].message)


two_lambdas = (lambda x: x + 1 if x else 0, lambda x: x * 2 if x else 1)  # noqa: E731


def test_lambdas_on_one_line_are_told_apart():
    first, second = two_lambdas
    assert ag.convert(first)(3) == 4 and ag.convert(second)(3) == 6
    assert ag.convert(first)(0) == 0 and ag.convert(second)(0) == 1
    assert 'x + 1' in ag.to_code(first) and 'x * 2' in ag.to_code(second)


def test_source_registered_only_in_linecache():
    source = textwrap.dedent('''
        def cell_fn(n):
            total = 0
            while n > 0:
                total += n
                n -= 1
            return total
    ''')
    filename = '<notebook cell 7>'
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {}
    exec(compile(source, filename, 'exec'), namespace)  # pylint: disable=exec-used
    converted = ag.convert(namespace['cell_fn'])
    assert converted is not namespace['cell_fn'] and converted(4) == 10


def test_to_code_is_readable_and_runs_on_its_own():
    code = ag.to_code(branchy)
    assert code.startswith('def tf__branchy(x, scale=None, *rest, bias=None, **extra):\n')
    assert 'ConversionOptions' not in code
    namespace = {'ag__': ag_namespace}
    exec(code, namespace)  # pylint: disable=exec-used
    assert namespace['tf__branchy'](3, 2, bias=0) == 6


def test_to_code_of_methods_and_callables():
    assert ag.to_code(Shape(1).area).startswith('def tf__area(self, scale=None):')
    assert ag.to_code(Shape(1)).startswith('def tf____call__(self, x):')
    with pytest.raises(ag.ConversionError):
        ag.to_code(len)


class _Wrapper:
    """A callable object standing for a Python function, as tf.function's objects do."""

    def __init__(self, fn):
        self._fn = fn

    def __call__(self, *args):
        raise AssertionError('convert must convert the wrapped function, not __call__')

    @property
    def __ag_python_function__(self):
        return self._fn


def test_wrapper_objects_convert_their_python_function():
    wrapper = _Wrapper(branchy)
    assert ag.to_code(wrapper) == ag.to_code(branchy)
    converted = ag.convert(wrapper)
    assert getattr(converted, '__ag_converted__', False)
    assert converted(3, 2, bias=0) == branchy(3, 2, bias=0)


def fact(n):
    if n <= 1:
        return 1
    return n * fact(n - 1)


def test_recursion_on_a_staged_condition_is_a_staging_error():
    converted = ag.convert(fact)
    with registered():
        with pytest.raises(ag.StagingError) as info:
            converted(Sym(3))
    assert str(info.value) == (
        'fact (defined at %s:%d) called itself more than 50 calls deep with a staged argument: '
        'its recursion depends on a staged value, and staging both branches of a staged '
        'condition stages the recursive call again, without end. Use a loop (a while loop, or '
        'a for loop over a staged range) instead of the recursion, or make the recursion '
        'depth a Python value.\n'
        '  File "%s", line %d, in fact\n'
        '    return n * fact(n - 1)'
        % (__file__, fact.__code__.co_firstlineno, __file__, fact.__code__.co_firstlineno + 3))
    assert not api._depths.by_code  # pylint: disable=protected-access
    # The same function still converts and runs afterwards, staged with a Python depth too.
    assert converted(5) == 120
    with registered():
        assert unwrap(converted(4)) == 24


def test_plain_python_recursion_has_no_limit_of_its_own():
    depth = api.MAX_STAGED_RECURSION * 2
    assert ag.convert(fact)(depth) == math.factorial(depth)
    with registered():
        # Deep recursion whose arguments are Python values is not staged recursion.
        assert ag.convert(fact)(depth) == math.factorial(depth)
