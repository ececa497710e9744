"""Generates identifiers that do not collide with names already used by converted code."""

import builtins
import keyword

import gast

from autograph.pyct import traversal
# Names that generated code must never shadow, whatever the function uses.
_RESERVED = frozenset(keyword.kwlist) | frozenset(dir(builtins)) | {'ag__'}


def collect_names(node):
    """Returns every identifier that a tree binds or reads.

    Args:
      node: a gast node.

    Returns:
      A set of strings: names, argument names, function and class names, global and
      nonlocal declarations.
    """
    names = set()
    for n in traversal.walk(node):
        add_names(n, names)
    return names


_DEFINITIONS = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)


def add_names(node, names):
    """Adds to `names` the identifiers that `node` itself (not its children) binds or reads.

    Args:
      node: a gast node.
      names: a set of strings.
    """
    cls = node.__class__
    if cls is gast.Name:
        names.add(node.id)
    elif cls in _DEFINITIONS:
        names.add(node.name)
    elif cls is gast.Global or cls is gast.Nonlocal:
        names.update(node.names)
    elif cls is gast.alias:
        names.add((node.asname or node.name).partition('.')[0])
    elif cls is gast.MatchAs or cls is gast.MatchStar:  # a capture pattern's name
        if node.name is not None:
            names.add(node.name)
    elif cls is gast.MatchMapping and node.rest is not None:
        names.add(node.rest)


class Namer(object):
    """Hands out fresh symbol names for one converted entity.

    Args:
      used_names: names already in use by the entity; new symbols avoid them.
    """

    def __init__(self, used_names):
        # every name that exists in the entity or has been handed out
        self._used = set(used_names)
        # the names handed out by new_symbol
        self.generated = set()
        # name root -> a suffix number below which every candidate is in _used (which only
        # grows): new_symbol starts probing there instead of at 0, so that handing out n
        # symbols with one root costs O(n), not O(n**2)
        self._first_free = {}
        # name root -> the name new_helper handed out for it
        self._helpers = {}

    @classmethod
    def for_tree(cls, node):
        """Returns a Namer that avoids every name used in `node`.

        Args:
          node: a gast node.

        Returns:
          A Namer.
        """
        return cls(collect_names(node))

    def new_symbol(self, name_root, reserved_locals=()):
        """Returns a new name based on `name_root`, unused in the entity.

        Args:
          name_root: the preferred name, e.g. 'if_body'.
          reserved_locals: extra names to avoid.

        Returns:
          str: `name_root`, or `name_root_1`, `name_root_2`, ... when taken (`break_1` for a
          root that ends with an underscore).
        """
        pattern = '%s%d' if name_root.endswith('_') else '%s_%d'
        n = self._first_free.get(name_root, 0)
        # whether every candidate probed so far is taken for good (not just by this call's
        # reserved_locals)
        taken_for_good = True
        while True:
            candidate = name_root if n == 0 else pattern % (name_root, n)
            used = candidate in self._used or candidate in _RESERVED
            if not used and candidate not in reserved_locals:
                break
            if taken_for_good and not used:
                self._first_free[name_root] = n
                taken_for_good = False
            n += 1
        if taken_for_good:
            self._first_free[name_root] = n + 1
        self._used.add(candidate)
        self.generated.add(candidate)
        return candidate

    def new_helper(self, name_root, reserved_locals=()):
        """Returns the name for a generated helper function or parameter, reused per root.

        Helpers (`if_body`, `get_state`, `loop_body`, ...) are defined and immediately passed to
        their operator call, so consecutive statements can rebind one name, as a person writing
        the code would. Distinct names per statement would make CPython's compiler quadratic:
        its symbol table copies the set of names bound in the enclosing function for every
        nested function (a 2,000-line function: 0.29 s to compile instead of 0.10 s).

        Args:
          name_root: the preferred name, e.g. 'if_body'.
          reserved_locals: extra names to avoid.

        Returns:
          str: a name unused by the entity's own code.
        """
        name = self._helpers.get(name_root)
        if name is None or name in reserved_locals:
            name = self.new_symbol(name_root, reserved_locals)
            self._helpers[name_root] = name
        return name

    def reserve(self, name):
        """Marks `name` as used.

        Args:
          name: a string.
        """
        self._used.add(name)
