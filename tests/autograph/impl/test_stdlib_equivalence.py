"""Converted standard-library functions behave exactly like the originals on many inputs."""

import calendar
import colorsys
import difflib
import fractions
import fnmatch
import heapq
import html
import posixpath
import random
import shlex
import statistics
import string
import textwrap
import types
import urllib.parse
import warnings

import pytest

import autograph as ag

_RNG = random.Random(1234)
_WORDS = ['alpha', 'be', 'gamma', 'de-lta', '', 'x' * 30, 'tab\tbed', 'new\nline', '  sp  ']


def _text():
    return ' '.join(_RNG.choice(_WORDS) for _ in range(_RNG.randint(0, 25)))


def _path():
    parts = ['', '.', '..', 'a', 'bb', 'c.txt', '/', '//', 'd/']
    return ''.join(_RNG.choice(parts) + _RNG.choice(['/', '', '//'])
                   for _ in range(_RNG.randint(0, 6)))


def _numbers():
    return [_RNG.choice([_RNG.randint(-5, 5), _RNG.random() * 10])
            for _ in range(_RNG.randint(0, 9))]


def _outcome(fn, args):
    try:
        return ('ok', fn(*args))
    except Exception as e:  # pylint: disable=broad-except
        return ('raised', type(e), str(e))


CASES = [
    (textwrap.dedent, lambda: ('\n'.join('    ' * _RNG.randint(0, 2) + _text()
                                         for _ in range(4)),)),
    (textwrap.wrap, lambda: (_text(), _RNG.randint(1, 30))),
    (textwrap.fill, lambda: (_text(), _RNG.randint(5, 30))),
    (textwrap.shorten, lambda: (_text(), _RNG.randint(1, 40))),
    (textwrap.indent, lambda: (_text().replace(' ', '\n'), '> ')),
    (colorsys.rgb_to_hsv, lambda: (_RNG.random(), _RNG.random(), _RNG.random())),
    (colorsys.hsv_to_rgb, lambda: (_RNG.random(), _RNG.random(), _RNG.random())),
    (colorsys.rgb_to_hls, lambda: (_RNG.random(), _RNG.random(), _RNG.random())),
    (colorsys.hls_to_rgb, lambda: (_RNG.random(), _RNG.random(), _RNG.random())),
    (fnmatch.fnmatchcase, lambda: (_RNG.choice(['ab', 'a.b', 'x]', '']),
                                   ''.join(_RNG.choice('ab*?[]!-.') for _ in range(6)))),
    (posixpath.join, lambda: (_path(), _path(), _path())),
    (posixpath.relpath, lambda: ('/' + _path(), '/' + _path())),
    (posixpath.splitext, lambda: (_path(),)),
    (posixpath.commonpath, lambda: ([_path() for _ in range(_RNG.randint(0, 3))],)),
    (posixpath.expandvars, lambda: (_RNG.choice(['$HOME/x', '${NOPE_X}', 'a$', '$']),)),
    (calendar.isleap, lambda: (_RNG.randint(1, 3000),)),
    (calendar.leapdays, lambda: (_RNG.randint(1, 3000), _RNG.randint(1, 3000))),
    (calendar.monthrange, lambda: (_RNG.randint(1, 3000), _RNG.randint(0, 13))),
    (shlex.split, lambda: (_RNG.choice(['a "b c" d', "x 'y", 'p\\ q', _text()]),)),
    (shlex.quote, lambda: (_text(),)),
    (html.escape, lambda: (_text() + '<&>"\'', _RNG.random() < 0.5)),
    (html.unescape, lambda: (_RNG.choice(['&amp;&lt;', '&#65;&#x42;', '&bogus;', _text()]),)),
    (statistics.median, lambda: (_numbers(),)),
    (statistics.median_low, lambda: (_numbers(),)),
    (statistics.mode, lambda: ([_RNG.randint(0, 3) for _ in range(_RNG.randint(0, 6))],)),
    (statistics.multimode, lambda: ([_RNG.randint(0, 3) for _ in range(_RNG.randint(0, 6))],)),
    (statistics.variance, lambda: (_numbers(),)),
    (statistics.quantiles, lambda: (_numbers(),)),
    (string.capwords, lambda: (_text(),)),
    (heapq.nlargest, lambda: (_RNG.randint(-1, 6), _numbers())),
    (heapq.nsmallest, lambda: (_RNG.randint(-1, 6), _numbers())),
    # urlsplit is lru_cache-wrapped on some versions: convert the function itself.
    (getattr(urllib.parse.urlsplit, '__wrapped__', urllib.parse.urlsplit),
     lambda: (_RNG.choice(['http://a/b?c#d', 'x:y', '//h:80/p', '[::1', 'https://[::1]:8/x']),)),
    (urllib.parse.quote, lambda: (_text(),)),
    (urllib.parse.unquote, lambda: (_RNG.choice(['%41%zz', 'a+b%20', '%E2%82%AC', '%']),)),
    (urllib.parse.parse_qsl, lambda: (_RNG.choice(['a=1&b=2', 'a&b=', '=x;y=1', '']),)),
]


