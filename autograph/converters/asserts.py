"""Converts `assert` statements into `ag__.assert_stmt` calls."""

from autograph.pyct import templates
from autograph.pyct import transformer


class AssertTransformer(transformer.Base):
    """`assert test, msg` -> `ag__.assert_stmt(test, lambda: msg)`."""

    statements_only = True

    def visit_ClassDef(self, node):
        return node

    def visit_Assert(self, node):
        self.generic_visit(node)
        if node.msg is None:
            return templates.replace('ag__.assert_stmt(test, None)', test=node.test)
        return templates.replace(
            'ag__.assert_stmt(test, lambda: msg)', test=node.test, msg=node.msg)


def transform(node, ctx):
    """Converts the assert statements of a tree.

    Asserts are left alone under `python -O`, where the original ones do not run either.

    Args:
      node: a gast tree.
      ctx: transformer.EntityInfo.

    Returns:
      The converted tree.
    """
    if not __debug__:
        return node
    return AssertTransformer(ctx).visit(node)

