"""Reads `set_loop_options` and `set_list_options` directives and removes the calls.

A directive is a call statement whose function is, by identity, `autograph.directives`'s
(`ag.experimental.set_loop_options`, `tf.autograph.experimental.set_loop_options`,
`ag.experimental.set_list_options`, or the function imported under any name). The callee
is resolved in the function's globals and closure when the function is converted, through
modules only (as TensorFlow does), so rebinding the name later is not seen by an already
converted function.

The directive must be the first statement of a `while` or `for` body; its arguments become
the loop's `anno.Basic.LOOP_OPTIONS` (option name -> expression), which the control-flow
converter passes to the loop operator as its `opts` dict. The expressions are evaluated
where the loop starts, once.

`set_list_options(name, maximum_size=N)` must directly follow an assignment to `name`; that
assignment runs inside `with ag__.list_options('name', maximum_size=N):`, so that the lists
its value makes with a staged size (`ag__.repeat`, `list(range(n))`, a comprehension over a
staged range) know their bound (`operators/list_directives.py`), and each loop after it in
the function gets the option `'list_sizes': {'name': N}`, the bound of the lists its appends
make staged.
"""

import copy
import inspect
import types

import gast

from autograph import directives
from autograph import errors
from autograph.pyct import anno
from autograph.pyct import bindings
from autograph.pyct import gast_util
from autograph.pyct import transformer

_LOOPS = (gast.While, gast.For)
_SIGNATURE = inspect.signature(directives.set_loop_options)
_LIST_SIGNATURE = inspect.signature(directives.set_list_options)
_DIRECTIVES = {directives.set_loop_options: 'set_loop_options',
               directives.set_list_options: 'set_list_options'}
_BLOCKS = ('body', 'orelse', 'finalbody')


class DirectivesTransformer(transformer.Base):
    """Moves each loop's `set_loop_options` call into an annotation of the loop."""

    statements_only = True

    def __init__(self, ctx, tree):
        super().__init__(ctx)
        self._tree = tree
        self._local_names = None  # names bound in the tree (never static), found on first use
        self._loop_depth = 0  # loops enclosing the statement being visited, in this function
        # (name, maximum_size expression, line) of this function's set_list_options
        self._list_bounds = []

    def visit_ClassDef(self, node):
        return node

    def visit_FunctionDef(self, node):
        depth, self._loop_depth = self._loop_depth, 0
        bounds, self._list_bounds = self._list_bounds, []
        self._list_directives(node)
        self.generic_visit(node)
        self._loop_depth, self._list_bounds = depth, bounds
        return node

    def visit_While(self, node):
        return self._visit_loop(node)

    def visit_For(self, node):
        return self._visit_loop(node)

    def _visit_loop(self, node):
        options = {}
        if node.body and self._is_directive(node.body[0]):
            options = self._options(node.body[0].value)
            node.body = node.body[1:] or [gast.Pass()]
        # a list bounded before the loop keeps its bound for the loop's appends
        sizes = [(name, size) for name, size, line in self._list_bounds if line < node.lineno]
        if sizes:
            options['list_sizes'] = gast.Dict(keys=[gast.Constant(n, None) for n, _ in sizes],
                                              values=[copy.deepcopy(s) for _, s in sizes])
        if options:
            anno.setanno(node, anno.Basic.LOOP_OPTIONS, options)
        self._loop_depth += 1
        self.generic_visit(node)
        self._loop_depth -= 1
        return node

    def _list_directives(self, node):
        """Folds each `set_list_options` statement into the assignment before it, in every
        block of `node` (not in nested functions and classes: they are visited on their own).
        """
        for field in _BLOCKS:
            block = getattr(node, field, None)
            if block:
                setattr(node, field, self._fold_list_directives(block))
        for child in gast.iter_child_nodes(node):
            if isinstance(child, (gast.stmt, gast.ExceptHandler, gast.match_case)) and not \
                    isinstance(child, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
                self._list_directives(child)

    def _fold_list_directives(self, block):
        folded = []
        for stmt in block:
            if self._directive(stmt) != 'set_list_options':
                folded.append(stmt)
                continue
            call = stmt.value
            name, options = self._list_options(call)
            previous = folded[-1] if folded else None
            if not _assigns(previous, name):
                raise errors.DirectiveError(
                    'set_list_options at {} must directly follow the assignment that makes '
                    "the list '{}' (`{} = [0] * (n + 1)`): it sets the options of the lists "
                    'that assignment makes. Move it to the line after that assignment.'.format(
                        self._site(call), name, name))
            if 'maximum_size' in options:
                self._list_bounds.append((name, options['maximum_size'], stmt.lineno))
            keywords = [gast.keyword(arg=k, value=copy.deepcopy(v)) for k, v in options.items()]
            with_call = gast_util.generated_call(
                'ag__', 'list_options', [gast.Constant(name, None)], keywords)
            wrapped = gast.With(items=[gast.withitem(context_expr=with_call, optional_vars=None)],
                                body=[previous], type_comment=None)
            folded[-1] = gast.copy_location(wrapped, previous)
        return folded

    def _list_options(self, call):
        """The name and {option: expression} of a set_list_options call."""
        try:
            if any(isinstance(a, gast.Starred) for a in call.args) or any(
                    k.arg is None for k in call.keywords):
                raise TypeError('*args and **kwargs are not supported there')
            bound = _LIST_SIGNATURE.bind(*call.args, **{k.arg: k.value for k in call.keywords})
            target = bound.arguments.pop('target')
            if not isinstance(target, gast.Name):
                raise TypeError('its first argument must be the name of the list variable')
        except TypeError as e:
            raise errors.DirectiveError(
                'set_list_options at {}: {}. Write it as set_list_options(name, '
                'maximum_size=N).'.format(self._site(call), e)) from None
        return target.id, dict(bound.arguments)

    def visit_Expr(self, node):
        if self._directive(node) == 'set_list_options':  # one left in a class body
            raise errors.DirectiveError(
                'set_list_options at {} must directly follow the assignment that makes its '
                'list, in a function body.'.format(self._site(node)))
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
        return self._directive(stmt) == 'set_loop_options'

    def _directive(self, stmt):
        """The name of the directive a statement calls ('set_loop_options', ...), or None."""
        if not (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)):
            return None
        found = _DIRECTIVES.get(_identity(self._static_value(stmt.value.func)))
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


def _identity(value):
    """`value` where it can be a dict key (a directive function), else None."""
    try:
        hash(value)
    except TypeError:
        return None
    return value


def _assigns(stmt, name):
    """Whether `stmt` is `name = ...` (or `name: T = ...`)."""
    if isinstance(stmt, gast.Assign):
        return len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name) and \
            stmt.targets[0].id == name
    return isinstance(stmt, gast.AnnAssign) and stmt.value is not None and isinstance(
        stmt.target, gast.Name) and stmt.target.id == name


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

    A conversion loaded from the disk cache is valid only if each callee it checked is the
    same directive (or none) in the function's namespace now, as it was at conversion.

    Args:
      checks: (callee names, directive name or None) pairs recorded by the converter.
      namespace: the function's namespace now (a Mapping).

    Returns:
      A bool.
    """
    for chain, found in checks:
        value = namespace.get(chain[0])
        for attr in chain[1:]:
            value = getattr(value, attr, None) if isinstance(value, types.ModuleType) else None
        if _DIRECTIVES.get(_identity(value)) != found:
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
