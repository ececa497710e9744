"""Converts conditional expressions `a if c else b` into `ag__.if_exp` calls."""

import linecache

from autograph.pyct import gast_util
from autograph.pyct import parser
from autograph.pyct import templates
from autograph.pyct import transformer


class ConditionalExpressionTransformer(transformer.Base):
    """`a if c else b` -> `ag__.if_exp(c, lambda: a, lambda: b, 'c')`."""

    def visit_ClassDef(self, node):
        return node

    def visit_IfExp(self, node):
        expr_repr = _source_of(node.test, self.ctx.filename)
        self.generic_visit(node)
        return templates.replace_as_expression(
            'ag__.if_exp(test, lambda: true_expr, lambda: false_expr, expr_repr)',
            test=node.test, true_expr=node.body, false_expr=node.orelse,
            expr_repr=gast_util.constant(expr_repr))


def _source_of(node, filename):
    """The user's text of an expression (read from linecache), or its unparsed form."""
    lineno = getattr(node, 'lineno', None)
    if lineno is not None and node.end_lineno == lineno:
        line = linecache.getline(filename, lineno)
        # Column offsets count UTF-8 bytes.
        text = line.encode('utf-8')[node.col_offset:node.end_col_offset].decode(
            'utf-8', 'replace')
        if text:
            return text
    return parser.unparse(node).strip()


def transform(node, ctx):
    """Converts the conditional expressions of a tree.

    Args:
      node: a gast tree.
      ctx: transformer.EntityInfo.

    Returns:
      The converted tree.
    """
    return ConditionalExpressionTransformer(ctx).visit(node)
