"""Builds the control flow graphs of `cfg`: the AST walker that drives a GraphBuilder."""

import gast

from autograph.pyct import anno
from autograph.pyct import traversal
from autograph.pyct.cfg_graph_builder import GraphBuilder


class _FinallyGuard(object):
    """Lexical scope marker: code guarded by a try statement's finally clause only."""

    def __init__(self, try_node):
        self.try_node = try_node  # a Try or TryStar node with a finalbody


_LOOPS = (gast.While, gast.For, gast.AsyncFor)
_FUNCTIONS = (gast.FunctionDef, gast.AsyncFunctionDef)
_TRIES = (gast.Try, gast.TryStar)


class AstToCfg(traversal.NodeVisitor):
    """Converts an AST to CFGs.

    A separate CFG will be constructed for each function.
    """

    def __init__(self):
        super(AstToCfg, self).__init__()

        self.builder_stack = []  # builders of the enclosing functions and classes
        self.builder = None  # the builder of the innermost function; None at module level
        self.cfgs = {}  # function or lambda AST node -> Graph

        self.lexical_scopes = []  # enclosing functions, loops and try statements

    def _enter_lexical_scope(self, node):
        self.lexical_scopes.append(node)

    def _exit_lexical_scope(self, node):
        leaving_node = self.lexical_scopes.pop()
        assert node == leaving_node

    def _get_enclosing_finally_scopes(self, stop_at):
        included = []
        for node in reversed(self.lexical_scopes):
            if isinstance(node, _FinallyGuard):
                included.append(node.try_node)
            elif isinstance(node, _TRIES) and node.finalbody:
                included.append(node)
            if isinstance(node, stop_at):
                return node, included
        return None, included

    def _get_enclosing_except_scopes(self, stop_at):
        included = []
        for node in reversed(self.lexical_scopes):
            if isinstance(node, _TRIES) and node.handlers:
                included.extend(node.handlers)
            if isinstance(node, stop_at):
                break
        return included

    def _visit_children(self, node, children=None):
        """Visits the children of a node (all of them, or those given) for nested lambdas."""
        if children is None:
            super(AstToCfg, self).generic_visit(node)
            return
        for child in children:
            if child is not None:
                self.visit(child)

    def _process_basic_statement(self, node, children=None):
        self._visit_children(node, children)
        self.builder.add_ordinary_node(node)

    def _process_exit_statement(self, node, exits_nodes_of_type, may_exit_via_except=False):
        self._visit_children(node)
        # Note: this is safe because we process functions separately.
        try_node, guards = self._get_enclosing_finally_scopes(exits_nodes_of_type)
        if try_node is None:
            raise ValueError(
                '%s at line %s is not enclosed by any of %s; the source is not valid Python'
                % (type(node).__name__, getattr(node, 'lineno', '?'),
                   [t.__name__ for t in exits_nodes_of_type]))

        node = self.builder.add_exit_node(node, try_node, guards)

        if may_exit_via_except:
            except_guards = self._get_enclosing_except_scopes(exits_nodes_of_type)
            self.builder.connect_raise_node(node, except_guards)

    def _process_continue_statement(self, node, *loops_to_nodes_of_type):
        # Note: this is safe because we process functions separately.
        try_node, guards = self._get_enclosing_finally_scopes(tuple(loops_to_nodes_of_type))
        if try_node is None:
            raise ValueError('continue at line %s is not enclosed by any loop; the source is '
                             'not valid Python' % getattr(node, 'lineno', '?'))
        self.builder.add_continue_node(node, try_node, guards)

    def visit_ClassDef(self, node):
        # The ClassDef node is a statement of the enclosing function: evaluating it runs
        # decorators, bases and the class body. The class body gets a throwaway graph;
        # the methods in it get their own graphs.
        if self.builder is None:
            self.generic_visit(node)
            return

        self.builder.add_ordinary_node(node)

        self.builder_stack.append(self.builder)
        self.builder = GraphBuilder(node)
        self._enter_lexical_scope(node)

        self._visit_children(node)

        self._exit_lexical_scope(node)
        self.builder = self.builder_stack.pop()

    def _process_function_def(self, node, is_lambda):
        # The function body is stored in a separate graph, because function
        # definitions have effects very different from function calls.
        if self.builder is not None:
            self.builder.add_ordinary_node(node)

        self.builder_stack.append(self.builder)
        self.builder = GraphBuilder(node)

        self._enter_lexical_scope(node)
        self.builder.enter_section(node)

        # Defaults and annotations belong to the defining scope: the arguments node only
        # binds the parameters.
        self._process_basic_statement(node.args, children=())
        if is_lambda:
            self._process_exit_statement(node.body, (gast.Lambda,))
        else:
            for stmt in node.body:
                self.visit(stmt)

        self.builder.exit_section(node)
        self._exit_lexical_scope(node)

        self.cfgs[node] = self.builder.build()
        self.builder = self.builder_stack.pop()

    def visit_FunctionDef(self, node):
        # Decorators, defaults and annotations are evaluated in the defining scope; they
        # may contain lambdas, which get their own graphs.
        for child in node.decorator_list + node.args.defaults + node.args.kw_defaults:
            if child is not None:
                self.visit(child)
        self._process_function_def(node, is_lambda=False)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        for child in node.args.defaults + node.args.kw_defaults:
            if child is not None:
                self.visit(child)
        # Lambdas are opaque expressions of the enclosing graph: only their own graph
        # has nodes for them.
        builder = self.builder
        self.builder = None
        self._process_function_def(node, is_lambda=True)
        self.builder = builder

    def visit_Return(self, node):
        self._process_exit_statement(node, _FUNCTIONS)

    def _visit_simple(self, node):
        self._process_basic_statement(node)

    visit_Import = _visit_simple
    visit_ImportFrom = _visit_simple
    visit_Expr = _visit_simple
    visit_Assign = _visit_simple
    visit_AnnAssign = _visit_simple
    visit_AugAssign = _visit_simple
    visit_Pass = _visit_simple
    visit_Global = _visit_simple
    visit_Nonlocal = _visit_simple
    visit_Assert = _visit_simple
    visit_Delete = _visit_simple

    def visit_Raise(self, node):
        self._process_exit_statement(node, _FUNCTIONS, may_exit_via_except=True)
        self.builder.errors.add(self.builder.node_index[node])

    def visit_Break(self, node):
        self._process_exit_statement(node, _LOOPS)

    def visit_Continue(self, node):
        self._process_continue_statement(node, *_LOOPS)

    def visit_ExceptHandler(self, node):
        self.builder.begin_statement(node)
        # The handler's header (the exception type, which also binds the name) is a node
        # of its own, so that the name binding has a place in the graph.
        if node.type is not None:
            self._process_basic_statement(node.type)
        for stmt in node.body:
            self.visit(stmt)
        self.builder.end_statement(node)

    def visit_If(self, node):
        self.builder.begin_statement(node)

        # Add the guard as a node.
        self.builder.enter_cond_section(node)
        self._process_basic_statement(node.test)

        self.builder.new_cond_branch(node)
        for stmt in node.body:
            self.visit(stmt)

        self.builder.new_cond_branch(node)
        for stmt in node.orelse:
            self.visit(stmt)

        self.builder.exit_cond_section(node)
        self.builder.end_statement(node)

    def _visit_loop(self, node, head, extra_test=None):
        self.builder.begin_statement(node)
        self._enter_lexical_scope(node)

        self.builder.enter_section(node)

        self._visit_children(head)
        self.builder.enter_loop_section(node, head)
        if extra_test is not None:
            self._process_basic_statement(extra_test)
        for stmt in node.body:
            self.visit(stmt)
        self.builder.exit_loop_section(node)

        # Note: although the orelse is technically part of the loop node,
        # the statements inside it don't affect the loop itself. For example, a
        # break in the loop's orelse will not affect the loop itself.
        self._exit_lexical_scope(node)

        for stmt in node.orelse:
            self.visit(stmt)

        self.builder.exit_section(node)
        self.builder.end_statement(node)

    def visit_While(self, node):
        self._visit_loop(node, node.test)

    def visit_For(self, node):
        # Note: the loop head node is node.iter, and it also stands for the assignment of
        # node.target: activity analysis records the target's writes on node.iter.
        # The "extra loop test" annotation captures the control variables of converted
        # break and return statements.
        self._visit_loop(node, node.iter, anno.getanno(node, anno.Basic.EXTRA_LOOP_TEST, None))

    visit_AsyncFor = visit_For

    def visit_Try(self, node):
        self.builder.begin_statement(node)
        self._enter_lexical_scope(node)

        # Every node of the try body may raise into the handlers; the state before the
        # body, and after each of its nodes, flows into them.
        if node.handlers:
            self.builder.enter_try_body()
        for stmt in node.body:
            self.visit(stmt)
        sources = self.builder.exit_try_body() if node.handlers else ()
        self._exit_lexical_scope(node)

        # The else clause and the handlers are guarded by the finally clause only.
        guard = _FinallyGuard(node) if node.finalbody else None
        if guard is not None:
            self._enter_lexical_scope(guard)
        # The orelse is an optional continuation of the body.
        for stmt in node.orelse:
            self.visit(stmt)

        if node.handlers:
            # Using node would be inconsistent. Using the first handler node is also
            # inconsistent, but less so.
            block_representative = node.handlers[0]
            self.builder.enter_cond_section(block_representative)
            self.builder.new_cond_branch(block_representative)
            for block in node.handlers:
                self.builder.new_cond_branch(block_representative)
                self.builder.enter_except_section(block, sources)
                self.visit(block)
            self.builder.new_cond_branch(block_representative)
            self.builder.exit_cond_section(block_representative)

        if guard is not None:
            self._exit_lexical_scope(guard)
        if node.finalbody:
            self.builder.enter_finally_section(node)
            for stmt in node.finalbody:
                self.visit(stmt)
            self.builder.exit_finally_section(node)

        self.builder.end_statement(node)

    visit_TryStar = visit_Try

    def visit_With(self, node):
        self.builder.begin_statement(node)
        for item in node.items:
            self._process_basic_statement(item)
        for stmt in node.body:
            self.visit(stmt)
        self.builder.end_statement(node)

    visit_AsyncWith = visit_With

    def visit_Match(self, node):
        self.builder.begin_statement(node)
        self.builder.enter_cond_section(node)
        self._process_basic_statement(node.subject)
        # Cases are tried in order: each case node follows the previous case node when
        # its pattern fails, and the no-match path follows the last case node.
        case_leaves = self.builder.leaves
        for case in node.cases:
            self.builder.new_cond_branch(node)
            self.builder.leaves = case_leaves
            self.builder.begin_statement(case)
            self._process_basic_statement(case, children=(case.guard,))
            irrefutable = (isinstance(case.pattern, gast.MatchAs) and
                           case.pattern.pattern is None and case.guard is None)
            case_leaves = set() if irrefutable else self.builder.leaves
            for stmt in case.body:
                self.visit(stmt)
            self.builder.end_statement(case)
        self.builder.new_cond_branch(node)
        self.builder.leaves = case_leaves
        self.builder.exit_cond_section(node)
        self.builder.end_statement(node)

    def generic_visit(self, node):
        # Statements without a dedicated visitor (e.g. type aliases, or syntax newer than
        # this module) are treated as one opaque ordinary node.
        if isinstance(node, gast.stmt) and self.builder is not None:
            expressions = [v for _, v in gast.iter_fields(node) if isinstance(v, gast.expr)]
            self._process_basic_statement(node, children=expressions)
            return
        if isinstance(node, gast.expr):
            # An expression matters only for the lambdas in it (each gets its own graph):
            # find them, in the order a visit would, without visiting every node.
            for lambda_node in reversed(traversal.outermost(node, gast.Lambda)):
                self.visit_Lambda(lambda_node)
            return
        super(AstToCfg, self).generic_visit(node)
