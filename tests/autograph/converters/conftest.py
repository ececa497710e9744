"""Helpers for converter tests: run chosen converters on a function, show and run the result."""

import textwrap

import pytest

from autograph.impl import ag_namespace
from autograph.impl import conversion
from autograph.pyct import naming
from autograph.pyct import parser
from autograph.pyct import transformer
from tests.autograph.fake_backend import registered

# Stand-in for the analyses in a converter list given to `transform`.
ANALYSE = object()


def transform(fn, *converters):
    """Parses `fn` and applies `converters` (modules with `transform`, or ANALYSE) in order.

    Returns:
      The converted gast tree.
    """
    node = parser.parse_entity(fn)
    ctx = transformer.EntityInfo(fn.__name__, fn.__code__.co_filename,
                                 naming.Namer.for_tree(node))
    ctx.namespace = conversion._namespace_of(fn)  # pylint: disable=protected-access
    for converter in converters:
        if converter is ANALYSE:
            node = conversion._analyse(node, ctx)  # pylint: disable=protected-access
        else:
            node = converter.transform(node, ctx)
    return node


def source(node):
    """The source of a converted tree, without trailing whitespace (the same on every version)."""
    return parser.unparse(node).strip()


def golden(text):
    """Dedents an inline golden source."""
    return textwrap.dedent(text).strip()


def load(node, fn):
    """Compiles a converted FunctionDef in `fn`'s globals, with `ag__` available."""
    namespace = dict(fn.__globals__)
    namespace['ag__'] = ag_namespace
    exec(compile(parser.unparse(node), '<test>', 'exec'), namespace)  # pylint: disable=exec-used
    return namespace[node.name]


@pytest.fixture
def fake():
    """A fresh FakeBackend, registered for the duration of the test."""
    with registered() as backend:
        yield backend
