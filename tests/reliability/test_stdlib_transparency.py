"""Whole-module transparency: every function of ten pure-Python stdlib modules, converted."""

import contextlib
import copy
import decimal
import fractions
import importlib
import importlib.util
import io
import operator
import os
import random
import re
import sys
import tempfile
import types
import warnings

import pytest

import autograph as ag

# The modules swept, with the C accelerators blocked while loading them (so heapq and bisect
# are their pure-Python versions).
MODULES = ['textwrap', 'difflib', 'colorsys', 'fractions', 'statistics', 'shlex', 'string',
           'calendar', 'heapq', 'bisect']
_BLOCKED = {'heapq': ['_heapq'], 'bisect': ['_bisect']}
_SEEDS = 12
_V = sys.version_info[:2]

_GEN = 'a generator function (yield)'
_GEN_FROM = 'a generator function (yield from)'


def _expected_unconvertible():
    """The functions that run unconverted, and the construct the warning must name.

    Generators are not converted (a staged loop cannot suspend): 21 functions on every
    version. `match` converts (statistics.kde on 3.13). The uses of `:=` that the stdlib adopts
    over the versions
    (0, 3, 2 and 4 functions of these modules on 3.10, 3.11, 3.12 and 3.13: in `if` and
    `while` tests and a generator expression) are converted.
    """
    expected = {
        'difflib': {
            'Differ.compare': _GEN_FROM, 'Differ._dump': _GEN,
            'Differ._plain_replace': _GEN_FROM, 'Differ._fancy_replace': _GEN_FROM,
            'Differ._fancy_helper': _GEN_FROM, 'Differ._qformat': _GEN,
            'HtmlDiff._line_wrapper': _GEN, 'SequenceMatcher.get_grouped_opcodes': _GEN,
            '_mdiff': _GEN, 'context_diff': _GEN, 'diff_bytes': _GEN, 'restore': _GEN,
            'unified_diff': _GEN,
        },
        'statistics': {'_fail_neg': _GEN},
        'calendar': {
            'Calendar.iterweekdays': _GEN, 'Calendar.itermonthdates': _GEN,
            'Calendar.itermonthdays': _GEN_FROM, 'Calendar.itermonthdays2': _GEN,
            'Calendar.itermonthdays3': _GEN, 'Calendar.itermonthdays4': _GEN,
        },
        'heapq': {'merge': _GEN_FROM},
    }
    return expected


# -- loading and converting --------------------------------------------------------------------

def _load(name, alias):
    """Executes a fresh copy of stdlib module `name` under `alias`, accelerators blocked."""
    original = importlib.import_module(name)
    spec = importlib.util.spec_from_file_location(alias, original.__file__)
    module = importlib.util.module_from_spec(spec)
    sys.modules[alias] = module  # enum.global_enum (calendar, 3.12+) looks itself up there
    saved = {b: sys.modules.get(b) for b in _BLOCKED.get(name, [])}
    for blocked in saved:
        sys.modules[blocked] = None  # makes `from _heapq import *` raise ImportError
    try:
        spec.loader.exec_module(module)
    finally:
        for blocked, value in saved.items():
            if value is None:
                del sys.modules[blocked]
            else:
                sys.modules[blocked] = value
    return module


def _own(fn, module):
    return isinstance(fn, types.FunctionType) and fn.__code__.co_filename == module.__file__


def _functions(module):
    """Yields (qualified name, owner dict, key, wrapper kind, function) for every own function."""
    for key, value in sorted(vars(module).items()):
        if _own(value, module):
            if '<locals>' not in value.__qualname__:  # closures made at import (statistics
                yield key, module.__dict__, key, None, value  # 3.13): part of their maker
        elif isinstance(value, type) and value.__module__ == module.__name__:
            for attr, member in list(vars(value).items()):
                qualname = '%s.%s' % (key, attr)
                if isinstance(member, (staticmethod, classmethod)):
                    if _own(member.__func__, module):
                        yield qualname, value, attr, type(member), member.__func__
                elif isinstance(member, property):
                    for accessor in ('fget', 'fset', 'fdel'):
                        fn = getattr(member, accessor)
                        if _own(fn, module):
                            yield '%s.%s' % (qualname, accessor), value, attr, accessor, fn
                elif _own(member, module):
                    yield qualname, value, attr, None, member


