"""Fast tree traversal: drop-in replacements for the `ast`/`gast` walkers and visitor bases.

The standard ones look up every field with `iter_fields` (a generator of `getattr` calls),
find the visit method by name on every node, and route `Constant` through a compatibility
shim for the deprecated `visit_Num`/`visit_Str`. Conversion walks each tree a dozen times, so
that overhead was a third of it. These do the same work with the method looked up once per
(visitor class, node class) and plain loops over `node._fields`.

Semantics are those of `ast.NodeVisitor`, `ast.NodeTransformer`, `ast.walk` and
`ast.iter_child_nodes`, except that a visitor's `visit_X` methods must be defined on its class
(not set on an instance) and the deprecated `visit_Num`-style names are not called.
"""

import collections

import gast

_AST = gast.AST
_list = list


def iter_child_nodes(node):
    """Returns the direct child nodes of `node`, in field order (a list).

    Args:
      node: a gast (or ast) node.

    Returns:
      A list of nodes.
    """
    children = []
    for field in node._fields:
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
      in no particular order.
    """
    found = []
    stack = iter_child_nodes(node)
    push = stack.append
    while stack:
        n = stack.pop()
        if isinstance(n, classes):
            found.append(n)
            continue
        for field in n._fields:
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


# Expression contexts and operators: node classes without fields, nothing below them.
_FIELDLESS = frozenset(
    c for c in vars(gast).values()
    if isinstance(c, type) and issubclass(
        c, (gast.expr_context, gast.operator, gast.boolop, gast.unaryop, gast.cmpop))
    and not c._fields)


def leaf_classes(cls):
    """Returns the field-less node classes that the visitor class `cls` has no visit method for.

    Visiting such a node does nothing (its generic visit has no fields to go through), so the
    generic visits do not call `visit` on them at all: contexts and operators are a third of
    all nodes.
    """
    return frozenset(c for c in _FIELDLESS if not hasattr(cls, 'visit_' + c.__name__))


class NodeVisitor(object):
    """`ast.NodeVisitor`, with the visit method cached per node class.

    A field-less node (a context or an operator) is visited only if the visitor has a
    visit method for its class (see leaf_classes).
    """

    # Each subclass gets its own (see __init_subclass__); NodeVisitor has no visit_X method.
    _traversal_dispatch = {}
    _traversal_leaves = _FIELDLESS

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
        for field in node._fields:
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
        return self.transform_fields(node, node._fields)

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
