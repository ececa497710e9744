"""Warns when a trace leaves a symbolic tensor in a global, a nonlocal or an object attribute.

Python code runs only while tracing: `calls = calls + 1` on a global inside a staged loop
assigns the loop's symbolic tensor to `calls` once, at trace time, and the global then holds
a tensor that belongs to a finished graph. TensorFlow says nothing until the tensor is used;
here the trace warns at once, naming the variable and the line that assigned it.
"""
import dis
import functools
import os
import types
import warnings

from runtime.tensor import SymbolicTensor


class LeakedTensorWarning(UserWarning):
    """A trace assigned a symbolic tensor to a global, a nonlocal or an attribute."""


@functools.lru_cache(maxsize=1024)
def _stores(code):
    """(kind, name, line) of each store into a global, a free variable or an attribute."""
    found = []
    line = code.co_firstlineno
    for ins in dis.get_instructions(code):
        positions = getattr(ins, 'positions', None)
        if positions is not None and positions.lineno is not None:
            line = positions.lineno
        elif getattr(ins, 'starts_line', None):
            line = ins.starts_line
        if ins.opname == 'STORE_GLOBAL':
            found.append(('global', ins.argval, line))
        elif ins.opname == 'STORE_DEREF' and ins.argval in code.co_freevars:
            found.append(('nonlocal', ins.argval, line))
        elif ins.opname == 'STORE_ATTR':
            found.append(('attribute', ins.argval, line))
    for const in code.co_consts:  # nested functions: their globals and attributes
        if isinstance(const, types.CodeType):
            found.extend(s for s in _stores(const) if s[0] != 'nonlocal')
    return tuple(found)


def _leaked_value(fn, kind, name, objects):
    """The symbolic tensor that `name` holds after the trace, and how to call it."""
    if kind == 'global':
        value = fn.__globals__.get(name)
        return value, "the global '%s'" % name
    if kind == 'nonlocal':
        cell = fn.__closure__[fn.__code__.co_freevars.index(name)]
        try:
            return cell.cell_contents, "the nonlocal '%s'" % name
        except ValueError:  # an empty cell
            return None, None
    for obj in objects:
        value = getattr(obj, '__dict__', {}).get(name)
        if isinstance(value, SymbolicTensor):
            return value, "the attribute '%s' of a %s object" % (name, type(obj).__name__)
    return None, None


def warn_leaked(fn, args, kwargs):
    """Warns for each global, nonlocal or attribute that `fn`'s trace left a tensor in.

    Args:
        fn: the traced Python function (a bound method's function is unwrapped).
        args: the positional arguments it was traced with (objects whose attributes count).
        kwargs: the keyword arguments.
    """
    objects = [a for a in list(args) + list(kwargs.values()) if hasattr(a, '__dict__')]
    if isinstance(fn, types.MethodType):
        objects.append(fn.__self__)
        fn = fn.__func__
    if not isinstance(fn, types.FunctionType):
        return
    for kind, name, line in _stores(fn.__code__):
        value, what = _leaked_value(fn, kind, name, objects)
        if not isinstance(value, SymbolicTensor):
            continue
        filename = fn.__code__.co_filename
        warnings.warn_explicit(
            "%s assigned a staged value to %s at %s:%d while it was traced: Python code runs "
            "only while tracing, so after the trace %s holds the symbolic tensor %r of a "
            "finished graph, not a value. Return the value from %s instead, or keep it in a "
            "tf.Variable (assign to it with .assign or .assign_add)." % (
                fn.__qualname__, what, os.path.basename(filename), line, what, value,
                fn.__qualname__),
            LeakedTensorWarning, filename, line)


class ChangedArgumentWarning(UserWarning):
    """A trace changed a list or dict argument in place; the caller's is left as it was."""


def containers(names, args, kwargs):
    """(name, container, its items) of each list and dict among a trace's arguments (nested
    ones too: `rows[0]`), as they are before the traced function runs."""
    found = []
    for name, value in list(zip(names, args)) + list(kwargs.items()):
        _collect(name, value, found)
    return found


def _collect(label, value, found):
    if type(value) in (list, tuple):
        if type(value) is list:
            found.append((label, value, _contents(value)))
        for k, item in enumerate(value):
            _collect('%s[%d]' % (label, k), item, found)
    elif type(value) is dict:
        found.append((label, value, _contents(value)))
        for key, item in value.items():
            _collect('%s[%r]' % (label, key), item, found)


def changed_arguments(fn, before, replaced):
    """The ChangedArgumentWarning messages for the containers of `before` (`containers`)
    that the trace of `fn` changed in place, or that a staged statement replaced by a staged
    list (`replaced`: autograph's `list_frames.replaced_lists`)."""
    messages = []
    name = getattr(fn, '__qualname__', type(fn).__name__)
    for label, container, items in before:
        now = _contents(container)
        same = len(now) == len(items) and all(a is b for a, b in zip(now, items))
        if same and not any(r is container for r in replaced):
            continue
        kind = type(container).__name__
        messages.append(
            "%s changed its argument '%s' (a %s) while it was traced: tf.function passes "
            "the traced Python function copies of the lists and dicts it gets, so the "
            "caller's %s is left as it was, and the change ran once, while tracing, not on "
            "each call. Return the %s from %s instead." % (
                name, label, kind, kind, kind, name))
    return messages


def _contents(container):
    """The objects a list holds, or a dict's keys and values in turn, to compare by
    identity."""
    if type(container) is dict:
        return [x for item in container.items() for x in item]
    return list(container)
