"""Fast conversion between `ast` and `gast` trees; gast -> ast also fills missing locations.

gast's own translators build every node through a dict comprehension of `hasattr`/`getattr`
calls and its constructor, and find each visit method by name; for a 2,000-line function that
was a sixth of conversion. These subclasses keep gast's special cases (its `visit_Name`,
`visit_arguments`, ... for the node kinds that differ between the two trees) and replace the
dispatch and the generic one-to-one case: the special method, target class and fields are
found once per node class, and a node is made without its constructor (its fields go straight
into its `__dict__`, where the constructor would put them). The result is the tree gast would
build; gast -> ast also gives it the locations `ast.fix_missing_locations` would, in the same
pass (every caller compiles or unparses it).
"""

import ast
import sys

import gast
from gast import ast3 as _gast_ast3

_AST = ast.AST
_list = list
_ABSENT = object()
_CONSTANT_SHIM = getattr(ast.NodeVisitor, 'visit_Constant', None)


def _special_visit(translator_class, node_class):
    """The visit method of `translator_class` for `node_class`, or None for a plain copy."""
    method = getattr(translator_class, 'visit_' + node_class.__name__, None)
    if method is _CONSTANT_SHIM:  # ast's shim for the removed visit_Num & co
        return None
    return method


def _copy_fields(visit, node, into):
    """Stores in the dict `into` the translated values of `node`'s fields (absent ones left
    out, as gast does)."""
    for field in node._fields:
        value = getattr(node, field, _ABSENT)
        if type(value) is _list:
            value = [visit(v) if isinstance(v, _AST) else v for v in value]
        elif isinstance(value, _AST):
            value = visit(value)
        elif value is _ABSENT:
            continue
        into[field] = value


class _Translator(object):
    """What both directions share: a list-aware `_visit` for gast's special cases."""

    def _visit(self, node):
        if isinstance(node, _AST):
            return self.visit(node)
        if type(node) is _list:
            visit = self.visit
            return [visit(n) if isinstance(n, _AST) else n for n in node]
        return node


_GAST_CTX = {ast.Load: gast.Load, ast.Store: gast.Store, ast.Del: gast.Del}
_GAST_NAME = gast.Name
_LOCATION = ('lineno', 'col_offset', 'end_lineno', 'end_col_offset')


class _ToGast(_Translator, _gast_ast3.Ast3ToGAst):
    """ast -> gast."""

    _plans = {}  # ast class -> (special visit method or None, gast class or None)

    def visit(self, node):
        plan = self._plans.get(node.__class__)
        if plan is None:
            plan = self._plans[node.__class__] = (
                _special_visit(_ToGast, node.__class__),
                getattr(gast, node.__class__.__name__, None))
        if plan[0] is not None:
            return plan[0](self, node)
        return self._copy(node, plan[1])

    def generic_visit(self, node):  # gast's special cases fall back on it
        return self._copy(node, getattr(gast, node.__class__.__name__, None))

    def _copy(self, node, target):
        if target is None:  # not a node of the target tree (as gast does: dropped)
            return None
        new_node = target.__new__(target)
        values = new_node.__dict__
        _copy_fields(self.visit, node, values)
        for attr in node._attributes:
            value = getattr(node, attr, None)
            if value is not None:
                values[attr] = value
        return new_node

    def visit_Name(self, node):
        # gast's visit_Name without the generic visit of `ctx`
        ctx = _GAST_CTX.get(node.ctx.__class__)
        if ctx is None:
            return _gast_ast3.Ast3ToGAst.visit_Name(self, node)
        new_node = _GAST_NAME.__new__(_GAST_NAME)
        values = new_node.__dict__
        values.update(id=node.id, ctx=ctx.__new__(ctx), annotation=None, type_comment=None)
        for attr in _LOCATION:
            value = getattr(node, attr, None)
            if value is not None or (attr[0] == 'e' and hasattr(node, attr)):
                values[attr] = value  # ast.copy_location's rule
        return new_node


# CPython's parser shares one instance of each context too.
_AST_CTX = {gast.Load: ast.Load(), gast.Store: ast.Store(), gast.Del: ast.Del()}
_AST_NAME = ast.Name
# the location inherited at the root, as in ast.fix_missing_locations
_ROOT_LOCATION = {'lineno': 1, 'col_offset': 0, 'end_lineno': 1, 'end_col_offset': 0}


