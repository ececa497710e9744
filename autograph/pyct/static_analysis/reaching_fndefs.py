"""Reaching function definitions: which local functions may be defined at each statement.

`reaching_definitions.resolve` already sets Static.DEFINED_FNS_IN; this module sets only
that annotation, for pipelines written against TensorFlow's module layout.
"""

import gast

from autograph.pyct import anno
from autograph.pyct.static_analysis import reaching_definitions


class _FnDefsAnnotator(gast.NodeVisitor):
    """Annotates CFG nodes and compound statements with Static.DEFINED_FNS_IN."""

    def __init__(self, graphs):
        super(_FnDefsAnnotator, self).__init__()
        self.graphs = graphs
        self.current = None  # (graph, FnDefsAnalyzer) of the innermost function

    def _analyze_function(self, node):
        graph = self.graphs.get(node)
        parent = self.current
        if graph is not None:
            analyzer = reaching_definitions.FnDefsAnalyzer(graph)
            analyzer.visit_forward()
            self.current = (graph, analyzer)
        self.generic_visit(node)
        self.current = parent

    visit_FunctionDef = _analyze_function
    visit_AsyncFunctionDef = _analyze_function
    visit_Lambda = _analyze_function

    def visit(self, node):
        if self.current is not None:
            graph, analyzer = self.current
            if node in graph.index:
                anno.setanno(node, anno.Static.DEFINED_FNS_IN,
                             analyzer.in_[graph.index[node]])
            elif node in graph.stmt_prev:
                fns = frozenset().union(*(analyzer.out[p] for p in graph.stmt_prev[node]))
                anno.setanno(node, anno.Static.DEFINED_FNS_IN, fns)
        return super(_FnDefsAnnotator, self).visit(node)


def resolve(node, context, graphs):
    """Annotates CFG nodes and compound statements with Static.DEFINED_FNS_IN.

    Args:
      node: ast.AST, the tree the graphs were built from.
      context: the transformer context (kept for TensorFlow compatibility; unused).
      graphs: Dict[ast.FunctionDef, cfg.Graph], as returned by cfg.build.

    Returns:
      ast.AST, the same node, annotated in place.
    """
    del context
    _FnDefsAnnotator(graphs).visit(node)
    return node
