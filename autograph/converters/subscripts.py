"""Converts `TABLE[i]`, where the function does not assign `TABLE`, into `ag__.get_item`.

A global or closure table of numbers read at a staged index is a staged lookup
(`operators/constant_tables.py`); every other subscript runs as Python runs it. Subscripts
of names the function (or a function, lambda or comprehension inside it) binds, slices,
and assignment targets are left alone.
"""

import gast

from autograph.pyct import bindings
from autograph.pyct import templates
from autograph.pyct import transformer


class SubscriptTransformer(transformer.Base):
    """`TABLE[i]` (Load, `TABLE` free, `i` not a slice) -> `ag__.get_item(TABLE, i)`."""

    def __init__(self, ctx, bound):
        super().__init__(ctx)
        self._bound = bound

    def visit_ClassDef(self, node):
        return node

    def visit_Subscript(self, node):
        self.generic_visit(node)
        if not (isinstance(node.ctx, gast.Load) and isinstance(node.value, gast.Name)
                and node.value.id not in self._bound and node.value.id != 'ag__'):
            return node
        if any(isinstance(n, gast.Slice) for n in gast.walk(node.slice)):
            return node
        return templates.replace_as_expression(
            'ag__.get_item(container, key)', container=node.value, key=node.slice)


def transform(node, ctx):
    """Converts the subscripts of free names in a tree.

    Args:
      node: a gast tree.
      ctx: transformer.EntityInfo.

    Returns:
      The converted tree.
    """
    return SubscriptTransformer(ctx, bindings.bound_anywhere(node)).visit(node)
