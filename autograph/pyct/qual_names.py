"""Qualified names: symbols like `a`, `a.b` and `a[0]`, and the pass that annotates them."""

import collections

import gast

from autograph.pyct import anno
from autograph.pyct import ast_convert
from autograph.pyct import traversal


class Symbol(collections.namedtuple('Symbol', ['name'])):
    """Represents a Python symbol."""


class Literal(collections.namedtuple('Literal', ['value'])):
    """Represents a Python numeric literal used as a subscript."""

    def __str__(self):
        if isinstance(self.value, str):
            return "'{}'".format(self.value)
        return str(self.value)

    def __repr__(self):
        return str(self)


class QN(object):
    """Represents a qualified name: a symbol, an attribute chain or a subscript chain."""

    def __init__(self, base, attr=None, subscript=None):
        """Creates a qualified name.

        Args:
          base: a str (simple name), a QN (parent of a composite name) or a Literal.
          attr: str or None, the attribute name when this is `base.attr`.
          subscript: QN or None, the subscript when this is `base[subscript]`.

        Raises:
          ValueError: both attr and subscript were given, or base has the wrong type.
        """
        if attr is not None and subscript is not None:
            raise ValueError('A QN can only be either an attr or a subscript, not both:'
                             ' found attr=%r and subscript=%r.' % (attr, subscript))

        # The parent, for composite names; None for simple names.
        self._parent = None
        if attr:
            if not isinstance(base, QN):
                raise ValueError(
                    'for attribute QNs, base must be a QN; found %s: %r. Build it with '
                    'QN(QN(%r), attr=...).' % (type(base).__name__, base, base))
            self._parent = base
            self.qn = (base, attr)
        elif subscript is not None:
            if not isinstance(base, QN):
                raise ValueError('for subscript QNs, base must be a QN; found %s: %r.'
                                 % (type(base).__name__, base))
            self._parent = base
            self.qn = (base, subscript)
        else:
            if not isinstance(base, (str, Literal)):
                raise ValueError(
                    'for simple QNs, base must be a str or Literal; found %s: %r.'
                    % (type(base).__name__, base))
            self.qn = (base,)

        # Whether this is `base.attr`, resp. `base[subscript]`.
        self._has_attr = bool(attr)
        self._has_subscript = subscript is not None
        # QNs are immutable and hashed millions of times by the analyses: hash once.
        self._key = self.qn + (self._has_attr, self._has_subscript)
        self._hash = hash(self._key)

    @property
    def parent(self):
        if self._parent is None:
            raise ValueError('Cannot get parent of simple name "%s".' % self.qn[0])
        return self._parent

    @property
    def owner_set(self):
        """Returns all the symbols (simple or composite) that own this QN.

        In other words, if this symbol was modified, the symbols in the owner set
        may also be affected.

        Examples:
          'a.b[c.d]' has two owners, 'a' and 'a.b'
        """
        owners = set()
        if self.has_attr() or self.has_subscript():
            owners.add(self.parent)
            owners.update(self.parent.owner_set)
        return owners

    @property
    def support_set(self):
        """Returns the set of simple symbols that this QN relies on.

        This would be the smallest set of symbols necessary for the QN to
        statically resolve (assuming properties and index ranges are verified
        at runtime).

        Examples:
          'a.b' has only one support symbol, 'a'
          'a[i]' has two support symbols, 'a' and 'i'
        """
        roots = set()
        if self.has_attr():
            roots.update(self.parent.support_set)
        elif self.has_subscript():
            roots.update(self.parent.support_set)
            roots.update(self.qn[1].support_set)
        else:
            roots.add(self)
        return roots

    def is_symbol(self):
        return isinstance(self.qn[0], str)

    def is_simple(self):
        return len(self.qn) <= 1

    def is_composite(self):
        return len(self.qn) > 1

    def has_subscript(self):
        return self._has_subscript

    def has_attr(self):
        return self._has_attr

    @property
    def attr(self):
        if not self._has_attr:
            raise ValueError('Cannot get attr of non-attribute "%s".' % self)
        return self.qn[1]

    @property
    def base(self):
        if not self.is_simple():
            raise ValueError('Cannot get base of non-simple symbol "%s".' % self)
        return self.qn[0]

    @property
    def subscript(self):
        if not self._has_subscript:
            raise ValueError('Cannot get subscript of non-subscript "%s".' % self)
        return self.qn[1]

    def __hash__(self):
        return self._hash

    def __eq__(self, other):
        if self is other:
            return True
        return (isinstance(other, QN) and self._hash == other._hash
                and self._key == other._key)

    def __lt__(self, other):
        return str(self) < str(other)

    def __gt__(self, other):
        return str(self) > str(other)

    def __str__(self):
        root = self.qn[0]
        if self.has_subscript():
            return '{}[{}]'.format(root, self.qn[1])
        if self.has_attr():
            return '.'.join(map(str, self.qn))
        else:
            return str(root)

    def __repr__(self):
        return str(self)

    def ssf(self):
        """Returns the simple symbol form: an identifier-like string naming this QN.

        Returns:
          str, e.g. 'a_b' for a.b and 'a_sub_0' for a[0].
        """
        ssfs = [n.ssf() if isinstance(n, QN) else _literal_ssf(n) for n in self.qn]
        ssf_string = ''
        for i in range(0, len(self.qn) - 1):
            if self.has_subscript():
                delimiter = '_sub_'
            else:
                delimiter = '_'
            ssf_string += ssfs[i] + delimiter
        return ssf_string + ssfs[-1]

    def ast(self, ctx=None):
        """Returns a new gast expression equivalent to this QN.

        Args:
          ctx: the expression context of the outermost node (gast.Load() when None);
            inner nodes always load.

        Returns:
          A gast Name, Attribute, Subscript or Constant node.
        """
        # nodes made as gast's constructors make them, without their Python call (ast_convert)
        node = ast_convert.gast_node
        ctx = node(gast.Load) if ctx is None else ctx
        if self.has_subscript():
            return node(gast.Subscript, value=self.parent.ast(), slice=self.qn[-1].ast(),
                        ctx=ctx)
        if self.has_attr():
            return node(gast.Attribute, value=self.parent.ast(), attr=self.qn[-1], ctx=ctx)

        base = self.qn[0]
        if isinstance(base, str):
            return node(gast.Name, id=base, ctx=ctx, annotation=None, type_comment=None)
        elif isinstance(base, Literal):
            return node(gast.Constant, value=base.value, kind=None)
        raise AssertionError('the constructor allows only str and Literal bases')