class _Sweep(object):
    """A plain and a converted copy of one module, and what converting it reported."""

    def __init__(self, name):
        self.name = name
        self.plain = _load(name, '_agt_plain_' + name)
        self.conv = _load(name, '_agt_conv_' + name)
        self.converted = {}  # qualname -> converted function (only those that converted)
        self.warnings = {}  # qualname -> warning message
        done = {}
        for qualname, owner, key, kind, fn in list(_functions(self.conv)):
            if id(fn) not in done:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter('always')
                    new = ag.convert(fn)
                done[id(fn)] = new
                messages = [str(w.message) for w in caught]
                if messages:
                    self.warnings[qualname] = messages
            new = done[id(fn)]
            if new is not fn:
                self.converted[qualname] = new
            if kind is None:
                setattr(owner, key, new) if isinstance(owner, type) else owner.__setitem__(
                    key, new)
            elif kind in (staticmethod, classmethod):
                setattr(owner, key, kind(new))
            else:
                prop = vars(owner)[key]
                accessors = {a: getattr(prop, a) for a in ('fget', 'fset', 'fdel')}
                accessors[kind] = new
                setattr(owner, key, property(doc=prop.__doc__, **accessors))


_SWEEPS = {}


def _sweep(name):
    if name not in _SWEEPS:
        _SWEEPS[name] = _Sweep(name)
    return _SWEEPS[name]


# -- running workloads ---------------------------------------------------------------------------

_ADDRESS = re.compile(r' at 0x[0-9a-f]+')


class _Recorder(object):
    """Calls functions of one module copy, recording normalised outcomes and output."""

    def __init__(self, module, name):
        self.m = module
        self.log = []
        self._alias = module.__name__
        self._name = name

    def text(self, value):
        return _ADDRESS.sub(' at 0x?', str(value).replace(self._alias, self._name))

    def norm(self, x, depth=0):
        if depth > 6:
            return '...'
        if isinstance(x, float) or isinstance(x, decimal.Decimal):
            return (type(x).__name__, repr(x))
        if x is None or isinstance(x, (bool, int, str, bytes, complex)):
            return x
        if isinstance(x, (list, tuple)):
            return (type(x).__name__, tuple(self.norm(v, depth + 1) for v in x))
        if isinstance(x, dict):
            return ('dict', tuple((self.norm(k, depth + 1), self.norm(v, depth + 1))
                                  for k, v in x.items()))
        if isinstance(x, (set, frozenset)):
            return ('set', tuple(sorted(repr(self.norm(v, depth + 1)) for v in x)))
        if isinstance(x, BaseException):
            return ('exc', type(x).__name__, self.text(x))
        if isinstance(x, type):
            return ('type', x.__qualname__)
        if callable(x) and not hasattr(x, '__dict__') or isinstance(x, types.FunctionType):
            return ('callable', getattr(x, '__qualname__', type(x).__qualname__))
        if type(x).__repr__ is object.__repr__ and hasattr(x, '__dict__'):
            state = {k: v for k, v in vars(x).items() if not isinstance(v, io.IOBase)}
            return ('obj', type(x).__qualname__, self.norm(state, depth + 1))
        return ('obj', type(x).__qualname__, self.text(repr(x)))

    def __call__(self, label, fn, *args, **kwargs):
        """Calls fn(*args, **kwargs); records the result (iterators drained) or the exception."""
        out = io.TextIOWrapper(io.BytesIO(), encoding='utf-8', newline='\n')
        err = io.StringIO()
        value = None
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                value = fn(*args, **kwargs)
                if isinstance(value, types.GeneratorType) or (
                        hasattr(value, '__next__')
                        and type(value).__module__ in ('builtins', 'itertools')):
                    value = list(value)
                outcome = ('ok', self.norm(value))
            except (Exception, SystemExit) as e:  # pylint: disable=broad-except
                value = None
                outcome = ('raised', type(e).__name__, self.text(e))
        out.flush()
        self.log.append((label, outcome, out.buffer.getvalue(), err.getvalue()))
        return value

    def state(self, label, value):
        """Records a value (e.g. an argument after a mutating call)."""
        self.log.append((label, ('state', self.norm(value))))


def _run(sweep, workload, seed):
    """Runs a workload on both copies; returns the two logs and the converted code called."""
    plain = _Recorder(sweep.plain, sweep.name)
    workload(plain, random.Random(seed))
    conv = _Recorder(sweep.conv, sweep.name)
    codes = {}
    for qualname, fn in sweep.converted.items():
        codes.setdefault(fn.__code__, set()).add(qualname)  # aliases share code
    called = set()

    def profile(frame, event, arg):
        del arg
        if event == 'call' and frame.f_code in codes:
            called.update(codes[frame.f_code])

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        workload(conv, random.Random(seed))
    finally:
        sys.setprofile(previous)
    return plain.log, conv.log, called


# -- workloads: they call every function of their module, directly or through its API ----------

_WORDS = ['alpha', 'be', 'gamma-ray', 'de-lta', '', 'x' * 23, 'tab\tbed', 'new\nline',
          '  sp  ', 'End.', 'Mr.', 'ok!', 'q?', 'a-b-c-d']


def _text(r, n=20):
    return ' '.join(r.choice(_WORDS) for _ in range(r.randint(0, n)))


