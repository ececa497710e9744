"""Activity analysis: which symbols each statement and block reads, modifies and binds.

Requires qualified names: run `qual_names.resolve` on the tree first.
"""

import gast

from autograph.pyct import anno
from autograph.pyct import qual_names
from autograph.pyct import traversal
from autograph.pyct.static_analysis.annos import NodeAnno
from autograph.pyct.static_analysis.scopes import Scope

__all__ = ['ActivityAnalyzer', 'Scope', 'resolve']

# the annotation key read for every name, looked up once (an enum member's attribute lookup
# is slow)
_QN = anno.Basic.QN


class _Comprehension(object):
    """State of a comprehension being analyzed."""

    def __init__(self):
        self.targets = set()  # QNs bound by the comprehension's `for` clauses


def _callee_name(call):
    """The name `call` calls, `f` in `f(x)` and in a wrapped call of `f` (one a converter
    marked with anno.Basic.CALLEE), or None."""
    func = anno.getanno(call, anno.Basic.CALLEE, call.func)
    if isinstance(func, gast.Name):
        return func.id
    return None


class ActivityAnalyzer(traversal.NodeTransformer):
    """Annotates nodes with local scope information.

    See Scope.

    The use of this class requires that qual_names.resolve() has been called on
    the node. This class will ignore nodes have not been
    annotated with their qualified names.
    """

    def __init__(self, context, parent_scope=None):
        super(ActivityAnalyzer, self).__init__()
        self.ctx = context
        self.scope = Scope(parent_scope, isolated=True)

        # Note: all these flags crucially rely on the respective nodes are
        # leaves in the AST, that is, they cannot contain other statements.
        self._in_aug_assign = False
        self._in_annotation = False
        self._track_annotations_only = False
        self._in_named_expr_target = False

        self._comprehensions = []  # stack of _Comprehension
        self._functions_or_classes = []  # stack of enclosing FunctionDef/ClassDef/Lambda
        # Per enclosing function body (outermost first): the name of each function defined
        # in it -> the names that function assigns through `nonlocal` (see visit_Call).
        self._nonlocal_writers = [{}]

    def visit(self, node):
        # the visit method of the node's class, found once per class (traversal)
        method = self._traversal_dispatch.get(node.__class__) or self.method_for(node.__class__)
        if method is not _GENERIC_VISIT:
            return method(self, node)
        if isinstance(node, gast.stmt):
            # Any statement without special rules (including syntax newer than this
            # module) is analyzed as a whole.
            return self._process_statement(node)
        return self.generic_visit(node)

    def visit_block(self, nodes):
        """Visits a list of nodes in order; returns the list of results."""
        return [self.visit(n) for n in nodes]

    @property
    def _in_constructor(self):
        stack = self._functions_or_classes
        if len(stack) > 1:
            innermost = stack[-1]
            parent = stack[-2]
            return (isinstance(parent, gast.ClassDef) and
                    (isinstance(innermost, gast.FunctionDef) and
                     innermost.name == '__init__'))
        return False

    def _node_sets_self_attribute(self, node):
        qn = anno.getanno(node, _QN, None)
        return qn is not None and qn.has_attr() and qn.parent.qn == ('self',)

    def _track_symbol(self, node, composite_writes_alter_parent=False):
        if self._track_annotations_only:
            return

        # A QN may be missing when we have an attribute (or subscript) on a function
        # call. Example: a().b
        qn = anno.getanno(node, _QN, None)
        if qn is None:
            return

        # When inside a comprehension, ignore reads to any of the comprehensions's
        # targets. This includes attributes or slices of those arguments.
        if not self._in_named_expr_target:
            for comp in self._comprehensions:
                if qn in comp.targets:
                    return
                if qn.owner_set & comp.targets:
                    return

        if isinstance(node.ctx, gast.Store):
            # In comprehensions, modified symbols are the comprehension targets. An
            # assignment expression binds in the enclosing function instead.
            if self._comprehensions and not self._in_named_expr_target:
                self._comprehensions[-1].targets.add(qn)
                return

            self.scope.modified.add(qn)
            self.scope.bound.add(qn)
            if qn.is_composite() and composite_writes_alter_parent:
                self.scope.modified.add(qn.parent)
            if self._in_aug_assign:
                self.scope.read.add(qn)

        elif isinstance(node.ctx, gast.Load):
            self.scope.read.add(qn)
            if self._in_annotation:
                self.scope.annotations.add(qn)

        elif isinstance(node.ctx, gast.Param):
            self.scope.bound.add(qn)
            self.scope.mark_param(qn, self._functions_or_classes[-1])

        elif isinstance(node.ctx, gast.Del):
            # The read matches the Python semantics - attempting to delete an
            # undefined symbol is illegal.
            self.scope.read.add(qn)
            # Targets of del are considered bound:
            # https://docs.python.org/3/reference/executionmodel.html#binding-of-names
            self.scope.deleted.add(qn)
            self.scope.bound.add(qn)

        else:
            raise ValueError('expected a Load, Store, Param or Del context for "%s", found %s'
                             % (qn, type(node.ctx).__name__))

    def _track_pattern_capture(self, name):
        """Records the binding of a plain name (pattern captures and imports)."""
        if name is None:
            return
        qn = qual_names.QN(name)
        self.scope.modified.add(qn)
        self.scope.bound.add(qn)

    def _enter_scope(self, isolated, f_name=None):
        self.scope = Scope(self.scope, isolated=isolated, function_name=f_name)

    def _exit_scope(self):
        exited_scope = self.scope
        exited_scope.finalize()
        self.scope = exited_scope.parent
        return exited_scope

    def _exit_and_record_scope(self, node, tag=anno.Static.SCOPE):
        node_scope = self._exit_scope()
        anno.setanno(node, tag, node_scope)
        return node_scope

    def _process_statement(self, node):
        self._enter_scope(False)
        node = self.generic_visit(node)
        self._exit_and_record_scope(node)
        return node

    def _process_annotation(self, node):
        self._in_annotation = True
        node = self.visit(node)
        self._in_annotation = False
        return node

    def visit_Global(self, node):
        self._enter_scope(False)
        for name in node.names:
            qn = qual_names.QN(name)
            self.scope.read.add(qn)
            self.scope.globals.add(qn)
        self._exit_and_record_scope(node)
        return node

    def visit_Nonlocal(self, node):
        self._enter_scope(False)
        for name in node.names:
            qn = qual_names.QN(name)
            self.scope.read.add(qn)
            self.scope.bound.add(qn)
            self.scope.nonlocals.add(qn)
        self._exit_and_record_scope(node)
        return node

    def visit_AnnAssign(self, node):
        self._enter_scope(False)
        node.target = self.visit(node.target)
        if node.value is not None:
            # Can be None for pure declarations, e.g. `n: int`. This is a new thing
            # enabled by type annotations, but does not influence static analysis
            # (declarations are not definitions).
            node.value = self.visit(node.value)
        if node.annotation:
            node.annotation = self._process_annotation(node.annotation)
        self._exit_and_record_scope(node)
        return node

    def visit_AugAssign(self, node):
        # Special rules for AugAssign. Here, the AST only shows the target as
        # written, when it is in fact also read.
        self._enter_scope(False)

        self._in_aug_assign = True
        node.target = self.visit(node.target)
        self._in_aug_assign = False

        node.op = self.visit(node.op)
        node.value = self.visit(node.value)
        self._exit_and_record_scope(node)
        return node

    def visit_Name(self, node):
        if node.annotation:
            node.annotation = self._process_annotation(node.annotation)
        self._track_symbol(node)
        return node

    def visit_NamedExpr(self, node):
        node.value = self.visit(node.value)
        self._in_named_expr_target = True
        node.target = self.visit(node.target)
        self._in_named_expr_target = False
        return node

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if self._in_constructor and self._node_sets_self_attribute(node):
            self._track_symbol(node, composite_writes_alter_parent=True)
        else:
            self._track_symbol(node)
        return node

    def visit_Subscript(self, node):
        self.generic_visit(node)
        # Subscript writes (e.g. a[b] = "value") are considered to modify
        # both the element itself (a[b]) and its parent (a).
        self._track_symbol(node)
        return node

    def visit_Call(self, node):
        self._enter_scope(False)
        node.args = self.visit_block(node.args)
        node.keywords = self.visit_block(node.keywords)
        self._exit_and_record_scope(node, tag=NodeAnno.ARGS_SCOPE)

        node.func = self.visit(node.func)
        callee = _callee_name(node)
        if callee is not None:
            # A call of a function defined here that assigns variables of this function
            # through `nonlocal` reads and assigns them where it is called: in a staged
            # branch or loop, they are its outputs (TensorFlow's AutoGraph leaves them out,
            # and the tensor the call assigns leaks out of the branch).
            for writers in reversed(self._nonlocal_writers):
                writes = writers.get(callee)
                if writes is not None:
                    self.scope.read.update(writes)
                    self.scope.modified.update(writes)
                    self.scope.bound.update(writes)
                    break
        return node

    def _process_block_node(self, node, block, scope_name):
        self._enter_scope(False)
        block = self.visit_block(block)
        self._exit_and_record_scope(node, tag=scope_name)
        return node

    def _process_parallel_blocks(self, parent, children):
        # Parallel blocks (if/else, loop body/orelse, match cases) are processed one after
        # the other in the same enclosing scope. A block only adds to that scope (when its
        # own scope is finalized) and never reads it, so each block sees the same context
        # and the enclosing scope ends with the union of the blocks' activity, as if each
        # had been analysed from a checkpoint. (TensorFlow copies the whole scope chain per
        # block, which makes the analysis quadratic in the length of the function; here the
        # block scopes' `parent` is the live enclosing scope instead of a snapshot.)
        for child, process in children:
            process(child)
        return parent

    def _body_and_orelse(self, node):
        return (
            (node.body, lambda b: self._process_block_node(node, b, NodeAnno.BODY_SCOPE)),
            (node.orelse, lambda b: self._process_block_node(node, b, NodeAnno.ORELSE_SCOPE)),
        )

    def _process_comprehension(self, node, is_dict_comp=False):
        self._comprehensions.append(_Comprehension())
        # Note: it's important to visit the generators first to properly account
        # for the variables local to these generators. Example: `x` is local to
        # the expression `z for x in y for z in x`.
        node.generators = self.visit_block(node.generators)
        if is_dict_comp:
            node.key = self.visit(node.key)
            node.value = self.visit(node.value)
        else:
            node.elt = self.visit(node.elt)
        self._comprehensions.pop()
        return node

    def visit_comprehension(self, node):
        # It is important to visit children in this order so that the reads to
        # the target name are appropriately ignored.
        node.iter = self.visit(node.iter)
        node.target = self.visit(node.target)
        node.ifs = self.visit_block(node.ifs)
        return node

    def visit_DictComp(self, node):
        return self._process_comprehension(node, is_dict_comp=True)

    def visit_ListComp(self, node):
        return self._process_comprehension(node)

    def visit_SetComp(self, node):
        return self._process_comprehension(node)

    def visit_GeneratorExp(self, node):
        return self._process_comprehension(node)

    def visit_ClassDef(self, node):
        self._functions_or_classes.append(node)
        # The ClassDef node itself has a Scope object that tracks the creation
        # of its name, along with the usage of any decorator accompanying it, and the
        # free variables of its body: the body runs when the statement does.
        self._enter_scope(False)
        node.decorator_list = self.visit_block(node.decorator_list)
        self.scope.modified.add(qual_names.QN(node.name))
        self.scope.bound.add(qual_names.QN(node.name))
        node.bases = self.visit_block(node.bases)
        node.keywords = self.visit_block(node.keywords)

        # A separate Scope tracks the actual class definition.
        self._enter_scope(True)
        node.body = self.visit_block(node.body)
        self._exit_scope()
        self._exit_and_record_scope(node)
        self._functions_or_classes.pop()
        return node

    def _visit_node_list(self, nodes):
        return [(None if n is None else self.visit(n)) for n in nodes]

    def _visit_arg_annotations(self, node):
        node.args.kw_defaults = self._visit_node_list(node.args.kw_defaults)
        node.args.defaults = self._visit_node_list(node.args.defaults)
        self._track_annotations_only = True
        node = self._visit_arg_declarations(node)
        self._track_annotations_only = False
        return node

    def _visit_arg_declarations(self, node):
        node.args.posonlyargs = self._visit_node_list(node.args.posonlyargs)
        node.args.args = self._visit_node_list(node.args.args)
        if node.args.vararg is not None:
            node.args.vararg = self.visit(node.args.vararg)
        node.args.kwonlyargs = self._visit_node_list(node.args.kwonlyargs)
        if node.args.kwarg is not None:
            node.args.kwarg = self.visit(node.args.kwarg)
        return node

    def visit_FunctionDef(self, node):
        self._functions_or_classes.append(node)
        # The FunctionDef node itself has a Scope object that tracks the creation
        # of its name, along with the usage of any decorator accompanying it.
        self._enter_scope(False)
        node.decorator_list = self.visit_block(node.decorator_list)
        if node.returns:
            node.returns = self._process_annotation(node.returns)
        # Argument annotations (including defaults) affect the defining context.
        node = self._visit_arg_annotations(node)

        function_name = qual_names.QN(node.name)
        self.scope.modified.add(function_name)
        self.scope.bound.add(function_name)
        self._exit_and_record_scope(node)

        # A separate Scope tracks the actual function definition.
        self._enter_scope(True, node.name)

        # Keep a separate scope for the arguments node, which is used in the CFG.
        self._enter_scope(False, node.name)

        # Arg declarations only affect the function itself, and have no effect
        # in the defining context whatsoever.
        node = self._visit_arg_declarations(node)

        self._exit_and_record_scope(node.args)

        # Track the body separately. This is for compatibility reasons, it may not
        # be strictly needed.
        self._enter_scope(False, node.name)
        self._nonlocal_writers.append({})
        node.body = self.visit_block(node.body)
        self._nonlocal_writers.pop()
        body = self._exit_and_record_scope(node, NodeAnno.BODY_SCOPE)

        self._exit_and_record_scope(node, NodeAnno.ARGS_AND_BODY_SCOPE)
        self._functions_or_classes.pop()
        writes = body.nonlocals & body.modified
        if writes:
            self._nonlocal_writers[-1][node.name] = frozenset(writes)
        else:  # a later definition of the name writes nothing
            self._nonlocal_writers[-1].pop(node.name, None)
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        # Lambda nodes are treated in roughly the same way as FunctionDef nodes.
        self._functions_or_classes.append(node)
        # The Lambda node itself has a Scope object that tracks its defaults.
        self._enter_scope(False)
        node = self._visit_arg_annotations(node)
        self._exit_and_record_scope(node)

        # A separate Scope tracks the actual function definition.
        self._enter_scope(True)

        # Keep a separate scope for the arguments node, which is used in the CFG.
        self._enter_scope(False)
        node = self._visit_arg_declarations(node)
        self._exit_and_record_scope(node.args)

        self._enter_scope(False)
        node.body = self.visit(node.body)

        # The lambda body can contain nodes of types normally not found as
        # statements, and may not have the SCOPE annotation needed by the CFG.
        # So we attach one if necessary.
        if not anno.hasanno(node.body, anno.Static.SCOPE):
            anno.setanno(node.body, anno.Static.SCOPE, self.scope)

        self._exit_and_record_scope(node, NodeAnno.BODY_SCOPE)

        lambda_scope = self.scope
        self._exit_and_record_scope(node, NodeAnno.ARGS_AND_BODY_SCOPE)

        # Exception: lambdas are assumed to be used in the place where
        # they are defined. Therefore, their activity is passed on to the
        # calling statement.
        self.scope.read.update(lambda_scope.read - lambda_scope.bound)
        self._functions_or_classes.pop()
        return node

    def visit_With(self, node):
        self._enter_scope(False)
        node = self.generic_visit(node)
        self._exit_and_record_scope(node, NodeAnno.BODY_SCOPE)
        return node

    visit_AsyncWith = visit_With

    def visit_withitem(self, node):
        return self._process_statement(node)

    def visit_If(self, node):
        self._enter_scope(False)
        node.test = self.visit(node.test)
        node_scope = self._exit_and_record_scope(node.test)
        anno.setanno(node, NodeAnno.COND_SCOPE, node_scope)

        return self._process_parallel_blocks(node, self._body_and_orelse(node))

    def visit_For(self, node):
        self._enter_scope(False)
        node.target = self.visit(node.target)
        node.iter = self.visit(node.iter)
        self._exit_and_record_scope(node.iter)

        self._enter_scope(False)
        self.visit(node.target)
        if anno.hasanno(node, anno.Basic.EXTRA_LOOP_TEST):
            self._process_statement(anno.getanno(node, anno.Basic.EXTRA_LOOP_TEST))
        self._exit_and_record_scope(node, tag=NodeAnno.ITERATE_SCOPE)

        return self._process_parallel_blocks(node, self._body_and_orelse(node))

    visit_AsyncFor = visit_For

    def visit_While(self, node):
        self._enter_scope(False)
        node.test = self.visit(node.test)
        node_scope = self._exit_and_record_scope(node.test)
        anno.setanno(node, NodeAnno.COND_SCOPE, node_scope)

        return self._process_parallel_blocks(node, self._body_and_orelse(node))

    def visit_Try(self, node):
        node.body = self.visit_block(node.body)
        node.handlers = self.visit_block(node.handlers)
        node.orelse = self.visit_block(node.orelse)
        node.finalbody = self.visit_block(node.finalbody)
        return node

    visit_TryStar = visit_Try

    def visit_ExceptHandler(self, node):
        self._enter_scope(False)
        # try/except oddity: as expected, it leaks any names you defined inside the
        # except block, but not the name of the exception variable.
        if node.type is not None:
            # The type is the handler's CFG node; it also binds the name.
            self._enter_scope(False)
            node.type = self.visit(node.type)
            if node.name is not None:
                node.name = self.visit(node.name)
            self._exit_and_record_scope(node.type)
        if node.name is not None:
            self.scope.isolated_names.add(anno.getanno(node.name, anno.Basic.QN))
        node.body = self.visit_block(node.body)
        anno.setanno(node, NodeAnno.BODY_SCOPE, self.scope)
        self._exit_scope()
        return node

    def visit_Match(self, node):
        self._enter_scope(False)
        node.subject = self.visit(node.subject)
        node_scope = self._exit_and_record_scope(node.subject)
        anno.setanno(node, NodeAnno.COND_SCOPE, node_scope)
        return self._process_parallel_blocks(
            node, [(case, self._process_match_case) for case in node.cases])

    def _process_match_case(self, node):
        # The case's CFG node stands for its pattern (captures, value reads) and guard.
        self._enter_scope(False)
        node.pattern = self.visit(node.pattern)
        captures = set(self.scope.bound)
        if node.guard is not None:
            node.guard = self.visit(node.guard)
        # The guard runs after the pattern bound its captures: reading them is local.
        self.scope.read -= captures
        self._exit_and_record_scope(node)
        return self._process_block_node(node, node.body, NodeAnno.BODY_SCOPE)

    def visit_alias(self, node):
        # `import a.b` binds `a`; `import a.b as c` and `from a import b as c` bind `c`.
        if node.name != '*':
            self._track_pattern_capture(node.asname or node.name.split('.')[0])
        return node

    def visit_MatchAs(self, node):
        node = self.generic_visit(node)
        self._track_pattern_capture(node.name)
        return node

    def visit_MatchStar(self, node):
        self._track_pattern_capture(node.name)
        return node

    def visit_MatchMapping(self, node):
        node = self.generic_visit(node)
        self._track_pattern_capture(node.rest)
        return node


# what method_for gives a node class that ActivityAnalyzer has no visit method for
_GENERIC_VISIT = ActivityAnalyzer.generic_visit


def resolve(node, context, parent_scope=None):
    """Annotates a tree with activity scopes.

    Statements and compound-statement headers get Static.SCOPE; compound statements get
    the COND/BODY/ORELSE/ITERATE scopes, functions and lambdas ARGS_AND_BODY_SCOPE and
    calls ARGS_SCOPE.

    Args:
      node: a gast tree annotated by qual_names.resolve.
      context: the transformer context (kept for TensorFlow compatibility; unused).
      parent_scope: optional Scope that encloses the tree.

    Returns:
      The same tree, annotated in place.
    """
    return ActivityAnalyzer(context, parent_scope).visit(node)
