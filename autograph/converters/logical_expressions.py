"""Converts `and`, `or` and `not` into lazy `ag__.and_`, `ag__.or_` and `ag__.not_` calls."""

import gast

from autograph.pyct import templates
from autograph.pyct import transformer

_BOOL_OPS = {gast.And: 'ag__.and_', gast.Or: 'ag__.or_'}


class LogicalExpressionTransformer(transformer.Base):
    """`a and b` -> `ag__.and_(lambda: a, lambda: b)`; `not a` -> `ag__.not_(a)`."""

    def visit_ClassDef(self, node):
        return node

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if not isinstance(node.op, gast.Not):
            return node
        return templates.replace_as_expression('ag__.not_(operand)', operand=node.operand)

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        op = _BOOL_OPS[type(node.op)]
        # Right-associative chain: a and b and c -> and_(a, and_(b, c)).
        result = node.values[-1]
        for value in reversed(node.values[:-1]):
            result = templates.replace_as_expression(
                op + '(lambda: left, lambda: right)', left=value, right=result)
        return result


def transform(node, ctx):
    """Converts the boolean operators of a tree.

    Args:
      node: a gast tree.
      ctx: transformer.EntityInfo.

    Returns:
      The converted tree.
    """
    return LogicalExpressionTransformer(ctx).visit(node)