def _textwrap(c, r):
    m = c.m
    for _ in range(6):
        text = _text(r)
        # (textwrap can loop forever when an indent leaves no room on a line: keep room.)
        opts = dict(width=r.randint(6, 30), expand_tabs=r.random() < .8,
                    replace_whitespace=r.random() < .8, fix_sentence_endings=r.random() < .5,
                    break_long_words=r.random() < .7, drop_whitespace=r.random() < .7,
                    break_on_hyphens=r.random() < .7, tabsize=r.randint(0, 8),
                    initial_indent=r.choice(['', '* ', '>>>>']),
                    subsequent_indent=r.choice(['', '  ']),
                    max_lines=r.choice([None, 1, 2, 4]), placeholder=r.choice([' [...]', '~']))
        wrapper = c('TextWrapper', m.TextWrapper, **opts)
        if wrapper is not None:
            c('wrap', wrapper.wrap, text)
            c('fill', wrapper.fill, text)
        c('m.wrap', m.wrap, text, width=r.randint(-1, 25))
        c('m.fill', m.fill, text, r.randint(3, 25), initial_indent='- ')
        c('shorten', m.shorten, text, r.randint(1, 40), placeholder=r.choice(['...', ' ' * 50]))
        lines = '\n'.join(r.choice(['', '    ', '\t', '  ']) + _text(r, 3) for _ in range(5))
        c('dedent', m.dedent, lines)
        c('indent', m.indent, lines, r.choice(['> ', '']),
          r.choice([None, lambda line: 'a' in line]))


def _seq(r, alphabet='abcab', n=8):
    return [r.choice(alphabet) for _ in range(r.randint(0, n))]


def _lines(r):
    pool = ['one\n', 'two\n', 'three\n', '  \n', '#\n', 'tab\there\n', 'four', 'x' * 40 + '\n',
            'abcdefgh ijk\n', 'abcdefgx ijk\n', '\tabcdefgh ijkl\n']
    return [r.choice(pool) for _ in range(r.randint(0, 9))]


def _difflib(c, r):
    m = c.m
    a, b = ''.join(_seq(r)), ''.join(_seq(r))
    sm = c('SequenceMatcher', m.SequenceMatcher, r.choice([None, lambda ch: ch == 'c']), a, b,
           autojunk=r.random() < .5)
    for method in ('ratio', 'quick_ratio', 'real_quick_ratio', 'get_matching_blocks',
                   'get_opcodes', 'get_grouped_opcodes'):
        c(method, getattr(sm, method))
    c('find_longest_match', sm.find_longest_match, 0, len(a), 0, len(b))
    c('set_seq1', sm.set_seq1, ''.join(_seq(r)))
    c('ratio2', sm.ratio)
    big = m.SequenceMatcher(None, 'ab' * 120 + 'c', 'ba' * 120)  # popular-element pruning
    c('big', big.get_opcodes)
    c('close', m.get_close_matches, a, [''.join(_seq(r)) for _ in range(6)],
      r.randint(-1, 3), r.choice([0.0, 0.3, 0.6, 1.5]))
    x, y = _lines(r), _lines(r)
    c('ndiff', m.ndiff, x, y, linejunk=r.choice([None, m.IS_LINE_JUNK]),
      charjunk=m.IS_CHARACTER_JUNK)
    c('ndiff-close', m.ndiff, ['\tabcdefgh ijk\n', 'same\n'], ['\tabcdXfgh ijk \n', 'same\n'])
    delta = c('ndiff2', m.ndiff, x, y) or []
    c('restore', m.restore, delta, r.choice([1, 2, 3]))
    c('compare', m.Differ(linejunk=m.IS_LINE_JUNK).compare, x, y)
    c('unified', m.unified_diff, x, y, 'a', 'b', 'd1', 'd2', n=r.randint(0, 3))
    c('context', m.context_diff, x, y, 'a', 'b', n=r.randint(0, 3))
    c('bytes', m.diff_bytes, m.unified_diff, [s.encode() for s in x], [s.encode() for s in y])
    c('bytes-bad', m.diff_bytes, m.unified_diff, x, y)
    c('types', m.unified_diff, x, [b'q'])
    html = c('HtmlDiff', m.HtmlDiff, tabsize=r.randint(1, 8),
             wrapcolumn=r.choice([None, 5, 12]), linejunk=None, charjunk=m.IS_CHARACTER_JUNK)
    c('make_table', html.make_table, x, y, 'from', 'to', context=r.random() < .5,
      numlines=r.randint(0, 3))
    c('make_file', html.make_file, x, y, context=r.random() < .5)
    c('make_file-same', html.make_file, x, x, context=True)
    c('fmt_ctx', m._format_range_context, r.randint(0, 9), r.randint(0, 3))  # noqa
    if r.random() < .15:
        c('_test', m._test)  # noqa  (doctests of the installed difflib)
    c('fmt_uni', m._format_range_unified, r.randint(0, 9), r.randint(0, 3))  # noqa


