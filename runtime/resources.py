"""Resources: live objects that graphs name by key, as TensorFlow's resource handles.

A graph's attributes are data. A live object a node needs (a Variable, a py_function's
callable, a dataset, an iterator's state) is named by a `ResourceKey`: a key unique in the
process and the name people see. The key finds the object in this module's table, which holds
it weakly (an object that takes no weak reference, a builtin function, is held for the
process); the outermost graph that names it keeps it alive (`Graph.resources`, filled when
a node naming it is added), and an executor resolves the key when it runs the node (the
compiled code resolves a variable's key once, when it is made).

A Variable's `handle` is an eager tensor of dtype `resource` (`ResourceTensor`); a graph that
uses it captures it, as it captures any eager tensor, into a `var_handle` node whose
attribute is the variable's key, and the variable ops take that node's output as their first
input (TensorFlow's `ReadVariableOp(resource)`).
"""
import itertools
import weakref

from runtime import dtypes
from runtime.errors import FailedPreconditionError
from runtime.tensor import EagerTensor
from runtime.tensor_shape import TensorShape

# key -> a callable returning the object: its weak reference, or a _Strong (an entry leaves
# when its object dies)
_ENTRIES = {}
_BY_ID = {}  # id(object) -> its ResourceKey, while the object lives
_COUNTER = itertools.count()
_SCALAR = TensorShape(())


class ResourceKey:
    """Names a live resource: `key` is unique in this process, `label` is its user's name.

    Data: two keys are equal when their `key`s are; `str(graph)` prints the label.
    """

    __slots__ = ("key", "label")

    def __init__(self, key, label):
        self.key = key
        self.label = label

    def __eq__(self, other):
        return type(other) is ResourceKey and other.key == self.key

    def __hash__(self):
        return hash(self.key)

    def __repr__(self):
        return f"ResourceKey({self.key!r})"

    @property
    def _graph_attr_name(self):
        return self.label

    def resolve(self):
        """The live object this key names.

        Raises:
            FailedPreconditionError: when the object no longer exists.
        """
        entry = _ENTRIES.get(self.key)
        found = None if entry is None else entry()
        if found is None:
            raise FailedPreconditionError(
                f"The resource {self.label!r} (key {self.key!r}) no longer exists: it was "
                f"deleted while a graph still names it. Keep a reference to it (the Variable, "
                f"the function) as long as the functions that use it run.", "resource")
        return found


def register(resource, label=None):
    """The ResourceKey naming `resource`: the one it has, or a new one.

    A node that names an object keeps this key in its attributes; the graph it is added to
    holds the object (`Graph.create_op`).

    Args:
        resource: Any object.
        label: The name people see (`str(graph)` prints it); default `label_of(resource)`.

    Returns:
        A ResourceKey.
    """
    key = _BY_ID.get(id(resource))
    if key is not None:
        return key
    if label is None:
        label = label_of(resource)
    name = label if label.isidentifier() else type(resource).__name__
    key = ResourceKey(f"{name}_{next(_COUNTER)}", label)
    try:
        entry = weakref.ref(resource, _forget(key, id(resource)))
    except TypeError:  # no weak references (a builtin): it lives as long as the process
        entry = _Strong(resource)
    _ENTRIES[key.key] = entry
    _BY_ID[id(resource)] = key
    return key


def _forget(key, ident):
    def forget(_):
        _ENTRIES.pop(key.key, None)
        if _BY_ID.get(ident) is key:
            del _BY_ID[ident]
    return forget


class _Strong:
    """An entry holding its object (one without weak references)."""

    __slots__ = ("resource",)

    def __init__(self, resource):
        self.resource = resource

    def __call__(self):
        return self.resource


def label_of(value):
    """The name a live object shows in `str(graph)`: a function's name, else its repr."""
    name = getattr(value, "__name__", None) if callable(value) else None
    return name if isinstance(name, str) else repr(value)


class ResourceTensor(EagerTensor):
    """An eager tensor of dtype `resource`: the handle of a live object (`Variable.handle`).

    Its value (what the ops on it receive) is the object itself; `key` names it in graphs.
    The handle holds only the key, and the key's entry in this module's table holds the object
    weakly: the object holds its handle, and a strong reference back would make each Variable
    a reference cycle, its array freed only when Python's cycle collector runs (rarely, for
    long-lived objects) instead of when the last reference to the Variable goes.
    """

    __slots__ = ("key",)

    def __init__(self, key):  # pylint: disable=super-init-not-called  # see _value
        self._sig = None
        self.key = key

    @property
    def _value(self):
        """The object, found by its key in this module's weak table (EagerTensor keeps its
        value in this slot).

        Raises:
            FailedPreconditionError: when the object no longer exists.
        """
        return self.key.resolve()

    @property
    def shape(self):
        """A handle is a scalar."""
        return _SCALAR

    @property
    def dtype(self):
        """`resource`."""
        return dtypes.resource

    def numpy(self):
        """The object the handle names."""
        return self._value

    def __repr__(self):
        return f"<tf.Tensor: shape=(), dtype=resource, value=<{self.key.label}>>"
