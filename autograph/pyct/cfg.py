"""Control flow graph (CFG) of a function's statements, and a dataflow visitor over it.

The CFG is statement-level: one node per simple statement, per compound-statement header
(the test of an `if`/`while`, the iterate of a `for`, each `with` item, each `case`) and one
for each function's argument list. Each function (and lambda) gets its own graph; a nested
function definition is a single ordinary node in the enclosing graph.

Simplifications, shared with TensorFlow AutoGraph:
  * expressions never raise, except that every node of a `try` body may jump to the handlers;
  * a `with` statement does not suppress exceptions.
"""

import enum
import heapq

# The builder is imported with this module, not on the first build, which is on a fresh
# process's first conversion.
from autograph.pyct import cfg_builder
from autograph.pyct.cfg_graph import Graph  # noqa: F401 - re-exported (cfg.Graph)
from autograph.pyct.cfg_graph import Node  # noqa: F401 - re-exported (cfg.Node)
from autograph.pyct.cfg_graph import release  # noqa: F401 - re-exported (cfg.release)


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
