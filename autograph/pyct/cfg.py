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
import weakref

import gast

from autograph.pyct import anno


class Node(object):
    """A node in the CFG.

    Attributes:
      next: set (frozenset once built) of successor Nodes.
      prev: weakref.WeakSet of predecessor Nodes.
      ast_node: the gast node this CFG node stands for (a statement, an expression for
        compound statement headers, a gast.arguments or a gast.withitem / gast.match_case).
    """

    def __init__(self, next_, prev, ast_node):
        self.next = next_
        self.prev = prev
        self.ast_node = ast_node

    def freeze(self):
        self.next = frozenset(self.next)
        # Assumption: All CFG nodes have identical life spans, because the graph
        # owns them. Nodes should never be used outside the context of an existing
        # graph.
        self.prev = weakref.WeakSet(self.prev)

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
        """Visits the CFG, breadth-first, until visit_node stops asking for revisits."""
        assert mode in (_WalkMode.FORWARD, _WalkMode.REVERSE)
        if mode == _WalkMode.FORWARD:
            open_ = collections.deque([self.graph.entry])
        else:
            open_ = collections.deque(self.graph.exit | self.graph.error)
            # Nodes that never reach an exit (e.g. infinite loops) still get visited.
            open_.extend(n for n in self.graph.index.values() if not n.next)
        closed = set()

        while open_:
            node = open_.popleft()
            closed.add(node)

            should_revisit = self.visit_node(node)

            if mode == _WalkMode.FORWARD:
                children = node.next
            else:
                children = node.prev

            for next_ in children:
                if should_revisit or next_ not in closed:
                    open_.append(next_)

    def visit_forward(self):
        self._visit_internal(_WalkMode.FORWARD)

    def visit_reverse(self):
        self._visit_internal(_WalkMode.REVERSE)


