"""Writes through an alias as writes to what it aliases: after `row = dp[i]`, `row[j] = v`
becomes `dp, row = ag__.write_through(dp, (i,), row, (j,), v)`; after `b = a`, `b.append(v)`
becomes `a.append(v)` followed by `b = a`.

Python's `row = dp[i]` binds `row` to the list `dp[i]`, so `row[j] = v` changes `dp` too.
Staged code cannot follow that on its own: a list read at a staged index is a staged value
(a row of the stack `dp` becomes), and a staged `if` or loop works on copies of the lists it
changes, so the change would stay in `row` and `dp` would never see it (the dynamic
programming idiom `row = dp[i]; prev = dp[i - 1]; ... row[j] = prev[j - 1] + 1` computed a
table of zeros). `write_through` (operators/data_structures.py) writes through `dp` where
`dp[i]` gives the very row (a Python list, tuple or dict) or a staged value standing for it,
and reads `row` from `dp` again; then the change is a change of `dp`, which a staged `if` or
loop carries, and the reads of `row` that follow see it. Where indexing may give a copy (a
numpy array read with an index array, a pandas frame) it writes through `row`, as written.
`b = a` makes `b` the very object `a` is, whatever it is: a write through `a` is the same
write.

The rewrite is made only where it means what the original means:

- `row` is bound by a plain assignment of a name subscripted by indices made of names,
  numbers and arithmetic (`dp[i]`, `grid[i - 1][0]`), or of a name alone (`b = a`); not of
  a slice (`dp[1:]` is a copy) or a call;
- the writes rewritten are in the statements after the binding in the same block (nested
  ones too, not in nested functions), up to the next assignment of `row`: item assignments
  through `row` with plain keys (`row[j] = v`, `row[j] += v`, `row[j][k] = v`), and, for an
  alias of a name, deletions (`del b[j]`) and statements that call one of its mutating
  methods (`b.append(v)`, `x = b.pop()`);
- up to the last of them, neither `row` nor any name of its binding is bound again, and
  nothing may replace the object `row` holds: no item assignment or deletion on `dp` at the
  depth of the binding or less (`dp[k] = []` for `row = dp[i]`), no method call on it
  (`dp.insert`), no alias of it (`q = dp`), no call that gets it as an argument (`swap(dp,
  i, k)`) but the builtins that only read (`len(dp)`), and, for a name that a call may bind
  again or change (a global, a closure's variable, one a nested function changes), no
  call but those builtins.

Elsewhere writes through an alias keep their meaning in Python; a staged `if` or loop that
changes an alias bound before it writes its final elements back into the original list
(`control_flow._may_alias`, `StagedBlock._changed_in_place`).
"""

import copy

import gast

from autograph.converters.lists import AUGMENTED as _AUGMENTED
from autograph.converters.lists import item_chain
from autograph.pyct import gast_util
from autograph.pyct import templates
from autograph.pyct import transformer
from autograph.pyct import traversal

# Methods that change a list (or a dict) in place.
_MUTATORS = frozenset(('append', 'extend', 'insert', 'pop', 'remove', 'clear', 'sort',
                       'reverse', 'update', 'setdefault', 'popitem'))
# Builtins that only read the containers they get.
_READERS = frozenset(('len', 'range', 'enumerate', 'zip', 'sum', 'min', 'max', 'abs',
                      'print', 'sorted', 'reversed', 'list', 'tuple', 'any', 'all', 'str',
                      'repr', 'float', 'int', 'bool', 'isinstance', 'type', 'id'))
_INDEX_NODES = (gast.Name, gast.Constant, gast.BinOp, gast.UnaryOp, gast.operator,
                gast.unaryop, gast.Load)
_SCOPES = (gast.FunctionDef, gast.Lambda, gast.ClassDef)


def transform(node, ctx):
    """Rewrites the writes through each alias that `_Alias` accepts, in every block of
    `node` (outer blocks first; not in classes), and through each loop target that
    `_RowAlias` accepts."""
    scopes = {}
    for scope, block in _blocks(node):
        if id(scope) not in scopes:
            scopes[id(scope)] = _Scope(scope)
        p = 0
        while p < len(block):  # the rewrites insert statements into `block`
            row = _RowAlias.of(block[p], scopes[id(scope)], ctx.namer)
            if row is not None and row.holds(block[p].body, scopes[id(scope)]):
                row.rewrite_loop(block[p])
                ctx.added_kinds.add(gast.Call)
            alias = _Alias.of(block[p])
            if alias is not None:
                end = alias.end(block, p + 1)
                if alias.holds(block[p + 1:end], scopes[id(scope)]):
                    alias.rewrite(block, p + 1, end)
            p += 1
    return node


