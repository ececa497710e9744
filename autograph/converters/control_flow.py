"""Converts if, while and for statements into `ag__.if_stmt/while_stmt/for_stmt` calls."""

import gast

from autograph.pyct import anno
from autograph.pyct import bindings
from autograph.pyct import gast_util
from autograph.pyct import parser
from autograph.pyct import qual_names
from autograph.pyct import templates
from autograph.pyct import transformer
from autograph.pyct import traversal
from autograph.pyct.static_analysis import definite_assignment
from autograph.pyct.static_analysis.annos import NodeAnno

ConvAnno = transformer.ConvAnno


class _Function(object):
    """State of the enclosing user function."""

    def __init__(self):
        # the activity.Scope of the function body (for its globals and nonlocals)
        self.scope = None
        # names that generated helpers of this function declare nonlocal
        self.nonlocals = set()
        # names read by closures (lambdas, nested defs, generator expressions) in the function
        self.closure_reads = frozenset()
        # names that may hold an object another name holds too (see _may_alias)
        self.may_alias = frozenset()


_EMPTY = frozenset()


class ControlFlowTransformer(transformer.Base):
    """Turns each if/while/for into functions for its blocks plus an operator call.

    The block variables (outputs of a conditional, loop-carried variables of a loop) come
    from the activity, reaching-definitions and liveness annotations: the symbols the
    statement modifies that are live into or out of it. Those not defined before the
    statement get an `ag__.Undefined` placeholder.
    """

    statements_only = True

    def visit_ClassDef(self, node):
        return node

    def visit_FunctionDef(self, node):
        self.state[_Function].enter()
        scope = anno.getanno(node, NodeAnno.BODY_SCOPE, None)
        if scope is None:
            scope = anno.getanno(node, NodeAnno.ARGS_AND_BODY_SCOPE, None)
        self.state[_Function].scope = scope
        self.state[_Function].closure_reads = _closure_reads(node)
        self.state[_Function].may_alias = _may_alias(node)
        self.generic_visit(node)
        emitted = self.state[_Function].exit().nonlocals
        if emitted:
            self._bind_missing_nonlocals(node, emitted)
        return node

    def _bind_missing_nonlocals(self, node, emitted):
        """Binds in `node` the names that generated helpers declare nonlocal but nothing binds.

        A variable that the original function assigns only inside converted blocks (for
        example inside a branch within a loop body) ends up bound only in helper functions;
        Python rejects their `nonlocal` unless an enclosing function binds it. Such variables
        get an `ag__.Undefined` placeholder at the top of the function, which keeps the
        original semantics: one variable per call, unbound until first assigned.
        """
        missing = emitted - _bound_names(node)
        if not missing or not node.body or not isinstance(node.body[-1], gast.With):
            return
        with_stmt = node.body[-1]
        assigns = self._undefined_assigns(sorted(missing))
        transformer.set_missing_locations(assigns, with_stmt)
        with_stmt.body = assigns + with_stmt.body

    def visit_Lambda(self, node):
        return node

    # -- block variables ------------------------------------------------------------------

    def _fn_names(self, attr):
        if not self.state[_Function].level or self.state[_Function].scope is None:
            return _EMPTY
        return getattr(self.state[_Function].scope, attr, _EMPTY)

    def _get_block_vars(self, node, modified, through=_EMPTY):
        """Returns (block vars sorted outputs first, undefined vars, number of outputs).

        `through`: the names whose elements the statement changes in place through the
        target of a Python `for` loop over them (`_iterated_in_place`): outputs."""
        through = {qual_names.QN(name) for name in through}
        modified = set(modified) | {s for s in through if s in anno.getanno(
            node, anno.Static.LIVE_VARS_IN, _EMPTY)}
        defined_in = anno.getanno(node, anno.Static.DEFINED_VARS_IN, _EMPTY)
        live_in = anno.getanno(node, anno.Static.LIVE_VARS_IN, _EMPTY)
        live_out = anno.getanno(node, anno.Static.LIVE_VARS_OUT, _EMPTY)
        nonlocals = self._fn_names('nonlocals')
        globals_ = self._fn_names('globals')
        # A closure reads its variables when it runs, possibly after the block: they stay
        # variables of the function, as in Python (late binding).
        closure_reads = (self.state[_Function].closure_reads if self.state[_Function].level
                         else _EMPTY)
        basic = set()
        composite = set()
        for s in modified:
            if not s.is_composite():
                if (s in live_in or s in live_out or s in nonlocals or s in globals_
                        or str(s) in closure_reads):
                    basic.add(s)
            elif all(p in live_in for p in s.support_set if p.is_symbol()):
                composite.add(s)
        undefined = sorted(
            s for s in modified - defined_in - globals_ - nonlocals
            if not s.is_composite() and s in basic)
        # read after the block only by the code outside the function (a global, a nonlocal) or
        # by a closure when it runs: outputs, though liveness sees no read
        input_only = {s for s in basic if s in live_in and s not in live_out and not (
            s in nonlocals or s in globals_ or str(s) in closure_reads)}
        # and a list the block changes in place (`row[j] = v`) that another name may hold
        # (`row = dp[i]`): that name may read it after the block
        may_alias = {s for s in input_only if self.state[_Function].level
                     and str(s) in self.state[_Function].may_alias}
        if may_alias:
            input_only -= {s for s in may_alias if str(s) in _changed_in_place(node)}
        input_only -= through
        block_vars = sorted(basic | composite, key=lambda v: (v in input_only, str(v)))
        return block_vars, undefined, len(block_vars) - len(input_only)

    def _declarations(self, block_vars):
        globals_ = self._fn_names('globals')
        names = [str(v) for v in block_vars if not v.is_composite()]
        global_names = [n for n in names if any(str(g) == n for g in globals_)]
        nonlocal_names = [n for n in names if n not in global_names]
        decls = []
        if global_names:
            decls.append(gast.Global(names=global_names))
        if nonlocal_names:
            decls.append(gast.Nonlocal(names=nonlocal_names))
            if self.state[_Function].level:
                self.state[_Function].nonlocals.update(nonlocal_names)
        return decls

    def _state_functions(self, block_vars, decls, reserved):
        getter = self.ctx.namer.new_helper('get_state', reserved)
        setter = self.ctx.namer.new_helper('set_state', reserved)
        if not block_vars:
            nodes = templates.replace(
                'def getter():\n    return ()\ndef setter(block_vars):\n    pass',
                getter=getter, setter=setter, block_vars=self.ctx.namer.new_helper('vars_'))
            return nodes, getter, setter
        loads = []
        stores = []
        for v in block_vars:
            if v.is_simple():
                loads.append(gast_util.name(str(v)))
            else:
                loads.append(templates.replace_as_expression(
                    'ag__.ldu(lambda: var_, name)', var_=v,
                    name=gast_util.constant(str(v))))
            store = v.ast()
            templates._set_ctx(store, gast.Store)  # pylint: disable=protected-access
            stores.append(store)
        vars_name = self.ctx.namer.new_helper('vars_')
        nodes = templates.replace(
            'def getter():\n    return loads\ndef setter(vars_):\n    decls\n    stores = vars_',
            getter=getter, setter=setter, vars_=vars_name, decls=decls,
            loads=gast_util.tuple_(loads), stores=gast_util.tuple_(stores, gast.Store))
        # The getter reads placeholders as they are; the operators check them.
        gast_util.skip(nodes[0])
        return nodes, getter, setter

    def _undefined_assigns(self, undefined, every_branch=frozenset()):
        """`x = ag__.Undefined('x')` for each name in `undefined`; `every_branch=True` for
        those an if statement assigns in every branch (None: all of them)."""
        assigns = []
        self.ctx.undefined_names.update(str(s) for s in undefined)
        for s in undefined:
            template = ('var_ = ag__.Undefined(name, every_branch=True)'
                        if every_branch is None or str(s) in every_branch
                        else 'var_ = ag__.Undefined(name)')
            assigns += templates.replace(template, var_=str(s),
                                         name=gast_util.constant(str(s)))
        return assigns

    def _names_tuple(self, block_vars):
        """The symbol names for the operator: generated symbols as `ag__.Symbol.<role>`."""
        elts = []
        for v in block_vars:
            role = self.ctx.generated_symbols.get(str(v))
            if role is None:
                elts.append(gast_util.constant(str(v)))
            else:
                elts.append(templates.replace_as_expression('ag__.Symbol.' + role.name))
        return gast_util.tuple_(elts)

    # -- statements -----------------------------------------------------------------------

    def visit_If(self, node):
        every_branch = definite_assignment.assigned_on_every_path(node.body)
        orelse = definite_assignment.assigned_on_every_path(node.orelse)
        every_branch = (orelse if every_branch is None else every_branch if orelse is None
                        else every_branch & orelse)
        through = _iterated_in_place(node.body + node.orelse)
        self.generic_visit(node)
        body_scope = anno.getanno(node, NodeAnno.BODY_SCOPE)
        orelse_scope = anno.getanno(node, NodeAnno.ORELSE_SCOPE)
        block_vars, undefined, nouts = self._get_block_vars(
            node, body_scope.bound | orelse_scope.bound, through)
        # a branch function's own locals that a staged `if` inside it reads first (as a loop
        # body's: `_bind_body_locals`)
        node.body = self._bound_locals(node.body, block_vars)
        node.orelse = self._bound_locals(node.orelse, block_vars) if node.orelse else node.orelse
        decls = self._declarations(block_vars)
        reserved = body_scope.referenced | orelse_scope.referenced
        state_fns, getter, setter = self._state_functions(block_vars, decls, reserved)
        template = '''
            state_fns
            def body_name():
                decls
                body
            def orelse_name():
                decls
                orelse
            undefined_assigns
            ag__.if_stmt(test, body_name, orelse_name, getter, setter, names, nouts)
        '''
        return templates.replace(
            template, state_fns=state_fns, decls=decls,
            body_name=self.ctx.namer.new_helper('if_body', reserved), body=node.body,
            orelse_name=self.ctx.namer.new_helper('else_body', reserved),
            orelse=node.orelse or [gast.Pass()],
            undefined_assigns=self._undefined_assigns(undefined, every_branch),
            test=node.test,
            getter=getter, setter=setter, names=self._names_tuple(block_vars),
            nouts=gast_util.constant(nouts))

    def _bind_body_locals(self, node, block_vars, targets=()):
        """Binds at the start of a loop's body function the names that it binds itself (they
        are its locals) and that functions inside it declare nonlocal, unless they are loop
        variables.

        Such a name is a variable of the loop body function: a branch inside the body reads
        it (a staged `if` reads its outputs' values before the branches) before the body
        has bound it in this iteration. It is not a loop variable, so no path reads a value
        of it from an earlier iteration; `ag__.Undefined` is what Python has there.
        """
        node.body = self._bound_locals(node.body, block_vars, targets)

    def _bound_locals(self, body, block_vars, targets=()):
        """`body` with `ag__.Undefined` bound first to the names it binds that functions in it
        declare nonlocal, other than `block_vars` (see `_bind_body_locals`)."""
        declared = set()  # declared nonlocal before an assignment at the body's top level
        assigned = set(targets)
        bound = set()
        for stmt in body:
            for m in traversal.walk(stmt):
                if isinstance(m, gast.Nonlocal):
                    declared.update(n for n in m.names if n not in assigned)
            names = bindings.level_bindings([stmt])[0]
            bound |= names
            if isinstance(stmt, (gast.Assign, gast.AnnAssign)):  # bound from here on
                assigned |= names
        missing = (declared & bound) - {str(v) for v in block_vars}
        if not missing:
            return body
        assigns = self._undefined_assigns(sorted(missing))
        transformer.set_missing_locations(assigns, body[0])
        return assigns + body

    def visit_While(self, node):
        through = _iterated_in_place(node.body)
        self.generic_visit(node)
        body_scope = anno.getanno(node, NodeAnno.BODY_SCOPE)
        block_vars, undefined, _ = self._get_block_vars(node, body_scope.bound, through)
        self._bind_body_locals(node, block_vars)
        decls = self._declarations(block_vars)
        reserved = body_scope.referenced
        state_fns, getter, setter = self._state_functions(block_vars, decls, reserved)
        template = '''
            state_fns
            def body_name():
                decls
                body
            def test_name():
                return test
            undefined_assigns
            ag__.while_stmt(test_name, body_name, getter, setter, names, opts)
        '''
        return templates.replace(
            template, state_fns=state_fns, decls=decls,
            body_name=self.ctx.namer.new_helper('loop_body', reserved), body=node.body,
            test_name=self.ctx.namer.new_helper('loop_test', reserved), test=node.test,
            undefined_assigns=self._undefined_assigns(undefined),
            getter=getter, setter=setter, names=self._names_tuple(block_vars),
            opts=_loop_opts(node, {}))

    def visit_For(self, node):
        through = _iterated_in_place(node.body)
        self.generic_visit(node)
        body_scope = anno.getanno(node, NodeAnno.BODY_SCOPE)
        iter_scope = anno.getanno(node, NodeAnno.ITERATE_SCOPE)
        block_vars, undefined, nouts = self._get_block_vars(
            node, body_scope.bound | iter_scope.bound, through)
        self._bind_body_locals(node, block_vars, {m.id for m in traversal.walk(node.target)
                                                  if isinstance(m, gast.Name)})
        decls = self._declarations(block_vars)
        reserved = body_scope.referenced | iter_scope.referenced
        state_fns, getter, setter = self._state_functions(block_vars, decls, reserved)
        test = anno.getanno(node, anno.Basic.EXTRA_LOOP_TEST, None)
        if test is not None:
            extra_name = self.ctx.namer.new_helper('extra_test', reserved)
            extra_fn = templates.replace('def extra_name():\n    return test',
                                         extra_name=extra_name, test=test)
            extra_ref = gast_util.name(extra_name)
        else:
            extra_fn = []
            extra_ref = gast_util.constant(None)
        itr = self.ctx.namer.new_helper('itr', reserved)
        target_repr = parser.unparse(node.target).strip()
        template = '''
            state_fns
            def body_name(itr):
                decls
                target = itr
                body
            extra_fn
            undefined_assigns
            ag__.for_stmt(iter_, extra_ref, body_name, getter, setter, names, opts)
        '''
        return templates.replace(
            template, state_fns=state_fns, decls=decls,
            body_name=self.ctx.namer.new_helper('loop_body', reserved), itr=itr,
            target=node.target, body=node.body, extra_fn=extra_fn, extra_ref=extra_ref,
            undefined_assigns=self._undefined_assigns(undefined), iter_=node.iter,
            getter=getter, setter=setter, names=self._names_tuple(block_vars),
            opts=_loop_opts(node, _dead_after(block_vars, nouts, test, {
                'iterate_names': gast_util.constant(target_repr)})))