class GraphBuilder(object):
    """Builder that constructs a CFG from a given AST.

    This GraphBuilder facilitates constructing the DAG that forms the CFG when
    nodes are supplied in lexical order (i.e., top-down, depth first). Under
    these conditions, it supports building patterns found in typical structured
    programs.

    This builder ignores the flow generated by exceptions, which are assumed to
    always be catastrophic and present purely for diagnostic purposes (e.g. to
    print debug information). Statements like raise and try/catch sections are
    allowed and will generate control flow edges, but ordinary statements are
    assumed not to raise exceptions.

    Finally sections are also correctly interleaved between break/continue/return
    nodes and their subsequent statements.

    Important concepts:
     * nodes - nodes refer to CFG nodes; AST nodes are qualified explicitly
     * leaf set - since the graph is constructed gradually, a leaf set maintains
       the CFG nodes that will precede the node that the builder expects to
       receive next; when an ordinary node is added, it is connected to the
       existing leaves and it in turn becomes the new leaf
     * jump nodes - nodes that should generate edges other than what
       ordinary nodes would; these correspond to break, continue and return
       statements
     * sections - logical delimiters for subgraphs that require special
       edges; there are various types of nodes, each admitting various
       types of jump nodes; sections are identified by their corresponding AST
       node
    """

    def __init__(self, parent_ast_node):
        self.reset()
        self.parent = parent_ast_node

    def reset(self):
        """Resets the state of this factory."""
        self.head = None  # the first node added: the graph's entry
        self.errors = set()  # raise nodes
        self.node_index = {}  # AST node -> Node, in creation order

        # The nodes that precede the next node to be added.
        self.leaves = set()

        # The compound statements being built; requires nodes added in lexical order.
        self.active_stmts = set()
        self.owners = {}  # Node -> frozenset of compound statements enclosing it
        self.forward_edges = set()  # (from Node, to Node)

        self.finally_sections = {}  # jump Node -> the try nodes whose finally it runs
        self.finally_section_subgraphs = {}  # try node -> [entry Node, exit leaves]
        # Whether a finally section is reachable from the statement that precedes it.
        self.finally_section_has_direct_flow = {}
        self.pending_finally_sections = set()  # finally sections awaiting their first node

        self.exits = {}  # section AST node -> exit jump Nodes (break, return, raise)
        self.section_entry = {}  # loop section -> its entry Node (the loop head)
        self.continues = {}  # loop section -> continue jump Nodes
        self.raises = {}  # except handler -> raise Nodes that it guards
        self.cond_entry = {}  # conditional section -> the leaves at its split point
        self.cond_leaves = {}  # conditional section -> leaf sets of finished branches

        # Innermost-last stack of try statements with handlers: each entry is the set
        # of Nodes whose state may flow into the handlers when an exception is raised.
        self.try_sources = []

    def _connect_nodes(self, first, second):
        """Connects nodes to signify that control flows from first to second.

        Args:
          first: Node or iterable of Nodes.
          second: Node.
        """
        if isinstance(first, Node):
            first.next.add(second)
            second.prev.add(first)
            self.forward_edges.add((first, second))
        else:
            for node in first:
                self._connect_nodes(node, second)

    def _add_new_node(self, ast_node):
        """Grows the graph by adding a CFG node following the current leaves."""
        if ast_node in self.node_index:
            raise ValueError('%s added twice' % ast_node)
        # Assumption: All CFG nodes have identical life spans, because the graph
        # owns them. Nodes should never be used outside the context of an existing
        # graph.
        node = Node(next_=set(), prev=weakref.WeakSet(), ast_node=ast_node)
        self.node_index[ast_node] = node
        self.owners[node] = frozenset(self.active_stmts)

        if self.head is None:
            self.head = node

        for leaf in self.leaves:
            self._connect_nodes(leaf, node)

        # If any finally section awaits its first node, populate it.
        for section_id in self.pending_finally_sections:
            self.finally_section_subgraphs[section_id][0] = node
        self.pending_finally_sections = set()

        return node

    def begin_statement(self, stmt):
        """Marks the beginning of a statement.

        Args:
          stmt: AST node, the statement being marked.
        """
        self.active_stmts.add(stmt)

    def end_statement(self, stmt):
        """Marks the end of a statement.

        Args:
          stmt: AST node, the statement being marked.
        """
        self.active_stmts.remove(stmt)

    def add_ordinary_node(self, ast_node):
        """Grows the graph by adding an ordinary CFG node.

        Ordinary nodes are followed by the next node, in lexical order, that is,
        they become the new leaf set.

        Args:
          ast_node: ast.AST.

        Returns:
          Node.
        """
        node = self._add_new_node(ast_node)
        self.leaves = set((node,))
        for sources in self.try_sources:
            sources.add(node)
        return node

    def _add_jump_node(self, ast_node, guards):
        """Grows the graph by adding a jump node.

        Jump nodes are added to the current leaf set, and the leaf set becomes
        empty. If the jump node is the last in a cond section, then it may be added
        back to the leaf set by a separate mechanism.

        Args:
          ast_node: ast.AST.
          guards: Tuple[ast.AST, ...], the finally sections active for this node.

        Returns:
          Node.
        """
        node = self._add_new_node(ast_node)
        self.leaves = set()
        # The guards themselves may not yet be complete, and will be wired later.
        self.finally_sections[node] = guards
        return node

    def _connect_jump_to_finally_sections(self, node):
        """Connects a jump node to the finally sections protecting it."""
        cursor = set((node,))
        if node not in self.finally_sections:
            return cursor
        for guard_section_id in self.finally_sections[node]:
            guard_begin, guard_ends = self.finally_section_subgraphs[guard_section_id]
            self._connect_nodes(cursor, guard_begin)
            cursor = guard_ends
        del self.finally_sections[node]
        return cursor

    def add_exit_node(self, ast_node, section_id, guards):
        """Grows the graph by adding an exit node.

        This node becomes an exit for the current section.

        Args:
          ast_node: ast.AST.
          section_id: Hashable, the node for which ast_node should be considered to
            be an exit node.
          guards: Tuple[ast.AST, ...], the finally sections that guard ast_node.

        Returns:
          Node.
        """
        node = self._add_jump_node(ast_node, guards)
        self.exits[section_id].add(node)
        return node

    def add_continue_node(self, ast_node, section_id, guards):
        """Grows the graph by adding a reentry node.

        This node causes control flow to go back to the loop section's entry.

        Args:
          ast_node: ast.AST.
          section_id: Hashable, the node for which ast_node should be considered to
            be an exit node.
          guards: Tuple[ast.AST, ...], the finally sections that guard ast_node.
        """
        node = self._add_jump_node(ast_node, guards)
        self.continues[section_id].add(node)

    def connect_raise_node(self, node, except_guards):
        """Adds extra connection between a raise node and containing except guards.

        The node is a graph node, not an ast node.

        Args:
          node: Node.
          except_guards: Tuple[ast.AST, ...], the except sections that guard node.
        """
        for guard in except_guards:
            if guard in self.raises:
                self.raises[guard].append(node)
            else:
                self.raises[guard] = [node]

    def enter_section(self, section_id):
        """Enters a regular section.

        Regular sections admit exit jumps, which end the section.

        Args:
          section_id: Hashable, the same node that will be used in calls to the
            ast_node arg passed to add_exit_node.
        """
        assert section_id not in self.exits
        self.exits[section_id] = set()

    def exit_section(self, section_id):
        """Exits a regular section."""
        # Exits are jump nodes, which may be protected.
        for exit_ in self.exits[section_id]:
            self.leaves |= self._connect_jump_to_finally_sections(exit_)
        del self.exits[section_id]

    def enter_loop_section(self, section_id, entry_node):
        """Enters a loop section.

        Loop sections define an entry node. The end of the section always flows back
        to the entry node. These admit continue jump nodes which also flow to the
        entry node.

        Args:
          section_id: Hashable, the same node that will be used in calls to the
            ast_node arg passed to add_continue_node.
          entry_node: ast.AST, the entry node into the loop (e.g. the test node for
            while loops).
        """
        assert section_id not in self.section_entry
        assert section_id not in self.continues
        self.continues[section_id] = set()
        node = self.add_ordinary_node(entry_node)
        self.section_entry[section_id] = node

    def exit_loop_section(self, section_id):
        """Exits a loop section."""
        self._connect_nodes(self.leaves, self.section_entry[section_id])

        # continues are jump nodes, which may be protected.
        for reentry in self.continues[section_id]:
            guard_ends = self._connect_jump_to_finally_sections(reentry)
            self._connect_nodes(guard_ends, self.section_entry[section_id])

        # Loop nodes always loop back.
        self.leaves = set((self.section_entry[section_id],))

        del self.continues[section_id]
        del self.section_entry[section_id]

    def enter_cond_section(self, section_id):
        """Enters a conditional section.

        Conditional sections define an entry node, and one or more branches.

        Args:
          section_id: Hashable, the same node that will be used in calls to the
            section_id arg passed to new_cond_branch
        """
        assert section_id not in self.cond_entry
        assert section_id not in self.cond_leaves
        self.cond_leaves[section_id] = []

    def new_cond_branch(self, section_id):
        """Begins a new branch in a cond section."""
        assert section_id in self.cond_leaves

        if section_id in self.cond_entry:
            # Subsequent splits move back to the split point, and memorize the
            # current leaves.
            self.cond_leaves[section_id].append(self.leaves)
            self.leaves = self.cond_entry[section_id]
        else:
            # If this is the first time we split a section, just remember the split
            # point.
            self.cond_entry[section_id] = self.leaves

    def exit_cond_section(self, section_id):
        """Exits a conditional section."""
        for split in self.cond_leaves[section_id]:
            self.leaves |= split
        del self.cond_entry[section_id]
        del self.cond_leaves[section_id]

    def enter_try_body(self):
        """Starts collecting the nodes of a try body that may raise into its handlers."""
        self.try_sources.append(set(self.leaves))

    def exit_try_body(self):
        """Stops collecting; returns the nodes whose state may reach the handlers."""
        return self.try_sources.pop()

    def enter_except_section(self, section_id, sources=()):
        """Enters an except section.

        Args:
          section_id: the ExceptHandler AST node.
          sources: the Nodes whose state may flow into the handler: the leaves before
            the try body and the nodes of the body.
        """
        self.leaves = set(sources)
        if section_id in self.raises:
            self.leaves.update(self.raises[section_id])

    def enter_finally_section(self, section_id):
        """Enters a finally section."""
        self.finally_section_subgraphs[section_id] = [None, None]
        if self.leaves:
            self.finally_section_has_direct_flow[section_id] = True
        else:
            self.finally_section_has_direct_flow[section_id] = False
        self.pending_finally_sections.add(section_id)

    def exit_finally_section(self, section_id):
        """Exits a finally section."""
        assert section_id not in self.pending_finally_sections, 'Empty finally?'
        self.finally_section_subgraphs[section_id][1] = self.leaves
        # If the interrupts came only from break/continue/return, don't leave the
        # finally section.
        if not self.finally_section_has_direct_flow[section_id]:
            self.leaves = set()
        del self.finally_section_has_direct_flow[section_id]

    def build(self):
        """Returns the CFG accumulated so far and resets the builder.

        Returns:
          Graph
        """
        # Freeze the nodes.
        for node in self.node_index.values():
            node.freeze()

        # Build the statement edges.
        stmt_next = {}
        stmt_prev = {}

        for node in self.node_index.values():
            for stmt in self.owners[node]:
                if stmt not in stmt_prev:
                    stmt_prev[stmt] = set()
                if stmt not in stmt_next:
                    stmt_next[stmt] = set()

        for first, second in self.forward_edges:
            stmts_exited = self.owners[first] - self.owners[second]
            for stmt in stmts_exited:
                stmt_next[stmt].add(second)
            stmts_entered = self.owners[second] - self.owners[first]
            for stmt in stmts_entered:
                stmt_prev[stmt].add(first)
        for stmt in stmt_next:
            stmt_next[stmt] = frozenset(stmt_next[stmt])
        for stmt in stmt_prev:
            stmt_prev[stmt] = frozenset(stmt_prev[stmt])

        # Construct the final graph object.
        result = Graph(
            entry=self.head,
            exit=frozenset(self.leaves),
            error=frozenset(self.errors),
            index=self.node_index,
            stmt_prev=stmt_prev,
            stmt_next=stmt_next)

        # Reset the state.
        self.reset()

        return result


class _FinallyGuard(object):
    """Lexical scope marker: code guarded by a try statement's finally clause only."""

    def __init__(self, try_node):
        self.try_node = try_node  # a Try or TryStar node with a finalbody


_LOOPS = (gast.While, gast.For, gast.AsyncFor)
_FUNCTIONS = (gast.FunctionDef, gast.AsyncFunctionDef)
_TRIES = (gast.Try, gast.TryStar)


class AstToCfg(gast.NodeVisitor):
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
        super(AstToCfg, self).generic_visit(node)


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
    visitor = AstToCfg()
    visitor.visit(node)
    return visitor.cfgs
