"""Maps errors raised while staging converted code back to the user's file, line and source."""

import linecache

from autograph import errors


class GeneratedMark(object):
    """The last constant of every code object of converted code (see `mark`).

    It marks the code as converted code and names the user function it belongs to. A constant
    costs the code object one slot; the weak table it replaces cost ~100 bytes per code object,
    and every converted function has about ten.
    """

    __slots__ = ('label',)

    def __init__(self, label):
        self.label = label  # the user function's name, for messages

    def __repr__(self):
        return '<converted code of %s>' % self.label


def mark(label):
    """Returns the constant that marks code objects as converted code of `label`.

    The converter appends it to the `co_consts` of each code object it makes (unused by the
    bytecode, which reads constants by index); one mark serves every code object of a function.

    Args:
      label: the user function's name, for messages.

    Returns:
      A GeneratedMark.
    """
    return GeneratedMark(label)


def label_of(code):
    """Returns the user function's name that converted `code` belongs to, or None.

    Args:
      code: a code object.

    Returns:
      str or None (not converted code).
    """
    consts = code.co_consts
    if consts:
        last = consts[-1]
        if type(last) is GeneratedMark:
            return last.label
    return None


def is_generated(code):
    """Tells whether a code object belongs to converted code.

    Args:
      code: a code object.

    Returns:
      bool.
    """
    return label_of(code) is not None


def user_frame(tb):
    """Returns the innermost converted-code frame of a traceback.

    Converted code is compiled with the user's file name and line numbers, so the frame's
    location is already the user's.

    Args:
      tb: a traceback object.

    Returns:
      A tuple (filename, lineno, function label, source line) or None.
    """
    found = None
    while tb is not None:
        code = tb.tb_frame.f_code
        label = label_of(code)
        if label is not None:
            found = (code.co_filename, tb.tb_lineno, label)
        tb = tb.tb_next
    if found is None:
        return None
    filename, lineno, label = found
    source = linecache.getline(filename, lineno).strip()
    return filename, lineno, label, source


def format_location(filename, lineno, label, source):
    """Formats a user-code location the way Python tracebacks do.

    Args:
      filename: the user's file.
      lineno: the line number.
      label: the function name.
      source: the source line (may be empty).

    Returns:
      str, e.g. '  File "f.py", line 3, in f\n    if c:'.
    """
    text = '  File "%s", line %d, in %s' % (filename, lineno, label)
    if source:
        text += '\n    ' + source
    return text


def annotate(exc, tb):
    """Adds the user's file, line and source text to a StagingError, once.

    Args:
      exc: the exception being raised.
      tb: its traceback (from the converted function's scope down to the raise).

    Returns:
      Whether the exception was annotated.
    """
    if not isinstance(exc, errors.StagingError) or getattr(exc, 'ag_location', None):
        return False
    location = user_frame(tb)
    if location is None:
        return False
    exc.ag_location = location
    message = str(exc.args[0]) if exc.args else ''
    exc.args = ('%s\n%s' % (message, format_location(*location)),) + tuple(exc.args[1:])
    return True
