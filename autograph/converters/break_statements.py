"""Lowers `break` (and loop `else` clauses) into a flag variable and guards."""

import gast

from autograph.converters import exit_lowering
from autograph.operators.variables import Symbol
from autograph.pyct import gast_util
from autograph.pyct import templates
from autograph.pyct import transformer


class BreakTransformer(transformer.Base):
    """Replaces `break` with `break_ = True` and stops the loop on the flag.

    `while test: body else: orelse` with a break becomes::

        break_ = False
        while not break_ and test:
            body (break -> break_ = True; statements after it guarded by `if not break_`)
        if not break_:
            orelse

    For loops get `not break_` as an extra loop test instead. A loop `else` without a break
    simply moves after the loop.
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
        orelse = node.orelse
        node.orelse = []
        flag = exit_lowering.lower_loop_body(node, gast.Break, self.ctx.namer, 'break_')
        if flag is None:
            return [node] + orelse
        self.ctx.generated_symbols[flag] = Symbol.BREAK
        if isinstance(node, gast.While):
            node.test = templates.replace_as_expression(
                'not flag and test', flag=flag, test=node.test)
        else:
            gast_util.add_extra_loop_test(
                node, templates.replace_as_expression('not flag', flag=flag))
        result = templates.replace('flag = False', flag=flag) + [node]
        if orelse:
            result += templates.replace('if not flag:\n    orelse', flag=flag, orelse=orelse)
        return result


def transform(node, ctx):
    """Lowers the break statements and loop else clauses of a tree.

    Args:
      node: a gast tree.
      ctx: transformer.EntityInfo.

    Returns:
      The converted tree.
    """
    return BreakTransformer(ctx).visit(node)
