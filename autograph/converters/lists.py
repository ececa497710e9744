"""Converts `l.append(x)`, `l.pop()`, `l[i] = x` and the other in-place list methods
(`l.extend(x)`, ...) on local lists into functional list operations (`ag__.list_append`,
`list_pop`, `set_item`, `list_method`): Python's own operations on Python values, staged
ones on staged values (a list of a run-time length).
"""

import gast

from autograph.operators.data_structures import IN_PLACE
from autograph.pyct import bindings
from autograph.pyct import gast_util
from autograph.pyct import templates
from autograph.pyct import transformer

def local_names(fn_node):
    """Returns the names a function binds locally (not global, not nonlocal).

    Args:
      fn_node: a gast FunctionDef.

    Returns:
      A set of strings.
    """
    args = fn_node.args
    bound = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
    bound.update(a.id for a in (args.vararg, args.kwarg) if a is not None)
    level, declared = bindings.level_bindings(fn_node.body)
    return (bound | level) - declared


def _list_method_call(node, method, max_args, keywords=False):
    """Returns the list name if `node` is `<name>.<method>(<= max_args args)` (and named
    keyword arguments where `keywords` holds), else None."""
    if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute)
            and node.func.attr == method and isinstance(node.func.value, gast.Name)
            and (keywords or not node.keywords) and len(node.args) <= max_args
            and not any(k.arg is None for k in node.keywords)
            and not any(isinstance(a, gast.Starred) for a in node.args)):
        return None
    return node.func.value.id


class ListTransformer(transformer.Base):
    """`l.append(x)` -> `l = ag__.list_append(l, x)`; `x = l.pop(i)` -> `l, x = ...`.

    Only lists held in local variables are rewritten: rebinding a global or a closure
    variable would change the program.
    """

    statements_only = True

    def __init__(self, ctx):
        super().__init__(ctx)
        # stack of the local names of the enclosing functions
        self._locals = []

    def visit_ClassDef(self, node):
        return node

    def visit_FunctionDef(self, node):
        self._locals.append(local_names(node))
        self.generic_visit(node)
        self._locals.pop()
        return node

    def _is_local(self, name):
        return bool(self._locals) and name in self._locals[-1]

    def visit_Expr(self, node):
        self.generic_visit(node)
        target = _list_method_call(node.value, 'append', 1)
        if target is not None and len(node.value.args) == 1 and self._is_local(target):
            return templates.replace('target = ag__.list_append(target, element)',
                                     target=target, element=node.value.args[0])
        target = _list_method_call(node.value, 'pop', 1)
        if target is not None and self._is_local(target):
            return templates.replace('target = ag__.list_pop(target, index)[0]',
                                     target=target, index=_pop_index(node.value))
        return self._in_place(node)

    def _in_place(self, node):
        """`l.extend(x)` (and insert, remove, reverse, sort, clear) as a statement of a local
        name -> `l = ag__.list_method(l, 'extend', (x,), 'l')`: staged control flow then sees
        `l` assigned (see data_structures.list_method)."""
        for method, count in IN_PLACE.items():
            target = _list_method_call(node.value, method, count, keywords=method == 'sort')
            if target is not None and self._is_local(target) and (
                    len(node.value.args) == count):
                keywords = gast.Dict(
                    keys=[gast_util.constant(k.arg) for k in node.value.keywords],
                    values=[k.value for k in node.value.keywords])
                return templates.replace(
                    'target = ag__.list_method(target, method, args, symbol, keywords)',
                    target=target, method=gast_util.constant(method),
                    args=gast_util.tuple_(node.value.args), symbol=gast_util.constant(target),
                    keywords=keywords)
        return node

    def visit_Delete(self, node):
        """`del l[k]` (or `del l[a:b]`) of a local name -> `l = ag__.list_method(l,
        '__delitem__', (k,), 'l', {})`, as `_in_place` rewrites the in-place methods."""
        self.generic_visit(node)
        if len(node.targets) != 1:
            return node
        target = node.targets[0]
        if not (isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name)
                and self._is_local(target.value.id)):
            return node
        key = target.slice
        if isinstance(key, gast.Slice):  # `slice(a, b, c)`, the key Python passes
            key = gast.Call(func=gast_util.name('slice'), keywords=[], args=[
                gast_util.constant(None) if part is None else part
                for part in (key.lower, key.upper, key.step)])
        name = target.value.id
        return templates.replace(
            "target = ag__.list_method(target, '__delitem__', (key,), symbol, {})",
            target=name, key=key, symbol=gast_util.constant(name))

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        if (isinstance(node.target, gast.Name) and self._is_local(node.target.id)
                and isinstance(node.op, gast.Add) and isinstance(node.value, gast.List)):
            # `out += [a, b]`: extends `out` in place, as its appends would
            return templates.replace('target = ag__.list_plus(target, value, True)',
                                     target=node.target.id, value=node.value)
        if (self._item_target(node.target, node.value) and type(node.op) in AUGMENTED
                and not any(isinstance(n, gast.NamedExpr) for n in gast.walk(node.value))):
            return _set_item(node.target, node.value, AUGMENTED[type(node.op)])
        return node

    def _item_target(self, target, value=None):
        """Whether an assignment target is `l[i]` (or `l[i][j]`...) of a local name and plain
        indices; or, given the assigned `value` and that value reads items and computes
        only, of indices that read items too (`flags[primes[j]] = False`: reads change
        nothing, so the index may be evaluated before the value)."""
        chain = item_chain(target)
        if chain is None and value is not None and item_reads(value):
            chain = item_chain(target, item_reads)
        return chain is not None and self._is_local(chain[0])

    def visit_Assign(self, node):
        self.generic_visit(node)
        if any(isinstance(n, gast.NamedExpr) for n in gast.walk(node.value)):
            return node
        if len(node.targets) == 1 and self._item_target(node.targets[0], node.value):
            return _set_item(node.targets[0], node.value)
        if len(node.targets) > 1 and any(self._item_target(t) for t in node.targets) and all(
                self._item_target(t) or isinstance(t, gast.Name) for t in node.targets):
            return self._chained(node)
        if len(node.targets) == 1 and self._unpacked_items(node.targets[0]):
            return self._unpacked(node)
        target = _list_method_call(node.value, 'pop', 1)
        if (target is None or len(node.targets) != 1 or not self._is_local(target)
                or not isinstance(node.targets[0], gast.Name)
                or node.targets[0].id == target):
            return node
        return templates.replace('target, var_ = ag__.list_pop(target, index)',
                                 target=target, var_=node.targets[0],
                                 index=_pop_index(node.value))


    def _unpacked_items(self, target):
        """Whether a target is a flat tuple of names and `l[i]` items, one item at least
        (`a[i], a[j] = a[j], a[i]`)."""
        return (isinstance(target, (gast.Tuple, gast.List))
                and any(self._item_target(t) for t in target.elts)
                and all(self._item_target(t) or isinstance(t, gast.Name) for t in target.elts))

    def _unpacked(self, node):
        """`a[i], a[j] = a[j], a[i]`: the value unpacked into fresh names, as Python unpacks it
        (a ValueError for the wrong count), then each target from left to right."""
        elts = node.targets[0].elts
        names = [self.ctx.namer.new_symbol('unpacked_', set()) for _ in elts]
        store = gast.Tuple(elts=[gast_util.name(n, gast.Store) for n in names], ctx=gast.Store())
        statements = templates.replace('targets_ = expr', targets_=store, expr=node.value)
        return statements + _assign_each(zip(elts, names))

    def _chained(self, node):
        """`a[0] = a[1] = v`: the value once, then each target from left to right."""
        value = self.ctx.namer.new_symbol('assigned_', set())
        statements = templates.replace('value_ = expr', value_=value, expr=node.value)
        return statements + _assign_each((target, value) for target in node.targets)


