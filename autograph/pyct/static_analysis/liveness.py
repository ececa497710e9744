"""Live variable analysis: which symbols may be read later, at each statement.

See https://en.wikipedia.org/wiki/Live_variable_analysis for a definition of
the following idioms: live variable, live in, live out, which are used
throughout this file.

This analysis attaches the following:
 * symbols that are live at the exit of control flow statements
 * symbols that are live at the entry of control flow statements

Requires activity analysis (activity.resolve) and the CFGs (cfg.build) of the tree.
"""

import gast

from autograph.pyct import anno
from autograph.pyct import cfg
from autograph.pyct import transformer
from autograph.pyct import traversal
from autograph.pyct.static_analysis import reaching_definitions
from autograph.pyct.static_analysis.annos import NodeAnno


class Analyzer(cfg.GraphVisitor):
    """CFG visitor that performs liveness analysis at statement level."""

    def __init__(self, graph, include_annotations, graphs=None):
        super(Analyzer, self).__init__(graph)
        self.include_annotations = include_annotations
        # Local function definitions that may exist at each node: their closures are
        # live wherever they may be called.
        self.reaching_functions = reaching_definitions.FnDefsAnalyzer.of(graph, graphs).in_

    def init_state(self, _):
        return set()

    def _closure_reads(self, node):
        reads = set()
        for fn_ast_node in self.reaching_functions.get(node, ()):
            fn_scope = anno.getanno(fn_ast_node, NodeAnno.ARGS_AND_BODY_SCOPE, None)
            if fn_scope is not None:
                # Any closure of a reaching function definition is conservatively
                # considered live.
                reads |= fn_scope.read - fn_scope.bound
        return reads

    def visit_node(self, node):
        prev_live_in = self.in_[node]

        live_out = set()
        for n in node.next:
            live_out |= self.in_[n]

        if anno.hasanno(node.ast_node, anno.Static.SCOPE):
            node_scope = anno.getanno(node.ast_node, anno.Static.SCOPE)

            gen = node_scope.read
            if not self.include_annotations:
                gen = gen - node_scope.annotations
            kill = node_scope.modified | node_scope.deleted
            live_in = gen | (live_out - kill)
            live_in |= self._closure_reads(node)

        else:
            assert self.can_ignore(node), (node.ast_node, node)
            live_in = live_out

        self.in_[node] = live_in
        self.out[node] = live_out

        return prev_live_in != live_in