def _location(node, outer):
    """The location of `node`: its own attributes, and those of `outer` where it has none.

    Args:
      node: a gast node.
      outer: the location it inherits, a dict of the four attributes.

    Returns:
      A dict of the four attributes (`outer` itself when `node` has none of its own).
    """
    lineno = getattr(node, 'lineno', None)
    col = getattr(node, 'col_offset', None)
    end_lineno = getattr(node, 'end_lineno', None)
    end_col = getattr(node, 'end_col_offset', None)
    if lineno is None and col is None and end_lineno is None and end_col is None:
        return outer
    return {'lineno': outer['lineno'] if lineno is None else lineno,
            'col_offset': outer['col_offset'] if col is None else col,
            'end_lineno': outer['end_lineno'] if end_lineno is None else end_lineno,
            'end_col_offset': outer['end_col_offset'] if end_col is None else end_col}


class _ToAst(_Translator, _gast_ast3.GAstToAst3):
    """gast -> ast, every node located as ast.fix_missing_locations would locate it."""

    # gast class -> (special visit method or None, ast class or None, whether it is located)
    _plans = {}

    def __init__(self):
        # the location that a node without its own inherits: its nearest located ancestor's
        # (each of the four attributes on its own)
        self.loc = _ROOT_LOCATION

    def visit(self, node):
        plan = self._plans.get(node.__class__)
        if plan is None:
            target = getattr(ast, node.__class__.__name__, None)
            plan = self._plans[node.__class__] = (
                _special_visit(_ToAst, node.__class__), target,
                target is not None and 'lineno' in target._attributes)
        special, target, located = plan
        if not located:
            return self._copy(node, target) if special is None else special(self, node)
        outer = self.loc
        loc = self.loc = _location(node, outer)
        # gast's special cases copy the node's own location, and `loc` has it too
        new_node = self._copy(node, target) if special is None else special(self, node)
        new_node.__dict__.update(loc)
        self.loc = outer
        return new_node

    def generic_visit(self, node):  # gast's special cases fall back on it
        return self._copy(node, getattr(ast, node.__class__.__name__, None))

    def _copy(self, node, target):
        if target is None:  # not a node of the target tree (as gast does: dropped)
            return None
        new_node = target.__new__(target)
        _copy_fields(self.visit, node, new_node.__dict__)
        return new_node

    def _make_arg(self, node):
        # gast's visit_arguments makes each ast.arg here, not through `visit`
        if node is None:
            return None
        outer = self.loc
        loc = self.loc = _location(node, outer)
        new_node = _gast_ast3.GAstToAst3._make_arg(self, node)
        new_node.__dict__.update(loc)
        self.loc = outer
        return new_node

    def visit_Name(self, node):
        # gast's visit_Name, without the generic visits of `id` and `ctx` (a name is a third
        # of all nodes); `visit` sets the location
        ctx = _AST_CTX.get(node.ctx.__class__)
        if ctx is None:  # gast.Param only appears in arguments, which gast converts itself
            return _gast_ast3.GAstToAst3.visit_Name(self, node)
        new_node = _AST_NAME.__new__(_AST_NAME)
        values = new_node.__dict__
        values['id'] = node.id
        values['ctx'] = ctx
        return new_node

    def visit_Load(self, node):
        return _AST_CTX[gast.Load]

    def visit_Store(self, node):
        return _AST_CTX[gast.Store]

    def visit_Del(self, node):
        return _AST_CTX[gast.Del]


# gast class -> (ast class, whether it is located, the fields holding nodes to convert,
# special or None), or None for an ast class (a node met again: converted already); see
# gast_to_ast_in_place
_IN_PLACE_PLANS = {}


def _in_place_plan(cls):
    if cls.__module__ == 'ast':
        plan = None
    else:
        target = getattr(ast, cls.__name__, None)
        if target is None:
            raise TypeError('%s nodes cannot be compiled by Python %d.%d'
                            % (cls.__name__, sys.version_info[0], sys.version_info[1]))
        special = _IN_PLACE_SPECIAL.get(target)
        fields = ('kw_defaults', 'defaults') if target is ast.arguments else target._fields
        plan = (target, 'lineno' in target._attributes, fields, special)
    _IN_PLACE_PLANS[cls] = plan
    return plan


def _located(values, outer):
    """The location of a node whose fields are `values`: its own attributes, and those of
    `outer` (a tuple in _LOCATION's order) where it has none, which are set in `values`."""
    loc = (values.get('lineno'), values.get('col_offset'), values.get('end_lineno'),
           values.get('end_col_offset'))
    if None not in loc:
        return loc
    if loc == _UNLOCATED:  # most generated nodes
        loc = outer
    else:
        loc = tuple(o if v is None else v for v, o in zip(loc, outer))
    (values['lineno'], values['col_offset'], values['end_lineno'],
     values['end_col_offset']) = loc
    return loc