def _literal_ssf(value):
    """Returns an identifier-friendly spelling of a simple QN base (str or Literal)."""
    if isinstance(value, Literal):
        text = str(value.value)
        return ''.join(c if c.isalnum() or c == '_' else '_' for c in text)
    return value


# the annotation key, looked up once (an enum member's attribute lookup is slow)
_QN = anno.Basic.QN


class QnResolver(traversal.NodeTransformer):
    """Annotates nodes with QN information.

    Note: Not using NodeAnnos to avoid circular dependencies.

    The nodes of one name (or one attribute of a name) share one QN: the analyses' sets and
    dicts then find it by identity, without calling QN.__eq__ (the 2,000-line growth function:
    7,700 QNs made and 32,000 calls of __eq__ -> 10 QNs and no call).
    """

    def __init__(self):
        # name -> its QN, and (QN of the base, attribute name) -> the attribute's QN
        self._names = {}
        self._attributes = {}

    def visit_Name(self, node):
        if node.annotation is not None:  # a parameter's annotation (the only child node)
            node = self.generic_visit(node)
        qn = self._names.get(node.id)
        if qn is None:
            qn = self._names[node.id] = QN(node.id)
        anno.setanno(node, _QN, qn)
        return node

    def visit_Attribute(self, node):
        node = self.generic_visit(node)
        parent = anno.getanno(node.value, _QN, None)
        if parent is not None:
            key = (parent, node.attr)
            qn = self._attributes.get(key)
            if qn is None:
                qn = self._attributes[key] = QN(parent, attr=node.attr)
            anno.setanno(node, _QN, qn)
        return node

    def visit_Subscript(self, node):
        node = self.generic_visit(node)
        s = node.slice
        subscript = None
        if isinstance(s, gast.Constant) and isinstance(s.value, (int, float, str, bool)):
            subscript = QN(Literal(s.value))
        elif isinstance(s, gast.Constant):
            # None, Ellipsis, bytes, complex: not symbolic.
            return node
        elif anno.hasanno(s, _QN):
            subscript = anno.getanno(s, _QN)
        else:
            # Slices, tuples and general expressions are not symbolic names.
            return node
        if anno.hasanno(node.value, _QN):
            anno.setanno(node, _QN,
                         QN(anno.getanno(node.value, _QN), subscript=subscript))
        return node


def resolve(node):
    """Annotates every Name, Attribute and Subscript in a tree with Basic.QN where possible.

    Args:
      node: a gast node (usually a module or function definition).

    Returns:
      The same node, annotated in place.
    """
    return QnResolver().visit(node)


def from_str(qn_str):
    """Parses a qualified name from its string form.

    Args:
      qn_str: str, e.g. 'a', 'a.b', 'a[0]', "a['k'].b[i]".

    Returns:
      The equivalent QN.

    Raises:
      ValueError: the string is not a single qualified name.
    """
    try:
        node = gast.parse(qn_str)
    except SyntaxError as e:
        raise ValueError('expected a qualified name like "a.b[0]", found %r: %s'
                         % (qn_str, e)) from e
    if (len(node.body) != 1 or not isinstance(node.body[0], gast.Expr)):
        raise ValueError('expected a single qualified name like "a.b[0]", found %r'
                         % (qn_str,))
    node = resolve(node.body[0].value)
    if not anno.hasanno(node, _QN):
        raise ValueError('expected a qualified name (names, attributes, constant or name '
                         'subscripts), found %r' % (qn_str,))
    return anno.getanno(node, _QN)