class TreeAnnotator(traversal.NodeTransformer):
    """Runs liveness analysis on each of the functions defined in the AST.

    If a function defined other local functions, those will have separate CFGs.
    However, dataflow analysis needs to tie up these CFGs to properly emulate the
    effect of closures. In the case of liveness, the parent function's live
    variables must account for the variables that are live at the entry of each
    subfunction. For example:

      def foo():
        # baz is live from here on
        def bar():
          print(baz)

    This analyzer runs liveness analysis on each individual function, accounting
    for the effect above.
    """

    def __init__(self, context, graphs, include_annotations):
        super(TreeAnnotator, self).__init__()
        self.ctx = context
        self.include_annotations = include_annotations
        self.graphs = graphs
        self.current_analyzer = None  # the Analyzer of the innermost function

    def generic_visit(self, node):
        # Only statements (and match cases) are annotated, and no statement is inside an
        # expression: a lambda's analysis annotates nothing. So the annotator descends into
        # statement blocks alone, which skips most of the tree.
        return self.transform_fields(node, transformer.block_fields(node))

    def visit(self, node):
        node = super(TreeAnnotator, self).visit(node)
        if (self.current_analyzer is not None and
                isinstance(node, (gast.stmt, gast.match_case)) and
                node in self.current_analyzer.graph.index):
            cfg_node = self.current_analyzer.graph.index[node]
            anno.setanno(node, anno.Static.LIVE_VARS_IN,
                         frozenset(self.current_analyzer.in_[cfg_node]))
            anno.setanno(node, anno.Static.LIVE_VARS_OUT,
                         frozenset(self.current_analyzer.out[cfg_node]))
        return node

    def _analyze_function(self, node):
        graph = self.graphs.get(node)
        if graph is None:
            # A function the CFG builder did not reach (e.g. a lambda in an annotation).
            return node
        parent_analyzer = self.current_analyzer

        analyzer = Analyzer(graph, self.include_annotations, self.graphs)
        analyzer.visit_reverse()
        self.current_analyzer = analyzer
        node.args = self.visit(node.args)
        if isinstance(node, gast.Lambda):
            node.body = self.visit(node.body)
        else:
            node.body = [self.visit(n) for n in node.body]

        self.current_analyzer = parent_analyzer
        return node

    def visit_Lambda(self, node):
        node.args.defaults = [self.visit(n) for n in node.args.defaults]
        return self._analyze_function(node)

    def visit_FunctionDef(self, node):
        node.decorator_list = [self.visit(n) for n in node.decorator_list]
        node.args.defaults = [self.visit(n) for n in node.args.defaults]
        return self._analyze_function(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        # The ClassDef is one node of the enclosing function's graph. Its body has no graph:
        # it is not annotated, but the functions defined in it are analysed with their own.
        for field in node._fields:
            if field != 'body':
                value = getattr(node, field, None)
                if isinstance(value, list):
                    setattr(node, field, [self.visit(n) for n in value])
                elif isinstance(value, gast.AST):
                    setattr(node, field, self.visit(value))
        parent_analyzer = self.current_analyzer
        self.current_analyzer = None
        node.body = [self.visit(n) for n in node.body]
        self.current_analyzer = parent_analyzer
        return node

    def _block_statement_live_out(self, node):
        successors = self.current_analyzer.graph.stmt_next.get(node, ())
        stmt_live_out = set()
        for s in successors:
            stmt_live_out.update(self.current_analyzer.in_[s])
        anno.setanno(node, anno.Static.LIVE_VARS_OUT, frozenset(stmt_live_out))
        return node

    def _block_statement_live_in(self, node, entry_node):
        if entry_node in self.current_analyzer.graph.index:
            cfg_node = self.current_analyzer.graph.index[entry_node]
            stmt_live_in = frozenset(self.current_analyzer.in_[cfg_node])
        else:
            assert anno.hasanno(entry_node, anno.Static.LIVE_VARS_IN), (
                'If not matching a CFG node, must be a block statement:'
                ' {}'.format(entry_node))
            stmt_live_in = anno.getanno(entry_node, anno.Static.LIVE_VARS_IN)
        anno.setanno(node, anno.Static.LIVE_VARS_IN, stmt_live_in)
        return node

    def _visit_block_statement(self, node, entry_node):
        node = self.generic_visit(node)
        if self.current_analyzer is None:
            return node
        node = self._block_statement_live_out(node)
        return self._block_statement_live_in(node, entry_node)

    def visit_If(self, node):
        return self._visit_block_statement(node, node.test)

    def visit_For(self, node):
        return self._visit_block_statement(node, node.iter)

    visit_AsyncFor = visit_For

    def visit_While(self, node):
        return self._visit_block_statement(node, node.test)

    def visit_Try(self, node):
        node = self._visit_block_statement(node, node.body[0])
        if self.current_analyzer is not None:
            # Exceptions may enter the handlers before the body's first statement is done.
            live_in = set(anno.getanno(node, anno.Static.LIVE_VARS_IN))
            for handler in node.handlers:
                live_in |= anno.getanno(handler, anno.Static.LIVE_VARS_IN)
            anno.setanno(node, anno.Static.LIVE_VARS_IN, frozenset(live_in))
        return node

    visit_TryStar = visit_Try

    def visit_ExceptHandler(self, node):
        entry = node.type if node.type is not None else node.body[0]
        return self._visit_block_statement(node, entry)

    def visit_With(self, node):
        return self._visit_block_statement(node, node.items[0])

    visit_AsyncWith = visit_With

    def visit_Match(self, node):
        return self._visit_block_statement(node, node.subject)


def resolve(node, context, graphs, include_annotations=True):
    """Resolves the live symbols at the exit of control flow statements.

    Annotates statements with Static.LIVE_VARS_IN and Static.LIVE_VARS_OUT: for simple
    statements (and match cases) the symbols live before and after the statement; for
    compound statements (If, For, While, Try, ExceptHandler, With, Match), the symbols
    live when entering the statement and when leaving it to whatever follows it.

    Args:
      node: ast.AST, annotated by qual_names.resolve and activity.resolve.
      context: the transformer context (kept for TensorFlow compatibility; unused).
      graphs: Dict[ast.FunctionDef, cfg.Graph], as returned by cfg.build.
      include_annotations: Bool, whether type annotations should be included in
        the analysis.

    Returns:
      ast.AST, the same node, annotated in place.
    """
    node = TreeAnnotator(context, graphs, include_annotations).visit(node)
    return node
