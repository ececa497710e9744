"""Routes every call in converted code through `ag__.converted_call`."""

import gast

from autograph.operators import number_methods
from autograph.pyct import anno
from autograph.pyct import gast_util
from autograph.pyct import templates
from autograph.pyct import transformer

ConvAnno = transformer.ConvAnno

# Calls that must run in the caller's own frame, so they are never wrapped.
_FRAME_SENSITIVE = frozenset({'locals', 'globals', 'vars', 'eval', 'exec', 'dir', 'breakpoint'})


class CallTreeTransformer(transformer.Base):
    """`f(a, *b, k=c, **d)` -> `ag__.converted_call(f, (a, *b), {'k': c, **d}, fscope)`.

    A method of Python's numbers (`x.is_integer()`, the names of `number_methods.METHODS`)
    is read through `ag__.method(x, 'is_integer')`, which stages it for a staged `x`.

    Zero-argument `super()` is rewritten to `super(__class__, <first parameter>)`, so that it
    keeps working inside the nested functions that the control-flow converter creates.
    """

    def __init__(self, ctx):
        super().__init__(ctx)
        # stack of (FunctionScope name, first positional parameter or None)
        self._functions = []

    def visit_ClassDef(self, node):
        return node

    def _enter(self, node):
        args = node.args.posonlyargs + node.args.args
        first = args[0].id if args else None
        self._functions.append((anno.getanno(node, ConvAnno.FUNCTION_SCOPE_NAME, None), first))

    def visit_FunctionDef(self, node):
        self._enter(node)
        self.generic_visit(node)
        self._functions.pop()
        return node

    def visit_Lambda(self, node):
        enclosing = self._functions[-1] if self._functions else (None, None)
        scope = anno.getanno(node, ConvAnno.FUNCTION_SCOPE_NAME, enclosing[0])
        self._functions.append((scope, enclosing[1]))
        self.generic_visit(node)
        self._functions.pop()
        return node

    def visit_With(self, node):
        # The items' expressions, not their `as` targets. The FunctionScope item is a call
        # through a generated name with constant arguments: it stays as it is.
        for item in node.items:
            item.context_expr = self.visit(item.context_expr)
        node.body = self.visit_block(node.body)
        return node

    def visit_Call(self, node):
        func = node.func
        if isinstance(func, gast.Name) and func.id == 'super' and not node.args:
            return self._rewrite_super(node)
        self.generic_visit(node)
        if isinstance(func, gast.Name) and func.id in _FRAME_SENSITIVE:
            return node
        if _through_generated_name(func):
            return node
        scope = self._functions[-1][0] if self._functions else None
        if scope is None:
            return node
        if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and (
                func.value.id == scope):
            return node
        if isinstance(func, gast.Attribute) and func.attr in number_methods.METHODS:
            # a method of Python's numbers (`x.is_integer()`), which a staged number lacks
            func = templates.replace_as_expression(
                'ag__.method(value, name)', value=func.value,
                name=gast_util.constant(func.attr))
        args = gast_util.tuple_(node.args)
        if node.keywords:
            kwargs = gast.Dict(keys=[None if k.arg is None else gast_util.constant(k.arg)
                                     for k in node.keywords],
                               values=[k.value for k in node.keywords])
        else:
            kwargs = gast_util.constant(None)
        call = templates.replace_as_expression(
            'ag__.converted_call(func, args, kwargs, scope)',
            func=func, args=args, kwargs=kwargs, scope=scope)
        anno.setanno(call, anno.Basic.CALLEE, call.args[0])  # what activity analysis reads
        return call

    def _rewrite_super(self, node):
        first = self._functions[-1][1] if self._functions else None
        if first is None or node.keywords:
            return node
        node.args = [gast_util.name('__class__'), gast_util.name(first)]
        return node


def _through_generated_name(func):
    """Whether `func` (`ag__.x`, `ag__.x.y`) starts at a name that a converter generated and
    marked (anno.Basic.GENERATED): a generated call, which runs as written."""
    while isinstance(func, gast.Attribute):
        func = func.value
    return isinstance(func, gast.Name) and anno.hasanno(func, anno.Basic.GENERATED)


def transform(node, ctx):
    """Wraps the calls of a tree in `ag__.converted_call`.

    Args:
      node: a gast tree, after the functions converter.
      ctx: transformer.EntityInfo.

    Returns:
      The converted tree.
    """
    return CallTreeTransformer(ctx).visit(node)
