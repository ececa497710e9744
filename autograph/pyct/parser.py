"""Parsing and unparsing: gets the gast tree of functions, methods and lambdas."""

import ast
import io
import inspect
import linecache
import sys
import textwrap
import threading

import gast

from autograph import errors
from autograph.pyct import ast_convert
from autograph.pyct import running_code

# filename -> (lines list as returned by linecache, {first line: [lambda ast nodes]}).
# The lines list identity tells whether linecache reloaded the file since we parsed it.
_FILE_INDEX = {}
_FILE_INDEX_LOCK = threading.Lock()
# Bound on the number of parsed files kept in memory.
_MAX_FILES = 64
# Files whose lines autograph read into linecache (filename -> that lines list), oldest
# first. Past _MAX_FILES the oldest is dropped from linecache again (linecache reads the file
# again when next asked), so converting functions of many files keeps the text of no more
# than that many; lines that others put there (notebooks, registered strings) are not touched.
_LOADED = {}

_DEF_TYPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)



def parse(src, single_node=True):
    """Parses Python source into a gast tree.

    Args:
      src: Python source code; it is dedented first.
      single_node: when True, expect exactly one statement and return it.

    Returns:
      A gast node (single_node=True) or a gast.Module.

    Raises:
      ValueError: single_node is True and the source has more than one statement.
    """
    module = ast_convert.ast_to_gast(ast.parse(textwrap.dedent(src)))
    if not single_node:
        return module
    if len(module.body) != 1:
        raise ValueError('expected exactly one statement, found %d in:\n%s'
                         % (len(module.body), src))
    return module.body[0]


def parse_expression(src):
    """Parses a single Python expression into a gast node.

    Args:
      src: the source of an expression.

    Returns:
      A gast expression node.
    """
    return ast_convert.ast_to_gast(ast.parse(src.strip(), mode='eval')).body


def unparse(node):
    """Turns a gast tree (or a list of statements) into Python source.

    Args:
      node: a gast node or a list of gast statement nodes.

    Returns:
      The source code, as a string ending with a newline.
    """
    if isinstance(node, (list, tuple)):
        node = gast.Module(body=list(node), type_ignores=[])
    text = _names_text(node)
    if text is not None:
        return text + '\n'
    tree = ast_convert.gast_to_ast(node)
    out = io.StringIO()
    _unparser_class()(tree, out)
    return out.getvalue().strip('\n') + '\n'


def _names_text(node):
    """astunparse's text of a name or a tuple of names (nested), or None for other nodes.

    Loop targets are mostly these (the control-flow converter prints them): printing them
    here spares a process whose first conversion has a `for` loop importing astunparse and
    six (2 ms of its first call).
    """
    if type(node) is gast.Name:
        return node.id
    if type(node) is not gast.Tuple:
        return None
    parts = [_names_text(elt) for elt in node.elts]
    if not parts or None in parts:
        return None
    if len(parts) == 1:
        return '(%s,)' % parts[0]
    return '(%s)' % ', '.join(parts)


_UNPARSER = []


