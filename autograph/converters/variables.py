"""Loads possibly-undefined names through `ag__.ld`, so that reading an Undefined raises."""

import gast

from autograph.pyct import anno
from autograph.pyct import templates
from autograph.pyct import transformer

ConvAnno = transformer.ConvAnno


class VariableAccessTransformer(transformer.Base):
    """`x` (read) -> `ag__.ld(x)`; `x += y` -> `x = ag__.ld(x); x += y`.

    Only names that the control-flow converter gave an `ag__.Undefined` placeholder can
    hold one, so only their loads are wrapped; code marked SKIP (the state getters, which
    must see placeholders) is left alone.
    """

    def __init__(self, ctx):
        super().__init__(ctx)
        # names that may hold an Undefined placeholder
        self._names = ctx.undefined_names

    def visit_ClassDef(self, node):
        return node

    def visit_FunctionDef(self, node):
        if anno.hasanno(node, ConvAnno.SKIP):
            return node
        return self.generic_visit(node)

    def visit_Name(self, node):
        if not isinstance(node.ctx, gast.Load) or node.id not in self._names:
            return node
        return templates.replace_as_expression('ag__.ld(var_)', var_=node)

    def visit_AugAssign(self, node):
        node.value = self.visit(node.value)
        if isinstance(node.target, gast.Name) and node.target.id in self._names:
            check = templates.replace('var_ = ag__.ld(var_)', var_=node.target.id)
            return check + [node]
        node.target = self.visit(node.target)
        return node

    def visit_Nonlocal(self, node):
        return node

    def visit_Global(self, node):
        return node


def transform(node, ctx):
    """Wraps the name loads of a tree in `ag__.ld`.

    Args:
      node: a gast tree, after the control-flow converter.
      ctx: transformer.EntityInfo.

    Returns:
      The converted tree.
    """
    return VariableAccessTransformer(ctx).visit(node)
