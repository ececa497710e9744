"""Converts `sum()`, `any()`, `all()`, `max()` and `min()` of a generator expression into the
loop it stands for.

`sum(i * i for i in range(1, n + 1))` iterates inside the builtin, where a staged `range` or
tensor cannot be iterated. This becomes::

    ag__.reduce_generator(sum, range(1, n + 1), lambda i: i * i, None, 'i')

and the operator (`operators/generators.py`) runs the loop through `for_stmt`: as Python over
Python values, staged over staged ones. The element and the `if` clauses become lambdas of
the loop target, so the target stays local to them, as it is to the generator expression.
A list comprehension becomes `ag__.list_comprehension(iterable, element, condition, target)`
in the same way (a staged iterable gives a staged list), and a repeated list display
(`[0] * (n + 1)`) becomes `ag__.repeat([0], n + 1)` (a staged count gives a list of a
run-time length), and a sum of such lists (`[1] + [0] * n`) `ag__.list_concat`. Left alone: comprehensions with several `for` clauses, a target other
than a name or a flat tuple of names, an assignment expression (it binds in the enclosing
function), or `await`; list comprehensions holding a lambda or a comprehension left alone; calls
with other arguments than sum's start or max's and min's `default`.
"""

import gast

from autograph.pyct import gast_util
from autograph.pyct import parser
from autograph.pyct import transformer

_REDUCTIONS = frozenset(('sum', 'any', 'all', 'max', 'min'))


def _target_names(target):
    """The names a loop target binds when it is a name or a flat tuple of names, else None."""
    if isinstance(target, gast.Name):
        return [target.id]
    if isinstance(target, gast.Tuple) and all(isinstance(e, gast.Name) for e in target.elts):
        return [e.id for e in target.elts]
    return None


def _listish(node):
    """Whether an expression is a list by its syntax: a display, a comprehension, a repeated
    display, or a sum of those."""
    if isinstance(node, (gast.List, gast.ListComp)):
        return True
    if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mult):
        return isinstance(node.left, gast.List) or isinstance(node.right, gast.List)
    if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Add):
        return _listish(node.left) and _listish(node.right)
    return False


_VALUES = (gast.Constant, gast.Name, gast.Attribute, gast.Subscript, gast.BinOp, gast.UnaryOp,
           gast.Compare, gast.BoolOp, gast.IfExp, gast.Tuple, gast.Load, gast.operator,
           gast.unaryop, gast.cmpop, gast.boolop, gast.Slice)


def _fresh(node):
    """Whether evaluating `node` makes a new value each time and calls nothing: a number, a
    list display of values, a repeated one (`[0] * m`), a sum of those, or a comprehension of
    one over `range(...)` with no `if` (the rows of a table). A name, as an element, could be
    one list that every row aliases."""
    if isinstance(node, gast.Constant):
        return type(node.value) in (int, float, bool)
    if isinstance(node, gast.List):
        return all(_value(e) for e in node.elts)
    if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mult):
        items, count = (node.left, node.right) if isinstance(node.left, gast.List) else (
            node.right, node.left)
        return isinstance(items, gast.List) and _fresh(items) and _value(count)
    if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Add):
        return _fresh(node.left) and _fresh(node.right)
    if isinstance(node, gast.ListComp) and _simple_comprehension(node):
        comp = node.generators[0]
        return not comp.ifs and _fresh(node.elt) and isinstance(comp.iter, gast.Call) and (
            isinstance(comp.iter.func, gast.Name) and comp.iter.func.id == 'range'
            and not comp.iter.keywords and all(_value(a) for a in comp.iter.args))
    return False


def _value(node):
    """Whether `node` only reads (names, attributes, items, arithmetic): no call."""
    return all(isinstance(n, _VALUES) for n in gast.walk(node))


def _invariant(comprehension):
    """Whether a list comprehension's element is `_fresh` and reads none of the targets of
    its own or of a comprehension inside it: each element is then a copy of the first."""
    if not _fresh(comprehension.elt):
        return False
    targets = {n.id for c in gast.walk(comprehension) if isinstance(c, gast.comprehension)
               for n in gast.walk(c.target) if isinstance(n, gast.Name)}
    return not any(isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and n.id in targets
                   for n in gast.walk(comprehension.elt))