def _dead_after(block_vars, nouts, extra_test, opts):
    """`opts` with 'nouts', the number of loop variables read after the loop (they come
    first), for a for loop that a `break` or a `return` may end (`extra_test`) where some are
    not: staging may drop what only they would keep (operators/loop_exits.py)."""
    if extra_test is not None and nouts < len(block_vars):
        opts = dict(opts, nouts=gast_util.constant(nouts))
    return opts


def _loop_opts(node, opts):
    """The `opts` dict display of a loop operator: `opts` plus the loop's set_loop_options."""
    opts = dict(opts)
    opts.update(anno.getanno(node, anno.Basic.LOOP_OPTIONS, {}))
    return gast.Dict(keys=[gast_util.constant(k) for k in opts], values=list(opts.values()))


_CLOSURES = (gast.Lambda, gast.FunctionDef, gast.GeneratorExp)
# The operators that change a Python list in place and return it to rebind the name to
# (`row = ag__.set_item(row, j, v)` for `row[j] = v`).
_IN_PLACE = ('set_item', 'list_append', 'list_pop', 'list_method')
# Expressions that make a new object, and the operators that make a new list.
_NEW_OBJECTS = (gast.List, gast.ListComp, gast.Dict, gast.DictComp, gast.Set, gast.SetComp,
                gast.Tuple, gast.BinOp, gast.Constant)
