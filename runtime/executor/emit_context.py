"""EmitContext: what a structured op's emit rule may use of the code generator.

JAX gives each lowering rule a `LoweringRuleContext` ("per-rule context information for MLIR
lowering") instead of the lowering machinery itself; an emit rule here gets an EmitContext.
The first group of members is what any structured op needs: write lines, read and bind the
values of tensors, inline a subgraph. The second is the fast paths that `cond` and `while`
take (a native `for` over a range, Python scalars, memoryview reads, a `break` in the branch
that sets a loop's exit flag); a new op needs none of them.

A rule writes each line once: it decides what a line says (a loop's header, say) before it
writes it. Where that decision depends on the code of a subgraph, the rule writes that code
apart first (`lines_of`), decides, then adds it (`add_lines`).
"""


class Lines:
    """Lines a rule wrote apart (`EmitContext.lines_of`), not yet in the code.

    Attributes:
        texts: The lines, indented.
        labels: 1-based index into `texts` -> the label of the node an error there names.
    """

    __slots__ = ("texts", "labels")

    def __init__(self, texts, labels):
        self.texts = texts
        self.labels = labels

    def only(self, statement):
        """Whether these are the one line `statement` (e.g. "pass")."""
        return len(self.texts) == 1 and self.texts[0].strip() == statement