def _lambda(params, body):
    args = gast.arguments(args=[gast_util.name(p, gast.Param) for p in params], posonlyargs=[],
                          vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    return gast.Lambda(args=args, body=body)


# The keyword arguments that each reduction takes besides the generator.
_KEYWORDS = {'sum': 'start', 'max': 'default', 'min': 'default'}


def _simple_comprehension(gen):
    """Whether a comprehension has one `for` clause over a name or flat tuple target and
    nothing that binds or suspends in the enclosing scope (`:=`, await, yield)."""
    if len(gen.generators) != 1 or gen.generators[0].is_async:
        return False
    if _target_names(gen.generators[0].target) is None:
        return False
    return not any(isinstance(n, (gast.NamedExpr, gast.Await, gast.Yield, gast.YieldFrom))
                   for n in gast.walk(gen))


def _convertible(node):
    """The generator expression of `sum(<genexp>[, start])`, `any(<genexp>)`, `all(...)`,
    `max(<genexp>[, default=d])`, `min(...)`, or None."""
    if not (isinstance(node.func, gast.Name) and node.func.id in _REDUCTIONS and node.args
            and isinstance(node.args[0], gast.GeneratorExp)):
        return None
    name = node.func.id
    if len(node.args) + len(node.keywords) > (1 if name in ('any', 'all') else 2):
        return None
    if len(node.args) > (2 if name == 'sum' else 1):
        return None
    if any(isinstance(a, gast.Starred) for a in node.args) or any(
            k.arg != _KEYWORDS.get(name) for k in node.keywords):
        return None
    gen = node.args[0]
    return gen if _simple_comprehension(gen) else None


class GeneratorReductionTransformer(transformer.Base):
    """`sum(e for t in it if c)` -> `ag__.reduce_generator(sum, it, lambda t: e, ...)`."""

    def visit_ClassDef(self, node):
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        gen = _convertible(node)
        if gen is None:
            return node
        call = gast_util.generated_call(
            'ag__', 'reduce_generator', [node.func] + self._parts(gen) + node.args[1:],
            node.keywords)
        return gast.copy_location(call, node)

    def visit_BinOp(self, node):
        listish = _listish(node)  # before the operands are rewritten
        self.generic_visit(node)
        if isinstance(node.op, gast.Mult) and (
                isinstance(node.left, gast.List) or isinstance(node.right, gast.List)):
            operator = 'repeat'
        elif isinstance(node.op, gast.Add) and listish:
            operator = 'list_concat'  # `[1] + [0] * n`: a list, not an elementwise sum
        elif isinstance(node.op, gast.Add) and (
                isinstance(node.left, gast.List) or isinstance(node.right, gast.List)):
            operator = 'list_plus'  # `path + [node]`: grows a list that staged code carries
        else:
            return node
        call = gast_util.generated_call('ag__', operator, [node.left, node.right])
        return gast.copy_location(call, node)

    def visit_ListComp(self, node):
        # a lambda in the element or a clause would close over its own target, not over the
        # comprehension's one variable (`[lambda: i for i in r]` all see the last i)
        closures = any(isinstance(n, gast.Lambda) for n in gast.walk(node))
        invariant = _invariant(node)
        self.generic_visit(node)
        # a nested comprehension converted already runs at once, as Python's does (a table:
        # `[[0 for _ in range(m)] for _ in range(n)]`); one left alone is its own scope
        if closures or not _simple_comprehension(node) or any(
                isinstance(n, (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp))
                for n in gast.walk(node) if n is not node):
            return node
        keywords = [gast.keyword(arg='invariant', value=gast_util.constant(True))] if (
            invariant) else []
        call = gast_util.generated_call('ag__', 'list_comprehension', self._parts(node),
                                        keywords)
        return gast.copy_location(call, node)

    def _parts(self, gen):
        """The iterable, `lambda t: element`, `lambda t: condition` (or None) and the target's
        text, of a comprehension with one `for` clause."""
        comp = gen.generators[0]
        names = _target_names(comp.target)
        test = None
        if comp.ifs:
            test = comp.ifs[0] if len(comp.ifs) == 1 else gast.BoolOp(gast.And(), comp.ifs)
        return [comp.iter, self._of_target(names, gen.elt),
                gast_util.constant(None) if test is None else self._of_target(names, test),
                gast_util.constant(parser.unparse(comp.target).strip().strip('()'))]

    def _of_target(self, names, body):
        """`lambda t: body`, or for a tuple target `lambda item: (lambda a, b: body)(*item)`."""
        if len(names) == 1:
            return _lambda(names, body)
        item = self.ctx.namer.new_symbol('item_', names)
        inner = gast.Call(func=_lambda(names, body),
                          args=[gast.Starred(gast_util.name(item), gast.Load())], keywords=[])
        return _lambda([item], inner)


def transform(node, ctx):
    """Converts the generator reductions of a tree.

    Args:
      node: a gast tree.
      ctx: transformer.EntityInfo.

    Returns:
      The converted tree.
    """
    return GeneratorReductionTransformer(ctx).visit(node)
