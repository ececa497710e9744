"""Fast tree traversal: drop-in replacements for the `ast`/`gast` walkers and visitor bases.

The standard ones look up every field with `iter_fields` (a generator of `getattr` calls),
find the visit method by name on every node, and route `Constant` through a compatibility
shim for the deprecated `visit_Num`/`visit_Str`. Conversion walks each tree a dozen times, so
that overhead was a third of it. These do the same work with the method looked up once per
(visitor class, node class) and plain loops over the fields that may hold nodes (not a
Name's id or a Constant's value).

Semantics are those of `ast.NodeVisitor`, `ast.NodeTransformer`, `ast.walk` and
`ast.iter_child_nodes`, except that a visitor's `visit_X` methods must be defined on its class
(not set on an instance) and the deprecated `visit_Num`-style names are not called.
"""

import collections

import gast

_AST = gast.AST
_list = list


# The fields that hold identifiers, constants, strings or ints (never a node) in gast trees:
# a Name's id, a Constant's value, ... are a third of all fields. Listed by hand: gast's own
# `_field_types` (gast >= 0.6) copy ast's, where an except handler's name is a str (a Name in
# gast).
_LEAF_FIELDS = {
    'Name': ('id', 'type_comment'), 'Constant': ('value', 'kind'), 'Attribute': ('attr',),
    'keyword': ('arg',), 'FunctionDef': ('name', 'type_comment'),
    'AsyncFunctionDef': ('name', 'type_comment'), 'ClassDef': ('name',),
    'Assign': ('type_comment',), 'For': ('type_comment',), 'AsyncFor': ('type_comment',),
    'With': ('type_comment',), 'AsyncWith': ('type_comment',), 'AnnAssign': ('simple',),
    'comprehension': ('is_async',), 'FormattedValue': ('conversion',),
    'Global': ('names',), 'Nonlocal': ('names',), 'ImportFrom': ('module', 'level'),
    'alias': ('name', 'asname'), 'MatchSingleton': ('value',), 'MatchAs': ('name',),
    'MatchStar': ('name',), 'MatchMapping': ('rest',), 'MatchClass': ('kwd_attrs',),
}


def _compute_child_fields(cls):
    leaf_fields = _LEAF_FIELDS.get(cls.__name__, ())
    fields = _CHILD_FIELDS[cls] = tuple(f for f in cls._fields if f not in leaf_fields)
    return fields


# node class -> its fields that may hold nodes (not in _LEAF_FIELDS), in field order
_CHILD_FIELDS = {}


def child_fields(cls):
    """The fields of node class `cls` that may hold nodes, in field order (a tuple)."""
    fields = _CHILD_FIELDS.get(cls)
    return _compute_child_fields(cls) if fields is None else fields


def iter_child_nodes(node):
    """Returns the direct child nodes of `node`, in field order (a list).

    Args:
      node: a gast (or ast) node.

    Returns:
      A list of nodes.
    """
    children = []
    fields = _CHILD_FIELDS.get(node.__class__)
    for field in _compute_child_fields(node.__class__) if fields is None else fields:
        value = getattr(node, field, None)
        if type(value) is _list:
            for item in value:
                if isinstance(item, _AST):
                    children.append(item)
        elif isinstance(value, _AST):
            children.append(value)
    return children


def walk(node):
    """Yields `node` and all its descendants, breadth first (the order of `ast.walk`).

    Args:
      node: a gast (or ast) node.

    Yields:
      Nodes.
    """
    todo = collections.deque([node])
    popleft = todo.popleft
    extend = todo.extend
    while todo:
        node = popleft()
        extend(iter_child_nodes(node))
        yield node


def outermost(node, classes):
    """Returns the descendants of `node` of the given classes, not looking inside them.

    Args:
      node: a gast (or ast) node; itself never part of the result.
      classes: a node class or a tuple of them.

    Returns:
      A list of the nodes of `classes` that have no ancestor of `classes` below `node`,
      the last first: the walk goes depth first from the last child, so the list is the
      reverse of the order in which a visit meets them.
    """
    found = []
    stack = iter_child_nodes(node)
    push = stack.append
    while stack:
        n = stack.pop()
        if isinstance(n, classes):
            found.append(n)
            continue
        fields = _CHILD_FIELDS.get(n.__class__)
        for field in _compute_child_fields(n.__class__) if fields is None else fields:
            value = getattr(n, field, None)
            if type(value) is _list:
                for item in value:
                    if isinstance(item, _AST):
                        push(item)
            elif isinstance(value, _AST):
                push(value)
    return found