class _UnparserFixes(object):
    """What makes astunparse's printer print the same text on every Python version (mixed
    into it by _unparser_class).

    astunparse predates some nodes (`match`, `except*`, PEP 695 type parameters): those, and any
    node it fails on, are printed by the standard library's `ast.unparse`.
    """

    def _Attribute(self, t):  # noqa: N802 - astunparse's naming
        # astunparse reads `Constant.n`, deprecated since Python 3.12 (a DeprecationWarning
        # for every attribute of a constant). An int constant is followed by a space:
        # `3 .__abs__()`, since `3.__abs__()` is a syntax error.
        self.dispatch(t.value)
        if isinstance(t.value, ast.Constant) and isinstance(t.value.value, int):
            self.write(' ')
        self.write('.')
        self.write(t.attr)

    def _Subscript(self, t):  # noqa: N802 - astunparse's naming
        # astunparse (written for Python < 3.9) prints a tuple index as `x[(a, :)]`, which is
        # invalid when it holds a slice: print `x[a, :]`.
        self.dispatch(t.value)
        self.write('[')
        index = t.slice
        if isinstance(index, ast.Tuple) and index.elts:
            for k, elt in enumerate(index.elts):
                if k:
                    self.write(', ')
                self.dispatch(elt)
            if len(index.elts) == 1:
                self.write(',')
        else:
            self.dispatch(index)
        self.write(']')

    def _Lambda(self, t):  # noqa: N802 - astunparse's naming
        # astunparse writes `lambda : x` when there are no arguments.
        self.write('(lambda')
        if any(getattr(t.args, f, None) for f in ('posonlyargs', 'args', 'vararg', 'kwonlyargs',
                                                   'kwarg')):
            self.write(' ')
            self.dispatch(t.args)
        self.write(': ')
        self.dispatch(t.body)
        self.write(')')

    def dispatch(self, tree):
        if isinstance(tree, list):
            for t in tree:
                self.dispatch(t)
            return
        meth = getattr(self, '_' + tree.__class__.__name__, None)
        if meth is not None:
            try:
                position = self.f.tell()
                meth(tree)
                return
            except Exception:  # pylint: disable=broad-except - printed by ast.unparse below
                self.f.seek(position)
                self.f.truncate()
        text = ast.unparse(tree)
        if isinstance(tree, ast.stmt):
            self.fill(text.replace('\n', '\n' + '    ' * self._indent))
        else:
            self.write(text)


def _unparser_class():
    """astunparse's printer, adapted (imported on first use: astunparse and six cost ~2 ms)."""
    if _UNPARSER:
        return _UNPARSER[0]
    import astunparse  # pylint: disable=import-outside-toplevel

    unparser = type('_Unparser', (_UnparserFixes, astunparse.Unparser), {})
    _UNPARSER.append(unparser)
    return unparser


def _getlines(filename, module_globals):
    """linecache.getlines, keeping at most _MAX_FILES files that autograph read (_LOADED)."""
    known = filename in linecache.cache
    lines = linecache.getlines(filename, module_globals)
    if known or not lines:
        return lines
    entry = linecache.cache.get(filename)
    if entry is None or len(entry) != 4 or entry[2] is not lines or entry[1] is None:
        return lines  # not read from a file here (a lazily loaded source: kept)
    with _FILE_INDEX_LOCK:
        _LOADED[filename] = lines
        while len(_LOADED) > _MAX_FILES:
            old = next(iter(_LOADED))
            old_lines = _LOADED.pop(old)
            cached = linecache.cache.get(old)
            if cached is not None and len(cached) == 4 and cached[2] is old_lines:
                linecache.cache.pop(old, None)
    return lines


def _first_line(node):
    if isinstance(node, ast.Lambda):
        return node.lineno
    return min([node.lineno] + [d.lineno for d in node.decorator_list])


def _file_lambdas(filename, module_globals):
    """Returns {first line: [lambda nodes]} for a whole file, parsed once per version.

    Only the lambdas are kept (a def is parsed from its own lines, see _parse_def), so no
    whole-file tree stays in memory.
    """
    lines = _getlines(filename, module_globals)
    if not lines:
        return None
    cached = _FILE_INDEX.get(filename)
    if cached is not None and cached[0] is lines:
        return cached[1]
    try:
        tree = ast.parse(''.join(lines), filename)
    except SyntaxError:
        return None
    index = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Lambda):
            index.setdefault(node.lineno, []).append(node)
    with _FILE_INDEX_LOCK:
        if len(_FILE_INDEX) >= _MAX_FILES:
            _FILE_INDEX.pop(next(iter(_FILE_INDEX)))
        _FILE_INDEX[filename] = (lines, index)
    return index


def _def_in(tree, code):
    for node in ast.walk(tree):
        if (isinstance(node, _DEF_TYPES[:2]) and node.name == code.co_name
                and _first_line(node) == code.co_firstlineno):
            return node
    return None


