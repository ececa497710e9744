"""Converts `and`, `or` and `not` into lazy `ag__.and_`, `ag__.or_` and `ag__.not_` calls, and
chained comparisons, membership tests and identity with True or False into `ag__.compare`,
`ag__.in_`, `ag__.not_in`, `ag__.is_` and `ag__.is_not`."""

import gast

from autograph.converters import named_expressions
from autograph.pyct import anno
from autograph.pyct import gast_util
from autograph.pyct import templates
from autograph.pyct import transformer

_BOOL_OPS = {gast.And: 'ag__.and_', gast.Or: 'ag__.or_'}
_MEMBERSHIP = {gast.In: 'ag__.in_', gast.NotIn: 'ag__.not_in'}
# `x is True` / `x is not False`: a staged bool is never the singleton (operators.is_)
_IDENTITY = {gast.Is: 'ag__.is_', gast.IsNot: 'ag__.is_not'}
# comparison operator -> its text, as `ag__.compare` takes it
_COMPARE_OPS = {gast.Eq: '==', gast.NotEq: '!=', gast.Lt: '<', gast.LtE: '<=', gast.Gt: '>',
                gast.GtE: '>=', gast.Is: 'is', gast.IsNot: 'is not', gast.In: 'in',
                gast.NotIn: 'not in'}


class LogicalExpressionTransformer(transformer.Base):
    """`a and b` -> `ag__.and_(lambda: a, lambda: b)`; `not a` -> `ag__.not_(a)`.

    Comparisons: `x in c` -> `ag__.in_(x, c)` (`not in` -> `ag__.not_in`); `x is True` ->
    `ag__.is_(x, True)` (`is not` -> `ag__.is_not`), with the constant True or False on a side;
    `a < b <= c` -> `ag__.compare(a, '<', b, '<=', lambda: c)`, each operand evaluated once and
    only when the links before it hold. Any other single comparison is unchanged.
    """

    def visit_ClassDef(self, node):
        return node

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if not isinstance(node.op, gast.Not):
            return node
        return templates.replace_as_expression('ag__.not_(operand)', operand=node.operand)

    def visit_BoolOp(self, node):
        # Before the operands are converted: the calls that each one makes (None: not pure).
        callees = [_pure_callees(v, self.ctx.undefined_names) for v in node.values]
        self.generic_visit(node)
        op = _BOOL_OPS[type(node.op)]
        # Right-associative chain: a and b and c -> and_(a, and_(b, c)).
        result = node.values[-1]
        right_callees = callees[-1]
        for k in range(len(node.values) - 2, -1, -1):
            value = node.values[k]
            # The first operand is evaluated at once: where it assigns (`:=`), in place, as
            # Python does (a lambda would keep the variable to itself). The others can be
            # skipped: check_supported rejects assignments there.
            left = ('ag__.evaluated(left)' if k == 0 and named_expressions.assigns(value)
                    else 'lambda: left')
            if right_callees is None:
                template = '{}({}, lambda: right)'.format(op, left)
                result = templates.replace_as_expression(template, left=value, right=result)
            else:
                # A pure right operand: a backend may evaluate it at once (logical_and).
                template = '{}({}, lambda: right, lambda: callees)'.format(op, left)
                result = templates.replace_as_expression(
                    template, left=value, right=result,
                    callees=gast.Tuple(elts=list(right_callees), ctx=gast.Load()))
            if callees[k] is None or right_callees is None:
                right_callees = None
            else:
                right_callees = callees[k] + right_callees
        return result

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) == 1:
            op = _MEMBERSHIP.get(type(node.ops[0]))
            if op is None and _identity_with_bool(node):
                op = _IDENTITY[type(node.ops[0])]
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


def _identity_with_bool(node):
    """Whether a one-operator comparison is `is` or `is not` with the constant True or False
    on a side."""
    return type(node.ops[0]) in _IDENTITY and any(
        isinstance(o, gast.Constant) and type(o.value) is bool
        for o in (node.left, node.comparators[0]))


# Expressions that compute a value and do nothing else, given pure operands: evaluating one
# that Python would skip changes no state and prints nothing (it may raise while staging,
# as the skipped branch of a staged conditional does when it is traced).
_PURE_NODES = (gast.Name, gast.Constant, gast.Attribute, gast.Subscript, gast.Slice,
               gast.BinOp, gast.UnaryOp, gast.Compare, gast.BoolOp, gast.IfExp, gast.Tuple,
               gast.List, gast.Dict, gast.expr_context, gast.operator, gast.unaryop, gast.cmpop,
               gast.boolop)


def _pure_callees(node, maybe_undefined):
    """The function expressions that `node` calls, when it has no effect but those calls.

    Calls count only where call_trees wrapped them (`anno.Basic.CALLEE`); any other call, a
    lambda, a comprehension or an assignment makes the operand impure (None), and so does a
    read of a variable that may be undefined there (`if not found or v > best:` reads `best`
    only once it is assigned: evaluated at once, the read would raise UnboundLocalError).
    Whether the functions themselves are pure is the backend's to say at run time
    (`Backend.pure_operand`).

    Args:
      node: an operand of `and`/`or`, not yet converted by this pass.
      maybe_undefined: the names that the control-flow converter gave an Undefined
        placeholder (`ctx.undefined_names`).

    Returns:
      A list of gast expressions, or None.
    """
    callees = []
    for child in gast.walk(node):
        if isinstance(child, gast.Call):
            callee = anno.getanno(child, anno.Basic.CALLEE, None)
            if callee is None or not all(isinstance(c, (gast.Name, gast.Attribute,
                                                          gast.expr_context))
                                         for c in gast.walk(callee)):
                return None  # a generated call, or a function that a call computes
            callees.append(callee)
        elif not isinstance(child, _PURE_NODES):
            return None
        elif isinstance(child, gast.Name) and child.id in maybe_undefined:
            return None
    return [templates.replace_as_expression('callee', callee=c) for c in callees]


def transform(node, ctx):
    """Converts the boolean operators of a tree.

    Args:
      node: a gast tree.
      ctx: transformer.EntityInfo.

    Returns:
      The converted tree.
    """
    return LogicalExpressionTransformer(ctx).visit(node)