def _shlex_tokens(text):
    lexer = shlex.shlex(text, posix=True)
    return lexer


# Methods and functions that mutate their arguments: the arguments are built afresh, from the
# same seed, for the original and for the converted call.
# From Python 3.13 on posixpath.normpath is C code (posix._path_normpath): nothing to convert.
if isinstance(posixpath.normpath, types.FunctionType):
    CASES.append((posixpath.normpath, lambda: (_path(),)))

STATEFUL_CASES = [
    (difflib.SequenceMatcher.find_longest_match,
     lambda r: (difflib.SequenceMatcher(None, _seq(r), _seq(r)),)),
    (difflib.SequenceMatcher.get_matching_blocks,
     lambda r: (difflib.SequenceMatcher(None, _seq(r), _seq(r)),)),
    (difflib.SequenceMatcher.get_opcodes,
     lambda r: (difflib.SequenceMatcher(None, _seq(r), _seq(r)),)),
    (difflib.get_close_matches,
     lambda r: (_seq(r), [_seq(r) for _ in range(5)], r.randint(-1, 3), r.random())),
    (fractions.Fraction.limit_denominator,
     lambda r: (fractions.Fraction(r.randint(-999, 999), r.randint(1, 999)),
                r.randint(0, 50))),
    (textwrap.TextWrapper._wrap_chunks,  # pylint: disable=protected-access
     lambda r: (textwrap.TextWrapper(width=r.randint(1, 12), max_lines=r.randint(1, 4)),
                [r.choice(['ab', ' ', 'cdefgh', 'i', '  ']) for _ in range(r.randint(0, 9))])),
    (shlex.shlex.read_token,
     lambda r: (_shlex_tokens(r.choice(['a "b c" d', "x 'y", 'p\\ q', 'e#f', 'g;h'])),)),
    (heapq._siftup,  # pylint: disable=protected-access
     lambda r: ([r.randint(0, 9) for _ in range(8)], r.randint(0, 7))),
    (string.Template.substitute,
     lambda r: (string.Template(r.choice(['$a and ${b}', '$$x $a', '$', '${c'])),
                {'a': 1, 'b': 'two'})),
]


def _seq(r):
    return ''.join(r.choice('abcab') for _ in range(r.randint(0, 8)))


@pytest.mark.parametrize('fn,make_args', STATEFUL_CASES,
                         ids=[c[0].__qualname__ for c in STATEFUL_CASES])
def test_converted_stdlib_method_matches_original(fn, make_args):
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        converted = ag.convert(fn)
    assert converted is not fn
    for seed in range(40):
        args_a = make_args(random.Random(seed))
        args_b = make_args(random.Random(seed))
        assert _outcome(converted, args_a) == _outcome(fn, args_b), seed
        if isinstance(args_a[0], list):
            assert args_a[0] == args_b[0]  # the same mutation


@pytest.mark.parametrize('fn,make_args', CASES, ids=[c[0].__qualname__ for c in CASES])
def test_converted_stdlib_function_matches_original(fn, make_args):
    with warnings.catch_warnings():
        warnings.simplefilter('error')  # a fallback to the unconverted function fails here
        converted = ag.convert(fn)
    assert converted is not fn
    for _ in range(40):
        args = make_args()
        assert _outcome(converted, args) == _outcome(fn, args), args