def _def_block(lines, first):
    """Returns the lines of the definition starting at index `first`, found by indentation.

    The block ends before the first later line that starts a statement at the definition's
    indentation or less. A line inside a bracket or string that sits that far left ends it
    too early; the parse then fails and the caller falls back to the whole file.
    """
    head = lines[first]
    indent = len(head) - len(head.lstrip())
    in_header = head.lstrip().startswith('@')
    end = first + 1
    while end < len(lines):
        line = lines[end]
        stripped = line.lstrip()
        if stripped and not stripped.startswith('#') and len(line) - len(stripped) <= indent:
            if stripped[0] in ')]}':  # the closing bracket of a signature or decorator
                pass
            elif in_header and stripped.startswith('@'):
                pass
            elif in_header and stripped.startswith(('def ', 'async ')):
                in_header = False
            else:
                break
        end += 1
    return lines[first:end], indent


def _parse_def(lines, code, filename):
    """Parses only the lines of the def that compiled to `code`; None if that fails.

    Parsing the one definition instead of its whole file makes the first conversion cost
    the size of the function, not of its module.
    """
    first = code.co_firstlineno - 1
    if not 0 <= first < len(lines):
        return None
    block, indent = _def_block(lines, first)
    if indent and not first:
        return None
    # Blank lines put the def at its line in the file (cheaper than ast.increment_lineno);
    # an indented block parses as the body of an `if` on the line before it.
    source = '\n' * (first - 1) + 'if 1:\n' if indent else '\n' * first
    source += ''.join(block)
    try:
        tree = ast.parse(source, filename)
    except SyntaxError:
        return None
    body = tree.body[0].body if indent and tree.body else tree.body
    if len(body) != 1 or not isinstance(body[0], _DEF_TYPES[:2]):
        return None
    node = body[0]
    if node.name != code.co_name or _first_line(node) != code.co_firstlineno:
        return None
    return node


def _lambda_matches(node, code):
    """Tells whether the lambda `node` compiled to `code`, using instruction positions."""
    args = node.args
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    if args.vararg:
        names.append(args.vararg.arg)
    if args.kwarg:
        names.append(args.kwarg.arg)
    if tuple(names) != code.co_varnames[:len(names)]:
        return False
    positions = getattr(code, 'co_positions', None)
    if positions is None:
        return None  # Python 3.10: no columns; the caller disambiguates.
    body = node.body
    start = (body.lineno, body.col_offset)
    end = (body.end_lineno, body.end_col_offset)
    for line, _, col, _ in positions():
        if line is None or col is None or (line, col) == (node.lineno, 0):
            continue
        if start <= (line, col) <= end:
            return True
    return False


def _code_signature(code):
    consts = tuple(_code_signature(c) if hasattr(c, 'co_code') else c for c in code.co_consts)
    return code.co_code, consts, code.co_names, code.co_varnames


def _same_code(node, code):
    """Tells whether compiling the lambda `node` gives the bytecode of `code`."""
    try:
        compiled = compile(ast.Expression(body=node), code.co_filename, 'eval')
    except (SyntaxError, ValueError, TypeError):
        return False
    lambdas = [c for c in compiled.co_consts if hasattr(c, 'co_code')]
    return bool(lambdas) and _code_signature(lambdas[0]) == _code_signature(code)


def _select_lambda(candidates, code, f):
    matched = []
    unknown = []
    for node in candidates:
        verdict = _lambda_matches(node, code)
        if verdict:
            matched.append(node)
        elif verdict is None:
            unknown.append(node)
    if len(matched) == 1:
        return matched[0]
    if not matched and len(unknown) == 1:
        return unknown[0]
    if not matched and unknown:
        # Python 3.10 has no instruction columns: compile each candidate and compare code.
        same = [n for n in unknown if _same_code(n, code)]
        if len(same) == 1:
            return same[0]
    raise errors.UnsupportedSyntaxError(
        'expected to identify the source of lambda %s at %s:%d, found %d candidates on that'
        ' line; put each lambda on its own line or use a def'
        % (f.__qualname__, code.co_filename, code.co_firstlineno, len(matched or unknown)),
        construct='several lambdas on one line')


