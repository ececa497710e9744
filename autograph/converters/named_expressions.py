"""Places the assignment expressions (`:=`) of loop and branch tests where they bind.

Converted code evaluates some operands in functions of their own: a `while` test in
`loop_test`, and the operands of `and`/`or` after the first in lambdas (`ag__.and_(lambda: a,
lambda: b)`). An assignment expression there would bind a variable of that function, and a
staged loop's condition cannot change the loop variables anyway. So:

- A `while` test that assigns becomes the first statement of the body, where the loop
  variables change::

      while (chunk := read()):           while True:
          body                     ->        if not (chunk := read()):
                                                 break
                                             body

  A loop `else` runs when the test fails, not after a `break`: then a flag records how the
  loop ended (`else_ = False`; set before the generated `break`; `if else_: orelse` after the
  loop). `break_statements` then lowers the `break`s as for any loop.
- An `if` test `a and b` (`or`, `not`, nested) whose later operand assigns becomes nested
  `if`s, each testing one operand where the statement stands (the branch that both outcomes
  share is repeated)::

      if a and (m := f(a)):              if a:
          body                     ->        if (m := f(a)):
      else:                                      body
          orelse                             else:
                                                 orelse
                                         else:
                                             orelse

- The whole value of an assignment, a `return` or an expression statement that is such an
  `and`/`or`, or a conditional expression with such an operand, becomes statements that
  assign a new name (`value_ = a; if not value_: value_ = (m := f(a))`, then `z = value_`),
  each operand's truth tested once, as Python tests it.

Python evaluates the same operands in the same order and runs the same statements. Elsewhere
an assignment expression is evaluated where it stands, as Python evaluates it (`if` tests, the
first operand of `and`/`or`, which logical_expressions then evaluates in place, call
arguments, comprehensions); `lazy_assignment` finds the remaining lazy places, which
`conversion.check_supported` rejects.
"""

import gast

from autograph.operators.variables import Symbol
from autograph.pyct import anno
from autograph.pyct import templates
from autograph.pyct import transformer
from autograph.pyct import traversal


def assigns(node):
    """Whether `node` contains an assignment expression that binds in the enclosing function.

    One in a lambda binds in the lambda; one in a comprehension binds outside of it.

    Args:
      node: a gast expression.

    Returns:
      A bool.
    """
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, gast.NamedExpr):
            return True
        if not isinstance(n, gast.Lambda):
            stack.extend(traversal.iter_child_nodes(n))
    return False


def _splits(test):
    """Whether the `if` test `test` becomes nested `if`s: an operand of `and`/`or` after the
    first (in `test`, its `not` operand, or such an operand's) assigns.

    Args:
      test: a gast expression.

    Returns:
      A bool.
    """
    while isinstance(test, gast.UnaryOp) and isinstance(test.op, gast.Not):
        test = test.operand
    if not isinstance(test, gast.BoolOp):
        return False
    return (any(assigns(v) for v in test.values[1:])
            or any(_splits(v) for v in test.values))


def _split_tests(test):
    """The `and`/`or` nodes whose operands nested `if`s test one by one (see `_splits`).

    Args:
      test: the test of an `if` or `while`.

    Returns:
      A list of gast BoolOp nodes.
    """
    found = []
    stack = [test]
    while stack:
        n = stack.pop()
        if isinstance(n, gast.UnaryOp) and isinstance(n.op, gast.Not):
            stack.append(n.operand)
        elif isinstance(n, gast.BoolOp):
            found.append(n)
            stack.extend(n.values)
    return found