def visit_list(visit, items):
    """Visits the nodes of a list: their results spliced in order, or None if none changed.

    A visit that returns a list is spliced in, None drops the node, a node replaces it; items
    that are not nodes stay. Most visits return their node, so the new list is made from the
    first change on.

    Args:
      visit: a visit method.
      items: a list of nodes (and other values).

    Returns:
      A new list, or None when every visit returned its node.
    """
    new_values = None
    for k, value in enumerate(items):
        if isinstance(value, _AST):
            new = visit(value)
            if new is not value:
                if new_values is None:
                    new_values = items[:k]
                if new is None:
                    continue
                if isinstance(new, _AST):
                    new_values.append(new)
                else:
                    new_values.extend(new)
                continue
        if new_values is not None:
            new_values.append(value)
    return new_values


# Node classes that never have nodes below them: contexts, operators, constants, global,
# nonlocal, import aliases, ...
# (Made at import: tested without filling _CHILD_FIELDS for every class, which a conversion
# fills for the classes it meets.)
_CHILDLESS = frozenset(
    c for c in vars(gast).values()
    if isinstance(c, type) and issubclass(c, _AST) and c.__module__.startswith('gast')
    and (not c._fields or set(c._fields) <= set(_LEAF_FIELDS.get(c.__name__, ()))))
# the name of the visit method of each childless class -> the class
_CHILDLESS_VISITS = {'visit_' + c.__name__: c for c in _CHILDLESS}


def leaf_classes(cls):
    """Returns the childless node classes that the visitor class `cls` has no visit method for.

    Visiting such a node does nothing (its generic visit has no children to go through), so
    the generic visits do not call `visit` on one that a field holds alone (contexts,
    operators and constants are 40-47% of the nodes of a parsed module or function); the nodes
    of a list (statements) are always visited.
    """
    # the names defined along the class's MRO (what hasattr finds), read once: every visitor
    # class asks this when it is defined, all of them at import (cheaper than hasattr per name)
    visits = _CHILDLESS_VISITS
    handled = {visits[name] for klass in cls.__mro__ for name in vars(klass) if name in visits}
    return _CHILDLESS - handled


class NodeVisitor(object):
    """`ast.NodeVisitor`, with the visit method cached per node class.

    A field-less node (a context or an operator) is visited only if the visitor has a
    visit method for its class (see leaf_classes).
    """

    # Each subclass gets its own (see __init_subclass__); NodeVisitor has no visit_X method.
    _traversal_dispatch = {}
    _traversal_leaves = _CHILDLESS

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # node class -> this visitor class's visit method for it, filled as nodes are met
        cls._traversal_dispatch = {}
        # the node classes that the generic visits do not visit (see leaf_classes)
        cls._traversal_leaves = leaf_classes(cls)

    def visit(self, node):
        method = self._traversal_dispatch.get(node.__class__) or self.method_for(node.__class__)
        return method(self, node)

    @classmethod
    def method_for(cls, node_class):
        """The visit method (a function) of this visitor class for `node_class`, cached."""
        method = getattr(cls, 'visit_' + node_class.__name__, None)
        if method is None:
            method = cls.generic_visit
        cls._traversal_dispatch[node_class] = method
        return method

    def generic_visit(self, node):
        visit = self.visit
        leaves = self._traversal_leaves
        fields = _CHILD_FIELDS.get(node.__class__)
        for field in _compute_child_fields(node.__class__) if fields is None else fields:
            value = getattr(node, field, None)
            if type(value) is _list:
                for item in value:
                    if isinstance(item, _AST):
                        visit(item)
            elif isinstance(value, _AST) and value.__class__ not in leaves:
                visit(value)


class NodeTransformer(NodeVisitor):
    """`ast.NodeTransformer`, with the visit method cached per node class."""

    def generic_visit(self, node):
        return self.transform_fields(node, child_fields(node.__class__))

    def transform_fields(self, node, fields):
        """Visits the children in `fields` of `node`, replacing them with what visit returns.

        A list field takes the visit of each of its nodes, spliced when the visit returns a
        list and dropped when it returns None; a node field is replaced, or deleted on None.

        Args:
          node: a node.
          fields: names of its fields to visit.

        Returns:
          `node`.
        """
        visit = self.visit
        leaves = self._traversal_leaves
        for field in fields:
            old = getattr(node, field, None)
            if type(old) is _list:
                new_values = visit_list(visit, old)
                if new_values is not None:
                    old[:] = new_values
            elif isinstance(old, _AST) and old.__class__ not in leaves:
                new_node = visit(old)
                if new_node is None:
                    delattr(node, field)
                elif new_node is not old:
                    setattr(node, field, new_node)
        return node