def _parse_fallback(f):
    """Parses the source of `f` through inspect when the whole file cannot be parsed."""
    try:
        lines, lineno = inspect.getsourcelines(f)
    except (OSError, TypeError) as e:
        raise errors.ConversionError(
            'expected the source code of %s, found none (%s); define it in a file or register'
            ' its source in linecache' % (getattr(f, '__qualname__', f), e)) from None
    source = textwrap.dedent(''.join(lines))
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        raise errors.ConversionError(
            'could not parse the source of %s: %s' % (f.__qualname__, e)) from None
    ast.increment_lineno(tree, lineno - 1)
    for node in ast.walk(tree):
        if isinstance(node, _DEF_TYPES):
            return node
    raise errors.ConversionError('expected a def or lambda in the source of %s' % f.__qualname__)


def source_filename(f):
    """Returns the file that holds the source of function `f`.

    Usually `f.__code__.co_filename`; for frozen standard-library modules (whose code says
    '<frozen posixpath>') it is the module's file.

    Args:
      f: a Python function.

    Returns:
      str.
    """
    filename = f.__code__.co_filename
    if filename.startswith('<frozen '):
        module = sys.modules.get(getattr(f, '__module__', None) or '')
        return getattr(module, '__file__', None) or filename
    return filename


def source_lines(f):
    """Returns the lines of the file that holds `f`'s source (linecache's list; may be empty).

    Like `inspect.getsource`, the file is read again when it changed on disk since linecache
    read it: a module edited and reloaded (importlib.reload, IPython's autoreload) converts
    its new source, not the lines cached for its previous version.

    Args:
      f: a Python function.

    Returns:
      A list of str.
    """
    filename = source_filename(f)
    linecache.checkcache(filename)
    return _getlines(filename, getattr(f, '__globals__', None))


def parse_entity(f, check_code=True):
    """Returns the gast tree of a function or lambda, keeping its original line numbers.

    A def is parsed from its own lines only (found from its code object's first line by
    indentation), so the cost is the function's size, not its file's; when those lines do
    not parse alone, the whole file is parsed (and not kept). For lambdas the file is parsed
    once per version and only its lambdas are kept; lambdas that share a line are told apart
    by the columns of their code object's instructions.

    Args:
      f: a Python function (not a bound method).
      check_code: whether to check that the source is the code `f` runs
        (running_code.check).

    Returns:
      A gast.FunctionDef, gast.AsyncFunctionDef or gast.Lambda node.

    Raises:
      ConversionError: the source cannot be found or parsed, or is not the code `f` runs.
    """
    code = f.__code__
    filename = source_filename(f)
    module_globals = getattr(f, '__globals__', None)
    linecache.checkcache(filename)  # an edited, reloaded file: its new lines (source_lines)
    node = None
    kept = code.co_name == '<lambda>'  # a lambda's ast node stays in its file's index
    if kept:
        index = _file_lambdas(filename, module_globals)
        lambdas = index.get(code.co_firstlineno, ()) if index is not None else ()
        if lambdas:
            node = lambdas[0] if len(lambdas) == 1 else _select_lambda(lambdas, code, f)
    else:
        lines = _getlines(filename, module_globals)
        node = _parse_def(lines, code, filename)
        if node is None and lines:
            try:
                node = _def_in(ast.parse(''.join(lines), filename), code)
            except SyntaxError:
                node = None
    if node is None:
        if not linecache.getlines(filename, module_globals):
            raise errors.ConversionError(
                'expected the source code of %s, found none: %s is not a file and its source'
                ' is not registered in linecache; define the function in a file'
                % (f.__qualname__, filename))
        node = _parse_fallback(f)
        kept = False
    if check_code:
        running_code.check(node, f)
    # A tree parsed for this call alone becomes the gast tree; a kept one is copied.
    return ast_convert.ast_to_gast(node) if kept else ast_convert.ast_to_gast_in_place(node)
