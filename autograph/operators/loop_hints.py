"""Messages of staged control flow that say what to fix: the loop variable, the type."""
import linecache
import os
import re

from autograph.impl import traceback_filter
from autograph.operators import nest


def python_number_hint(names, values, construct, error):
    """`error` (a failed dtype rule in a staged loop body) with the loop variable to fix.

    Plain Python lets `s = 0` become a float in the loop (`s = s + 0.5`); a staged loop
    carries `s` as the staged type of its initial value, so the float operation fails inside
    the body. The variables named are those that entered the loop as Python ints or bools
    and appear in the user's line that failed. Returns None when there is none, or when
    `error` is not about dtypes.
    """
    where = user_line(error.__traceback__)
    if where is None or 'dtype' not in str(error):
        return None
    filename, lineno, text = where
    words = set(re.findall(r'[A-Za-z_]\w*', text))
    ints = [(name, value) for name, value in zip(names, values)
            if type(name) is str and type(value) in (int, bool) and name in words]
    if not ints:
        return None
    hint = ('{} entered the {} as {} ({}), and {}:{} (`{}`) gives {} a value of another '
            'dtype. A staged loop keeps the dtype a variable has when it enters the loop: '
            'initialize {} with the dtype the loop gives it, such as {} before the loop for '
            'a float.'.format(
                ', '.join(repr(name) for name, _ in ints), construct,
                'a Python int' if len(ints) == 1 else 'Python ints',
                ', '.join('{} = {!r}'.format(name, value) for name, value in ints),
                os.path.basename(filename), lineno, text,
                'it' if len(ints) == 1 else 'them', 'it' if len(ints) == 1 else 'them',
                ' and '.join('{} = {!r}'.format(name, float(value)) for name, value in ints)))
    try:
        hinted = type(error)('{}\n{}'.format(error, hint))
    except Exception:  # pylint: disable=broad-except - a type with another constructor
        return None
    return hinted.with_traceback(error.__traceback__)


def user_line(tb):
    """(file, line, source text) of the last frame of `tb` in user code, or None."""
    found = None
    while tb is not None:
        code = tb.tb_frame.f_code
        if not traceback_filter.is_internal(code.co_filename):
            found = (code.co_filename, tb.tb_lineno)
        tb = tb.tb_next
    if found is None:
        return None
    text = linecache.getline(found[0], found[1]).strip()
    return (found[0], found[1], text) if text else None


def _leaves(description):
    if description[0] is nest.LEAF:
        return [description[1]]
    return [leaf for child in description[2] for leaf in _leaves(child)]


def _skeleton(description):
    if description[0] is nest.LEAF:
        return nest.LEAF
    return (description[0], description[1], tuple(_skeleton(c) for c in description[2]))


def type_fix(before, after, where):
    """How to make two `nest.describe` results agree: what differs and what to change.

    Args:
        before: the first description (the if branch, or the loop entry).
        after: the second (the else branch, or after one iteration).
        where: what must agree, e.g. 'in both branches'.

    Returns:
        A sentence: build the same structure, give the same shape, or cast to one dtype.
    """
    if _skeleton(before) != _skeleton(after):
        return ('Build the same structure {} (the same number of elements, the same '
                'containers).'.format(where))
    for a, b in zip(_leaves(before), _leaves(after)):
        if a == b:
            continue
        shapes = getattr(a, 'shape', None), getattr(b, 'shape', None)
        if None not in shapes and shapes[0] != shapes[1] and (
                getattr(a, 'dtype', None) == getattr(b, 'dtype', None)):
            return ('Give it the same shape {}: a cast cannot change a shape; build both the '
                    'same way (for example zeros_like(x) rather than zeros([2])), or pad or '
                    'slice one to the shape of the other.'.format(where))
        break
    return 'Give it the same dtype {}: cast it (tf.cast, .astype).'.format(where)