def _blocks(node):
    """(the function it is in, statement list) for the statement lists of `node` and of the
    statements in it, outer ones first."""
    blocks = []
    stack = [(node, node)]
    while stack:
        scope, n = stack.pop(0)
        if isinstance(n, gast.ClassDef):
            continue
        if isinstance(n, gast.FunctionDef):
            scope = n
        for field in transformer.block_fields(n):
            block = getattr(n, field)
            if not isinstance(block, list):  # a lambda's body
                continue
            blocks.append((scope, block))
            stack.extend((scope, s) for s in block if isinstance(s, gast.AST))
    return blocks


class _Scope(object):
    """What a call in a function may change of its names (`may_change`): the names it does
    not bind itself (globals, a closure's variables), by any call; and what its nested
    functions may change (`_changed_by`): a named one that only this function calls (its
    name is read only to call it), by its calls and the calls of the closures that call it;
    the others, by any call."""

    def __init__(self, fn):
        bound, declared, closures, anonymous = set(), set(), {}, []
        if isinstance(fn, gast.FunctionDef):
            bound.update(n.id for n in gast.walk(fn.args) if isinstance(n, gast.Name))
        stack = list(fn.body) if isinstance(fn.body, list) else []
        while stack:
            node = stack.pop()
            name = _closure_name(node)
            if name is not None:
                closures[name] = node.value if isinstance(node, gast.Assign) else node
                bound.add(name)
                continue
            if isinstance(node, _SCOPES):
                anonymous.extend(_changed_by(node))
                continue
            if isinstance(node, (gast.Global, gast.Nonlocal)):
                declared.update(node.names)
            bound |= _binds(node)
            stack.extend(traversal.iter_child_nodes(node))
        self.bound = bound - declared
        self.closures = _with_callees(closures)
        escaped = _escaped(fn, closures)
        self.anywhere = anonymous + [c for name in escaped for c in self.closures.pop(name)]

    def may_change(self, call, names, base, depth):
        """Whether `call` may make `base[...]` (`depth` subscripts, the names of its binding
        `names`) read another object: bind one of `names` again, or change an object of
        `base` above that depth."""
        if _reads_only(call):
            return False
        if not names <= self.bound:
            return True
        func = call.func
        changes = (self.closures[func.id] if isinstance(func, gast.Name)
                   and func.id in self.closures else self.anywhere)
        return any(n in names and d < (depth if n == base else 0) for n, d in changes)


def _closure_name(node):
    """The name a nested function is bound to where it is made (`def h`, `h = lambda: ...`),
    or None."""
    if isinstance(node, gast.FunctionDef):
        return node.name
    if (isinstance(node, gast.Assign) and len(node.targets) == 1
            and isinstance(node.targets[0], gast.Name) and isinstance(node.value, gast.Lambda)):
        return node.targets[0].id
    return None


def _with_callees(closures):
    """{name: the changes of the closure and of the closures it calls, to a fixed point}."""
    changes = {name: set(_changed_by(fn)) for name, fn in closures.items()}
    callees = {name: {n.func.id for n in gast.walk(fn) if isinstance(n, gast.Call)
                      and isinstance(n.func, gast.Name) and n.func.id in closures}
               for name, fn in closures.items()}
    grew = True
    while grew:
        grew = False
        for name in closures:
            for callee in callees[name]:
                if not changes[callee] <= changes[name]:
                    changes[name] |= changes[callee]
                    grew = True
    return changes


def _escaped(fn, closures):
    """The closures of `closures` whose name `fn` reads other than to call it."""
    called = {id(n.func) for n in gast.walk(fn) if isinstance(n, gast.Call)}
    return {n.id for n in gast.walk(fn) if isinstance(n, gast.Name) and n.id in closures
            and isinstance(n.ctx, gast.Load) and id(n) not in called}


