"""Lowers `continue` into a flag variable and guards."""

import gast

from autograph.converters import exit_lowering
from autograph.operators.variables import Symbol
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
        flag = exit_lowering.lower_loop_body(node, gast.Continue, self.ctx.namer, 'continue_')
        if flag is not None:
            self.ctx.generated_symbols[flag] = Symbol.CONTINUE
            node.body = templates.replace('flag = False', flag=flag) + node.body
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