def _assign_each(pairs):
    """`target = name` for each (target, name): a name rebound, an item set (`_set_item`)."""
    statements = []
    for target, name in pairs:
        if isinstance(target, gast.Name):
            statements += templates.replace('target = value_', target=target.id, value_=name)
        else:
            statements += _set_item(target, gast_util.name(name))
    return statements


def item_chain(target, index_test=None):
    """(name, [keys]) of an assignment target `name[k0][k1]...` whose keys are plain (or pass
    `index_test`), else None."""
    keys = []
    index_test = index_test or plain_index
    while isinstance(target, gast.Subscript) and index_test(target.slice):
        keys.insert(0, target.slice)
        target = target.value
    if not keys or not isinstance(target, gast.Name):
        return None
    return target.id, keys


def _set_item(target, value, augmented=None):
    """`l[i] = value` -> `l = ag__.set_item(l, i, value[, augmented])`; `l[i][j] = value` ->
    `l = ag__.set_nested_item(l, (i, j), value[, augmented])`."""
    name, keys = item_chain(target) or item_chain(target, item_reads)
    extra = '' if augmented is None else ', augmented'
    if len(keys) == 1:
        template, key = 'target = ag__.set_item(target, key, value{})', keys[0]
    else:
        template = 'target = ag__.set_nested_item(target, key, value{})'
        key = gast.Tuple(elts=keys, ctx=gast.Load())
    return templates.replace(template.format(extra), target=name, key=key, value=value,
                             augmented=gast_util.constant(augmented))


_PURE_INDEX = (gast.Name, gast.Constant, gast.BinOp, gast.UnaryOp, gast.Tuple, gast.Load,
               gast.operator, gast.unaryop)


def plain_index(key):
    """Whether an index is names, constants and arithmetic: evaluating it before the assigned
    value (as `ag__.set_item(l, key, value)` does) cannot change what either gives."""
    return all(isinstance(n, _PURE_INDEX) for n in gast.walk(key))


def item_reads(expr):
    """Whether an expression is names, constants, arithmetic and item reads (`primes[j]`, no
    slice): it computes a value and changes nothing."""
    return all(isinstance(n, _PURE_INDEX + (gast.Subscript,)) for n in gast.walk(expr))


# augmented operator -> its `operator` function (`x += y` is `operator.iadd(x, y)`)
AUGMENTED = {gast.Add: 'iadd', gast.Sub: 'isub', gast.Mult: 'imul', gast.Div: 'itruediv',
              gast.FloorDiv: 'ifloordiv', gast.Mod: 'imod', gast.Pow: 'ipow',
              gast.BitAnd: 'iand', gast.BitOr: 'ior', gast.BitXor: 'ixor',
              gast.LShift: 'ilshift', gast.RShift: 'irshift', gast.MatMult: 'imatmul'}


def _pop_index(call):
    return call.args[0] if call.args else gast_util.constant(None)


def transform(node, ctx):
    """Converts list append/pop calls of a tree.

    Args:
      node: a gast tree.
      ctx: transformer.EntityInfo.

    Returns:
      The converted tree.
    """
    return ListTransformer(ctx).visit(node)
