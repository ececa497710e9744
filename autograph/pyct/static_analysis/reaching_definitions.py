"""Reaching definitions analysis: which assignments of a symbol may reach each use.

Requires activity analysis (activity.resolve) and the CFGs (cfg.build) of the tree.
"""

import gast

from autograph.pyct import anno
from autograph.pyct import cfg
from autograph.pyct import transformer
from autograph.pyct import traversal


class Definition(object):
    """Definition objects describe a unique definition of a variable.

    Subclasses of this may be used by passing an appropriate factory function to
    resolve.

    Attributes:
      param_of: Optional[weakref.ref to ast.AST], the function node whose parameter
        this definition is, if any.
      directives: Dict, optional definition annotations.
    """

    def __init__(self):
        self.param_of = None
        self.directives = {}

    def __repr__(self):
        return '%s[%d]' % (self.__class__.__name__, id(self))


class _NodeState(object):
    """Abstraction for the state of the CFG walk for reaching definition analysis.

    This is a value type: its `value` is never changed after construction, so states
    share their frozensets (and an operator may return one of its operands unchanged).
    Only implements the strictly necessary operators.

    Attributes:
      value: Dict[qual_names.QN, FrozenSet[Definition, ...]], the defined symbols and
          their possible definitions
    """

    __slots__ = ('value',)

    def __init__(self, init_from=None):
        if init_from:
            if isinstance(init_from, _NodeState):
                self.value = dict(init_from.value)
            elif isinstance(init_from, dict):
                self.value = {s: frozenset((init_from[s],)) for s in init_from}
            else:
                raise TypeError('expected a _NodeState or a dict, found %r' % (init_from,))
        else:
            self.value = {}

    def __eq__(self, other):
        return self.value == other.value

    def __ne__(self, other):
        return self.value != other.value

    def __or__(self, other):
        assert isinstance(other, _NodeState)
        # Iterate over the smaller state, and copy the larger one only if it changes.
        big, small = self, other
        if len(small.value) > len(big.value):
            big, small = small, big
        value = None  # the result's dict, made when it first differs from big's
        big_value = big.value
        for s, infos in small.value.items():
            big_infos = big_value.get(s)
            if big_infos is infos:
                continue
            if big_infos is None:
                new_infos = infos
            elif infos <= big_infos:
                continue
            else:
                new_infos = big_infos | infos
            if value is None:
                value = dict(big_value)
            value[s] = new_infos
        if value is None:
            return big
        result = _NodeState()
        result.value = value
        return result

    def __sub__(self, other):
        assert isinstance(other, (set, frozenset))
        value = self.value
        if not any(s in value for s in other):
            return self
        result = _NodeState(self)
        for s in other:
            result.value.pop(s, None)
        return result

    def __repr__(self):
        return 'NodeState[%s]=%s' % (id(self), repr(self.value))


class Analyzer(cfg.GraphVisitor):
    """CFG visitor that determines reaching definitions at statement level."""

    def __init__(self, graph, definition_factory):
        self._definition_factory = definition_factory
        super(Analyzer, self).__init__(graph)
        self.gen_map = {}  # CFG node -> _NodeState of the definitions it creates

    def init_state(self, _):
        return _NodeState()

    def visit_node(self, node):
        prev_defs_out = self.out[node]

        defs_in = _NodeState()
        for n in node.prev:
            defs_in |= self.out[n]

        if anno.hasanno(node.ast_node, anno.Static.SCOPE):
            node_scope = anno.getanno(node.ast_node, anno.Static.SCOPE)
            # The definition objects created by each node must be singletons because
            # their ids are used in equality checks.
            if node not in self.gen_map:
                node_symbols = {}
                # Every binding operation (assign, nonlocal, global, etc.) counts as a
                # definition, with the exception of del, which only deletes without
                # creating a new variable.
                newly_defined = ((node_scope.bound | node_scope.globals) - node_scope.deleted)
                for s in newly_defined:
                    def_ = self._definition_factory()
                    node_symbols[s] = def_
                # Every param receives a definition. Params are not necessarily
                # considered as "modified".
                for s, owner in node_scope.params.items():
                    def_ = self._definition_factory()
                    def_.param_of = owner
                    node_symbols[s] = def_
                self.gen_map[node] = _NodeState(node_symbols)

            gen = self.gen_map[node]
            kill = node_scope.modified | node_scope.deleted
            defs_out = gen | (defs_in - kill)

        else:
            assert self.can_ignore(node), (node.ast_node, node)
            defs_out = defs_in

        self.in_[node] = defs_in
        self.out[node] = defs_out

        return prev_defs_out != defs_out


