"""Converts `raise` statements: `raise X from Y` -> `raise ag__.raising(X) from Y`.

`ag__.raising` marks the exception as the user's own, so that a staged branch that raises it
while it is traced stages the raise (raised when the branch runs) instead of failing the
trace. An f-string argument of the exception (`ValueError(f'bad n: {n}')`) becomes
`ag__.fstring(...)`, which gives the same string for Python values and lets the backend
format staged values at run time. A bare `raise` (re-raise) is left alone.
"""

import gast

from autograph.converters.asserts import fstring_call
from autograph.pyct import templates
from autograph.pyct import transformer


class RaiseTransformer(transformer.Base):
    """`raise X from Y` -> `raise ag__.raising(X) from Y`."""

    statements_only = True

    def visit_ClassDef(self, node):
        return node

    def visit_Raise(self, node):
        if node.exc is None:
            return node
        exc = node.exc
        if isinstance(exc, gast.Call):
            exc.args = [fstring_call(a) if isinstance(a, gast.JoinedStr) else a
                        for a in exc.args]
        node.exc = templates.replace_as_expression('ag__.raising(exc)', exc=exc)
        return node


def transform(node, ctx):
    """Converts the raise statements of a tree.

    Args:
      node: a gast tree.
      ctx: transformer.EntityInfo.

    Returns:
      The converted tree.
    """
    return RaiseTransformer(ctx).visit(node)
