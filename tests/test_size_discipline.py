"""Size discipline over autograph/ and runtime/: small functions, small modules, few parameters.

Functions stay within 60 lines, modules within 600 and internal functions within 6
parameters (`self` and `cls` not counted). A public signature copied from TensorFlow
(`tf.while_loop`, `tf.function`, `tf.TensorArray`, AutoGraph's `ag__.if_stmt`, ...) keeps its
parameters: every callable reachable from the public namespaces (`runtime`, as
`import runtime as tf` shows it, and `autograph.operators`, what generated code calls) is
exempt from the parameter limit, found from those namespaces rather than listed here.
"""
import ast
import inspect
import pathlib
import types

import autograph
import autograph.operators
import runtime

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGES = ("autograph", "runtime")
MAX_FUNCTION_LINES = 60
MAX_MODULE_LINES = 600
MAX_PARAMETERS = 6


def _sources():
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            yield path, path.read_text(encoding="utf-8")


def _functions(tree):
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


def _parameters(node):
    args = node.args
    return [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs
            if a.arg not in ("self", "cls")]


def _public_callables():
    """(file, first line) of every function reachable from the public namespaces."""
    found = set()
    seen = set()

    def visit(value, depth):
        if id(value) in seen or depth > 2:
            return
        seen.add(id(value))
        if isinstance(value, type):
            for member in vars(value).values():
                visit(member, depth + 1)
            return
        if isinstance(value, (staticmethod, classmethod)):
            value = value.__func__
        if isinstance(value, types.FunctionType):
            value = inspect.unwrap(value)
            found.add((pathlib.Path(value.__code__.co_filename).resolve(),
                       value.__code__.co_firstlineno))
            return
        if isinstance(value, types.SimpleNamespace):
            for member in vars(value).values():
                visit(member, depth + 1)
        elif isinstance(value, types.ModuleType) and value.__name__.startswith("runtime."):
            # its own definitions, not what it imports; a namespace module without a file
            # (tf.nn, tf.linalg, ...: runtime._namespace) is made of public names only
            made = getattr(value, "__file__", None) is None
            for member in vars(value).values():
                if made or getattr(member, "__module__", None) == value.__name__:
                    visit(member, depth + 1)

    for namespace in (runtime, autograph, autograph.operators):
        for name in getattr(namespace, "__all__", ()):
            visit(getattr(namespace, name), 0)
    return found


def _first_line(node):
    """The line the code object of a function starts at (its first decorator, if any)."""
    return min([node.lineno] + [d.lineno for d in node.decorator_list])


def test_no_function_is_longer_than_60_lines():
    long = [f"{path.relative_to(ROOT)}:{node.lineno} {node.name} "
            f"({node.end_lineno - node.lineno + 1} lines)"
            for path, source in _sources() for node in _functions(ast.parse(source))
            if node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES]
    assert long == []


def test_no_module_is_longer_than_600_lines():
    long = [f"{path.relative_to(ROOT)} ({len(source.splitlines())} lines)"
            for path, source in _sources() if len(source.splitlines()) > MAX_MODULE_LINES]
    assert long == []


def test_no_internal_function_takes_more_than_6_parameters():
    public = _public_callables()
    many = [f"{path.relative_to(ROOT)}:{node.lineno} {node.name} "
            f"({len(_parameters(node))} parameters)"
            for path, source in _sources() for node in _functions(ast.parse(source))
            if len(_parameters(node)) > MAX_PARAMETERS
            and (path.resolve(), _first_line(node)) not in public
            and (path.resolve(), node.lineno) not in public]
    assert many == []


def test_the_public_signatures_are_found_and_only_they_are_exempt():
    public = _public_callables()
    while_loop = inspect.unwrap(runtime.while_loop).__code__
    assert (pathlib.Path(while_loop.co_filename).resolve(), while_loop.co_firstlineno) in public
    if_stmt = inspect.unwrap(autograph.operators.if_stmt).__code__
    assert (pathlib.Path(if_stmt.co_filename).resolve(), if_stmt.co_firstlineno) in public
    tensor_array_init = runtime.TensorArray.__init__.__code__
    assert (pathlib.Path(tensor_array_init.co_filename).resolve(),
            tensor_array_init.co_firstlineno) in public
    private = runtime.control_flow._graph_while.__code__
    assert (pathlib.Path(private.co_filename).resolve(), private.co_firstlineno) not in public
