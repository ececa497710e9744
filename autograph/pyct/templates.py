"""Code templates: source strings with named placeholders, filled with AST nodes."""

import ast
import textwrap

import gast

from autograph.pyct import ast_convert
from autograph.pyct import qual_names

# template source -> parsed gast.Module, parsed once per process
_TEMPLATE_CACHE = {}

_STORE = gast.Store
_LOAD = gast.Load
_AST = gast.AST
_MISSING = object()


def copy_clean(node, keep_locations=True):
    """Returns a deep copy of a gast tree, without annotations.

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

    The copy has no locations and no annotations. Nodes are visited depth first in field
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
        """The filled copy of template node `node`: a node, or a list of statements."""
        cls = node.__class__
        if cls is _NAME:
            if node.id in self.replacements:
                value = self._take(node.id)
                if isinstance(value, list):
                    return value
                return _to_node(value, type(node.ctx))
            new = _NAME.__new__(_NAME)
            ctx = node.ctx.__class__
            new.__dict__.update(id=node.id, ctx=ctx.__new__(ctx), annotation=None,
                                type_comment=None)
            return new
        special = _SPECIAL.get(cls)
        if special is not None:
            return special(self, node)
        return self._copy_fields(node, cls)

    def _copy_fields(self, node, cls):
        new = cls.__new__(cls)
        fields = new.__dict__  # fields go straight into the new node's dict: no setattr
        fill = self.fill
        for field in cls._fields:
            value = getattr(node, field, None)
            if type(value) is list:
                items = []
                for item in value:
                    if isinstance(item, _AST):
                        item = fill(item)
                        if type(item) is list:
                            items.extend(item)
                            continue
                    items.append(item)
                value = items
            elif isinstance(value, _AST):
                value = fill(value)
            fields[field] = value
        return new

    def _fill_Expr(self, node):
        # A bare placeholder statement may be replaced by a list of statements.
        value = node.value
        if value.__class__ is _NAME and value.id in self.replacements:
            if isinstance(self.replacements[value.id], (list, gast.stmt)):
                return self._take(value.id)
        return self._copy_fields(node, gast.Expr)

    def _fill_named(self, node, field):
        """The filled copy of a node whose `field` is a name a placeholder may rename."""
        new = self._copy_fields(node, node.__class__)
        name = getattr(new, field)
        if name in self.replacements:
            setattr(new, field, self._str_of(name))
        return new

    def _fill_Nonlocal(self, node):
        return gast.Nonlocal(names=[self._str_of(n) if n in self.replacements else n
                                    for n in node.names])


_NAME = gast.Name
_SPECIAL = {
    gast.Expr: _Filler._fill_Expr,
    gast.FunctionDef: lambda filler, node: filler._fill_named(node, 'name'),
    gast.Nonlocal: _Filler._fill_Nonlocal,
    gast.Attribute: lambda filler, node: filler._fill_named(node, 'attr'),
    gast.keyword: lambda filler, node: filler._fill_named(node, 'arg'),
}


def _parsed(template):
    module = _TEMPLATE_CACHE.get(template)
    if module is None:
        module = ast_convert.ast_to_gast(ast.parse(textwrap.dedent(template)))
        _TEMPLATE_CACHE[template] = module
    return module


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
    for stmt in _parsed(template).body:
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