def _colorsys(c, r):
    m = c.m
    vals = [0.0, 1.0, 0.5, 1 / 3, 2 / 3, -0.25, 1.25]
    for _ in range(8):
        t = tuple(r.choice(vals + [r.random()]) for _ in range(3))
        if r.random() < .3:
            t = (t[0], t[0], t[0])
        for fn in ('rgb_to_yiq', 'yiq_to_rgb', 'rgb_to_hls', 'hls_to_rgb', 'rgb_to_hsv',
                   'hsv_to_rgb'):
            c(fn, getattr(m, fn), *t)


def _fractions(c, r):
    m = c.m
    F = m.Fraction
    sources = [r.randint(-50, 50), (r.randint(-50, 50), r.randint(-9, 9)),
               r.choice(['3/4', ' -1.5e-3 ', '1_000/3', '7', 'x', '1/0', '.5', '2e3']),
               r.random() * 100 - 50, decimal.Decimal('-1.25'), decimal.Decimal('NaN'),
               float('inf'), fractions.Fraction(5, 3), 'nan', object()]
    made = []
    for src in sources:
        args = src if isinstance(src, tuple) else (src,)
        f = c('new', F, *args)
        if f is not None:
            made.append(f)
    c('from_float', F.from_float, r.choice([0.1, 3, 2.5, float('nan'), 'x']))
    c('from_decimal', F.from_decimal, r.choice([decimal.Decimal('2.5'), 3, 1.5]))
    others = [r.randint(-3, 3), 0, 2.5, complex(1, 1), decimal.Decimal(1), F(1, 3),
              fractions.Fraction(2, 7), 'x']
    ops = ['__add__', '__radd__', '__sub__', '__rsub__', '__mul__', '__rmul__', '__truediv__',
           '__rtruediv__', '__floordiv__', '__rfloordiv__', '__mod__', '__rmod__',
           '__divmod__', '__rdivmod__', '__pow__', '__rpow__', '__eq__', '__lt__', '__gt__',
           '__le__', '__ge__']
    for f in made[:4] + [F(r.randint(-9, 9), r.randint(1, 9))]:
        for op in ops:
            other = r.choice(others + [F(r.randint(-4, 4), r.randint(1, 3))])
            c(op, getattr(f, op), other)
        c('binop', lambda f=f: [f + 1, 1 - f, f * F(2, 3), F(1, 2) / (f or 1), f ** 2,
                                2 ** F(1, 2), F(-8) ** F(1, 3), f // 3, 7 % (f or 1)])
        for un in ('__pos__', '__neg__', '__abs__', '__trunc__', '__floor__', '__ceil__',
                   '__hash__', '__bool__', '__repr__', '__str__', '__reduce__', '__copy__',
                   'as_integer_ratio', 'numerator', 'denominator'):
            c(un, lambda f=f, un=un: getattr(f, un)() if callable(getattr(f, un))
              else getattr(f, un))
        c('int', int, f)
        c('deepcopy', copy.deepcopy, f)
        c('round', round, f, r.choice([None, 0, 1, -1]))
        c('round0', round, F(5, 2))
        c('limit', f.limit_denominator, r.choice([1, 3, 100, 0]))
        c('is_integer', lambda f=f: f.is_integer())
        for spec in ('', '.3f', '>10', '.2e', '%', 'g', '+.1%', 'x', ',.2f', '=^12.3'):
            c('format', format, f, spec)
        c('float', float, f)
        c('cmp-float', lambda f=f: (f < float('nan'), f == float('inf'), f <= 0.5, f == 1j))
    # The operators were made at class creation by the unconverted _operator_fallbacks, so
    # they call the unconverted monomorphic helpers: call the converted ones directly.
    a, b = F(r.randint(-9, 9), r.randint(1, 9)), F(r.randint(-9, 9), r.randint(1, 9))
    for helper in ('_add', '_sub', '_mul', '_div', '_floordiv', '_divmod', '_mod'):
        c(helper, getattr(F, helper), a, b)
        forward, reverse = F._operator_fallbacks(getattr(F, helper), operator.add)  # noqa
        for other in (b, 2, 2.5, 1j, 'x'):
            c(helper + '-fwd', forward, a, other)
            c(helper + '-rev', reverse, a, other)


def _numbers(r, kind=None):
    kind = kind or r.choice(['int', 'float', 'frac', 'dec', 'mixed'])
    n = r.randint(0, 7)
    if kind == 'int':
        return [r.randint(-5, 9) for _ in range(n)]
    if kind == 'float':
        return [r.choice([r.random() * 10, 2.5, float(r.randint(0, 4))]) for _ in range(n)]
    if kind == 'frac':
        return [fractions.Fraction(r.randint(-5, 9), r.randint(1, 4)) for _ in range(n)]
    if kind == 'dec':
        return [decimal.Decimal(r.randint(-50, 90)) / 10 for _ in range(n)]
    return [r.choice([1, 2.5, fractions.Fraction(1, 3), decimal.Decimal('0.5'), True])
            for _ in range(n)]


def _statistics(c, r):
    m = c.m
    for _ in range(3):
        data = _numbers(r)
        for fn in ('mean', 'fmean', 'geometric_mean', 'harmonic_mean', 'median', 'median_low',
                   'median_high', 'mode', 'multimode', 'pstdev', 'pvariance', 'stdev',
                   'variance'):
            c(fn, getattr(m, fn), data)
        c('median_grouped', m.median_grouped, data, r.choice([1, 2, 0.5]))
        c('quantiles', m.quantiles, data, n=r.randint(0, 5),
          method=r.choice(['exclusive', 'inclusive', 'bad']))
        c('variance-xbar', m.variance, data, r.choice([None, 1, 2.5]))
        c('pvariance-mu', m.pvariance, data, r.choice([None, 1]))
        c('harmonic-w', m.harmonic_mean, data, [r.randint(0, 3) for _ in data])
        c('fmean-w', lambda d=data: m.fmean(d, [r.randint(0, 3) for _ in d]))
        c('mean-iter', m.mean, iter(data))
        other = _numbers(r, 'float')[:len(data)]
        c('covariance', m.covariance, data, other)
        c('correlation', m.correlation, data, other)
        c('correlation-r', lambda d=data, o=other: m.correlation(d, o, method='ranked'))
        c('regression', m.linear_regression, data, other)
        c('regression-p', lambda d=data, o=other: m.linear_regression(d, o, proportional=True))
    c('neg-geo', m.geometric_mean, [1, -2, 3])
    c('neg-harm', m.harmonic_mean, [1, -2, 3])
    c('exact', m.stdev, [decimal.Decimal(r.randint(1, 9)) for _ in range(4)])
    c('exact-f', m.pstdev, [fractions.Fraction(r.randint(1, 9), 7) for _ in range(4)])
    c('bad-types', m.mean, ['a', 'b'])
    c('inf', m.mean, [1.0, float('inf')])
    nd = c('NormalDist', m.NormalDist, r.uniform(-3, 3), r.choice([0, 1.5, -1]))
    nd2 = c('from_samples', m.NormalDist.from_samples, [r.random() for _ in range(5)])
    for d in (nd, nd2):
        if d is None:
            continue
        c('samples', d.samples, 4, seed=r.randint(0, 9))
        for fn in ('pdf', 'cdf', 'zscore'):
            c(fn, getattr(d, fn), r.uniform(-2, 2))
        c('inv_cdf', d.inv_cdf, r.choice([0.0, 0.3, 0.99, 1e-5]))
        c('quantiles', d.quantiles, r.randint(1, 5))
        c('overlap', d.overlap, m.NormalDist(r.uniform(-1, 1), r.choice([1, 2])))
        c('overlap-bad', d.overlap, 3)
        c('props', lambda d=d: (d.mean, d.median, d.mode, d.stdev, d.variance))
        c('arith', lambda d=d: (d + 1, 1 + d, d - 2, 2 - d, d * 3, 3 * d, d / 2, +d, -d,
                                d + d, d - d, d == d, d == 1, hash(d), repr(d)))
        c('copy', lambda d=d: copy.copy(d) == d)
    c('kde', lambda: m.kde([1, 2, 4], h=r.choice([0.5, 1]),
                           kernel=r.choice(['normal', 'quartic', 'bad']))(1.5))
    c('kde-cdf', lambda: m.kde([1, 3], h=1, kernel=r.choice(['triweight', 'cosine']),
                               cumulative=True)(2))
    c('newton', lambda: m._newton_raphson(  # noqa
        m._quartic_invcdf_estimate, lambda t: t ** 3, lambda t: 3 * t * t)(r.choice([8, 2])))
    c('estimates', lambda: (m._quartic_invcdf_estimate(r.random()),  # noqa
                            m._triweight_invcdf_estimate(r.random())))  # noqa
    c('kde_random', lambda: [m.kde_random([1, 2, 5], h=1, seed=r.randint(0, 9),
                                          kernel=r.choice(['quartic', 'triweight',
                                                           'normal']))()
                             for _ in range(3)])


def _shlex(c, r):
    m = c.m
    texts = ['a "b c" d', "x 'y", 'p\\ q', 'e#f\ng', 'g;h&&i|j', "it's", '"esc\\"q"',
             'a\\', '(x) >> y', 'word -opt=1 "" \'\'', _text(r, 5)]
    for _ in range(5):
        text = r.choice(texts)
        c('split', m.split, text, comments=r.random() < .5, posix=r.random() < .7)
        c('join', m.join, [r.choice(texts) for _ in range(3)])
        c('quote', m.quote, r.choice(texts + ['', 'plain']))
        lexer = c('shlex', m.shlex, text, posix=r.random() < .5,
                  punctuation_chars=r.choice([False, True, '();']))
        if lexer is not None:
            lexer.whitespace_split = r.random() < .4
            c('punct', lambda lx=lexer: lx.punctuation_chars)
            c('push', lexer.push_token, 'pushed')
            c('tokens', lambda lx=lexer: [lx.get_token() for _ in range(4)])
            c('error_leader', lexer.error_leader)
            c('iter', list, lexer)
        lexer = m.shlex(io.StringIO('one two'), infile='f.txt', posix=True)
        c('push_source', lexer.push_source, 'pushed "src"', 'inner.txt')
        c('tokens2', list, lexer)
        c('pop', lambda: m.shlex('q').pop_source())
        c('hook', lexer.sourcehook, '"/nonexistent/agt_x"')
        c('print', m._print_tokens, m.shlex(text))  # noqa
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'inc.txt')
        with open(path, 'w', encoding='utf-8') as f:
            f.write('included "words" here\n')
        lexer = m.shlex('a source "%s" b' % path, posix=True)
        lexer.source = 'source'
        c('source', list, lexer)
        with open(os.path.join(tmp, 'incfile'), 'w', encoding='utf-8') as f:
            f.write('relative words\n')
        lexer = m.shlex('a source incfile b', infile=os.path.join(tmp, 'main.txt'))
        lexer.source = 'source'
        c('source-relative', list, lexer)


def _string(c, r):
    m = c.m
    templates = ['$a and ${b}', '$$x $a', '$', '${c', '$a$b$', '${a}x $bad-name', '$1']
    for _ in range(4):
        text = r.choice(templates)
        t = m.Template(text)
        c('substitute', t.substitute, {'a': 1, 'b': 'two'}, b=r.choice([3, 'kw']))
        c('substitute-missing', t.substitute, {})
        c('safe', t.safe_substitute, {'a': 'A'})
        c('safe-kw', t.safe_substitute, b='B')
        c('is_valid', lambda t=t: t.is_valid())
        c('ids', lambda t=t: t.get_identifiers())
        c('too-many', t.substitute, {}, {})
        sub = type('Hash', (m.Template,), {'delimiter': '#', 'idpattern': r'[a-z]+'})
        c('subclass', sub(r.choice(['#a ##x #{a}', '#9'])).safe_substitute, a='A')
        fmt = m.Formatter()
        spec = r.choice(['{0}-{1!r}', '{}{}', '{0}{}', '{x.real:>{w}}', '{y[1]}{y[0]!s:^5}',
                         '{z!a}', '{0:{1}}', '{}}', '{!x}', '{nope}', '{0.zz}', '{0[',
                         '{:{:{}}}', 'plain {{brace}}', '{9}'])
        c('format', fmt.format, spec, 'é', r.randint(0, 9), x=2.5, w=r.randint(1, 9),
          y=['p', 'q'], z='ü')
        c('vformat', fmt.vformat, spec, ('a', 'b'), {'x': 1j, 'w': 3, 'y': 'yz', 'z': 0})
        c('parse', list, fmt.parse(spec))
        c('get_field', fmt.get_field, r.choice(['0.real', 'x[0]', '0[1].imag']), (5,),
          {'x': [1]})
        c('convert', fmt.convert_field, 'v', r.choice(['r', 's', 'a', None, 'q']))
        c('unused', fmt.check_unused_args, set(), (), {})
        c('capwords', m.capwords, _text(r, 6), r.choice([None, '-', ' ']))


def _calendar(c, r):
    m = c.m
    year, month = r.choice([1, 2000, 2024, 1900, 9999, r.randint(1, 3000)]), r.randint(0, 13)
    for fn, args in (('isleap', (year,)), ('leapdays', (year, r.randint(1, 3000))),
                     ('weekday', (year, r.randint(1, 12), r.randint(1, 28))),
                     ('weekday', (0, 1, 1)), ('monthrange', (year, month)),
                     ('_monthlen', (year, r.randint(1, 12))),
                     ('_prevmonth', (year, r.randint(1, 12))),
                     ('_nextmonth', (year, r.randint(1, 12))),
                     ('timegm', ((year, 3, 1, 12, 5, 9, 0, 0, 0),)),
                     ('setfirstweekday', (r.randint(-1, 7),)), ('firstweekday', ()),
                     ('formatstring', (['ab', 'c', 'de'], r.randint(1, 8), r.randint(1, 9))),
                     ('format', (['ab', 'c'], 2, 3)),
                     ('__getattr__', (r.choice(['January', 'FEBRUARY', 'nope']),))):
        if hasattr(m, fn):
            c(fn, getattr(m, fn), *args)
    m.setfirstweekday(0)
    c('localized', lambda: (list(type(m.day_name)('%a')), type(m.month_name)('%b')[1:3]))
    c('names', lambda: (list(m.day_name), m.day_abbr[2], m.month_name[r.randint(0, 12)],
                        m.month_abbr[1:4], len(m.month_name), len(m.day_abbr)))
    cal = c('Calendar', m.Calendar, r.randint(0, 6))
    year, month = r.choice([1, 2024, 9999, 1970]), r.randint(1, 12)
    for fn in ('iterweekdays', 'getfirstweekday'):
        c(fn, getattr(cal, fn))
    cal.firstweekday = r.randint(0, 6)
    c('fwd', lambda: cal.firstweekday)
    for fn in ('itermonthdates', 'itermonthdays', 'itermonthdays2', 'itermonthdays3',
               'itermonthdays4', 'monthdatescalendar', 'monthdays2calendar',
               'monthdayscalendar'):
        c(fn, getattr(cal, fn), year, month)
    for fn in ('yeardatescalendar', 'yeardays2calendar', 'yeardayscalendar'):
        c(fn, getattr(cal, fn), r.choice([1970, 2024]), r.randint(1, 4))
    text = m.TextCalendar(r.randint(0, 6))
    c('formatmonth', text.formatmonth, 2024, month, r.randint(0, 4), r.randint(0, 2))
    c('formatyear', text.formatyear, 2023, r.randint(0, 3), r.randint(0, 2), r.randint(1, 7),
      r.randint(1, 4))
    c('prmonth', text.prmonth, 1999, month)
    c('pryear', text.pryear, 1970, 2, 1, 6, 3)
    c('prweek', text.prweek, text.monthdays2calendar(2024, month)[0], r.randint(1, 9))
    c('formatweekheader', text.formatweekheader, r.randint(1, 12))
    c('formatweekday', text.formatweekday, r.randint(0, 6), r.randint(1, 12))
    html = m.HTMLCalendar(r.randint(0, 6))
    c('h.formatmonth', html.formatmonth, 2024, month, withyear=r.random() < .5)
    c('h.formatyear', html.formatyear, 2024, r.randint(1, 5))
    c('h.formatyearpage', html.formatyearpage, 2024, r.randint(1, 4),
      css=r.choice(['calendar.css', None]), encoding=r.choice([None, 'ascii']))
    for cls in (m.LocaleTextCalendar, m.LocaleHTMLCalendar):
        loc = c('locale', cls, r.randint(0, 6), r.choice([None, 'C', 'xx_NOPE']))
        if loc is not None:
            c('l.formatmonth', loc.formatmonth, 2024, month)
            c('l.formatweekday', loc.formatweekday, r.randint(0, 6), *(
                (r.randint(1, 12),) if cls is m.LocaleTextCalendar else ()))
            c('l.formatmonthname', loc.formatmonthname, 2024, month, *(
                (r.randint(1, 20),) if cls is m.LocaleTextCalendar else ()))
    c('bad-month', m.monthrange, 2024, 13)
    c('bad-weekday', m.setfirstweekday, 9)
    c('IllegalMonthError', lambda: str(m.IllegalMonthError(r.randint(13, 20))))
    c('IllegalWeekdayError', lambda: str(m.IllegalWeekdayError(8)))
    argv = ['calendar'] + r.choice([['2024', '2'], ['-t', 'html', '2023'], ['-w', '3', '1999'],
                                    ['2024', '13'], ['x'], [], ['-L', 'C', '-e', 'utf-8', '2000',
                                                                '1'], ['-t', 'html', '2024',
                                                                       '2']])
    c('main', m.main, argv[1:] if _V >= (3, 13) else argv)
    c('different_locale', lambda: m.different_locale('C').__enter__())
    c('default_locale', lambda: m._get_default_locale())  # noqa


def _heapq(c, r):
    m = c.m
    for _ in range(3):
        heap = [r.randint(0, 20) for _ in range(r.randint(0, 9))]
        c('heapify', m.heapify, heap)
        c.state('heap', heap)
        for fn, args in (('heappush', (r.randint(0, 20),)), ('heappop', ()),
                         ('heappushpop', (r.randint(0, 20),)), ('heapreplace', (r.randint(0, 20),)),
                         ('_heapify_max', ()), ('_heappop_max', ()),
                         ('_heapreplace_max', (r.randint(0, 20),))):
            c(fn, getattr(m, fn), heap, *args)
            c.state(fn, heap)
        data = [r.randint(-9, 9) for _ in range(r.randint(0, 12))]
        for n in (r.randint(-1, 3), 1, len(data), len(data) + 2):
            key = r.choice([None, abs, lambda v: -v])
            c('nlargest', m.nlargest, n, data, key=key)
            c('nsmallest', m.nsmallest, n, data, key=key)
            c('nlargest-it', m.nlargest, n, iter(data), key=key)
            c('nsmallest-it', m.nsmallest, n, iter(data), key=key)
        runs = [sorted(_numbers(r, 'int')) for _ in range(3)]
        c('merge', m.merge, *runs, key=r.choice([None, abs]))
        c('merge-r', m.merge, *[sorted(x, reverse=True) for x in runs], reverse=True,
          key=r.choice([None, abs]))


def _bisect(c, r):
    m = c.m
    for _ in range(5):
        a = sorted(r.randint(0, 9) for _ in range(r.randint(0, 9)))
        x = r.randint(-1, 10)
        lo, hi = r.choice([(0, None), (1, None), (-1, None), (0, 2), (2, 100)])
        kw = {} if hi is None else {'hi': hi}
        for fn in ('bisect', 'bisect_left', 'bisect_right'):
            c(fn, getattr(m, fn), a, x, lo, **kw)
            c(fn + '-key', getattr(m, fn), [(v, -v) for v in a], x, key=lambda p: p[0])
        for fn in ('insort', 'insort_left', 'insort_right'):
            b = list(a)
            c(fn, getattr(m, fn), b, x, lo, **kw)
            c.state(fn, b)
            pairs = [(v, 'o') for v in a]
            c(fn + '-key', getattr(m, fn), pairs, (x, 'n'), key=lambda p: p[0])
            c.state(fn + '-key', pairs)


WORKLOADS = {'textwrap': _textwrap, 'difflib': _difflib, 'colorsys': _colorsys,
             'fractions': _fractions, 'statistics': _statistics, 'shlex': _shlex,
             'string': _string, 'calendar': _calendar, 'heapq': _heapq, 'bisect': _bisect}


# -- tests ------------------------------------------------------------------------------------

_REASON = re.compile(r'^AutoGraph could not convert (?P<qualname>\S+) \(defined at (?P<site>'
                     r'[^)]*)\): (?P<what>.*) at (?P<at>\S+:\d+) is not supported\. It runs '
                     r'unconverted, as plain Python\.')


@pytest.mark.parametrize('name', MODULES)
def test_unconvertible_functions_are_exactly_the_listed_ones(name):
    sweep = _sweep(name)
    found = {}
    for qualname, messages in sweep.warnings.items():
        assert len(messages) == 1, (qualname, messages)  # one warning per function
        match = _REASON.match(messages[0])
        assert match, messages[0]
        assert match.group('qualname') == qualname
        assert match.group('site').startswith(sweep.conv.__file__ + ':')
        assert match.group('at').startswith(sweep.conv.__file__ + ':')
        found[qualname] = match.group('what')
    assert found == _expected_unconvertible().get(name, {})
    # Everything that did not warn was converted.
    all_names = {q for q, _, _, _, _ in _functions(sweep.plain)}
    assert set(sweep.converted) | set(found) == all_names


# The sweep calls what each module exports: calendar.January and its siblings warn that they
# are deprecated on Python 3.12+, for the original and the converted module alike.
@pytest.mark.filterwarnings("ignore:The '.*' attribute is deprecated:DeprecationWarning")
@pytest.mark.parametrize('name', MODULES)
def test_converted_module_behaves_like_the_original(name):
    sweep = _sweep(name)
    called = set()
    for seed in range(_SEEDS):
        plain_log, conv_log, seen = _run(sweep, WORKLOADS[name], seed)
        called |= seen
        assert len(conv_log) == len(plain_log), seed
        for plain, conv in zip(plain_log, conv_log):
            assert conv == plain, (seed, plain[0])
    # Every converted function ran at least once (directly or through the module's API).
    missing = sorted(set(sweep.converted) - called - _UNREACHED.get(name, set()))
    assert missing == []


# Converted functions that the workloads cannot reach, and why (none so far).
_UNREACHED = {}


def test_sweep_size():
    # The numbers quoted in the README: distinct functions converted and checked.
    total = sum(len({id(f) for _, _, _, _, f in _functions(_sweep(n).plain)}) for n in MODULES)
    converted = sum(len({id(f) for f in _sweep(n).converted.values()}) for n in MODULES)
    unconvertible = sum(len(v) for v in _expected_unconvertible().values())
    assert converted + unconvertible == total
    assert converted >= 260


class _Private(object):
    """difflib.SequenceMatcher calls its private `__chain_b` like this."""

    def __init__(self):
        self.__secret = 41
        self.__bump()

    def __bump(self):
        self.__secret += 1

    def value(self):
        return self.__secret


def test_private_names_are_mangled():
    obj = _Private.__new__(_Private)
    ag.convert(_Private.__init__)(obj)
    assert obj.value() == 42