class _Alias(object):
    """A binding `name = base[index]...` (a chain of `depth` subscripts, 0 for `b = a`)."""

    iterated = False  # `_RowAlias`'s: the alias is a loop's target

    def __init__(self, binding):
        self.binding = binding
        self.name = binding.targets[0].id
        self.chain = binding.value
        self.base, self.depth = _root(self.chain)
        self.names = {n.id for n in gast.walk(self.chain) if isinstance(n, gast.Name)}

    @classmethod
    def of(cls, stmt):
        """The alias that `stmt` binds, or None."""
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], gast.Name) and _is_chain(stmt.value)):
            return None
        alias = cls(stmt)
        return None if alias.name in alias.names else alias

    def end(self, block, start):
        """The index in `block` of the first statement from `start` on that assigns the
        alias's name again (its writes from there on belong to that binding), or its
        length."""
        for k in range(start, len(block)):
            stmt = block[k]
            if isinstance(stmt, gast.Assign) and any(
                    isinstance(t, gast.Name) and t.id == self.name for t in stmt.targets):
                return k
        return len(block)

    def holds(self, stmts, scope):
        """Whether `stmts` write through the alias, and up to the last statement that does,
        `name` keeps holding the object `base[index]...` holds (later statements may bind
        the names again: the writes came first). `scope`: the function's `_Scope`, which
        says what a call there may change."""
        writing = [q for q, stmt in enumerate(stmts)
                   if any(self.writes(s) for _, s in _located([stmt], None))]
        if not writing:
            return False
        watched = self.names | {self.name}
        for node in _walk_scope(stmts[:writing[-1] + 1]):
            if _binds(node) & watched:
                return False
            if self.depth and self._may_replace(node):
                return False
            if isinstance(node, gast.Call) and scope.may_change(node, watched, self.base,
                                                                 self.depth):
                return False
        return True

    def _may_replace(self, node):
        """Whether `node` may put another object where the binding read this one: an item
        assignment or deletion at the binding's depth or less, or a method call, an alias
        or a call argument of the base or of a subscript of it shallower than the binding."""
        if isinstance(node, gast.Subscript) and isinstance(node.ctx, (gast.Store, gast.Del)):
            return self._above(node, 1)
        if isinstance(node, gast.Call):
            func = node.func
            if isinstance(func, gast.Attribute) and self._above(func.value):
                return True
            if not _reads_only(node):
                return any(self._above(a) for a in _arguments(node))
        if isinstance(node, (gast.Assign, gast.AugAssign, gast.AnnAssign)):
            return node.value is not None and self._above(node.value)
        return False

    def _above(self, node, reach=0):
        """Whether `node` is the base subscripted fewer than `depth` times (`reach`: the
        subscripts `node` itself may replace, 1 for an item assignment)."""
        root, depth = _root(node)
        return root == self.base and depth - reach < self.depth

    def rewrite(self, block, start, end):
        """Rewrites the writes through the alias in `block[start:end]` (nested ones too)."""
        for block, stmt in list(_located(block[start:end], block)):
            new = self._rewritten(stmt)
            if new is not None:
                k = next(k for k, s in enumerate(block) if s is stmt)
                block[k:k + 1] = new

    def _rewritten(self, stmt):
        """The statements that write `stmt`'s write through the base, or None.

        Through a subscript (`row = dp[i]`): `dp, row = ag__.write_through(dp, (i,), row,
        (j,), v)` for `row[j] = v`, which writes through `dp` where `dp[i]` gives the row
        itself or stands for it (a Python list, a staged table), else through `row` (a numpy
        array read with an index array gives a copy). Through a name (`b = a`, the same
        object whatever it is): the write itself, on `a`, then `b = a` again."""
        if self.depth:
            target = self._item_target(stmt)
            if target is None:
                return None
            keys = item_chain(target)[1]
            call = templates.replace(
                'base, alias = ag__.write_through(base, path, alias, keys, value{}{})'.format(
                    '' if isinstance(stmt, gast.Assign) else ', augmented',
                    ', iterated=True' if self.iterated else ''),
                base=self.base, alias=self.name,
                path=gast.Tuple(elts=[copy.deepcopy(k) for k in item_chain(self.chain)[1]],
                                ctx=gast.Load()),
                keys=gast.Tuple(elts=keys, ctx=gast.Load()), value=stmt.value,
                augmented=gast_util.constant(_AUGMENTED.get(type(getattr(stmt, 'op', None)))))
            return [_relocate(n, stmt) for n in call]
        roots = self._roots(stmt)
        for node in roots:
            node.value = _relocate(copy.deepcopy(self.chain), stmt)
        return [stmt, _relocate(copy.deepcopy(self.binding), stmt)] if roots else None

    def _roots(self, stmt):
        """For an alias of a name (`b = a`): the nodes of `stmt` whose `value` is the alias,
        written through: the subscripts of its targets (`b[j] = v`, `del b[j]`), or the
        method of its mutating call (`b.append(v)`, `x = b.pop()`)."""
        roots = []
        if isinstance(stmt, (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Delete)):
            targets = stmt.targets if isinstance(stmt, (gast.Assign, gast.Delete)) else [
                stmt.target]
            for target in targets:
                roots.extend(n for n in gast.walk(target) if isinstance(n, gast.Subscript)
                             and self._written(n.value))
        if isinstance(stmt, (gast.Expr, gast.Assign)) and isinstance(stmt.value, gast.Call):
            func = stmt.value.func
            if (isinstance(func, gast.Attribute) and func.attr in _MUTATORS
                    and self._written(func.value)):
                roots.append(func)
        return roots

    def _item_target(self, stmt):
        """For an alias through a subscript: the target of `stmt` when it is one item
        assignment through the alias with plain keys (`row[j] = v`, `row[j][k] += v`, as
        converters/lists writes them), else None."""
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
        elif isinstance(stmt, gast.AugAssign) and type(stmt.op) in _AUGMENTED:
            target = stmt.target
        else:
            return None
        chain = item_chain(target)
        return target if chain is not None and chain[0] == self.name else None

    def writes(self, stmt):
        """Whether `stmt` is a write through the alias that `rewrite` rewrites."""
        return (self._item_target(stmt) is not None) if self.depth else bool(
            self._roots(stmt))

    def _written(self, node):
        return isinstance(node, gast.Name) and node.id == self.name


