"""The names a block of statements binds at its own scope level.

Used by converters that must know a function's local names (before or after conversion).
A name binds only in a statement's targets (assignments, `for`, `with ... as`, `except ...
as`, `import`, `def`, `class`, `del`), so only those are read; the expressions of a statement
cannot bind, because the converter rejects assignment expressions (`:=`, see
`conversion.check_supported`). Statements of kinds not listed here are searched whole, as a
generic walk would.
"""

import gast

from autograph.pyct import traversal

_DEFINITIONS = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)
# statement class -> its fields that hold binding targets
_TARGETS = {
    gast.Assign: ('targets',), gast.Delete: ('targets',), gast.AugAssign: ('target',),
    gast.AnnAssign: ('target',), gast.For: ('target',), gast.AsyncFor: ('target',),
}
# statements whose other fields are expressions (nothing binds there)
_BLOCK_ONLY = frozenset((
    gast.Expr, gast.Return, gast.Pass, gast.Break, gast.Continue, gast.Raise, gast.Assert,
    gast.If, gast.While, gast.Try, gast.Assign, gast.Delete, gast.AugAssign, gast.AnnAssign,
    gast.For, gast.AsyncFor, gast.With, gast.AsyncWith, gast.ExceptHandler))
_BLOCKS = ('body', 'orelse', 'finalbody', 'handlers')
_SCOPES = _DEFINITIONS + (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp,
                          gast.GeneratorExp)


def level_bindings(stmts):
    """Names that `stmts` bind in their own scope, and names they declare global/nonlocal.

    Nested functions, classes, lambdas and comprehensions are not entered (a def or class
    binds its own name).

    Args:
      stmts: a list of gast statements (a function's body).

    Returns:
      A pair of sets of strings: (bound, declared).
    """
    bound, declared = set(), set()
    stack = list(stmts)
    while stack:
        node = stack.pop()
        cls = node.__class__
        if cls in _BLOCK_ONLY:
            for field in _TARGETS.get(cls, ()):
                value = getattr(node, field)
                for target in value if type(value) is list else (value,):
                    _target_names(target, bound)
            if cls is gast.With or cls is gast.AsyncWith:
                for item in node.items:
                    if item.optional_vars is not None:
                        _target_names(item.optional_vars, bound)
            elif cls is gast.ExceptHandler and node.name is not None:
                _target_names(node.name, bound)
            for field in _BLOCKS:
                block = getattr(node, field, None)
                if block:
                    stack.extend(block)
        elif cls is gast.Global or cls is gast.Nonlocal:
            declared.update(node.names)
        elif cls is gast.Import or cls is gast.ImportFrom:
            bound.update((a.asname or a.name).partition('.')[0] for a in node.names)
        elif isinstance(node, _DEFINITIONS):
            bound.add(node.name)
        else:
            _generic_names(node, bound, declared)
    return bound, declared


def _target_names(target, bound):
    cls = target.__class__
    if cls is gast.Name:
        if not isinstance(target.ctx, gast.Load):
            bound.add(target.id)
    elif cls is gast.Tuple or cls is gast.List:
        for elt in target.elts:
            _target_names(elt, bound)
    elif cls is gast.Starred:
        _target_names(target.value, bound)
    elif cls is not gast.Attribute and cls is not gast.Subscript:
        _generic_names(target, bound, set())


def _generic_names(node, bound, declared):
    """The slow, general search: every node of `node`'s level."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, (gast.Global, gast.Nonlocal)):
            declared.update(n.names)
            continue
        if isinstance(n, _SCOPES):
            if isinstance(n, _DEFINITIONS):
                bound.add(n.name)
            continue
        if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
            bound.add(n.id)
        elif isinstance(n, gast.alias):
            bound.add((n.asname or n.name).partition('.')[0])
        stack.extend(traversal.iter_child_nodes(n))


def bound_anywhere(node):
    """Every name the tree binds anywhere, in any scope within it: assigned, deleted, a
    parameter, a definition, an import, or declared global or nonlocal."""
    names = set()
    for n in traversal.walk(node):
        if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
            names.add(n.id)
        elif isinstance(n, (gast.FunctionDef, gast.ClassDef)):
            names.add(n.name)
        elif isinstance(n, gast.alias):
            names.add((n.asname or n.name).partition('.')[0])
        elif isinstance(n, (gast.Global, gast.Nonlocal)):
            names.update(n.names)
    return names