_NEW_LISTS = ('list_comprehension', 'repeat')


def _may_alias(fn):
    """The names of `fn` that may hold an object that another name holds too: its
    parameters, a `for` loop's targets, and the names it binds to anything but a new object
    (`row = dp[i]`, `b = a`, `row = get_row(i)`). A name bound only to displays,
    comprehensions and arithmetic (`primes = []`, `t = [0] * n`,
    `ag__.list_comprehension(...)`) is not among them."""
    names = {a.id for a in traversal.walk(fn.args) if isinstance(a, gast.Name)}
    for m in traversal.walk(fn):
        if isinstance(m, gast.For):
            names.update(t.id for t in traversal.walk(m.target) if isinstance(t, gast.Name))
        elif isinstance(m, gast.Assign) and not _new_object(m.value):
            for target in m.targets:
                names.update(t.id for t in traversal.walk(target) if isinstance(t, gast.Name))
    return frozenset(names)


def _new_object(value):
    """Whether `value` gives a new object (no other name holds it yet), or the object of the
    name it is assigned to (`primes = ag__.list_append(primes, i)`)."""
    return isinstance(value, _NEW_OBJECTS) or (
        isinstance(value, gast.Call) and _is_ag_call(value, _NEW_LISTS + _IN_PLACE))


def _is_ag_call(node, attrs):
    """Whether `node` is a call of one of the `ag__` operators named in `attrs`."""
    func = node.func
    return (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name)
            and func.value.id == 'ag__' and func.attr in attrs)


