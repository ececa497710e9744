"""The names that a list of statements assigns on every path through it that ends normally.

A syntactic and conservative analysis: a name is in the result only when the statements
surely bind it (an assignment at their top level, a function or class definition, an import,
a `with` target, or both branches of a nested `if`). Loops, `try` and `match` contribute
nothing (a loop may run no iteration, a handler may run instead of the body), and a path that
ends in `raise` assigns every name (it never reaches the end). The control-flow converter asks
it which names every branch of an `if` assigns.
"""

import gast


def assigned_on_every_path(stmts):
    """The set of names (str) that `stmts` bind on every path that reaches their end, or
    None (every name) when no path reaches it (each ends in `raise`)."""
    names = set()
    for stmt in stmts:
        if isinstance(stmt, gast.Raise):
            return None
        if isinstance(stmt, (gast.Return, gast.Break, gast.Continue)):
            return names  # the names bound before the jump are bound where it leaves
        bound = _bound_by(stmt)
        if bound is None:
            return None
        names |= bound
    return names


def _bound_by(stmt):
    """The names that one statement surely binds (None: it never ends normally)."""
    if isinstance(stmt, gast.Assign):
        return set().union(*(_target_names(t) for t in stmt.targets))
    if isinstance(stmt, (gast.AugAssign, gast.AnnAssign)):
        has_value = not isinstance(stmt, gast.AnnAssign) or stmt.value is not None
        return _target_names(stmt.target) if has_value else set()
    if isinstance(stmt, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
        return {stmt.name}
    if isinstance(stmt, (gast.Import, gast.ImportFrom)):
        return {(a.asname or a.name).split('.')[0] for a in stmt.names if a.name != '*'}
    if isinstance(stmt, (gast.With, gast.AsyncWith)):
        body = assigned_on_every_path(stmt.body)
        if body is None:
            return None
        return body.union(*(_target_names(i.optional_vars) for i in stmt.items
                            if i.optional_vars is not None))
    if isinstance(stmt, gast.If):
        return _both(assigned_on_every_path(stmt.body), assigned_on_every_path(stmt.orelse))
    return set()


def _both(a, b):
    """The names two alternative paths both bind (None stands for every name)."""
    if a is None:
        return b
    if b is None:
        return a
    return a & b


def _target_names(target):
    """The names an assignment target binds (attributes and items bind none)."""
    if isinstance(target, gast.Name):
        return {target.id}
    if isinstance(target, gast.Starred):
        return _target_names(target.value)
    if isinstance(target, (gast.Tuple, gast.List)):
        return set().union(*(_target_names(e) for e in target.elts))
    return set()
