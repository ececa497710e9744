"""Activity scopes: the symbols a block of code reads, modifies and binds."""

import weakref


class Scope(object):
    """Encloses local symbol definition and usage information.

    This can track for instance whether a symbol is modified in the current scope.
    Note that scopes do not necessarily align with Python's scopes. For example,
    the body of an if statement may be considered a separate scope.

    The scope holds the function nodes of its parameters by weak references (plain
    references to them, not a WeakValueDictionary, so copying a scope stays cheap).

    Scope objects are mutable during construction only, and must be frozen using
    `Scope.finalize()` before use. Furthermore, a scope is consistent only after
    all its children have been frozen. While analysing code blocks, scopes are
    being gradually built, from the innermost scope outward. Freezing indicates
    that the analysis of a code block is complete. Once frozen, mutation is no
    longer allowed. `is_final` tracks whether the scope is frozen or not. Certain
    properties, like `referenced`, are only accurate when called on frozen scopes.

    Attributes:
      parent: Optional[Scope], the parent scope, if any.
      isolated: bool, whether the scope is a true Python scope (e.g. the scope of
        a function), or just a surrogate tracking an ordinary code block. Using
        the terminology of the Python 3 reference documentation, True roughly
        represents an actual scope, whereas False represents an ordinary code
        block.
      function_name: Optional[str], name of the function owning this scope.
      isolated_names: Set[qual_names.QN], identifiers that are isolated to this
        scope (even if the scope is not isolated), e.g. an exception handler's name.
      annotations: Set[qual_names.QN], identifiers used as type annotations
        in this scope.
      read: Set[qual_names.QN], identifiers read in this scope.
      modified: Set[qual_names.QN], identifiers modified in this scope.
      deleted: Set[qual_names.QN], identifiers deleted in this scope.
      bound: Set[qual_names.QN], names that are bound to this scope. See
        https://docs.python.org/3/reference/executionmodel.html#binding-of-names
        for a precise definition.
      globals: Set[qual_names.QN], names that are explicitly marked as global in
        this scope. Note that this doesn't include free read-only vars bound to
        global symbols.
      nonlocals: Set[qual_names.QN], names that are explicitly marked as nonlocal
        in this scope. Note that this doesn't include free read-only vars bound to
        global symbols.
      free_vars: Set[qual_names.QN], the free variables in this scope: read but
        not bound here. See
        https://docs.python.org/3/reference/executionmodel.html for a precise
        definition.
      params: Dict[qual_names.QN, weakref.ref], function arguments visible in this
        scope, mapped to a weak reference to the function node that defines them (the
        scope is an annotation inside that node's tree: a strong reference would make
        the whole tree a reference cycle, left for the garbage collector to traverse).
      enclosing_scope: Scope, the innermost isolated scope that is a transitive
        parent of this scope. May be the scope itself.
      referenced: Set[qual_names.QN], the totality of the symbols used by this
        scope and its parents.
      is_final: bool, whether the scope is frozen or not.

    Note - simple statements may never delete and modify a symbol at the same
    time. However, compound ones like if statements can. In that latter case, it's
    undefined whether the symbol is actually modified or deleted upon statement
    exit. Certain analyses like reaching definitions need to be careful about
    this.
    """

    # Note: this mutable-immutable pattern is used because using a builder would
    # have taken a lot more boilerplate.

    def __init__(self, parent, isolated=True, function_name=None):
        """Create a new scope.

        Args:
          parent: A Scope or None.
          isolated: Whether the scope is isolated, that is, whether variables
            modified in this scope should be considered modified in the parent
            scope.
          function_name: Name of the function owning this scope.
        """
        self.parent = parent
        self.isolated = isolated
        self.function_name = function_name

        self.isolated_names = set()

        self.read = set()
        self.modified = set()
        self.deleted = set()

        self.bound = set()
        self.globals = set()
        self.nonlocals = set()
        self.annotations = set()

        self.params = {}

        # Certain fields can only be accessed after the scope and all its parent
        # scopes have been fully built. This field guards that.
        self.is_final = False

    @property
    def enclosing_scope(self):
        if self.parent is not None and not self.isolated:
            return self.parent.enclosing_scope
        return self

    @property
    def referenced(self):
        if self.parent is not None:
            return self.read | self.parent.referenced
        return self.read

    @property
    def free_vars(self):
        return self.read - self.bound

    def copy_from(self, other):
        """Recursively copies the contents of this scope from another scope."""
        assert not self.is_final
        if self.parent is not None:
            assert other.parent is not None
            self.parent.copy_from(other.parent)
        self.isolated_names = set(other.isolated_names)
        self.modified = set(other.modified)
        self.read = set(other.read)
        self.deleted = set(other.deleted)
        self.bound = set(other.bound)
        self.globals = set(other.globals)
        self.nonlocals = set(other.nonlocals)
        self.annotations = set(other.annotations)
        self.params = dict(other.params)

    @classmethod
    def copy_of(cls, other):
        """Returns a deep copy of `other` and of its parents."""
        if other.parent is not None:
            parent = cls.copy_of(other.parent)
        else:
            parent = None
        new_copy = cls(parent, isolated=other.isolated, function_name=other.function_name)
        new_copy.copy_from(other)
        return new_copy

    def merge_from(self, other):
        """Adds all activity from another scope to this scope."""
        assert not self.is_final
        if self.parent is not None:
            assert other.parent is not None
            self.parent.merge_from(other.parent)
        self.isolated_names.update(other.isolated_names)
        self.read.update(other.read)
        self.modified.update(other.modified)
        self.bound.update(other.bound)
        self.deleted.update(other.deleted)
        self.globals.update(other.globals)
        self.nonlocals.update(other.nonlocals)
        self.annotations.update(other.annotations)
        self.params.update(other.params)

    def finalize(self):
        """Freezes this scope, and propagates its activity to the parent scope.

        A non-isolated scope passes everything on, except its isolated names. An
        isolated scope (a function or class body) passes on only the reads of symbols
        it does not bind: closures read their free variables where they are defined.
        """
        assert not self.is_final
        if self.parent is not None:
            assert not self.parent.is_final
            if not self.isolated:
                self.parent.read.update(self.read - self.isolated_names)
                self.parent.modified.update(self.modified - self.isolated_names)
                self.parent.bound.update(self.bound - self.isolated_names)
                self.parent.deleted.update(self.deleted - self.isolated_names)
                self.parent.globals.update(self.globals)
                self.parent.nonlocals.update(self.nonlocals)
                self.parent.annotations.update(self.annotations)
            else:
                self.parent.read.update(self.read - self.bound)
                # A nonlocal declaration refers to the enclosing function's variable.
                self.parent.read.update(self.nonlocals)
                self.parent.annotations.update(self.annotations - self.bound)
        self.is_final = True

    def __repr__(self):
        return 'Scope{r=%s, w=%s}' % (tuple(sorted(map(str, self.read))),
                                      tuple(sorted(map(str, self.modified))))

    def mark_param(self, name, owner):
        self.params[name] = weakref.ref(owner)
