"""Resources: live objects (Variables) that graphs name by key, as TensorFlow's resource handles.

A graph never holds a Variable in its attributes. A Variable's `handle` is an eager tensor of
dtype `resource` (`ResourceTensor`); a graph that uses it captures it, as it captures any
eager tensor, into a `var_handle` node whose attribute is a `ResourceKey` (data: a key unique
in the process and the name people see), and the ops on the variable take that node's output
as their first input (TensorFlow's `ReadVariableOp(resource)`). The key finds the object in
this module's table, which holds it weakly; the outermost graph that captured the handle
keeps it alive (`Graph.resources`), as the attribute did before.
"""
import itertools
import weakref

from runtime import dtypes
from runtime.errors import FailedPreconditionError
from runtime.tensor import EagerTensor
from runtime.tensor_shape import TensorShape

_LIVE = weakref.WeakValueDictionary()  # key -> the live object
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
        found = _LIVE.get(self.key)
        if found is None:
            raise FailedPreconditionError(
                f"The resource {self.label!r} (key {self.key!r}) no longer exists: the "
                f"Variable was deleted while a graph still uses it. Keep a reference to the "
                f"Variable as long as the functions that use it run.", "var_handle")
        return found


def register(resource, label):
    """Enters `resource` in the table; returns the new ResourceKey naming it."""
    key = ResourceKey(f"{label}_{next(_COUNTER)}", label)
    _LIVE[key.key] = resource
    return key


class ResourceTensor(EagerTensor):
    """An eager tensor of dtype `resource`: the handle of a live object (`Variable.handle`).

    Its value (what the ops on it receive) is the object itself; `key` names it in graphs.
    """

    __slots__ = ("key",)

    def __init__(self, resource, key):
        super().__init__(resource)
        self.key = key

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
