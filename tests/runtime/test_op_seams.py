"""The executors and the optimiser decide how to run a node from its op definition, never its name.

A new op (structured or not) is added in one op module: its kernel, shape rule, fusion rule,
shape_only flag and gradient live on its OpDef, and a structured op's interpret/emit/prune
rules in the executors' tables keyed by op (runtime.ops.registry). These tests read the
executor sources and fail when a module compares a node's op with a literal name again.
"""
import ast
import pathlib

import runtime  # noqa: F401 - registers every op
from runtime.ops import registry

EXECUTOR = pathlib.Path(runtime.__file__).parent / "executor"
OP_NAMES = set(registry.OPS) | {"placeholder", "constant"}


def _literal_names(node):
    """The string literals of a constant or a tuple/list/set display of them."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return {e.value for e in node.elts
                if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("set", "frozenset"):
        return set().union(*(_literal_names(a) for a in node.args)) if node.args else set()
    return set()


def _name_tests(source):
    """(line, op names) of every comparison or membership test against literal op names."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            names = set().union(*(_literal_names(n) for n in [node.left, *node.comparators]))
            if names & OP_NAMES:
                found.append((node.lineno, sorted(names & OP_NAMES)))
        elif isinstance(node, ast.Assign):
            names = _literal_names(node.value)
            if len(names & OP_NAMES) and isinstance(node.value, (ast.Set, ast.Call)):
                found.append((node.lineno, sorted(names & OP_NAMES)))
    return sorted(found)


def test_no_executor_module_tests_an_op_name():
    modules = sorted(EXECUTOR.glob("*.py"))
    assert len(modules) >= 4  # interpreter, codegen, emitters, optimize at least
    found = {m.name: _name_tests(m.read_text()) for m in modules}
    assert {name: hits for name, hits in found.items() if hits} == {}


def test_the_check_catches_a_name_test():
    source = ('def f(node, t):\n    if node.op == "cast":\n        pass\n'
              '    return t.node.op in ("identity", "x")\nIDENTITY = frozenset({"identity"})\n')
    assert _name_tests(source) == [(2, ["cast"]), (4, ["identity"]), (5, ["identity"])]


def test_optimiser_rules_live_on_the_op_definitions():
    # The rules the optimiser applies are declared next to each op's kernel.
    assert {name for name, op in registry.OPS.items() if op.shape_only} == {
        "shape", "size", "rank"}
    assert {"identity", "cast", "add", "subtract", "multiply"} <= {
        name for name, op in registry.OPS.items() if op.fuse is not None}
    # Every structured op has a rule in each executor's table, and a gradient.
    for name in registry.CONTROL_FLOW:
        assert all(table[name] for table in registry.RULE_TABLES), name
        assert registry.OPS[name].vjp, name


def test_autograph_names_no_backend_module():
    root = pathlib.Path(runtime.__file__).parent.parent / "autograph"
    offenders = []
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            if any(n == "runtime" or n.startswith("runtime.") for n in names):
                offenders.append(f"{path.relative_to(root)}:{node.lineno}")
    assert offenders == []