class _RowAlias(_Alias):
    """`for row in rows:` (or `for k, row in enumerate(rows):`), whose body writes through
    `row` (`row[j] = v`): in iteration `k`, `row` is `rows[k]`, and the writes go through
    `rows` (`write_through(..., iterated=True)`: where iterating `rows` gives its elements,
    a list, a tuple or a staged table; through `row` elsewhere); a loop without its index
    becomes `for k, row in enumerate(rows):`. A staged table's rows are copies, so a write
    through `row` alone was lost."""

    iterated = True

    @classmethod
    def of(cls, stmt, scope, namer):
        """The alias that the loop `stmt` binds, or None. `rows` may be sliced from a
        start that is a non-negative number (`for row in grid[1:]`: `grid[k + 1]`)."""
        if not isinstance(stmt, gast.For) or 'enumerate' in scope.bound:
            return None
        index, row, rows = _enumerated(stmt)
        rows, start = _rows_and_start(rows)
        if rows is None or row is None or rows in (row, index):
            return None
        own = index is None
        if own:
            index = namer.new_symbol('row_index', {row, rows})
        position = gast_util.name(index)
        if start:
            position = gast.BinOp(left=position, op=gast.Add(),
                                  right=gast_util.constant(start))
        alias = cls(gast.Assign(targets=[gast_util.name(row, gast.Store)],
                                value=gast.Subscript(value=gast_util.name(rows),
                                                     slice=position, ctx=gast.Load())))
        alias.index, alias.own = index, own
        if own:
            alias.names.discard(index)  # ours: nothing else binds or reads it
        return alias

    def rewrite_loop(self, loop):
        """Rewrites the writes in the loop's body and iterates with the index."""
        self.rewrite(loop.body, 0, len(loop.body))
        if not self.own:
            return
        loop.target = gast.Tuple(elts=[gast_util.name(self.index, gast.Store), loop.target],
                                 ctx=gast.Store())
        loop.iter = gast.copy_location(gast.Call(
            func=gast_util.name('enumerate'), args=[loop.iter], keywords=[]), loop.iter)


def _enumerated(loop):
    """(index name or None, row name, iterated expression) of `for row in rows` or of `for
    k, row in enumerate(rows)` (no start); (None, None, None) for other loops."""
    target, iterated = loop.target, loop.iter
    if isinstance(target, gast.Name):
        return None, target.id, iterated
    if (isinstance(target, gast.Tuple) and len(target.elts) == 2
            and all(isinstance(t, gast.Name) for t in target.elts)
            and isinstance(iterated, gast.Call) and isinstance(iterated.func, gast.Name)
            and iterated.func.id == 'enumerate' and len(iterated.args) == 1
            and not iterated.keywords and target.elts[0].id != target.elts[1].id):
        return target.elts[0].id, target.elts[1].id, iterated.args[0]
    return None, None, None