_UNLOCATED = (None, None, None, None)


def _name_in_place(values, loc, push):
    ctx = _AST_CTX.get(values['ctx'].__class__)
    if ctx is not None:  # gast.Param only appears in arguments, which convert their names
        values['ctx'] = ctx


def _except_handler_in_place(values, loc, push):
    name = values.get('name')
    if name:  # a gast.Name; ast's is a str
        values['name'] = name.id


def _arguments_in_place(values, loc, push):
    # gast's parameters are Names (context Param); ast's are ast.arg, located in the same way
    for field in ('posonlyargs', 'args', 'vararg', 'kwonlyargs', 'kwarg'):
        value = values.get(field)
        if value is None:
            continue
        for arg in value if type(value) is _list else (value,):
            arg_values = arg.__dict__
            arg_loc = _located(arg_values, loc)
            arg.__class__ = ast.arg
            arg_values['arg'] = arg_values['id']
            annotation = arg_values.get('annotation')
            if annotation is not None:
                push((annotation, arg_loc))


_IN_PLACE_SPECIAL = {ast.Name: _name_in_place, ast.ExceptHandler: _except_handler_in_place,
                     ast.arguments: _arguments_in_place}
# gast context or operator class -> the one ast instance of it that every node shares
_FIELDLESS_AST = {cls: getattr(ast, cls.__name__)() for cls in vars(gast).values()
                  if isinstance(cls, type) and cls.__module__.startswith('gast')
                  and issubclass(cls, (gast.expr_context, gast.operator, gast.boolop,
                                       gast.unaryop, gast.cmpop))
                  and not cls._fields and hasattr(ast, cls.__name__)}
_FIELDLESS_AST.update((cls, _AST_CTX[cls]) for cls in _AST_CTX)


def gast_to_ast_in_place(node):
    """`gast_to_ast` without copies: each node's class becomes its ast class (the gast tree
    is consumed; what gast has in addition, as a Name's annotation, stays unread), the kinds
    that differ are adjusted, contexts and operators become shared instances as CPython's
    parser makes them, and a node met twice (shared) is converted once.

    Args:
      node: a gast node; its tree must not be used as gast afterwards.

    Returns:
      The ast node (`node` itself, unless it is a context or an operator).
    """
    leaves = _FIELDLESS_AST
    if node.__class__ in leaves:
        return leaves[node.__class__]
    plans = _IN_PLACE_PLANS
    todo = [(node, _ROOT_TUPLE)]
    push = todo.append
    pop = todo.pop
    while todo:
        n, outer = pop()
        if n.__class__ is _GAST_NAME:  # a third of all nodes: its plan, inlined
            values = n.__dict__
            _located(values, outer)
            n.__class__ = _AST_NAME
            ctx = _AST_CTX.get(values['ctx'].__class__)
            if ctx is not None:  # as _name_in_place does
                values['ctx'] = ctx
            continue
        plan = plans.get(n.__class__, _MISSING_PLAN)
        if plan is _MISSING_PLAN:
            plan = _in_place_plan(n.__class__)
        if plan is None:
            continue
        target, located, fields, special = plan
        values = n.__dict__
        loc = _located(values, outer) if located else outer
        n.__class__ = target
        if special is not None:
            special(values, loc, push)
        for field in fields:
            value = values.get(field)
            if type(value) is _list:
                has_leaves = False
                for item in value:
                    if isinstance(item, _AST):
                        if item.__class__ in leaves:
                            has_leaves = True  # a comparison's operators
                        else:
                            push((item, loc))
                if has_leaves:
                    value[:] = [leaves.get(item.__class__, item) for item in value]
            elif isinstance(value, _AST):
                leaf = leaves.get(value.__class__)
                if leaf is None:
                    push((value, loc))
                else:
                    values[field] = leaf
    return node


_ROOT_TUPLE = (1, 0, 1, 0)  # _ROOT_LOCATION in _LOCATION's order
_MISSING_PLAN = object()


def gast_node(cls, **fields):
    """Returns a gast node of class `cls` with `fields`, made as gast's constructor makes it.

    gast's constructor is a Python function (about a microsecond a node); generated code
    makes tens of thousands of nodes.
    """
    node = cls.__new__(cls)
    node.__dict__.update(fields)
    return node


def ast_to_gast(node):
    """`gast.ast_to_gast`, faster."""
    return _ToGast().visit(node)


# ast class -> (gast class, the fields holding nodes to convert, special or None), or None for
# a gast class (a node met again: converted already); see ast_to_gast_in_place
_TO_GAST_PLANS = {}
_GAST_PARAM = gast.Param
_GAST_STORE = gast.Store