def _changed_in_place(block):
    """The names that `block` changes in place through an operator of _IN_PLACE."""
    names = set()
    for m in traversal.walk(block):
        if (isinstance(m, gast.Assign) and len(m.targets) == 1
                and isinstance(m.targets[0], gast.Name) and isinstance(m.value, gast.Call)
                and _is_ag_call(m.value, _IN_PLACE)):
            names.add(m.targets[0].id)
    return names


def _iterated_in_place(body):
    """The names that `for` loops in `body` iterate over (`for row in grid`, `for k, row in
    enumerate(grid)`) and whose elements they change in place through their targets
    (`row[j] = v`): `grid` changes, though no statement assigns it, and a staged statement
    around the loop must carry it (its rows are lists of the statement's own)."""
    names = set()
    for m in (m for stmt in body for m in traversal.walk(stmt)):
        if isinstance(m, gast.For):
            targets = {t.id for t in traversal.walk(m.target) if isinstance(t, gast.Name)}
            if any(targets & _changed_in_place(stmt) for stmt in m.body):
                names |= _iterated(m.iter)
    return names


# Builtins whose iteration gives the elements of their arguments (`enumerate(grid)`).
_ELEMENTS_OF = frozenset(('enumerate', 'zip', 'reversed', 'sorted', 'list', 'tuple', 'iter'))


