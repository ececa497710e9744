"""Code templates: source strings with named placeholders, filled with AST nodes."""

import ast
import marshal
import os
import sys
import textwrap
import threading

import gast

try:  # the builtin module: `hashlib` would load OpenSSL on the first call's path
    from _blake2 import blake2b as _hash
except ImportError:  # pragma: no cover - CPython built without it
    from hashlib import blake2b as _hash

from autograph.pyct import anno
from autograph.pyct import ast_convert
from autograph.pyct import qual_names

# template source -> its parsed statements, encoded (see _encode)
_TEMPLATE_CACHE = {}

_STORE = gast.Store
_LOAD = gast.Load
_AST = gast.AST
_MISSING = object()
# the mark of the names a template's own text writes (see _Filler), kept by copy_clean
_GENERATED = anno.Basic.GENERATED


def copy_clean(node, keep_locations=True):
    """Returns a deep copy of a gast tree, without annotations but the `GENERATED` mark.

    A generated name stays marked in the copy, so that later passes still leave the generated
    call it names alone (anno.Basic.GENERATED).

    Args:
      node: a gast node, a list of nodes, or a leaf value.
      keep_locations: whether to copy line and column numbers.

    Returns:
      The copy.
    """
    if type(node) is list:
        return [_copy(n, keep_locations) if isinstance(n, _AST) else n for n in node]
    if not isinstance(node, _AST):
        return node
    return _copy(node, keep_locations)


def _copy(node, keep_locations):
    cls = node.__class__
    new = cls.__new__(cls)
    fields = new.__dict__  # fields go straight into the new node's dict: no setattr
    for field in cls._fields:
        value = getattr(node, field, None)
        if type(value) is list:
            value = [_copy(v, keep_locations) if isinstance(v, _AST) else v for v in value]
        elif isinstance(value, _AST):
            value = _copy(value, keep_locations)
        fields[field] = value
    if keep_locations:
        for attr in cls._attributes:
            value = getattr(node, attr, _MISSING)
            if value is not _MISSING:
                fields[attr] = value
    if anno.hasanno(node, _GENERATED):
        anno.setanno(new, _GENERATED, True)
    return new


def _set_ctx(node, ctx_cls):
    """Sets the context of a target expression (and of tuple/list elements) in place."""
    if isinstance(node, (gast.Name, gast.Attribute, gast.Subscript, gast.Starred)):
        node.ctx = ast_convert.gast_node(ctx_cls)
        if isinstance(node, gast.Starred):
            _set_ctx(node.value, ctx_cls)
    elif isinstance(node, (gast.Tuple, gast.List)):
        node.ctx = ast_convert.gast_node(ctx_cls)
        for elt in node.elts:
            _set_ctx(elt, ctx_cls)


def _to_node(value, ctx_cls):
    """Turns a replacement value (str, QN, node) into an expression node."""
    if isinstance(value, str):
        return ast_convert.gast_node(gast.Name, id=value, ctx=ast_convert.gast_node(ctx_cls),
                                     annotation=None, type_comment=None)
    if isinstance(value, qual_names.QN):
        node = value.ast()
        _set_ctx(node, ctx_cls)
        return node
    if isinstance(value, gast.AST):
        if ctx_cls is _STORE or isinstance(value, gast.Name):
            _set_ctx(value, ctx_cls)
        return value
    raise ValueError('expected a str, QN or gast node as template replacement, found %r'
                     % (value,))


