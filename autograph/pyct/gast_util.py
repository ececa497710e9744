"""Small constructors and predicates for gast nodes used by several converters."""

import gast

from autograph.pyct import anno
from autograph.pyct import ast_convert
from autograph.pyct import qual_names
from autograph.pyct import templates
from autograph.pyct import transformer


def name(id_, ctx=gast.Load):
    """Returns a gast.Name node.

    Args:
      id_: the identifier.
      ctx: the context class (gast.Load, gast.Store, gast.Del).

    Returns:
      gast.Name.
    """
    return ast_convert.gast_node(gast.Name, id=id_, ctx=ast_convert.gast_node(ctx),
                                 annotation=None, type_comment=None)


def generated_name(id_):
    """Returns a gast.Name (Load) that a converter writes, marked `anno.Basic.GENERATED`.

    A converter that builds a reference to generated code (`ag__`) without a template uses
    this, so that later passes recognise it by the mark, as they do a template's names.

    Args:
      id_: the identifier.

    Returns:
      gast.Name.
    """
    node = name(id_)
    anno.setanno(node, anno.Basic.GENERATED, True)
    return node


def generated_call(namespace, attr, args, keywords=()):
    """Returns the call `namespace.attr(*args, **keywords)`, its namespace a generated name.

    Args:
      namespace: the identifier of the namespace (`ag__`), marked by generated_name.
      attr: the attribute called.
      args: a list of gast expressions.
      keywords: gast.keyword nodes.

    Returns:
      gast.Call.
    """
    func = gast.Attribute(value=generated_name(namespace), attr=attr, ctx=gast.Load())
    return gast.Call(func=func, args=args, keywords=list(keywords))


def tuple_(elts, ctx=gast.Load):
    """Returns a gast.Tuple node.

    Args:
      elts: a list of gast expressions.
      ctx: the context class (gast.Load, gast.Store, gast.Del).

    Returns:
      gast.Tuple.
    """
    return ast_convert.gast_node(gast.Tuple, elts=elts, ctx=ast_convert.gast_node(ctx))


def constant(value):
    """Returns a gast.Constant node for a Python literal.

    Args:
      value: a str, number, bool or None.

    Returns:
      gast.Constant.
    """
    return ast_convert.gast_node(gast.Constant, value=value, kind=None)


def is_docstring(stmt):
    """Tells whether a statement is a string literal expression (a docstring).

    Args:
      stmt: a gast statement.

    Returns:
      bool.
    """
    return (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Constant)
            and isinstance(stmt.value.value, str))


def if_not(flag, body):
    """Returns `if not flag: body`.

    Args:
      flag: the name of a boolean variable.
      body: a list of statements.

    Returns:
      A gast.If.
    """
    return templates.replace('if not flag:\n    body', flag=flag, body=body)[0]


def skip(node):
    """Marks `node` so that later converters leave it alone, and returns it.

    Args:
      node: a gast node.

    Returns:
      `node`.
    """
    anno.setanno(node, transformer.ConvAnno.SKIP, True)
    return node


def add_extra_loop_test(loop, test):
    """Adds `test` (and-ed with any earlier one) to the extra test of a For loop.

    The extra test lives in the anno.Basic.EXTRA_LOOP_TEST annotation, which the CFG and
    activity analyses read, so the flags it uses count as loop variables.

    Args:
      loop: a gast.For node.
      test: a gast expression; the loop stops when it is false.
    """
    previous = anno.getanno(loop, anno.Basic.EXTRA_LOOP_TEST, None)
    if previous is not None:
        test = gast.BoolOp(op=gast.And(), values=[previous, test])
    # The analyses read names through their QN annotations; this expression is not in the
    # tree, so qual_names.resolve would not see it there.
    anno.setanno(loop, anno.Basic.EXTRA_LOOP_TEST, qual_names.resolve(test))


# Builtins that read or change the calling frame's local variables.
FRAME_CALLS = frozenset(('eval', 'exec', 'locals', 'vars'))


def frame_call(node):
    """The builtin name of a call that reads the caller's frame (see FRAME_CALLS), or None."""
    if type(node) is not gast.Call or type(node.func) is not gast.Name:
        return None
    name = node.func.id
    if name not in FRAME_CALLS:
        return None
    if name in ('eval', 'exec') and (len(node.args) >= 2 or node.keywords):
        return None  # explicit namespaces: the frame's locals are not read
    if name == 'vars' and node.args:
        return None  # vars(obj) reads obj, not the frame
    return name