def _rows_and_start(node):
    """(name, start) for a loop over `name` or `name[start:...]` (a number >= 0 or none as
    the start, no step), else (None, 0)."""
    start = 0
    if isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Slice):
        lower = node.slice.lower
        if node.slice.step is not None or lower is not None and not (
                isinstance(lower, gast.Constant) and type(lower.value) is int
                and lower.value >= 0):
            return None, 0
        start, node = (0 if lower is None else lower.value), node.value
    return (node.id, start) if isinstance(node, gast.Name) else (None, 0)


def _is_chain(node):
    """Whether `node` is a name subscripted by indices (no slice, no call), or a name."""
    while isinstance(node, gast.Subscript):
        if not all(isinstance(n, _INDEX_NODES) for n in gast.walk(node.slice)):
            return False
        node = node.value
    return isinstance(node, gast.Name)


def _root(node):
    """(the name a subscript chain starts from, its number of subscripts); (None, 0) for
    other expressions."""
    depth = 0
    while isinstance(node, gast.Subscript):
        node, depth = node.value, depth + 1
    return (node.id, depth) if isinstance(node, gast.Name) else (None, 0)


def _changed_by(fn):
    """(name, depth) for what the nested function `fn` may bind again or change: -1 for the
    names it declares nonlocal or global, and the depth of the object that its item
    assignments and deletions, its method calls and its call arguments may change
    (`dp[0] = []` and `dp.insert(...)`: 0, `f(dp[i])`: 1)."""
    found = []
    for n in gast.walk(fn):
        if isinstance(n, (gast.Nonlocal, gast.Global)):
            found.extend((name, -1) for name in n.names)
        elif isinstance(n, gast.Subscript) and isinstance(n.ctx, (gast.Store, gast.Del)):
            root, depth = _root(n)
            found.append((root, depth - 1))
        elif isinstance(n, gast.Call):
            if isinstance(n.func, gast.Attribute):
                found.append(_root(n.func.value))
            if not _reads_only(n):
                found.extend(_root(a) for a in _arguments(n))
    return found


def _reads_only(call):
    """Whether `call` is of a builtin that only reads (`len(dp)`)."""
    return isinstance(call.func, gast.Name) and call.func.id in _READERS


def _arguments(call):
    return list(call.args) + [k.value for k in call.keywords]


def _binds(node):
    """The names that `node` binds in the function's scope."""
    if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Del)):
        return {node.id}
    if isinstance(node, (gast.Global, gast.Nonlocal)):
        return set(node.names)
    if isinstance(node, (gast.FunctionDef, gast.ClassDef)):
        return {node.name}
    if isinstance(node, gast.ExceptHandler) and node.name is not None:
        return {node.name.id if isinstance(node.name, gast.Name) else node.name}
    if isinstance(node, (gast.Import, gast.ImportFrom)):
        return {(a.asname or a.name).split('.')[0] for a in node.names}
    return set()


def _walk_scope(stmts):
    """The nodes of `stmts`, not descending into nested functions, lambdas and classes (but
    yielding them, and the `global`/`nonlocal` declarations in nested functions)."""
    stack = list(reversed(stmts))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _SCOPES):
            stack.extend(n for n in gast.walk(node) if isinstance(n, (gast.Global,
                                                                      gast.Nonlocal)))
            continue
        stack.extend(reversed(list(traversal.iter_child_nodes(node))))


def _located(stmts, holder):
    """(the list holding it, statement) for the statements of `stmts` (held in `holder`),
    nested ones too, not in nested functions and classes."""
    for stmt in stmts:
        yield holder, stmt
        if not isinstance(stmt, _SCOPES):
            for field in transformer.block_fields(stmt):
                block = getattr(stmt, field)
                for pair in _located(block, block):
                    yield pair


def _relocate(node, origin):
    """`node`, its nodes given the location of `origin` (the write it stands in)."""
    for n in gast.walk(node):
        if 'lineno' in n._attributes:
            n.lineno, n.col_offset = origin.lineno, origin.col_offset
            n.end_lineno, n.end_col_offset = origin.lineno, origin.col_offset
    return node
