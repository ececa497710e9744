"""Fast conversion between `ast` and `gast` trees, and a fast `fix_missing_locations`.

gast's own translators build every node through a dict comprehension of `hasattr`/`getattr`
calls and find each visit method by name; for a 2,000-line function that was a sixth of
conversion. These subclasses keep gast's special cases (its `visit_Name`, `visit_arguments`,
... for the node kinds that differ between the two trees) and replace only the dispatch and
the generic one-to-one case, with the target class and field names computed once per node
class. The result is the tree gast would build.
"""

import ast

import gast
from gast import ast3 as _gast_ast3

_AST = ast.AST
_list = list


def _fast_translator(base, target_module):
    """Returns a subclass of the gast translator `base` with fast dispatch and copying."""
    plans = {}  # source node class -> (target class, fields, attributes) or None

    def plan_for(cls):
        target = getattr(target_module, cls.__name__, None)
        plan = None if target is None else (target, cls._fields, cls._attributes)
        plans[cls] = plan
        return plan

    dispatch = {}  # source node class -> gast's special visit method, or None
    to_gast = target_module is gast

    class Translator(base):

        def visit(self, node):
            cls = node.__class__
            try:
                method = dispatch[cls]
            except KeyError:
                # gast's special case, or a faster one of a subclass
                method = getattr(self.__class__, 'visit_' + cls.__name__, None)
                if method is _CONSTANT_SHIM:  # ast's shim for the removed visit_Num & co
                    method = None
                dispatch[cls] = method
            if method is None:
                return self.generic_visit(node)
            return method(self, node)

        def _visit(self, node):
            if isinstance(node, _AST):
                return self.visit(node)
            if type(node) is _list:
                visit = self.visit
                return [visit(n) if isinstance(n, _AST) else n for n in node]
            return node

        def generic_visit(self, node):
            cls = node.__class__
            try:
                plan = plans[cls]
            except KeyError:
                plan = plan_for(cls)
            if plan is None:  # not a node of the target tree (as gast does: dropped)
                return None
            target, fields, attributes = plan
            _visit = self._visit
            values = {f: _visit(getattr(node, f)) for f in fields if hasattr(node, f)}
            if to_gast:
                # what gast's constructor does with keywords, without calling it
                new_node = target.__new__(target)
                new_node.__dict__.update(values)
            else:
                new_node = target(**values)
            for attr in attributes:
                value = getattr(node, attr, None)
                if value is not None:
                    setattr(new_node, attr, value)
            return new_node

    return Translator


_CONSTANT_SHIM = getattr(ast.NodeVisitor, 'visit_Constant', None)
_LOCATION = ('lineno', 'col_offset', 'end_lineno', 'end_col_offset')


def _copy_location(new_node, node):
    """ast.copy_location, for a source node with all four location attributes."""
    for attr in _LOCATION:
        value = getattr(node, attr, None)
        if value is not None or (attr[0] == 'e' and hasattr(node, attr)):
            setattr(new_node, attr, value)
    return new_node


_ToGastBase = _fast_translator(_gast_ast3.Ast3ToGAst, gast)
_GAST_CTX = {ast.Load: gast.Load, ast.Store: gast.Store, ast.Del: gast.Del}
_GAST_NAME = gast.Name


class _ToGast(_ToGastBase):

    def visit_Name(self, node):
        # gast's visit_Name without the generic visit of `ctx` or gast's constructor
        ctx = _GAST_CTX.get(node.ctx.__class__)
        if ctx is None:
            return _ToGastBase.visit_Name(self, node)
        new_node = _GAST_NAME.__new__(_GAST_NAME)
        new_node.__dict__.update(id=node.id, ctx=ctx.__new__(ctx), annotation=None,
                                 type_comment=None)
        return _copy_location(new_node, node)


_ToAstBase = _fast_translator(_gast_ast3.GAstToAst3, ast)
_AST_CTX = {gast.Load: ast.Load, gast.Store: ast.Store, gast.Del: ast.Del}


class _ToAst(_ToAstBase):

    def visit_Name(self, node):
        # gast's visit_Name, without the generic visits of `id` and `ctx` and with
        # ast.copy_location's rule inlined (a name is a third of all nodes)
        ctx = _AST_CTX.get(node.ctx.__class__)
        if ctx is None:  # gast.Param only appears in arguments, which gast converts itself
            return _ToAstBase.visit_Name(self, node)
        return _copy_location(ast.Name(node.id, ctx()), node)


def ast_to_gast(node):
    """`gast.ast_to_gast`, faster."""
    return _ToGast().visit(node)


def gast_to_ast(node):
    """`gast.gast_to_ast`, faster."""
    return _ToAst().visit(node)


def fix_missing_locations(node):
    """`ast.fix_missing_locations`, faster: fills in locations missing from `node`'s tree.

    A node without a line number gets its parent's location (the root's default is line 1,
    column 0), as in `ast.fix_missing_locations`.

    Args:
      node: an ast node.

    Returns:
      `node`.
    """
    stack = [(node, 1, 0, 1, 0)]
    pop = stack.pop
    push = stack.append
    while stack:
        n, lineno, col, end_lineno, end_col = pop()
        if 'lineno' in n._attributes:
            value = getattr(n, 'lineno', None)
            if value is None:
                n.lineno = lineno
            else:
                lineno = value
            value = getattr(n, 'end_lineno', None)
            if value is None:
                n.end_lineno = end_lineno
            else:
                end_lineno = value
            value = getattr(n, 'col_offset', None)
            if value is None:
                n.col_offset = col
            else:
                col = value
            value = getattr(n, 'end_col_offset', None)
            if value is None:
                n.end_col_offset = end_col
            else:
                end_col = value
        for field in n._fields:
            value = getattr(n, field, None)
            if type(value) is _list:
                for item in value:
                    if isinstance(item, _AST):
                        push((item, lineno, col, end_lineno, end_col))
            elif isinstance(value, _AST):
                push((value, lineno, col, end_lineno, end_col))
    return node
