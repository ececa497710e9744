"""Converts `and`, `or` and `not` into lazy `ag__.and_`, `ag__.or_` and `ag__.not_` calls, and
chained comparisons and membership tests into `ag__.compare`, `ag__.in_` and `ag__.not_in`."""

import gast

from autograph.converters import named_expressions
from autograph.pyct import gast_util
from autograph.pyct import templates
from autograph.pyct import transformer

_BOOL_OPS = {gast.And: 'ag__.and_', gast.Or: 'ag__.or_'}
_MEMBERSHIP = {gast.In: 'ag__.in_', gast.NotIn: 'ag__.not_in'}
# comparison operator -> its text, as `ag__.compare` takes it
_COMPARE_OPS = {gast.Eq: '==', gast.NotEq: '!=', gast.Lt: '<', gast.LtE: '<=', gast.Gt: '>',
                gast.GtE: '>=', gast.Is: 'is', gast.IsNot: 'is not', gast.In: 'in',
                gast.NotIn: 'not in'}


class LogicalExpressionTransformer(transformer.Base):
    """`a and b` -> `ag__.and_(lambda: a, lambda: b)`; `not a` -> `ag__.not_(a)`.

    Comparisons: `x in c` -> `ag__.in_(x, c)` (`not in` -> `ag__.not_in`);
    `a < b <= c` -> `ag__.compare(a, '<', b, '<=', lambda: c)`, each operand evaluated once and
    only when the links before it hold. A single comparison other than `in` is unchanged.
    """

    def visit_ClassDef(self, node):
        return node

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if not isinstance(node.op, gast.Not):
            return node
        return templates.replace_as_expression('ag__.not_(operand)', operand=node.operand)

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        op = _BOOL_OPS[type(node.op)]
        # Right-associative chain: a and b and c -> and_(a, and_(b, c)).
        result = node.values[-1]
        for k in range(len(node.values) - 2, -1, -1):
            value = node.values[k]
            # The first operand is evaluated at once: where it assigns (`:=`), in place, as
            # Python does (a lambda would keep the variable to itself). The others can be
            # skipped: check_supported rejects assignments there.
            template = (op + '(ag__.evaluated(left), lambda: right)'
                        if k == 0 and named_expressions.assigns(value)
                        else op + '(lambda: left, lambda: right)')
            result = templates.replace_as_expression(template, left=value, right=result)
        return result

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) == 1:
            op = _MEMBERSHIP.get(type(node.ops[0]))
            if op is None:
                return node
            right = node.comparators[0]
            if isinstance(right, gast.Set) and not any(
                    isinstance(e, gast.Starred) for e in right.elts):
                # `x in {0, n}`: JAX cannot hash a traced n (see operators.set_display)
                call = templates.replace_as_expression('ag__.set_display()')
                call.args = right.elts
                right = call
            return templates.replace_as_expression(
                op + '(left, right)', left=node.left, right=right)
        args = [node.left, gast_util.constant(_COMPARE_OPS[type(node.ops[0])]),
                node.comparators[0]]
        for op, operand in zip(node.ops[1:], node.comparators[1:]):
            args.append(gast_util.constant(_COMPARE_OPS[type(op)]))
            args.append(templates.replace_as_expression('lambda: operand', operand=operand))
        call = templates.replace_as_expression('ag__.compare()')
        call.args = args
        return call


def transform(node, ctx):
    """Converts the boolean operators of a tree.

    Args:
      node: a gast tree.
      ctx: transformer.EntityInfo.

    Returns:
      The converted tree.
    """
    return LogicalExpressionTransformer(ctx).visit(node)
