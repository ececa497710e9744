"""Converts the statements that raise: `assert` into `ag__.assert_stmt` calls, and `raise X
from Y` into `raise ag__.raising(X) from Y`.

`ag__.raising` marks the exception as the user's own, so that a staged branch that raises it
while it is traced stages the raise (raised when the branch runs) instead of failing the
trace. An f-string argument of the exception (`ValueError(f'bad n: {n}')`) becomes
`ag__.fstring(...)`, which gives the same string for Python values and lets the backend
format staged values at run time; so does an f-string assigned to a name that the next
statement's raise passes (`msg = f'bad n: {n}'`, then `raise ValueError(msg)`). A bare
`raise` (re-raise) is left alone.
"""

import gast

from autograph.pyct import templates
from autograph.pyct import transformer


class AssertTransformer(transformer.Base):
    """`assert test, msg` -> `ag__.assert_stmt(test, lambda: msg)`.

    An f-string message becomes `ag__.fstring(...)` of its parts, which gives the same string
    for Python values and lets the backend format staged values when the assert fails (their
    run-time values, not their symbolic form).
    """

    statements_only = True

    def visit_ClassDef(self, node):
        return node

    def visit_Assert(self, node):
        self.generic_visit(node)
        if node.msg is None:
            return templates.replace('ag__.assert_stmt(test, None)', test=node.test)
        msg = node.msg
        if isinstance(msg, gast.JoinedStr):
            msg = fstring_call(msg)
        return templates.replace(
            'ag__.assert_stmt(test, lambda: msg)', test=node.test, msg=msg)


def fstring_call(joined):
    """`f'a {x!r:>4} b'` -> `ag__.fstring('a ', (x, 114, '>4'), ' b')`."""
    pieces = []
    for part in joined.values:
        if isinstance(part, gast.FormattedValue):
            spec = part.format_spec if part.format_spec is not None else gast.Constant(
                value='', kind=None)
            pieces.append(gast.Tuple(elts=[part.value, gast.Constant(value=part.conversion,
                                                                    kind=None), spec],
                                     ctx=gast.Load()))
        else:
            pieces.append(part)
    call = templates.replace_as_expression('ag__.fstring()')
    call.args = pieces
    return call


class RaiseTransformer(transformer.Base):
    """`raise X from Y` -> `raise ag__.raising(X) from Y`.

    A message assigned to a name from an f-string just before the raise that passes it
    (`msg = f"{n}: invalid"`, then `raise ValueError(msg)`: the style that linters ask for)
    is `ag__.fstring(...)` as an f-string argument is: formatted from the run-time values.
    """

    statements_only = True

    def visit_ClassDef(self, node):
        return node

    def generic_visit(self, node):
        for field in transformer.block_fields(node):
            _stage_messages(getattr(node, field))
        return super().generic_visit(node)

    def visit_Raise(self, node):
        if node.exc is None:
            return node
        exc = node.exc
        if isinstance(exc, gast.Call):
            exc.args = [fstring_call(a) if isinstance(a, gast.JoinedStr) else a
                        for a in exc.args]
        node.exc = templates.replace_as_expression('ag__.raising(exc)', exc=exc)
        return node


def _stage_messages(statements):
    """Makes `name = f'...'` an `ag__.fstring(...)` where the next statement raises an
    exception built from `name` (the f-string would give the symbolic text of a staged
    value, where Python's message shows its value)."""
    for first, then in zip(statements, statements[1:]):
        if not (isinstance(first, gast.Assign) and isinstance(first.value, gast.JoinedStr)
                and len(first.targets) == 1 and isinstance(first.targets[0], gast.Name)
                and isinstance(then, gast.Raise) and isinstance(then.exc, gast.Call)):
            continue
        name = first.targets[0].id
        if any(isinstance(a, gast.Name) and a.id == name for a in then.exc.args):
            first.value = fstring_call(first.value)


def transform(node, ctx):
    """Converts the assert and raise statements of a tree.

    Asserts are left alone under `python -O`, where the original ones do not run either.

    Args:
      node: a gast tree.
      ctx: transformer.EntityInfo.

    Returns:
      The converted tree.
    """
    node = RaiseTransformer(ctx).visit(node)
    if not __debug__:
        return node
    return AssertTransformer(ctx).visit(node)

