"""Newer syntax is either converted faithfully or reported by name, on every Python version."""

import importlib.util
import itertools
import sys
import textwrap
import warnings

import pytest

import autograph as ag

_V = sys.version_info[:2]
_COUNTER = itertools.count()

_TAIL = (' It runs unconverted, as plain Python. To silence this, decorate it with'
         ' @autograph.do_not_convert; to make it an error, pass strict=True or set'
         ' AUTOGRAPH_STRICT=1.')


def _module(tmp_path, source):
    """Writes `source` to a module file and imports it (so that inspect finds the source)."""
    name = '_agt_syntax_%d' % next(_COUNTER)
    path = tmp_path / (name + '.py')
    path.write_text(textwrap.dedent(source), encoding='utf-8')
    spec = importlib.util.spec_from_file_location(name, str(path))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module, str(path)


def _rejected_by_this_python(source):
    with pytest.raises(SyntaxError):
        compile(textwrap.dedent(source), '<syntax check>', 'exec')


def _convert_recording(fn, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        converted = ag.convert(fn, **kwargs)
    return converted, [str(w.message) for w in caught]


def _outcome(fn, *args, **kwargs):
    try:
        return ('ok', fn(*args, **kwargs))
    except Exception as e:  # pylint: disable=broad-except
        return ('raised', type(e), str(e))


def _assert_reported(fn, path, def_line, what, at_line):
    """Checks that `fn` is reported unconvertible with the exact message, and still runs."""
    converted, messages = _convert_recording(fn)
    assert converted is fn
    assert messages == [
        'AutoGraph could not convert %s (defined at %s:%d): %s at %s:%d is not supported.%s'
        % (fn.__qualname__, path, def_line, what, path, at_line, _TAIL)]
    with pytest.raises(ag.ConversionError) as e:
        ag.convert(fn, strict=True)
    assert str(e.value).startswith('AutoGraph could not convert %s (defined at %s:%d): %s at '
                                   '%s:%d is not supported. Rewrite it without that construct'
                                   % (fn.__qualname__, path, def_line, what, path, at_line))


# -- match (3.10+, every supported version) ---------------------------------------------------

_MATCH = '''
def classify(x):
    match x:
        case 0 | 1:
            return 'small'
        case [a, *rest] if a > 0:
            return 'list', a, len(rest)
        case {'k': v}:
            return 'dict', v
        case str() as s:
            return 'str', s.upper()
        case _:
            return 'other'
'''


def test_match_converts_faithfully(tmp_path):
    module, _ = _module(tmp_path, _MATCH)
    converted, messages = _convert_recording(module.classify)
    assert converted is not module.classify and messages == []
    inputs = [0, 1, 2, [3, 4, 5], [-1], {'k': 9}, {'j': 1}, 'ab', None]
    expected = ['small', 'small', 'other', ('list', 3, 2), 'other', ('dict', 9), 'other',
                ('str', 'AB'), 'other']
    assert [module.classify(x) for x in inputs] == expected
    assert [converted(x) for x in inputs] == expected


def test_a_caller_and_its_matching_callee_both_convert(tmp_path):
    # (Two lines down from _MATCH in the test above: code objects that differ only in their
    # file compare equal, and the converter's caches would conflate the two `classify`.)
    module, _ = _module(tmp_path, '\n\n' + _MATCH + '''
def caller(xs):
    out = []
    for x in xs:
        if x is not None:
            out.append(classify(x))
    return out
''')
    converted, messages = _convert_recording(module.caller)
    assert converted is not module.caller and messages == []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        assert converted([0, None, [2]]) == ['small', ('list', 2, 0)]
    assert caught == []


def test_errors_of_patterns_are_pythons(tmp_path):
    module, _ = _module(tmp_path, '''
class Point:
    __match_args__ = ('x',)

    def __init__(self, x):
        self.x = x


def too_many(p):
    match p:
        case Point(a, b):
            return a, b
    return None


def unbound_after_no_match(v):
    match v:
        case [first, *_]:
            pass
    return first
''')
    for fn, arg in ((module.too_many, module.Point(1)), (module.unbound_after_no_match, 5),
                    (module.unbound_after_no_match, [4, 5])):
        assert _outcome(ag.convert(fn), arg) == _outcome(fn, arg)


# -- walrus (3.8+): converted, except where converted code would evaluate it lazily ----------

def test_walrus_converts_faithfully(tmp_path):
    module, _ = _module(tmp_path, '''
def first_long(words, n):
    if (k := len(words)) > n:
        return [w for w in words if len(w) > n], k
    return k

def drain(items):
    out = []
    while (item := items.pop() if items else None) is not None:
        out.append(item)
    return out, item
''')
    converted, messages = _convert_recording(module.first_long)
    assert converted is not module.first_long and messages == []
    assert converted(['ab', 'abcd', 'x'], 2) == (['abcd'], 3)
    assert converted(['ab'], 2) == 1
    converted, messages = _convert_recording(module.drain)
    assert converted is not module.drain and messages == []
    assert converted([1, 2, 3]) == module.drain([1, 2, 3]) == ([3, 2, 1], None)


def test_walrus_in_a_lambda_binds_in_the_lambda(tmp_path):
    module, _ = _module(tmp_path, '''
f = (lambda x:
     (y := x + 1) * y)
''')
    converted, messages = _convert_recording(module.f)
    assert converted is not module.f and messages == []
    assert converted(2) == module.f(2) == 9


def test_walrus_in_a_lazy_operand_is_reported(tmp_path):
    module, path = _module(tmp_path, '''
def pick(x):
    y = 0
    z = abs((x + 1) if x > 0 else (y := -x))
    return z + y
''')
    _assert_reported(module.pick, path, 2, 'an assignment expression (:=) in a branch of a '
                     'conditional expression', 4)
    assert ag.convert(module.pick)(3) == 4 and ag.convert(module.pick)(-3) == 6


# -- positional-only parameters (3.8+): converted -------------------------------------------

def test_positional_only_parameters_convert_faithfully(tmp_path):
    module, _ = _module(tmp_path, '''
def f(a, b=2, /, c=3, *args, d, e=5, **kw):
    total = 0
    for v in (a, b, c, d, e) + args:
        if v > 2:
            total += v
        else:
            total -= v
    return total, sorted(kw)


g = lambda a, /, b=1: a - b
''')
    f, messages = _convert_recording(module.f)
    assert messages == [] and f is not module.f
    calls = [((1,), {'d': 4}), ((1, 5, 6, 7, 8), {'d': 0, 'z': 1}), ((3,), {'d': 1, 'b': 9}),
             ((), {'d': 1}), ((1,), {}), ((1,), {'a': 1, 'd': 2}), ((1, 2, 3), {'c': 1, 'd': 1})]
    expected = [(9, []), (30, ['z']), (8, ['b']), None, None, (3, ['a']), None]
    for (args, kwargs), want in zip(calls, expected):
        got, original = _outcome(f, *args, **kwargs), _outcome(module.f, *args, **kwargs)
        assert got == original
        if want is not None:
            assert got == ('ok', want)
        else:
            assert got[0] == 'raised' and got[1] is TypeError
    g, messages = _convert_recording(module.g)
    assert messages == [] and g is not module.g
    assert g(5) == 4 and g(5, b=2) == 3
    assert _outcome(g, a=1) == _outcome(module.g, a=1)
    assert _outcome(g, a=1)[1] is TypeError


# -- try/except* (3.11+) ---------------------------------------------------------------------

_EXCEPT_STAR = '''
def split(n):
    seen = []
    try:
        raise ExceptionGroup('g', [ValueError(n), TypeError(n)])
    except* ValueError as e:
        seen.append(('value', len(e.exceptions)))
    except* TypeError:
        seen.append('type')
    return seen
'''


def test_except_star_is_reported_or_rejected(tmp_path):
    if _V < (3, 11):
        _rejected_by_this_python(_EXCEPT_STAR)
        return
    module, path = _module(tmp_path, _EXCEPT_STAR)
    _assert_reported(module.split, path, 2, 'try/except*', 4)
    assert ag.convert(module.split)(1) == [('value', 1), 'type']


# -- PEP 695 type parameters and aliases (3.12+) --------------------------------------------

_GENERIC_FUNCTION = '''
def pick[T](items: list[T], i: int) -> T:
    if i < 0:
        i += len(items)
    return items[i]
'''

_TYPE_ALIAS = '''
def aliased(x):
    type Pair = tuple[int, int]
    if x:
        return Pair.__value__
    return Pair.__name__
'''

_GENERIC_CLASS = '''
class Box[T]:
    def __init__(self, item: T):
        self.item = item

    def get(self, default: T) -> T:
        if self.item is None:
            return default
        return self.item
'''


def test_type_parameters_are_reported_or_rejected(tmp_path):
    if _V < (3, 12):
        for source in (_GENERIC_FUNCTION, _TYPE_ALIAS, _GENERIC_CLASS):
            _rejected_by_this_python(source)
        return
    module, path = _module(tmp_path, _GENERIC_FUNCTION + _TYPE_ALIAS)
    _assert_reported(module.pick, path, 2, 'type parameters (PEP 695)', 2)
    assert ag.convert(module.pick)([1, 2, 3], -1) == 3
    _assert_reported(module.aliased, path, 7, 'a type alias statement (PEP 695)', 8)
    assert ag.convert(module.aliased)(0) == 'Pair'
    assert ag.convert(module.aliased)(1) == tuple[int, int]


def test_methods_of_a_generic_class_convert_or_are_reported(tmp_path):
    # The methods have no type parameters of their own, but their annotations name the
    # class's T, which lives in the class's annotation scope.
    if _V < (3, 12):
        _rejected_by_this_python(_GENERIC_CLASS)
        return
    module, _ = _module(tmp_path, _GENERIC_CLASS)
    get, messages = _convert_recording(module.Box.get)
    assert messages == []
    assert get(module.Box(None), 7) == 7
    assert get(module.Box(3), 7) == 3
    init, messages = _convert_recording(module.Box.__init__)
    assert messages == []
    box = module.Box.__new__(module.Box)
    init(box, 'x')
    assert box.item == 'x'