class FnDefsAnalyzer(cfg.GraphVisitor):
    """CFG visitor that determines which local function definitions reach each node.

    Local `def`s and lambdas both count: a lambda may be called wherever it flows.
    """

    def __init__(self, graph, lambdas=True):
        super().__init__(graph)
        self._lambdas = {}  # CFG node -> the lambdas in its AST (loops revisit nodes)
        self._has_lambdas = lambdas  # False: the graph's statements have no lambda

    @classmethod
    def of(cls, graph, graphs=None):
        """The analysis of `graph`, run once: reaching definitions and liveness share it.

        Args:
          graph: a cfg.Graph of one function of the tree.
          graphs: all the tree's graphs (cfg.build), if known; a lambda the CFG builder
            reached has one, so without a Lambda among them no statement's AST is searched
            for lambdas.

        Returns:
          The FnDefsAnalyzer, visited.
        """
        found = graph.__dict__.get('_fn_defs')
        if found is None:
            found = cls(graph, graphs is None or any(type(k) is gast.Lambda for k in graphs))
            found.visit_forward()
            graph.__dict__['_fn_defs'] = found
        return found

    def init_state(self, _):
        return frozenset()

    def visit_node(self, node):
        prev_out = self.out[node]
        defs_in = frozenset().union(*(self.out[n] for n in node.prev))
        if isinstance(node.ast_node, (gast.FunctionDef, gast.AsyncFunctionDef)):
            # A redefinition of the same name replaces the previous function.
            defs_out = frozenset(
                d for d in defs_in if getattr(d, 'name', None) != node.ast_node.name
            ) | {node.ast_node}
        else:
            # A lambda may be called wherever it flows (`h = lambda: v; ...; h()`), so it
            # reaches every later node, like a local def.
            if self._has_lambdas:
                lambdas = self._lambdas.get(node)
                if lambdas is None:
                    lambdas = self._lambdas[node] = _lambdas_in(node.ast_node)
                defs_out = defs_in | lambdas
            else:
                defs_out = defs_in
        self.in_[node] = defs_in
        self.out[node] = defs_out
        return prev_out != defs_out


def _lambdas_in(ast_node):
    """Returns the lambdas in one CFG node's AST (not inside nested definitions)."""
    found = []
    stack = [ast_node]
    while stack:
        n = stack.pop()
        if isinstance(n, gast.Lambda):
            found.append(n)
        if isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            continue
        stack.extend(traversal.iter_child_nodes(n))
    return frozenset(found)