class EmitContext:
    """The code generator, as an emit rule sees it (see the module docstring).

    Values: every tensor has the source text of its value (`value`), a local name or an
    expression evaluated where it is read. A rule binds its node's outputs (`set_value`)
    after writing the code that computes them.
    """

    __slots__ = ("_gen",)

    def __init__(self, generator):
        self._gen = generator

    # -- for every structured op ----------------------------------------------------------

    def line(self, depth, text, node=None):
        """Writes one line at indentation `depth`; errors on it name `node`."""
        self._gen.line(depth, text, node)

    def value(self, tensor):
        """The source text of `tensor`'s value."""
        return self._gen.env[tensor]

    def has_value(self, tensor):
        """Whether `tensor` has a value in the code written so far."""
        return tensor in self._gen.env

    def set_value(self, tensor, text):
        """Makes `text` (a name, or an expression with no side effects) `tensor`'s value."""
        self._gen.env[tensor] = text

    def materialize_all(self, tensors, depth):
        """Evaluates the values of `tensors` that are expressions into locals (before a rule
        reads them more than once)."""
        self._gen.materialize_all(tensors, depth)

    def statement_text(self, tensor):
        """`tensor`'s value as a statement reads it (no outer parentheses)."""
        return self._gen.statement_text(tensor)

    def truth(self, text):
        """`text` where only its truth is read (`if`, `while`, `not`)."""
        return self._gen.truth(text)

    def new_name(self, hint):
        """A fresh local name derived from `hint`."""
        return self._gen.new_name(hint)

    def output_names(self, node):
        """The local names of `node`'s outputs: names the enclosing block asked the node to
        write (a loop variable, a branch output), else fresh ones."""
        return [self._gen.output_name(
            t, f"{node.name}_{t.index}" if len(node.outputs) > 1 else node.name)
            for t in node.outputs]

    def branch(self, graph, operands, names, depth, sources=None, kept=()):
        """Inlines subgraph `graph`: binds its inputs to the texts `operands`, writes its
        nodes, assigns its outputs to `names` (`pass` when it writes nothing). `sources` are
        the tensors the operands hold, when they hold the same value at every read (what is
        known about them carries over). The names at positions `kept` already hold their
        output's value (a loop's exit flag, False in a branch that does not break)."""
        self.bind(graph, operands, sources)
        start = self.line_count()
        self.block(graph, depth, names)
        self.assign([n for k, n in enumerate(names) if k not in kept],
                    [t for k, t in enumerate(graph.outputs) if k not in kept], depth)
        if self.line_count() == start:
            self.line(depth, "pass")

    def bind(self, graph, operands, sources=None):
        """Binds the inputs of subgraph `graph` to the texts `operands` (see `branch`)."""
        self._gen.bind(graph, operands, sources)

    def block(self, graph, depth, out_names=None):
        """Writes the nodes of `graph` (its inputs bound); returns whether it wrote a line.
        `out_names`: the names its outputs are assigned to after it (see `branch`)."""
        return self._gen.block(graph, depth, out_names=out_names)

    def assign(self, names, tensors, depth):
        """Assigns the values of `tensors` to `names`, all at once."""
        self._gen.assign(names, tensors, depth)

    def line_count(self):
        """The number of lines written so far."""
        return len(self._gen.lines)

    def lines_of(self, write):
        """Calls `write()` with the lines it writes kept apart.

        Returns:
            (what `write` returned, a Lines): the rule adds them with `add_lines`, or not.
        """
        return self._gen.lines_of(write)

    def add_lines(self, lines):
        """Writes the Lines of `lines_of` here."""
        self._gen.add_lines(lines)

    # -- the fast paths of cond and while -------------------------------------------------

    def wrapped(self, tensor, depth):
        """`tensor`'s value in its dtype's range, evaluated into a local if it was not."""
        return self._gen.wrapped(tensor, depth)

    def materialize(self, tensor, depth):
        """Evaluates `tensor`'s value into a local if it is an expression."""
        self._gen.materialize(tensor, depth)

    def deferrable(self, tensor):
        """Whether a scalar output of the node being written may stay an expression."""
        return self._gen.deferrable(tensor)

    def defer(self, tensor, text):
        """Makes expression `text` `tensor`'s value, evaluated at its one read."""
        self._gen.defer(tensor, text)

    def emit_node(self, node, depth):
        """Writes one node of a subgraph (a constant, a picked value)."""
        self._gen.emit_node(node, depth)

    def assign_values(self, pairs, depth, node=None):
        """Writes `name = text` for (name, text) pairs, as one parallel assignment."""
        self._gen.assign_values(pairs, depth, node)

    def is_target(self, tensor):
        """Whether the enclosing block asked the node to write `tensor` to a name of its own."""
        return tensor in self._gen.targets

    def output_unused(self, tensor):
        """Whether nothing after the node being written reads `tensor` (ask before writing
        the node's subgraphs)."""
        return self._gen.output_unused(tensor)

    @property
    def loop_tail(self):
        """The cond whose branches end the innermost loop being written, or None (set it
        around the loop's body; see while_code.TailBreak)."""
        return self._gen.tail

    @loop_tail.setter
    def loop_tail(self, tail):
        self._gen.tail = tail

    def skip(self, nodes):
        """Leaves `nodes` out of the blocks written next: the rule computes them itself."""
        self._gen.skip.update(nodes)

    def is_skipped(self, node):
        """Whether `node` is left out (see `skip`)."""
        return node in self._gen.skip

    def counting_loop(self, node, test=None, ignore=None):
        """`loop_patterns.counting_loop` for while `node`: (k, bound, increment) or None."""
        return self._gen.counting_loop(node, test, ignore)

    def offset_counter(self, node, k, increment):
        """`loop_patterns.offset_counter` for while `node`: the `1 + i` node, or None."""
        return self._gen.offset_counter(node, k, increment)

    def grows_from(self, counter, start):
        """Records that loop counter `counter` only counts up from `start`'s value."""
        self._gen.grows_from(counter, start)

    def refine_when_true(self, test):
        """(int operand, interval) pairs of bool `test`, wherever it is true."""
        return self._gen.refine_when_true(test)

    def set_interval(self, tensor, interval):
        """Records that Python int `tensor` is in `interval` (lo, hi) where it is read."""
        self._gen.interval[tensor] = interval

    def wrap_later(self, nodes):
        """`v + c` nodes of a loop counter wrapped once after the loop (`wrap_local`), not at
        every step."""
        self._gen.lazy.update(nodes)

    def wrap_local(self, name, tensor, depth):
        """Writes the wrap of local `name` into the range of `tensor`'s dtype."""
        self._gen.wrap_local(name, tensor, depth)

    def view(self, tensor, depth, node):
        """Makes a memoryview of array `tensor`, read element by element in `node`'s loop."""
        self._gen.view(tensor, depth, node)

    def float_copy(self, tensor, depth, node):
        """Makes a Python float copy of float32 scalar `tensor` before `node`'s loop."""
        self._gen.float_copy(tensor, depth, node)

    def read_as_python_floats(self, nodes):
        """Lets the getitem `nodes` read their float32 element as a Python float."""
        self._gen.read_as_python_floats(nodes)

    def row_offsets(self, body, invariant, depth, node):
        """Computes before a loop the loop-invariant part of each flat read's index."""
        self._gen.row_offsets(body, invariant, depth, node)