def _split_if(node):
    """`node` (an If whose test `_splits`) as nested ifs testing one operand each."""
    test = node.test
    if not _splits(test):
        return node
    if isinstance(test, gast.UnaryOp):  # `if not t: a else: b` is `if t: b else: a`
        node.test, node.body, node.orelse = test.operand, node.orelse or [gast.Pass()], \
            node.body
        return _split_if(node)
    import copy  # pylint: disable=g-import-not-at-top  # rarely needed: not imported with autograph
    first, rest = test.values[0], test.values[1:]
    rest = rest[0] if len(rest) == 1 else gast.BoolOp(op=test.op, values=rest)
    # `a and b` is false where `a` is: there, the `else` branch (and the same where `b` is);
    # `a or b` is true where `a` is.
    if isinstance(test.op, gast.And):
        inner = gast.If(test=rest, body=node.body, orelse=copy.deepcopy(node.orelse))
        outer = gast.If(test=first, body=[_split_if(inner)], orelse=node.orelse)
    else:
        inner = gast.If(test=rest, body=copy.deepcopy(node.body), orelse=node.orelse)
        outer = gast.If(test=first, body=node.body, orelse=[_split_if(inner)])
    for new in (inner, outer):
        transformer.set_missing_locations(new, node)
    return _split_if(outer)


def _lowers(value):
    """Whether the whole value of an assignment, `return` or expression statement becomes
    statements: an `and`/`or` or conditional expression in it (through the operands of others)
    has an operand that converted code would evaluate lazily and that assigns.

    Args:
      value: a gast expression.

    Returns:
      A bool.
    """
    if isinstance(value, gast.BoolOp):
        return (any(assigns(v) for v in value.values[1:])
                or any(_lowers(v) for v in value.values))
    if isinstance(value, gast.IfExp):
        return (assigns(value.body) or assigns(value.orelse) or _splits(value.test)
                or _lowers(value.body) or _lowers(value.orelse))
    return False


def _lowered_values(value):
    """The and/or and conditional-expression nodes that `_lower` turns into statements, with
    the and/or nodes of their tests that `_split_if` does (see `_lowers`).

    Args:
      value: the whole value of a statement.

    Returns:
      A list of gast nodes.
    """
    found = []
    stack = [value]
    while stack:
        n = stack.pop()
        if isinstance(n, gast.BoolOp):
            found.append(n)
            stack.extend(n.values)
        elif isinstance(n, gast.IfExp):
            found.append(n)
            found.extend(_split_tests(n.test))
            stack.extend((n.body, n.orelse))
    return found


def _lower(value, target):
    """Statements that assign `value` to the name `target` (a str), evaluating `and`/`or` and
    conditional expressions as Python does: `t = a; if not t: t = b` for `t = a or b`, each
    operand's truth tested once."""
    if isinstance(value, gast.BoolOp):
        first, rest = value.values[0], value.values[1:]
        rest = rest[0] if len(rest) == 1 else gast.BoolOp(op=value.op, values=rest)
        template = ('if target:\n    rest' if isinstance(value.op, gast.And)
                    else 'if not target:\n    rest')
        return _lower(first, target) + templates.replace(
            template, target=target, rest=_lower(rest, target))
    if isinstance(value, gast.IfExp):
        branch = templates.replace('if test:\n    body\nelse:\n    orelse', test=value.test,
                                   body=_lower(value.body, target),
                                   orelse=_lower(value.orelse, target))
        return [_split_if(branch[0])]
    return templates.replace('target = value', target=target, value=value)


# The statements whose whole value `_lower` can make into statements.
_VALUE_STATEMENTS = (gast.Assign, gast.AnnAssign, gast.Return, gast.Expr)


