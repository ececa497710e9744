"""Control flow graph (CFG) of a function's statements, and a dataflow visitor over it.

The CFG is statement-level: one node per simple statement, per compound-statement header
(the test of an `if`/`while`, the iterate of a `for`, each `with` item, each `case`) and one
for each function's argument list. Each function (and lambda) gets its own graph; a nested
function definition is a single ordinary node in the enclosing graph.

Simplifications, shared with TensorFlow AutoGraph:
  * expressions never raise, except that every node of a `try` body may jump to the handlers;
  * a `with` statement does not suppress exceptions.
"""

import ast
import collections
import enum
import heapq

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


class _WalkMode(enum.Enum):
    FORWARD = 1
    REVERSE = 2


class GraphVisitor(object):
    """Base class for a CFG visitor (a dataflow analysis).

    This implementation is not thread safe.

    The visitor has some facilities to simplify dataflow analyses. In particular,
    it allows revisiting the nodes at the decision of the subclass. This can be
    used to visit the graph until the state reaches a fixed point.

    For more details on dataflow analysis, see
    https://www.seas.harvard.edu/courses/cs252/2011sp/slides/Lec02-Dataflow.pdf

    Note: the literature generally suggests visiting successor nodes only when the
    state of the current node changed, regardless of whether that successor has
    ever been visited. This implementation visits every successor at least once.

    Attributes:
      graph: cfg.Graph
      in_: Dict[Node, Any], stores node-keyed state during a visit
      out: Dict[Node, Any], stores node-keyed state during a visit
    """

    def __init__(self, graph):
        self.graph = graph
        self.reset()

    def init_state(self, node):
        """Returns the initial state of a node; state is the analysis' lattice value.

        Args:
          node: Node.

        Returns:
          The initial in_ and out state of the node.
        """
        raise NotImplementedError('Subclasses must implement this.')

    def visit_node(self, node):
        """Visits a single node: computes and stores its in_ and out state.

        Args:
          node: Node.

        Returns:
          bool, whether the node should be revisited; subclasses return whether the
          node's state changed.
        """
        raise NotImplementedError('Subclasses must implement this.')

    def reset(self):
        self.in_ = {node: self.init_state(node) for node in self.graph.index.values()}
        self.out = {node: self.init_state(node) for node in self.graph.index.values()}

    def can_ignore(self, node):
        """Returns True if the node can safely be assumed not to touch variables."""
        del node
        return False

    def _visit_internal(self, mode):
        """Visits the CFG until visit_node stops asking for revisits.

        The work list is ordered by source position (reversed for a reverse walk), which
        is close to a topological order: most nodes are visited once after all of their
        predecessors, and only loops are visited again. A node waits in the list at most
        once.
        """
        assert mode in (_WalkMode.FORWARD, _WalkMode.REVERSE)
        forward = mode == _WalkMode.FORWARD
        position = {}
        for i, node in enumerate(self.graph.index.values()):
            position[node] = i if forward else -i
        if forward:
            start = {self.graph.entry}
        else:
            start = set(self.graph.exit | self.graph.error)
            # Nodes that never reach an exit (e.g. infinite loops) still get visited.
            start.update(n for n in self.graph.index.values() if not n.next)
        open_ = [(position[n], n) for n in start]  # positions are unique: nodes never compare
        heapq.heapify(open_)
        queued = set(start)  # the nodes waiting in open_
        closed = set()

        while open_:
            _, node = heapq.heappop(open_)
            queued.discard(node)
            closed.add(node)

            should_revisit = self.visit_node(node)

            for next_ in (node.next if forward else node.prev):
                if (should_revisit or next_ not in closed) and next_ not in queued:
                    heapq.heappush(open_, (position[next_], next_))
                    queued.add(next_)

    def visit_forward(self):
        self._visit_internal(_WalkMode.FORWARD)

    def visit_reverse(self):
        self._visit_internal(_WalkMode.REVERSE)


def build(node):
    """Builds the control flow graph of every function and lambda in a tree.

    Args:
      node: a gast node: a module, a function definition, or any tree containing them.

    Returns:
      dict mapping each gast FunctionDef / AsyncFunctionDef / Lambda node to its Graph.

    Raises:
      ValueError: the tree has a break, continue or return outside of any loop or
        function (source that Python itself rejects).
    """
    visitor = cfg_builder.AstToCfg()
    visitor.visit(node)
    return visitor.cfgs


# The builder imports Graph and Node from this module, so it comes last. It is imported with
# this module, not on the first build, which is on a fresh process's first conversion.
from autograph.pyct import cfg_builder  # noqa: E402  pylint: disable=wrong-import-position
