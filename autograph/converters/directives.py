"""Reads `set_loop_options` directives into loop annotations and removes the calls.

A directive is a call statement whose function is, by identity, `autograph.directives`'s
(`ag.experimental.set_loop_options`, `tf.autograph.experimental.set_loop_options`, or the
function imported under any name). The callee is resolved in the function's globals and
closure when the function is converted, through modules only (as TensorFlow does), so
rebinding the name later is not seen by an already converted function.

The directive must be the first statement of a `while` or `for` body; its arguments become
the loop's `anno.Basic.LOOP_OPTIONS` (option name -> expression), which the control-flow
converter passes to the loop operator as its `opts` dict. The expressions are evaluated
where the loop starts, once.
"""

import inspect
import types

import gast

from autograph import directives
from autograph import errors
from autograph.pyct import anno
from autograph.pyct import bindings
from autograph.pyct import transformer

_LOOPS = (gast.While, gast.For)
_SIGNATURE = inspect.signature(directives.set_loop_options)


class DirectivesTransformer(transformer.Base):
    """Moves each loop's `set_loop_options` call into an annotation of the loop."""

    statements_only = True

    def __init__(self, ctx, tree):
        super().__init__(ctx)
        self._tree = tree
        self._local_names = None  # names bound in the tree (never static), found on first use
        self._loop_depth = 0  # loops enclosing the statement being visited, in this function

    def visit_ClassDef(self, node):
        return node

    def visit_FunctionDef(self, node):
        depth, self._loop_depth = self._loop_depth, 0
        self.generic_visit(node)
        self._loop_depth = depth
        return node

    def visit_While(self, node):
        return self._visit_loop(node)

    def visit_For(self, node):
        return self._visit_loop(node)

    def _visit_loop(self, node):
        if node.body and self._is_directive(node.body[0]):
            call = node.body[0].value
            anno.setanno(node, anno.Basic.LOOP_OPTIONS, self._options(call))
            node.body = node.body[1:] or [gast.Pass()]
        self._loop_depth += 1
        self.generic_visit(node)
        self._loop_depth -= 1
        return node

    def visit_Expr(self, node):
        if self._is_directive(node):
            where = ('it is not the first statement of its loop body' if self._loop_depth
                     else 'it is outside any loop')
            raise errors.DirectiveError(
                'set_loop_options at {} must be the first statement of a while or for loop '
                'body, but {}: it sets the options of the loop whose body it starts. Move it '
                'to the top of the loop body.'.format(self._site(node), where))
        return self.generic_visit(node)

    def _site(self, node):
        return '{}:{}'.format(self.ctx.filename, getattr(node, 'lineno', '?'))

    def _is_directive(self, stmt):
        if not (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)):
            return False
        found = self._static_value(stmt.value.func) is directives.set_loop_options
        chain = _chain(stmt.value.func)
        if chain is not None:  # what this conversion read from the namespace (disk cache)
            self.ctx.directive_checks.append((chain, found))
        return found

    def _static_value(self, node):
        """The object an expression names through globals, closure and module attributes."""
        if isinstance(node, gast.Name):
            value = self.ctx.namespace.get(node.id)
            if value is None:
                return None
            if self._local_names is None:
                self._local_names = bindings.bound_anywhere(self._tree)
            return None if node.id in self._local_names else value
        if isinstance(node, gast.Attribute):
            parent = self._static_value(node.value)
            if isinstance(parent, types.ModuleType):
                return getattr(parent, node.attr, None)
        return None

    def _options(self, call):
        """Maps the directive's arguments to {option name: expression}."""
        if any(isinstance(a, gast.Starred) for a in call.args) or any(
                k.arg is None for k in call.keywords):
            raise errors.DirectiveError(
                'set_loop_options at {} takes its options as keywords (maximum_iterations=...); '
                '*args and **kwargs are not supported there.'.format(self._site(call)))
        try:
            bound = _SIGNATURE.bind(*call.args, **{k.arg: k.value for k in call.keywords})
        except TypeError as e:
            raise errors.DirectiveError(
                'set_loop_options at {}: {}. Its options are {}.'.format(
                    self._site(call), e, ', '.join(directives.LOOP_OPTIONS))) from None
        return dict(bound.arguments)


def _chain(node):
    """The names of a callee `a` or `a.b.c` as a tuple, or None for any other expression."""
    names = []
    while isinstance(node, gast.Attribute):
        names.append(node.attr)
        node = node.value
    if not isinstance(node, gast.Name):
        return None
    names.append(node.id)
    return tuple(reversed(names))


def checks_hold(checks, namespace):
    """Whether the callees a conversion resolved still resolve as they did then.

    A conversion loaded from the disk cache is valid only if each callee it checked is (or is
    not) `set_loop_options` in the function's namespace now, as it was at conversion.

    Args:
      checks: (callee names, was set_loop_options) pairs recorded by the converter.
      namespace: the function's namespace now (a Mapping).

    Returns:
      A bool.
    """
    for chain, found in checks:
        value = namespace.get(chain[0])
        for attr in chain[1:]:
            value = getattr(value, attr, None) if isinstance(value, types.ModuleType) else None
        if (value is directives.set_loop_options) != found:
            return False
    return True


def transform(node, ctx):
    """Reads the directives of a tree into annotations.

    Args:
      node: a gast tree.
      ctx: transformer.EntityInfo (its `namespace` resolves the callee).

    Returns:
      The tree without the directive calls.

    Raises:
      DirectiveError: a misplaced directive, or one with arguments it does not take.
    """
    if not ctx.namespace:
        return node
    return DirectivesTransformer(ctx, node).visit(node)