def lazy_assignment(node):
    """Finds an assignment expression that converted code would evaluate in a lambda of its
    own (where it would bind a variable of the lambda), which this converter does not move.

    Evaluated in place, and supported: everywhere else, including the first operand of
    `and`/`or`, the test of a conditional expression, `if` and `while` tests made of
    `and`/`or`/`not` (`_split_if`), and the whole value of a statement (`_lower`).

    Args:
      node: a gast tree (nested functions marked SKIP stay plain Python: not searched).

    Returns:
      (the operand that holds it, the words for where that is), or None.
    """
    skip = transformer.ConvAnno.SKIP
    moved = set()  # ids of the and/or and conditional expressions made into statements
    stack = [node]
    while stack:
        n = stack.pop()
        if anno.hasanno(n, skip):
            continue
        cls = type(n)
        lazy, where = (), None
        if cls is gast.If or cls is gast.While:
            moved.update(id(b) for b in _split_tests(n.test))
        elif isinstance(n, _VALUE_STATEMENTS) and n.value is not None and _lowers(n.value):
            moved.update(id(b) for b in _lowered_values(n.value))
        elif cls is gast.match_case and n.guard is not None:  # an `if` test once lowered
            moved.update(id(b) for b in _split_tests(n.guard))
        elif cls is gast.Match and _lowers(n.subject):  # the value of an assignment, lowered
            moved.update(id(b) for b in _lowered_values(n.subject))
        if cls is gast.BoolOp and id(n) not in moved:
            lazy, where = n.values[1:], 'an operand of `and`/`or` after the first'
        elif cls is gast.IfExp and id(n) not in moved:
            lazy, where = (n.body, n.orelse), 'a branch of a conditional expression'
        elif cls is gast.Compare and len(n.ops) > 1:
            lazy, where = n.comparators[1:], 'a chained comparison after its first link'
        elif cls is gast.Assert and n.msg is not None:
            lazy, where = (n.msg,), 'the message of an assert'
        for operand in lazy:
            if assigns(operand):
                return operand, where
        stack.extend(traversal.iter_child_nodes(n))
    return None


class NamedExpressionTransformer(transformer.Base):
    """Moves `:=` out of `while` tests, lazy `if` operands and lazy statement values (see the
    module docstring)."""

    statements_only = True

    def visit_ClassDef(self, node):
        return node

    def visit_If(self, node):
        self.generic_visit(node)
        return _split_if(node)

    def _lowered(self, node, make):
        """`node`'s value as statements that assign a new name, then `make(name)`."""
        if node.value is None or not _lowers(node.value):
            return node
        name = self.ctx.namer.new_symbol('value_')
        self.ctx.generated_symbols[name] = Symbol.OPERATOR_VALUE
        statements = _lower(node.value, name)
        last = make(name)
        if last is not None:
            statements.append(last)
        for statement in statements:
            transformer.set_missing_locations(statement, node)
        return statements

    def visit_Assign(self, node):
        def assign(name):
            node.value = templates.replace_as_expression('name', name=name)
            return node
        return self._lowered(node, assign)

    visit_AnnAssign = visit_Assign

    def visit_Return(self, node):
        return self._lowered(node, lambda name: templates.replace('return name', name=name)[0])

    def visit_Expr(self, node):
        return self._lowered(node, lambda name: None)

    def visit_While(self, node):
        self.generic_visit(node)
        if not assigns(node.test):
            return node
        test, node.test = node.test, gast.Constant(value=True, kind=None)
        if not node.orelse:
            check = templates.replace('if not test:\n    break', test=test)
            node.body = [_split_if(check[0])] + node.body
            return node
        flag = self.ctx.namer.new_symbol('else_')
        self.ctx.generated_symbols[flag] = Symbol.LOOP_ELSE
        check = templates.replace('if not test:\n    flag = True\n    break', test=test,
                                  flag=flag)
        node.body = [_split_if(check[0])] + node.body
        orelse, node.orelse = node.orelse, []
        return (templates.replace('flag = False', flag=flag) + [node]
                + templates.replace('if flag:\n    orelse', flag=flag, orelse=orelse))


def transform(node, ctx):
    """Places a tree's assignment expressions where they bind (see the module docstring).

    Args:
      node: a gast tree.
      ctx: transformer.EntityInfo.

    Returns:
      The converted tree.
    """
    return NamedExpressionTransformer(ctx).visit(node)