class _Filler(object):
    """Copies a template tree, substituting its placeholders, in one pass.

    The template is read in its encoded form (see _encode); the copy has no locations and no
    annotations but one: every name that the template's own text writes (not a placeholder)
    is marked `anno.Basic.GENERATED`, on every fill, so the mark never depends on whether the
    template came from the file of parsed templates. Nodes are visited depth first in field
    order, as a NodeTransformer over a copy would visit them: a placeholder used twice gets
    its node the first time and a copy the second.
    """

    def __init__(self, replacements):
        self.replacements = replacements
        # placeholders already used once; a second use gets a copy of the node
        self.used = set()

    def _take(self, name):
        value = self.replacements[name]
        if name in self.used and not isinstance(value, str):
            value = copy_clean(value)
        self.used.add(name)
        return value

    def _str_of(self, name):
        value = self.replacements[name]
        if isinstance(value, gast.Name):
            return value.id
        if isinstance(value, qual_names.QN):
            return str(value)
        if isinstance(value, str):
            return value
        raise ValueError('expected a name to replace %r, found %r' % (name, value))

    def fill(self, node):
        """The filled copy of encoded template node `node`: a node, or a list of statements."""
        name = node[0]
        cls = _CLASSES.get(name)  # None for a name met first, and for the special ones
        if cls is not None:
            return self._copy_fields(node, cls)
        if name == 'Name':
            if node[1] in self.replacements:
                value = self._take(node[1])
                if isinstance(value, list):
                    return value
                return _to_node(value, _class(node[2][0]))
            new = _NAME.__new__(_NAME)
            ctx = _class(node[2][0])
            new.__dict__.update(id=node[1], ctx=ctx.__new__(ctx), annotation=None,
                                type_comment=None)
            anno.setanno(new, _GENERATED, True)
            return new
        special = _SPECIAL.get(name)
        if special is not None:
            return special(self, node)
        cls = _CLASSES[name] = getattr(gast, name)
        return self._copy_fields(node, cls)

    def _copy_fields(self, node, cls):
        new = cls.__new__(cls)
        fields = new.__dict__  # fields go straight into the new node's dict: no setattr
        fill = self.fill
        for field, value in zip(cls._fields, node[1:]):
            if type(value) is list:
                items = []
                for item in value:
                    if type(item) is tuple:
                        item = fill(item)
                        if type(item) is list:
                            items.extend(item)
                            continue
                    items.append(item)
                value = items
            elif type(value) is tuple:
                value = fill(value)
            fields[field] = value
        return new

    def _fill_Expr(self, node):
        # A bare placeholder statement may be replaced by a list of statements.
        value = node[1]
        if value[0] == 'Name' and value[1] in self.replacements:
            if isinstance(self.replacements[value[1]], (list, gast.stmt)):
                return self._take(value[1])
        return self._copy_fields(node, gast.Expr)

    def _fill_named(self, node, field):
        """The filled copy of a node whose `field` is a name a placeholder may rename."""
        new = self._copy_fields(node, _class(node[0]))
        name = getattr(new, field)
        if name in self.replacements:
            setattr(new, field, self._str_of(name))
        return new

    def _fill_Nonlocal(self, node):
        return gast.Nonlocal(names=[self._str_of(n) if n in self.replacements else n
                                    for n in node[1]])


_NAME = gast.Name
_SPECIAL = {
    'Expr': _Filler._fill_Expr,
    'FunctionDef': lambda filler, node: filler._fill_named(node, 'name'),
    'Nonlocal': _Filler._fill_Nonlocal,
    'Attribute': lambda filler, node: filler._fill_named(node, 'attr'),
    'keyword': lambda filler, node: filler._fill_named(node, 'arg'),
}
# gast class name -> class, for the classes that fill copies without a special case
_CLASSES = {}
# gast class name -> class, for every class (the special cases make their nodes too)
_ALL_CLASSES = {}


def _class(name):
    cls = _ALL_CLASSES.get(name)
    if cls is None:
        cls = _ALL_CLASSES[name] = getattr(gast, name)
    return cls


# -- parsed templates, encoded, and their cache on disk -------------------------------------
#
# A template is parsed once per process, into gast, and kept encoded: a node is the tuple
# (class name, value of each field in the class's `_fields` order); a list stays a list; a
# leaf (identifier, constant, None) stays as it is. The Filler copies from the encoding.
#
# The encodings also live in a file next to this module's bytecode (written as the templates
# are first parsed, read once per process): in a fresh process, parsing the templates that a
# small function's conversion needs (the parser's first runs, and ast -> gast) was a tenth of
# its first call. The file is a marshalled (key, {template source: marshalled encoding}):
# reading it makes one bytes object per template, and a template is decoded when it is first
# used (decoding all of them took as long as parsing the few a small function uses). It is
# used only when its key matches: the Python version, gast's version, and the size and
# modification time of the sources that make the encodings (this file and ast_convert.py),
# as Python checks bytecode against its source. The file starts with a digest of the rest
# (the blake2b of the marshalled data): a file that does not match it, or that fails to decode
# in any way, is deleted and the templates are parsed afresh. When it cannot be read or
# written (a read-only package directory, PYTHONDONTWRITEBYTECODE) templates are parsed as
# before.

_CACHE_FORMAT = 3
_DIGEST_SIZE = 32
_CACHE_LIMIT = 1024  # templates written to the file at most (the converters use about 60)
# state of the file: [loaded, path or None (no file), key]
_disk = [False, None, None]
# template source -> its marshalled encoding, as in the file (read from it, or parsed here)
_DISK_ENTRIES = {}


def _encode(node):
    """The encoding of a gast node (see above)."""
    values = [node.__class__.__name__]
    for field in node._fields:
        value = getattr(node, field, None)
        if type(value) is list:
            value = [_encode(v) if isinstance(v, _AST) else v for v in value]
        elif isinstance(value, _AST):
            value = _encode(value)
        elif type(value) is tuple:  # not made by the parser: it would read as a node
            raise ValueError('a template leaf of type tuple: %r' % (value,))
        values.append(value)
    return tuple(values)


def _parse(template):
    module = ast_convert.ast_to_gast(ast.parse(textwrap.dedent(template)))
    return [_encode(stmt) for stmt in module.body]


