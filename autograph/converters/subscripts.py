"""Converts `table[i]` (a name subscripted by an index) into `ag__.get_item(table, i)`, and
`table[i][j]` into `ag__.get_item(ag__.get_item(table, i), j)`.

A Python list, tuple or dict of numbers read at a staged index (a global table, an argument
or a local list: `array[mid]` in a binary search) is a staged lookup
(`operators/constant_tables.py`); every other subscript runs as Python runs it. Slices,
subscripts of other expressions and assignment targets are left alone; a slice of a name
with a bound that is not a constant, `xs[k:]`, becomes `ag__.get_slice(xs, k, None, None,
'xs')` (a Python list sliced at a staged bound is a staged list).
"""

import gast

from autograph.pyct import anno
from autograph.pyct import gast_util
from autograph.pyct import templates
from autograph.pyct import transformer


class SubscriptTransformer(transformer.Base):
    """`table[i]` (Load, `i` not a slice) -> `ag__.get_item(table, i)`."""

    def visit_ClassDef(self, node):
        return node

    def visit_Subscript(self, node):
        self.generic_visit(node)
        if not (isinstance(node.ctx, gast.Load) and (
                isinstance(node.value, gast.Name)
                and not anno.hasanno(node.value, anno.Basic.GENERATED)
                or _is_get_item(node.value))):
            return node
        if isinstance(node.slice, gast.Slice):
            return self._slice(node)
        if any(isinstance(n, gast.Slice) for n in gast.walk(node.slice)):
            return node
        call = templates.replace_as_expression(
            'ag__.get_item(container, key)', container=node.value, key=node.slice)
        anno.setanno(call, anno.Basic.ITEM_READ, True)
        return call

    def _slice(self, node):
        """`xs[a:b:c]` of a name with a bound that is not a constant ->
        `ag__.get_slice(xs, a, b, c, 'xs')`: a list sliced at a staged bound stages."""
        bounds = (node.slice.lower, node.slice.upper, node.slice.step)
        if not isinstance(node.value, gast.Name) or all(_constant(b) for b in bounds):
            return node
        return templates.replace_as_expression(
            'ag__.get_slice(container, lower, upper, step, name)', container=node.value,
            lower=_or_none(bounds[0]), upper=_or_none(bounds[1]), step=_or_none(bounds[2]),
            name=gast_util.constant(node.value.id))


def _constant(node):
    """Whether a slice bound is absent or a literal number (`1`, `-1`)."""
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
        node = node.operand
    return node is None or isinstance(node, gast.Constant)


def _or_none(node):
    return gast_util.constant(None) if node is None else node


def _is_get_item(node):
    """Whether `node` is a get_item call generated here: `table[i][j]` reads row `i` of a
    table, then its element `j`."""
    return anno.hasanno(node, anno.Basic.ITEM_READ)


def transform(node, ctx):
    """Converts the subscripts of names in a tree.

    Args:
      node: a gast tree.
      ctx: transformer.EntityInfo.

    Returns:
      The converted tree.
    """
    return SubscriptTransformer(ctx).visit(node)