def _to_gast_plan(cls):
    if cls.__module__.startswith('gast'):
        plan = None
    else:
        special = _TO_GAST_SPECIAL.get(cls)
        fields = cls._fields
        if cls is ast.arg:
            target, fields = _GAST_NAME, ('annotation',)
        else:
            target = getattr(gast, cls.__name__)
            if 'type_params' in target._fields and 'type_params' not in fields:
                special = _add_type_params  # gast's, before Python 3.12
        plan = (target, fields, special)
    _TO_GAST_PLANS[cls] = plan
    return plan


def _arg_to_gast(values):
    values['id'] = values.pop('arg')
    values['ctx'] = _GAST_PARAM.__new__(_GAST_PARAM)


def _except_handler_to_gast(values):
    name = values.get('name')
    if name:  # a str; gast's is a Name, without a location
        values['name'] = gast_node(_GAST_NAME, id=name, ctx=_GAST_STORE.__new__(_GAST_STORE),
                                   annotation=None, type_comment=None)


def _add_type_params(values):
    values['type_params'] = []


_TO_GAST_SPECIAL = {ast.arg: _arg_to_gast, ast.ExceptHandler: _except_handler_to_gast}
# ast classes that a tree's own nodes cannot become: contexts and operators (CPython's parser
# shares one instance of each between all trees; gast has one per node) and the kinds that
# gast translates specially on this Python version other than those above; they are copied
# (the names of the classes _ToGast has a visit method for: a cheap test first, at import)
_TO_GAST_VISITED = frozenset(name[6:] for klass in _ToGast.__mro__ for name in vars(klass)
                             if name.startswith('visit_'))
_TO_GAST_COPIED = frozenset(
    [c for c in vars(ast).values() if isinstance(c, type) and issubclass(c, ast.AST)
     and not c._fields and issubclass(c, (ast.expr_context, ast.operator, ast.boolop,
                                          ast.unaryop, ast.cmpop))]
    + [c for c in vars(ast).values() if isinstance(c, type) and issubclass(c, ast.AST)
       and c not in (ast.Name, ast.arg, ast.ExceptHandler, ast.FunctionDef,
                     ast.AsyncFunctionDef, ast.ClassDef)
       and c.__name__ in _TO_GAST_VISITED and _special_visit(_ToGast, c) is not None])


def ast_to_gast_in_place(node):
    """`ast_to_gast`, made of the ast tree's own nodes: the ast tree is consumed.

    Each node's class becomes its gast class and the kinds that differ are adjusted
    (a parameter becomes a Name, a Name gains gast's fields); contexts and operators, which
    CPython's parser shares between trees, are copied. The same tree as ast_to_gast makes, in
    half of its time (the 2,000-line growth function: 19.6 -> 9.5 ms).

    Args:
      node: an ast node from `ast.parse`, not shared with other trees (a tree that is kept
        must be copied with ast_to_gast); it must not be used as ast afterwards.

    Returns:
      The gast node (`node` itself, unless it is copied).
    """
    copied = _TO_GAST_COPIED
    if node.__class__ in copied:
        return ast_to_gast(node)
    plans = _TO_GAST_PLANS
    todo = [node]
    push = todo.append
    pop = todo.pop
    while todo:
        n = pop()
        values = n.__dict__
        if n.__class__ is _AST_NAME:  # a third of all nodes: its plan, inlined
            n.__class__ = _GAST_NAME
            ctx = _GAST_CTX[values['ctx'].__class__]
            values['ctx'] = ctx.__new__(ctx)
            values['annotation'] = values['type_comment'] = None
            continue
        plan = plans.get(n.__class__, _MISSING_PLAN)
        if plan is _MISSING_PLAN:
            plan = _to_gast_plan(n.__class__)
        if plan is None:
            continue
        target, fields, special = plan
        n.__class__ = target
        if special is not None:
            special(values)
        for field in fields:
            value = values.get(field)
            if type(value) is _list:
                for k, item in enumerate(value):
                    if isinstance(item, _AST):
                        if item.__class__ in copied:
                            value[k] = ast_to_gast(item)
                        else:
                            push(item)
            elif isinstance(value, _AST):
                if value.__class__ in copied:
                    values[field] = ast_to_gast(value)
                else:
                    push(value)
    return node


def gast_to_ast(node):
    """`gast.gast_to_ast` then `ast.fix_missing_locations`, in one faster pass.

    Every node gets a location: its own, or else its nearest located ancestor's (line 1,
    column 0 at the root). The result compiles (and unparses) as is.

    Args:
      node: a gast node.

    Returns:
      The ast node.
    """
    return _ToAst().visit(node)