def _cache_file():
    """The path and key of the file of parsed templates, or (None, None)."""
    try:
        cached = __cached__  # this module's bytecode file (honours sys.pycache_prefix)
        stamps = tuple((s.st_mtime_ns, s.st_size)
                       for s in (os.stat(__file__), os.stat(ast_convert.__file__)))
    except (NameError, TypeError, OSError):
        return None, None
    if not cached:
        return None, None
    key = (_CACHE_FORMAT, sys.version, getattr(gast, '__version__', None), stamps)
    return os.path.splitext(cached)[0] + '.templates', key


def _load_disk():
    """Reads the file of parsed templates into _DISK_ENTRIES (once per process)."""
    _disk[0] = True
    path, key = _cache_file()
    _disk[1], _disk[2] = path, key
    if path is None:
        return
    try:
        with open(path, 'rb') as f:
            data = f.read()
    except OSError:  # absent or unreadable: parse instead
        return
    try:
        stored_key, entries = _decode_file(data)
    except Exception:  # noqa: BLE001 - corrupt: parse instead  # pylint: disable=broad-except
        _remove(path)
        return
    if stored_key == key:
        for template, encoded in entries.items():
            _DISK_ENTRIES.setdefault(template, encoded)


def _file_digest(payload):
    return _hash(payload, digest_size=_DIGEST_SIZE).digest()


def _decode_file(data):
    """The (key, entries) a file of parsed templates holds; raises ValueError if corrupt."""
    payload = memoryview(data)[_DIGEST_SIZE:]
    if len(data) < _DIGEST_SIZE or _file_digest(payload) != data[:_DIGEST_SIZE]:
        raise ValueError('the digest of the file of parsed templates does not match')
    stored_key, entries = marshal.loads(payload)
    if type(entries) is not dict or not all(
            type(t) is str and type(e) is bytes for t, e in entries.items()):
        raise ValueError('the file of parsed templates holds something else')
    return stored_key, entries


def _remove(path):
    try:
        os.unlink(path)
    except OSError:
        pass


def _store_disk():
    """Writes _DISK_ENTRIES to the file of parsed templates; gives up quietly on error."""
    path, key = _disk[1], _disk[2]
    if path is None or sys.dont_write_bytecode or len(_DISK_ENTRIES) > _CACHE_LIMIT:
        return
    temporary = '%s.%d.%d.tmp' % (path, os.getpid(), threading.get_ident())
    try:
        payload = marshal.dumps((key, dict(_DISK_ENTRIES)))
        data = _file_digest(payload) + payload
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(temporary, 'wb') as f:
            f.write(data)
        os.replace(temporary, path)  # readers see the old file or the new one, whole
    except OSError:
        _disk[1] = None  # read-only: no more tries in this process
        try:
            os.unlink(temporary)
        except OSError:
            pass


def _decoded(template, data):
    """The encoding that `data` (from the file) holds for `template`, or None if corrupt."""
    try:
        encoded = marshal.loads(data)
    except Exception:  # noqa: BLE001 - corrupt  # pylint: disable=broad-except
        encoded = None
    if type(encoded) is not list:
        _DISK_ENTRIES.pop(template, None)
        return None
    return encoded


def _parsed(template):
    encoded = _TEMPLATE_CACHE.get(template)
    if encoded is None:
        if not _disk[0]:
            _load_disk()
        data = _DISK_ENTRIES.get(template)
        if data is not None:
            encoded = _decoded(template, data)
        if encoded is None:
            encoded = _parse(template)
            try:
                _DISK_ENTRIES[template] = marshal.dumps(encoded)
            except ValueError:  # a constant marshal cannot write: kept in this process only
                pass
            else:
                _store_disk()
        _TEMPLATE_CACHE[template] = encoded
    return encoded


def replace(template, **replacements):
    """Parses `template` and replaces its placeholders.

    Args:
      template: Python source; names equal to a keyword of `replacements` are placeholders.
      **replacements: placeholder name -> str (a name), QN, gast node, or list of statements
        (for a placeholder that stands alone as a statement).

    Returns:
      A list of gast statements.
    """
    filler = _Filler(replacements)
    result = []
    for stmt in _parsed(template):
        new = filler.fill(stmt)
        if isinstance(new, list):
            result.extend(new)
        else:
            result.append(new)
    return result


def replace_as_expression(template, **replacements):
    """Like `replace`, for a template that is a single expression.

    Args:
      template: the source of an expression.
      **replacements: as for `replace`.

    Returns:
      A gast expression node.

    Raises:
      ValueError: the template is not a single expression.
    """
    stmts = replace(template, **replacements)
    if len(stmts) != 1 or not isinstance(stmts[0], gast.Expr):
        raise ValueError('expected a single expression template, found %r' % template)
    return stmts[0].value
