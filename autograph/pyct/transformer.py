"""Base class for the converters: a gast NodeTransformer with context, state and locations."""

import gast

from autograph.pyct import anno
from autograph.pyct import traversal

_LOCATION_ATTRS = ('lineno', 'col_offset', 'end_lineno', 'end_col_offset')


class EntityInfo(object):
    """What the converters know about the entity being converted.

    Args:
      name: the entity's name, e.g. 'f'.
      filename: the file the source came from.
      namer: the naming.Namer shared by all converters of this entity.
    """

    def __init__(self, name, filename, namer):
        self.name = name
        self.filename = filename
        self.namer = namer
        # names that may hold an ag__.Undefined placeholder (set by control_flow)
        # generated name -> its role (an operators.Symbol), set by the converter that makes
        # the symbol (return, break, continue); control_flow passes the role to the operators
        self.generated_symbols = {}
        self.undefined_names = set()
        # the entity's global and closure variables by name (a Mapping, read by the
        # directives converter to recognise `set_loop_options`); empty when unknown
        self.namespace = {}
        # (callee names, was set_loop_options) for each call the directives converter resolved
        # in `namespace`: all that conversion read from it (the disk cache rechecks them)
        self.directive_checks = []
        # warnings to give about the conversion (str), also kept with it in the disk cache
        self.notes = []
        # kinds of node a converter added that later converters look for (see
        # impl/conversion._CONVERTER_KINDS): aliases adds a call of enumerate
        self.added_kinds = set()


def set_missing_locations(nodes, origin):
    """Gives generated nodes the location of the original node they replace.

    Only the outermost generated nodes are located: the nodes inside them take their
    location when the tree is compiled (ast_convert.gast_to_ast_in_place gives a node
    without one its nearest located ancestor's, as ast.fix_missing_locations does), and
    user nodes keep their own. Locating every generated node here walked all of the generated
    code once per converted statement (a fifth of the control-flow converter's time).

    Args:
      nodes: a gast node or a list of nodes.
      origin: the node whose location generated nodes inherit.
    """
    lineno = getattr(origin, 'lineno', None)
    if lineno is None:
        return
    col = getattr(origin, 'col_offset', 0)
    end_col = getattr(origin, 'end_col_offset', None)
    if getattr(origin, 'end_lineno', None) != lineno or end_col is None:
        end_col = col
    # Generated code spans only the first line of the statement it replaces: Python reports
    # some instructions (method calls) at their end line, which must be the statement's line.
    loc = (lineno, col, lineno, end_col)
    stack = list(nodes) if isinstance(nodes, list) else [nodes]
    while stack:
        node = stack.pop()
        if not isinstance(node, gast.AST):
            continue
        if node._attributes:  # a located kind of node: outermost on its path
            if getattr(node, 'lineno', None) is None:
                node.lineno, node.col_offset, node.end_lineno, node.end_col_offset = loc
            continue
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                stack.extend(value)
            elif isinstance(value, gast.AST):
                stack.append(value)


class _StateStack(object):
    """A stack of per-node-kind state objects; attributes read the top of the stack."""

    def __init__(self, factory):
        object.__setattr__(self, '_stack', [])
        object.__setattr__(self, '_factory', factory)

    def enter(self):
        self._stack.append(self._factory())

    def exit(self):
        return self._stack.pop()

    @property
    def level(self):
        return len(self._stack)

    def __getattr__(self, key):
        return getattr(self._stack[-1], key)

    def __setattr__(self, key, value):
        setattr(self._stack[-1], key, value)


class State(object):
    """Per-transformer state: `self.state[SomeClass]` is a stack of SomeClass instances."""

    def __init__(self):
        self._stacks = {}

    def __getitem__(self, key):
        stack = self._stacks.get(key)
        if stack is None:
            stack = _StateStack(key)
            self._stacks[key] = stack
        return stack


# Fields that hold statements; statement-only transformers descend into these alone.
_BLOCK_FIELDS = frozenset({'body', 'orelse', 'finalbody', 'handlers', 'cases'})
_BLOCK_FIELDS_OF = {}  # node class -> its fields in _BLOCK_FIELDS, in field order


def block_fields(node):
    """The fields of `node` that hold statements (body, orelse, ...), in field order."""
    fields = _BLOCK_FIELDS_OF.get(node.__class__)
    if fields is None:
        fields = _BLOCK_FIELDS_OF[node.__class__] = tuple(
            f for f in node._fields if f in _BLOCK_FIELDS)
    return fields


class Base(traversal.NodeTransformer):
    """A transformer that fills in the locations of the nodes it generates.

    Subclasses that only rewrite statements set `statements_only = True`: they then never
    descend into expressions, which makes them several times faster.

    Args:
      ctx: the EntityInfo of the entity being converted.
    """

    # whether the transformer skips expressions (and everything nested in them)
    statements_only = False

    def __init__(self, ctx):
        self.ctx = ctx
        self.state = State()

    def visit(self, node):
        annos = getattr(node, '___pyct_anno', None)
        if annos and annos.get(_SKIP):
            return node
        # traversal.NodeVisitor.visit, inlined (a call less per node)
        method = self._traversal_dispatch.get(node.__class__) or self.method_for(node.__class__)
        result = method(self, node)
        if result is not node and result is not None and isinstance(node, gast.stmt):
            set_missing_locations(result, node)
        return result

    def generic_visit(self, node):
        if not self.statements_only:
            return self.transform_fields(node, traversal.child_fields(node.__class__))
        return self.transform_fields(node, block_fields(node))

    def visit_block(self, nodes):
        """Visits a list of statements, splicing in lists returned by visits.

        Args:
          nodes: a list of gast statements.

        Returns:
          The new list of statements.
        """
        result = traversal.visit_list(self.visit, nodes)
        return list(nodes) if result is None else result


class ConvAnno(anno.NoValue):
    """Annotation keys that converters leave for later converters; values document them."""

    FUNCTION_SCOPE_NAME = (
        "On FunctionDef/Lambda: the name of the FunctionScope variable ('fscope', ...).")
    IS_ENTITY = 'On FunctionDef: True for the entity being converted (not for nested functions).'
    SKIP = ('On any node: leave alone (generated by an earlier converter, must not be '
            'converted again).')


# Enum members are slow to look up by attribute; Base.visit reads this one per node.
_SKIP = ConvAnno.SKIP
