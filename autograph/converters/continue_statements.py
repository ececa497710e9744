"""Lowers `continue` into a flag variable and guards."""

import gast

from autograph.converters import exit_lowering
from autograph.pyct import templates
from autograph.pyct import transformer


class ContinueTransformer(transformer.Base):
    """Replaces `continue` with `continue_ = True` and guards the rest of the iteration.

    The flag is reset at the start of every iteration, so it is local to the loop body.
    """

    statements_only = True

    def visit_ClassDef(self, node):
        return node

    def visit_While(self, node):
        return self._visit_loop(node)

    def visit_For(self, node):
        return self._visit_loop(node)

    def _visit_loop(self, node):
        self.generic_visit(node)
        if not exit_lowering.contains(node.body, gast.Continue):
            return node
        flag = self.ctx.namer.new_symbol('continue_')
        lowering = exit_lowering.ExitLowering(
            lambda s: isinstance(s, gast.Continue),
            lambda s: templates.replace('flag = True', flag=flag), flag)
        body, _ = lowering.block(node.body)
        node.body = templates.replace('flag = False', flag=flag) + body
        return node


def transform(node, ctx):
    """Lowers the continue statements of a tree.

    Args:
      node: a gast tree.
      ctx: transformer.EntityInfo.

    Returns:
      The converted tree.
    """
    return ContinueTransformer(ctx).visit(node)
