"""AST node annotations: typed keys and helpers to attach data to gast nodes."""

import enum

import gast

from autograph.pyct import traversal
# The attribute on AST nodes that holds the annotation dictionary.
_ANNO_FIELD = '___pyct_anno'


class NoValue(enum.Enum):
    """Base class for annotation keys; the member value documents the key."""

    # Members are equal only to themselves: hash them by identity in C. Enum's own hash
    # (of the member's name, in Python) was a thirtieth of conversion, as every annotation
    # read hashes its key.
    __hash__ = object.__hash__

    def __repr__(self):
        return self.name

    def __str__(self):
        return self.name


class Basic(NoValue):
    """Container for basic annotation keys.

    The enum values are used strictly for documentation.
    """

    QN = 'Qualified name, as it appeared in the code. See qual_names.py.'
    EXTRA_LOOP_TEST = (
        'A special annotation containing additional test code to be executed in'
        ' for loops.')
    LOOP_OPTIONS = (
        'The options that a set_loop_options directive gives a while or for loop: a dict from'
        ' option name to the gast expression of its value.')
    ITEM_READ = (
        'On a generated `ag__.get_item(container, key)` call (converters/subscripts.py): marks'
        ' it, so that `table[i][j]` reads the row it gives at `j` through get_item too.')
    CALLEE = (
        'On a call that a converter wrapped (a generated `converted_call(f, ...)`): the'
        ' expression of the function it calls, `f`.')
    GENERATED = (
        'On a gast.Name that a converter wrote, never on one from user code: the names of a'
        " template's own text (templates.replace marks them; the converters' templates write"
        ' only `ag__`) and gast_util.generated_name. Later passes read this mark, not the'
        ' name: call_trees leaves a call through a marked name unwrapped, subscripts leaves'
        ' its subscripts alone. templates.copy_clean keeps it.')


class Static(NoValue):
    """Container for static analysis annotation keys.

    The enum values are used strictly for documentation.
    """

    # Boolean flags on symbols.
    IS_PARAM = 'Symbol is a parameter to the function being analyzed.'

    # Scopes
    # Scopes are represented by objects of type activity.Scope.
    SCOPE = 'The scope for the annotated node. See activity.py.'
    ARGS_SCOPE = 'The scope for the argument list of a function call.'
    COND_SCOPE = 'The scope for the test node of a conditional statement.'
    BODY_SCOPE = (
        'The scope for the main body of a statement (True branch for if '
        'statements, main body for loops).')
    ITERATE_SCOPE = 'The scope for the iterate assignment of a for loop.'
    ARGS_AND_BODY_SCOPE = (
        'The scope for the main body of a function or lambda, including its'
        ' arguments.')
    ORELSE_SCOPE = (
        'The scope for the orelse body of a statement (False branch for if '
        'statements, orelse body for loops).')

    # Static analysis annotations.
    DEFINITIONS = (
        'Reaching definition information. See reaching_definitions.py.')
    DEFINED_FNS_IN = (
        'Local function definitions that may exist when entering the node. See'
        ' reaching_definitions.py.')
    DEFINED_VARS_IN = (
        'Symbols defined when entering the node. See reaching_definitions.py.')
    LIVE_VARS_OUT = ('Symbols live when exiting the node. See liveness.py.')
    LIVE_VARS_IN = ('Symbols live when entering the node. See liveness.py.')


FAIL = object()


def keys(node, field_name=_ANNO_FIELD):
    """Returns the annotation keys present on a node.

    Args:
      node: an AST node.
      field_name: the attribute that holds the annotations.

    Returns:
      A frozenset of annotation keys (empty when the node has none).
    """
    if not hasattr(node, field_name):
        return frozenset()
    return frozenset(getattr(node, field_name).keys())


def getanno(node, key, default=FAIL, field_name=_ANNO_FIELD):
    """Returns the annotation `key` of `node`.

    Args:
      node: an AST node.
      key: the annotation key, usually a Basic or Static member.
      default: returned when the annotation is missing; when omitted a miss raises.
      field_name: the attribute that holds the annotations.

    Returns:
      The annotation value.

    Raises:
      KeyError: the annotation is missing and no default was given.
    """
    annos = getattr(node, field_name, None)
    if annos is not None and key in annos:
        return annos[key]
    if default is FAIL:
        raise KeyError(
            'expected annotation %r on %s node, found none; run the analysis that sets it'
            ' or pass a default' % (key, type(node).__name__))
    return default


def hasanno(node, key, field_name=_ANNO_FIELD):
    """Returns whether `node` has the annotation `key`.

    Args:
      node: an AST node.
      key: the annotation key.
      field_name: the attribute that holds the annotations.

    Returns:
      bool.
    """
    return hasattr(node, field_name) and key in getattr(node, field_name)


def setanno(node, key, value, field_name=_ANNO_FIELD):
    """Sets the annotation `key` of `node` to `value`.

    Annotations live in a plain instance attribute; unlike TensorFlow the attribute is not
    added to `node._fields`, so that Python 3.13's AST constructors (which warn about unknown
    fields) accept nodes rebuilt from annotated trees.

    Args:
      node: an AST node.
      key: the annotation key.
      value: the annotation value.
      field_name: the attribute that holds the annotations.
    """
    annotations = getattr(node, field_name, {})
    setattr(node, field_name, annotations)
    annotations[key] = value


def delanno(node, key, field_name=_ANNO_FIELD):
    """Removes the annotation `key` from `node`.

    Args:
      node: an AST node.
      key: the annotation key; it must be present.
      field_name: the attribute that holds the annotations.

    Raises:
      KeyError: the annotation is missing.
    """
    annotations = getattr(node, field_name)
    del annotations[key]
    if not annotations:
        delattr(node, field_name)


def copyanno(from_node, to_node, key, field_name=_ANNO_FIELD):
    """Copies the annotation `key` from `from_node` to `to_node`, if present.

    Args:
      from_node: the source AST node.
      to_node: the destination AST node.
      key: the annotation key.
      field_name: the attribute that holds the annotations.
    """
    if hasanno(from_node, key, field_name=field_name):
        setanno(
            to_node,
            key,
            getanno(from_node, key, field_name=field_name),
            field_name=field_name)


def dup(node, copy_map, field_name=_ANNO_FIELD):
    """Recursively copies annotations in an AST tree.

    Args:
      node: an AST node or a list of nodes.
      copy_map: dict mapping source annotation keys to destination keys; every node of
        the tree that has a source key gets its value under the destination key too.
      field_name: the attribute that holds the annotations.
    """
    for n in traversal.walk(node) if not isinstance(node, list) else _walk_all(node):
        for k in copy_map:
            if hasanno(n, k, field_name):
                setanno(n, copy_map[k], getanno(n, k, field_name), field_name)


def _walk_all(nodes):
    for n in nodes:
        yield from traversal.walk(n)
