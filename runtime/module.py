"""tf.Module: a named container that tracks the Variables and submodules it holds."""
import re

from runtime.variables import Variable

_VALID_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-/]*$")


def _snake_case(name):
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()


class Module:
    """Base class for objects holding variables (tf.Module).

    Variables and submodules are found by walking the instance's attributes (also inside
    lists, tuples and dicts), in attribute-name order, each object once.

    Args:
        name: Optional name; defaults to the snake_case class name.

    Raises:
        ValueError: if `name` is not a valid Python-identifier-like name.
    """

    def __init__(self, name=None):
        if name is None:
            name = _snake_case(type(self).__name__)
        elif not _VALID_NAME.match(name):
            raise ValueError(f"{name!r} is not a valid module name: use letters, digits and "
                             f"underscores, starting with a letter or underscore.")
        self._name = name

    @property
    def name(self):
        """The module's name."""
        return self._name

    @property
    def name_scope(self):
        """A no-op context manager (TensorFlow compatibility)."""
        import contextlib
        return contextlib.nullcontext()

    @property
    def variables(self):
        """All Variables of this module and its submodules, as a tuple."""
        return tuple(self._flatten(lambda v: isinstance(v, Variable)))

    @property
    def trainable_variables(self):
        """The trainable Variables of this module and its submodules, as a tuple."""
        return tuple(self._flatten(lambda v: isinstance(v, Variable) and v.trainable))

    @property
    def non_trainable_variables(self):
        """The non-trainable Variables, as a tuple."""
        return tuple(self._flatten(lambda v: isinstance(v, Variable) and not v.trainable))

    @property
    def submodules(self):
        """All Modules reachable from this one (not including itself), as a tuple."""
        return tuple(self._flatten(lambda v: isinstance(v, Module)))

    def _flatten(self, predicate):
        found = []
        seen = {id(self)}
        self._walk(self, predicate, found, seen)
        return found

    @staticmethod
    def _walk(module, predicate, found, seen):
        for key in sorted(vars(module)):
            Module._visit(getattr(module, key, None), predicate, found, seen)

    @staticmethod
    def _visit(value, predicate, found, seen):
        if isinstance(value, (Variable, Module)):
            if id(value) in seen:
                return
            seen.add(id(value))
            if predicate(value):
                found.append(value)
            if isinstance(value, Module):
                Module._walk(value, predicate, found, seen)
        elif isinstance(value, (list, tuple)):
            for item in value:
                Module._visit(item, predicate, found, seen)
        elif isinstance(value, dict):
            for key in sorted(value, key=repr):
                Module._visit(value[key], predicate, found, seen)

    @classmethod
    def with_name_scope(cls, method):
        """Decorator kept for TensorFlow compatibility; returns `method` unchanged.

        Args:
            method: A method.

        Returns:
            The same method.
        """
        return method

    def __repr__(self):
        return f"<{type(self).__name__} name={self._name!r}>"
