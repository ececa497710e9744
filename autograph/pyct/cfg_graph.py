"""The control flow graph itself: its nodes and the graph of one function (see cfg.py)."""

import ast
import collections

import gast


class Node(object):
    """A node in the CFG.

    Attributes:
      next: set (frozenset once built) of successor Nodes.
      prev: set (frozenset once built) of predecessor Nodes.
      ast_node: the gast node this CFG node stands for (a statement, an expression for
        compound statement headers, a gast.arguments or a gast.withitem / gast.match_case).
    """

    def __init__(self, next_, prev, ast_node):
        self.next = next_
        self.prev = prev
        self.ast_node = ast_node

    def freeze(self):
        self.next = frozenset(self.next)
        # The graph owns its nodes: predecessor links are plain references (a cycle with
        # `next`, which the garbage collector frees with the graph).
        self.prev = frozenset(self.prev)

    def __repr__(self):
        return node_repr(self.ast_node)


def node_repr(ast_node):
    """Returns a short, readable description of the AST node behind a CFG node.

    Args:
      ast_node: a gast node.

    Returns:
      str, e.g. 'def f', 'x = 1', 'x < 3', 'case [a, *b]'.
    """
    if isinstance(ast_node, (gast.FunctionDef, gast.AsyncFunctionDef)):
        return 'def %s' % ast_node.name
    if isinstance(ast_node, gast.ClassDef):
        return 'class %s' % ast_node.name
    if isinstance(ast_node, gast.withitem):
        return _unparse(ast_node.context_expr)
    if isinstance(ast_node, gast.match_case):
        text = 'case ' + _unparse(ast_node.pattern)
        if ast_node.guard is not None:
            text += ' if ' + _unparse(ast_node.guard)
        return text
    if isinstance(ast_node, gast.Lambda):
        return 'lambda'
    if isinstance(ast_node, gast.arguments):
        return '(%s)' % _unparse(ast_node)
    return _unparse(ast_node)


def _unparse(node):
    try:
        return ast.unparse(gast.gast_to_ast(node)).strip().split('\n')[0]
    except Exception:  # Unparsing is best effort: it only serves display.
        return type(node).__name__


class Graph(collections.namedtuple(
        'Graph', ['entry', 'exit', 'error', 'index', 'stmt_prev', 'stmt_next'])):
    """A Control Flow Graph.

    The CFG maps statements to statements that may execute immediately after them.

    Attributes:
      entry: Node, the entry node (the function's arguments).
      exit: frozenset of Nodes, the nodes after which the function may return normally
        (return statements, and the statements that fall off the end of the body).
      error: frozenset of Nodes, the `raise` statements that may leave the function.
      index: dict mapping AST nodes to the Nodes that stand for them, in creation order.
      stmt_prev: dict mapping compound statements (If, While, For, Try, ExceptHandler,
        With, Match, match_case) to the frozenset of Nodes that lead into them.
      stmt_next: dict mapping the same statements to the frozenset of Nodes that
        execute right after them.
    """

    def __repr__(self):
        return self.as_dot()

    def _order(self):
        return {node: i for i, node in enumerate(self.index.values())}

    def edge_table(self):
        """Returns the edges as text: one `node -> successor, ...` line per node.

        Nodes are listed in creation order (source order); successors likewise.
        Exit nodes end with `-> <exit>` added to their successors, raise nodes with
        `<error>`.

        Returns:
          str.
        """
        order = self._order()
        lines = []
        for node in self.index.values():
            succ = [repr(n) for n in sorted(node.next, key=order.__getitem__)]
            if node in self.exit:
                succ.append('<exit>')
            if node in self.error:
                succ.append('<error>')
            lines.append('%s -> %s' % (repr(node), ', '.join(succ)))
        return '\n'.join(lines)

    def as_dot(self):
        """Returns the graph in Graphviz dot format.

        Returns:
          str.
        """
        order = self._order()
        result = 'digraph CFG {\n'
        for node, i in order.items():
            result += '  %d [label="%s"];\n' % (i, repr(node).replace('"', '\\"'))
        for node, i in order.items():
            for next_ in sorted(node.next, key=order.__getitem__):
                result += '  %d -> %d;\n' % (i, order[next_])
        result += '}'
        return result


def release(graphs):
    """Breaks the reference cycles of graphs that are no longer needed.

    A graph is cyclic (its nodes link to their successors and predecessors, and it caches
    the visitors that read it) and it holds the tree's nodes. Dropped as is, it keeps the
    tree until the cyclic garbage collector traverses all of it, which for a 2,000-line
    function costs a tenth of its conversion; released, both are freed by reference counting.
    The graphs cannot be used afterwards.

    Args:
      graphs: the dict returned by build.
    """
    for graph in graphs.values():
        for node in graph.index.values():
            node.next = node.prev = frozenset()
        graph.__dict__.clear()  # the visitors cached on it (reaching_definitions.FnDefsAnalyzer)
