"""What the code generator makes: the source of one function, loaded with its error labels.

`GeneratedCode.load` registers the source in `linecache` (tracebacks, debuggers and
`inspect.getsource` show it) for as long as the function lives, and gives the function the
label of each line's node for its error messages (`_LineLabels`, packed).
"""
import array
import builtins
import collections.abc
import linecache
import weakref

from runtime.executor.interpreter import _annotate


class GeneratedCode:
    """The output of `generate`: source text plus everything needed to load it.

    Attributes:
        source: The Python source of one function definition.
        namespace: The globals the source needs (constants, kernels, attributes).
        name: The function's name in `namespace` after exec.
        filename: The pseudo file name the source is registered under.
        line_nodes: Dict mapping 1-based source lines to the NodeLabel of the node they execute.
    """

    __slots__ = ("source", "namespace", "name", "filename", "line_nodes")

    def __init__(self, source, namespace, name, filename, line_nodes):
        self.source = source
        self.namespace = namespace
        self.name = name
        self.filename = filename
        self.line_nodes = line_nodes

    def load(self):
        """Executes the source and returns the generated function (registered in linecache).

        Returns:
            The function.
        """
        code = builtins.compile(self.source, self.filename, "exec")
        namespace = self.namespace
        namespace["_annotate_error"] = LineLabels(self.line_nodes).annotate
        exec(code, namespace)  # noqa: S102 - our own generated source
        fn = namespace[self.name]
        # The entry goes when `fn` does: SourceLines holds the weak reference that removes it.
        lines = SourceLines(self.source, weakref.KeyedRef(fn, _forget_source, self.filename))
        linecache.cache[self.filename] = (len(self.source), None, lines, self.filename)
        return fn


def _forget_source(ref):
    """Removes a compiled function's source from linecache once the function is gone."""
    entry = linecache.cache.get(ref.key)
    if entry is not None and getattr(entry[2], "owner", None) is ref:
        del linecache.cache[ref.key]


class NodeLabel:
    """What an error message needs of a node (its name and `short()` form), without the node.

    Keeping the Node itself would keep the whole optimised graph alive with every compiled
    function (most of a traced function's memory).
    """

    __slots__ = ("name", "_short")

    def __init__(self, name, short):
        self.name = name
        self._short = short

    @classmethod
    def of(cls, node):
        return cls(node.name, node.short())

    def short(self):
        return self._short


class LineLabels:
    """Maps a line of the generated source to the NodeLabel of the node it executes.

    The compiled function keeps this for its whole life but reads it only when an error
    passes through, so it is packed: one string of every label's name and short form, and
    an array of (line, end of the name, end of the short form) triples. That is a third of
    the memory of a dict of label objects; the label is remade when an error needs it.
    """

    __slots__ = ("_text", "_index")

    def __init__(self, line_nodes):
        """Packs `line_nodes`, a dict of 1-based line number -> NodeLabel."""
        parts = []
        index = array.array("I")
        end = 0
        for line, label in line_nodes.items():
            short = label.short()
            parts += (label.name, short)
            index.append(line)
            end += len(label.name)
            index.append(end)
            end += len(short)
            index.append(end)
        self._text = "".join(parts)
        self._index = index

    def annotate(self, error):
        """Prefixes the node of the generated line `error` passed through to its message."""
        tb = error.__traceback__
        label = self.get(tb.tb_lineno) if tb is not None else None
        if label is not None:
            _annotate(error, label)

    def get(self, line):
        """Returns the NodeLabel of `line`, or None when no node is mapped to it."""
        index = self._index
        for i in range(0, len(index), 3):
            if index[i] == line:
                start = index[i - 1] if i else 0
                name_end = index[i + 1]
                return NodeLabel(self._text[start:name_end], self._text[name_end:index[i + 2]])
        return None


class SourceLines(collections.abc.Sequence):
    """The lines of a source text, as `linecache` holds them, made from the text when read.

    A compiled function's source stays registered in linecache for tracebacks, debuggers and
    `inspect.getsource`, which all index, slice or iterate the lines; one string instead of
    a list of line strings is a third of the memory.
    """

    __slots__ = ("_source", "owner")

    def __init__(self, source, owner=None):
        """Holds `source`; `owner` is any object to keep with it (a weak reference, say)."""
        self._source = source
        self.owner = owner

    def __len__(self):
        return len(self._source.splitlines())

    def __getitem__(self, index):
        return self._source.splitlines(True)[index]

    def __iter__(self):
        return iter(self._source.splitlines(True))

    def __repr__(self):
        return repr(list(self))
