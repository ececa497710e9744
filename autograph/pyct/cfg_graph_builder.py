"""The control flow graph builder: nodes supplied in lexical order, sections for jumps."""

from autograph.pyct.cfg_graph import Graph
from autograph.pyct.cfg_graph import Node


class GraphBuilder(object):
    """Builds the CFG of one function (or class body) from nodes supplied in lexical order.

    `cfg_builder.AstToCfg` walks the AST top-down, depth first, and tells this builder about
    each statement: `add_ordinary_node` for plain statements, the `add_*_node` methods for
    jumps (break, continue, return, raise) and the `enter_*`/`exit_*` section methods around
    loops, conditionals, try bodies, except handlers and finally clauses. `build` returns the
    `cfg.Graph`. Loops make back edges, so the result is a graph with cycles, not a DAG.

    Exceptions: a raise flows to the except handlers that guard it (`connect_raise_node`), and
    every node of a try body that has handlers may flow into them (`enter_try_body` collects
    them; `enter_except_section` starts from them), since any statement there may raise. Other
    statements are assumed not to raise. Finally sections are interleaved between
    break/continue/return nodes and the statements that follow them.

    Important concepts:
     * nodes - CFG nodes (`cfg.Node`); AST nodes are called AST nodes explicitly
     * leaf set - the CFG nodes that precede the next node to be added; an ordinary node is
       connected to the current leaves and becomes the only leaf
     * jump nodes - break, continue, return and raise: their edges go to the end of their
       section (a loop, the function, a handler), not to the next statement
     * sections - the subgraphs that jumps target (loops, conditionals, try/except/finally),
       identified by their AST node

    Args:
        parent_ast_node: The function or class AST node whose CFG is built.
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
        node = Node(next_=set(), prev=set(), ast_node=ast_node)
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