def _iterated(expr):
    """The names whose elements iterating over `expr` gives: `grid` for `grid`,
    `grid[1:]`, `enumerate(grid)` or `zip(grid, ws)` (as converted calls too)."""
    if isinstance(expr, gast.Name):
        return {expr.id}
    if isinstance(expr, gast.Subscript):
        return _iterated(expr.value)
    if not isinstance(expr, gast.Call):
        return set()
    func, args = expr.func, expr.args
    if _is_ag_call(expr, ('converted_call',)) and len(args) > 1 and isinstance(
            args[1], gast.Tuple):
        func, args = args[0], args[1].elts
    elif _is_ag_call(expr, ('get_slice',)):
        return _iterated(args[0])
    if isinstance(func, gast.Name) and func.id in _ELEMENTS_OF:
        return set().union(*(_iterated(a) for a in args))
    return set()


def _closure_reads(fn):
    """Names that closures (and generator expressions) nested in `fn` read or rebind, and
    every name of `fn` when it calls `locals()` (or `vars()`, `eval`, `exec`: see
    `gast_util.frame_call`), which reads them all where liveness sees no read."""
    if any(gast_util.frame_call(m) for m in traversal.walk(fn)):
        return frozenset(m.id for m in traversal.walk(fn) if isinstance(m, gast.Name))
    reads = set()
    # a closure nested in another one reads nothing that the walk of the outer one misses
    for closure in traversal.outermost(fn, _CLOSURES):
        for m in traversal.walk(closure):
            if isinstance(m, gast.Name) and isinstance(m.ctx, gast.Load):
                reads.add(m.id)
            elif isinstance(m, gast.Nonlocal):
                reads.update(m.names)
    return frozenset(reads)


def _bound_names(fn):
    """Names that bind in `fn`'s own scope, including its nonlocal/global declarations."""
    args = fn.args
    names = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
    names.update(a.id for a in (args.vararg, args.kwarg) if a is not None)
    bound, declared = bindings.level_bindings(fn.body)
    return names | bound | declared


def transform(node, ctx):
    """Converts the control-flow statements of an analysed tree.

    Args:
      node: a gast tree annotated by the activity, reaching-definitions and liveness
        analyses.
      ctx: transformer.EntityInfo.

    Returns:
      The converted tree.
    """
    return ControlFlowTransformer(ctx).visit(node)
