"""Introspection helpers: what kind of callable something is, and where its code came from."""

import builtins
import functools
import inspect
import os
import sys
import types

from autograph.backends import registry

# Module names (top-level packages) that belong to the standard library.
_STDLIB_NAMES = frozenset(getattr(sys, 'stdlib_module_names', ()))
# The directories that hold the standard library (not site-packages), as a one-item list once
# known (see _stdlib_dirs).
_STDLIB_DIRS = []
# The installation prefixes, normalised as sysconfig normalises them: every install scheme
# puts the standard library under one of them, so a file under none of them is not in it.
_PREFIXES = tuple({os.path.normpath(p) for p in (
    sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix)})

_BUILTIN_TYPES = (types.BuiltinFunctionType, types.BuiltinMethodType,
                  types.MethodWrapperType, types.WrapperDescriptorType,
                  types.MethodDescriptorType, types.ClassMethodDescriptorType)


def is_builtin(obj):
    """Returns whether `obj` is a builtin function or method implemented in C.

    Args:
      obj: any object.

    Returns:
      bool.
    """
    if isinstance(obj, _BUILTIN_TYPES):
        return True
    return getattr(obj, '__module__', None) == 'builtins' and not isinstance(
        obj, types.FunctionType)


def is_builtin_name(name):
    """Returns whether `name` names a Python builtin.

    Args:
      name: a string.

    Returns:
      bool.
    """
    return hasattr(builtins, name)


def is_stdlib_module(module_name):
    """Returns whether the module called `module_name` belongs to the standard library.

    Args:
      module_name: a dotted module name, or None.

    Returns:
      bool.
    """
    if not module_name:
        return False
    top = module_name.partition('.')[0]
    if top in _STDLIB_NAMES or top == 'builtins':
        return True
    module = sys.modules.get(top)
    path = getattr(module, '__file__', None)
    if not path or 'site-packages' in path or not path.startswith(_PREFIXES):
        return False
    dirs = _stdlib_dirs()
    return bool(dirs) and path.startswith(dirs)


def _stdlib_dirs():
    """The directories of the standard library (a tuple), from sysconfig on first use.

    Not at import: `sysconfig.get_paths()` loads the interpreter's build configuration, and
    is_stdlib_module rarely needs it.
    """
    if not _STDLIB_DIRS:
        import sysconfig  # pylint: disable=import-outside-toplevel

        paths = sysconfig.get_paths()
        _STDLIB_DIRS.append(tuple(p for p in {paths.get('stdlib'), paths.get('platstdlib')}
                                  if p))
    return _STDLIB_DIRS[0]


def unwrap_partial(f):
    """Flattens nested `functools.partial` objects.

    Args:
      f: a callable.

    Returns:
      A tuple (func, args, keywords) with the innermost function and the merged arguments.
    """
    args = ()
    keywords = {}
    while isinstance(f, functools.partial):
        args = f.args + args
        keywords = {**f.keywords, **keywords}
        f = f.func
    return f, args, keywords


def getqualname(f):
    """Returns a readable, qualified name for a callable, for messages.

    Args:
      f: a callable.

    Returns:
      str.
    """
    return getattr(f, '__qualname__', None) or getattr(f, '__name__', None) or repr(f)


def getdefinition_site(f):
    """Returns 'file:line' where function `f` is defined, or '<unknown>'.

    Args:
      f: a Python function (or something with a __code__).

    Returns:
      str.
    """
    code = getattr(f, '__code__', None)
    if code is None:
        try:
            return '%s:%d' % (inspect.getsourcefile(f), inspect.getsourcelines(f)[1])
        except (TypeError, OSError):
            return '<unknown>'
    return '%s:%d' % (code.co_filename, code.co_firstlineno)


# autograph's own directory: frames in it are library code, not the user's.
_AUTOGRAPH_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def library_dirs():
    """Returns the directories whose frames are library code: autograph and backend modules.

    The modules that registered backends own (`Backend.owned_modules`, e.g. `runtime`) count
    as library code once imported.

    Returns:
      A tuple of directory paths, each ending in a separator.
    """
    dirs = [_AUTOGRAPH_DIR]
    for name in sorted(registry.owned_modules()):
        path = getattr(sys.modules.get(name), '__file__', None)
        if path:
            dirs.append(os.path.dirname(os.path.abspath(path)) + os.sep)
    return tuple(dirs)


def first_user_frame(frame, with_source=False):
    """Walks outward from `frame` to the first frame outside autograph and backend modules.

    This is the one place that finds the user's frame: warnings' stack levels and the
    locations errors and messages name all come from it. Converted code counts as the
    user's: it is compiled under the user's file name.

    Args:
      frame: a frame object (e.g. from sys._getframe()).
      with_source: also skip frames of code without a source file (made by exec or compile,
        named "<...>": a generated call entry), so that the frame has a line to show.

    Returns:
      (frame, hops): the user's frame (None if there is none) and how many frames outward it
      is from `frame`.
    """
    skip = library_dirs() + (('<',) if with_source else ())
    hops = 0
    while frame is not None and frame.f_code.co_filename.startswith(skip):
        frame = frame.f_back
        hops += 1
    return frame, hops