class TreeAnnotator(traversal.NodeTransformer):
    """AST visitor that annotates each symbol name with its reaching definitions.

    Simultaneously, the visitor runs the dataflow analysis on each function node,
    accounting for the effect of closures. For example:

      def foo():
        bar = 1
        def baz():
          # bar = 1 reaches here
    """

    def __init__(self, context, graphs, definition_factory, names=True):
        super(TreeAnnotator, self).__init__()
        self.ctx = context
        self.definition_factory = definition_factory
        self.graphs = graphs
        # whether names are annotated; without them only statements are, and the annotator
        # descends into statement blocks alone (no statement is inside an expression)
        self.names = names
        self.current_analyzer = None  # the Analyzer of the innermost function
        self.current_fndefs = None  # the _FnDefsAnalyzer of the innermost function
        self.current_cfg_node = None  # the CFG node of the statement being visited

    def visit_block(self, nodes):
        return [self.visit(n) for n in nodes]

    def generic_visit(self, node):
        if self.names:
            return super().generic_visit(node)
        return self.transform_fields(node, transformer.block_fields(node))

    def _analyze_function(self, node):
        subgraph = self.graphs.get(node)
        if subgraph is None:
            # A function the CFG builder did not reach (e.g. a lambda in an annotation).
            return node
        parent_analyzer, parent_fndefs = self.current_analyzer, self.current_fndefs

        analyzer = Analyzer(subgraph, self.definition_factory)
        analyzer.visit_forward()
        fndefs = FnDefsAnalyzer.of(subgraph, self.graphs)

        # Recursively process any remaining subfunctions. Until a node of the new graph is
        # reached there is no current CFG node: the enclosing function's would be stale.
        parent_cfg_node = self.current_cfg_node
        self.current_analyzer, self.current_fndefs = analyzer, fndefs
        self.current_cfg_node = None
        if self.names:
            node.args = self.visit(node.args)
        if isinstance(node, gast.Lambda):
            node.body = self.visit(node.body)
        else:
            node.body = self.visit_block(node.body)
        self.current_analyzer, self.current_fndefs = parent_analyzer, parent_fndefs
        self.current_cfg_node = parent_cfg_node
        return node

    def visit_ClassDef(self, node):
        # The ClassDef is one node of the enclosing function's graph (its decorators, bases
        # and keywords). Its body has no graph: it is not annotated, but the functions
        # defined in it are analysed with their own graphs.
        if self.names:
            for field in node._fields:
                if field != 'body':
                    value = getattr(node, field, None)
                    if isinstance(value, list):
                        setattr(node, field, self.visit_block(value))
                    elif isinstance(value, gast.AST):
                        setattr(node, field, self.visit(value))
        parent = self.current_analyzer, self.current_fndefs, self.current_cfg_node
        self.current_analyzer = self.current_fndefs = self.current_cfg_node = None
        node.body = self.visit_block(node.body)
        self.current_analyzer, self.current_fndefs, self.current_cfg_node = parent
        return node

    def visit_FunctionDef(self, node):
        if self.names:
            node.decorator_list = self.visit_block(node.decorator_list)
            node.args.defaults = self.visit_block(node.args.defaults)
            node.args.kw_defaults = [None if d is None else self.visit(d)
                                     for d in node.args.kw_defaults]
        return self._analyze_function(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        node.args.defaults = self.visit_block(node.args.defaults)
        node.args.kw_defaults = [None if d is None else self.visit(d)
                                 for d in node.args.kw_defaults]
        return self._analyze_function(node)

    def visit_Name(self, node):
        if self.current_analyzer is None or self.current_cfg_node is None:
            # Names may appear outside function defs - for example in class
            # definitions or default values at module level.
            return node
        if not anno.hasanno(node, anno.Basic.QN):
            return node

        analyzer = self.current_analyzer
        cfg_node = self.current_cfg_node

        qn = anno.getanno(node, anno.Basic.QN)
        if isinstance(node.ctx, gast.Load):
            anno.setanno(node, anno.Static.DEFINITIONS,
                         tuple(analyzer.in_[cfg_node].value.get(qn, ())))
        else:
            anno.setanno(node, anno.Static.DEFINITIONS,
                         tuple(analyzer.out[cfg_node].value.get(qn, ())))

        return node

    def _aggregate_predecessors_defined_in(self, node):
        preds = self.current_analyzer.graph.stmt_prev.get(node, ())
        node_defined_in = set()
        fns_defined_in = set()
        for p in preds:
            node_defined_in |= set(self.current_analyzer.out[p].value.keys())
            fns_defined_in |= self.current_fndefs.out[p]
        anno.setanno(node, anno.Static.DEFINED_VARS_IN, frozenset(node_defined_in))
        anno.setanno(node, anno.Static.DEFINED_FNS_IN, frozenset(fns_defined_in))

    def _visit_compound(self, node):
        if self.current_analyzer is not None:
            self._aggregate_predecessors_defined_in(node)
        return self.generic_visit(node)

    visit_If = _visit_compound
    visit_While = _visit_compound
    visit_Try = _visit_compound
    visit_TryStar = _visit_compound
    visit_With = _visit_compound
    visit_AsyncWith = _visit_compound

    def visit_ExceptHandler(self, node):
        if self.current_analyzer is None or node.type is None:
            return self._visit_compound(node)
        self._aggregate_predecessors_defined_in(node)
        if self.names:
            # The handler's CFG node is node.type, and it also binds node.name.
            node.type = self.visit(node.type)
            if node.name is not None:
                parent = self.current_cfg_node
                self.current_cfg_node = self.current_analyzer.graph.index[node.type]
                node.name = self.visit(node.name)
                self.current_cfg_node = parent
        node.body = self.visit_block(node.body)
        return node

    visit_Match = _visit_compound
    visit_match_case = _visit_compound

    def visit_For(self, node):
        if self.current_analyzer is None:
            return self.generic_visit(node)
        self._aggregate_predecessors_defined_in(node)

        if self.names:
            # The loop's head CFG node is node.iter, and it also assigns node.target.
            parent = self.current_cfg_node
            self.current_cfg_node = self.current_analyzer.graph.index[node.iter]
            node.target = self.visit(node.target)
            self.current_cfg_node = parent
            node.iter = self.visit(node.iter)
        node.body = self.visit_block(node.body)
        node.orelse = self.visit_block(node.orelse)

        return node

    visit_AsyncFor = visit_For

    def visit(self, node):
        parent = self.current_cfg_node

        if (self.current_analyzer is not None and
                node in self.current_analyzer.graph.index):
            self.current_cfg_node = self.current_analyzer.graph.index[node]
            if isinstance(node, (gast.stmt, gast.match_case)):
                cfg_node = self.current_cfg_node
                anno.setanno(node, anno.Static.DEFINED_VARS_IN,
                             frozenset(self.current_analyzer.in_[cfg_node].value.keys()))
                anno.setanno(node, anno.Static.DEFINED_FNS_IN,
                             self.current_fndefs.in_[cfg_node])
        node = super(TreeAnnotator, self).visit(node)

        self.current_cfg_node = parent
        return node


def resolve(node, context, graphs, definition_factory=Definition, names=True):
    """Resolves reaching definitions for each symbol.

    Annotates Name nodes with Static.DEFINITIONS (the Definitions that may reach a load,
    or that a store creates), and statements with Static.DEFINED_VARS_IN (the symbols
    that may be defined on entry) and Static.DEFINED_FNS_IN (the local FunctionDef nodes
    that may be defined on entry).

    Args:
      node: ast.AST, annotated by qual_names.resolve and activity.resolve.
      context: the transformer context (kept for TensorFlow compatibility; unused).
      graphs: Dict[ast.FunctionDef, cfg.Graph], as returned by cfg.build.
      definition_factory: Callable[[], Definition], creates the definition objects.
      names: whether to annotate the Name nodes. Without them (the converters read the
        statements' annotations alone) the expressions are not visited at all, which
        skips most of the tree.

    Returns:
      ast.AST, the same node, annotated in place.
    """
    visitor = TreeAnnotator(context, graphs, definition_factory, names)
    node = visitor.visit(node)
    return node

