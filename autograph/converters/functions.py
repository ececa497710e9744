"""Wraps function bodies in a FunctionScope, and prepares the converted entity's signature."""

import gast

from autograph.pyct import anno
from autograph.pyct import gast_util
from autograph.pyct import templates
from autograph.pyct import transformer

ConvAnno = transformer.ConvAnno


class FunctionTransformer(transformer.Base):
    """Gives every function a `with ag__.FunctionScope(...) as fscope:` body.

    The converted entity itself loses its decorators, annotations and default values (the
    loader re-attaches the original function's defaults and annotations, which must not be
    evaluated again), and is renamed `tf__<name>`. Lambdas get no scope of their own: they
    use the enclosing function's, or `ag__.with_function_scope` for a top-level lambda.
    """

    # Nested lambdas need nothing from this converter (call_trees gives them the enclosing
    # function's scope); only statements, and a lambda entity itself, are visited.
    statements_only = True

    def __init__(self, ctx):
        super().__init__(ctx)
        # stack of the FunctionScope variable names of the enclosing functions
        self._scopes = []

    def visit_ClassDef(self, node):
        return node

    def visit_Lambda(self, node):
        if self._scopes:
            anno.setanno(node, ConvAnno.FUNCTION_SCOPE_NAME, self._scopes[-1])
            node.body = self.visit(node.body)
            return node
        scope_name = self.ctx.namer.new_symbol('lscope')
        self._scopes.append(scope_name)
        node.body = self.visit(node.body)
        self._scopes.pop()
        node.body = templates.replace_as_expression(
            'ag__.with_function_scope(lambda scope_name: body, scope_str)',
            scope_name=scope_name, body=node.body, scope_str=gast_util.constant(scope_name))
        anno.setanno(node, ConvAnno.FUNCTION_SCOPE_NAME, scope_name)
        anno.setanno(node.body.args[0], ConvAnno.FUNCTION_SCOPE_NAME, scope_name)
        return node

    def visit_FunctionDef(self, node):
        is_entity = not self._scopes
        scope_name = self.ctx.namer.new_symbol('fscope')
        self._scopes.append(scope_name)
        if is_entity:
            # Defaults and annotations are evaluated once, by the original def.
            _strip_signature(node)
        node.args = self.visit(node.args) if not is_entity else node.args
        node.decorator_list = [] if is_entity else self.visit_block(node.decorator_list)
        body = node.body
        docstring = []
        if body and gast_util.is_docstring(body[0]):
            docstring, body = [body[0]], body[1:]
        body = self.visit_block(body) or [gast.Pass()]
        self._scopes.pop()
        with_stmt = templates.replace(
            'with ag__.FunctionScope(fn_name, scope_str) as scope_name:\n    body',
            fn_name=gast_util.constant(node.name), scope_str=gast_util.constant(scope_name),
            scope_name=scope_name, body=body)
        transformer.set_missing_locations(with_stmt, node)
        node.body = docstring + with_stmt
        anno.setanno(node, ConvAnno.FUNCTION_SCOPE_NAME, scope_name)
        if is_entity:
            anno.setanno(node, ConvAnno.IS_ENTITY, True)
            # a generated name: the loader names its code after the user's function
            node.name = self.ctx.namer.new_symbol('tf__' + node.name)
        return node

    def visit_AsyncFunctionDef(self, node):
        return node


def _strip_signature(node):
    """Replaces defaults by None and drops annotations; the loader restores the originals."""
    args = node.args
    args.defaults = [gast_util.constant(None) for _ in args.defaults]
    args.kw_defaults = [None if d is None else gast_util.constant(None)
                        for d in args.kw_defaults]
    for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
        if a is not None:
            a.annotation = None
    node.returns = None


def transform(node, ctx):
    """Applies the function-scope conversion.

    Args:
      node: a gast FunctionDef or Lambda (the entity).
      ctx: transformer.EntityInfo.

    Returns:
      The converted node.
    """
    return FunctionTransformer(ctx).visit(node)
