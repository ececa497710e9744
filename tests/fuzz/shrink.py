"""Shrinks a failing fuzz program to a minimal one that fails the same way.

Greedy delta debugging on the Python AST: repeatedly try a simpler candidate (drop a
statement, replace a compound statement by one of its bodies, replace an expression by one of
its operands or by a constant, drop inputs) and keep it when it still fails with the same
signature (which way, which kind of difference). Statements that keep a `while` loop bounded
(`kN += 1`, `kN = 0`) are never dropped, so every candidate terminates.
"""

import ast
import copy
import re

from tests.fuzz import harness

_COUNTER = re.compile(r"^k\d+$")


def _size(tree):
    return sum(1 for _ in ast.walk(tree))


def _bodies(tree):
    """Yields every statement list in the tree (as (owner, field))."""
    for node in ast.walk(tree):
        for field in ("body", "orelse"):
            stmts = getattr(node, field, None)
            if isinstance(stmts, list) and stmts and isinstance(stmts[0], ast.stmt):
                yield node, field


def _protected(stmt):
    targets = []
    if isinstance(stmt, ast.AugAssign):
        targets = [stmt.target]
    elif isinstance(stmt, ast.Assign):
        targets = stmt.targets
    return any(isinstance(t, ast.Name) and _COUNTER.match(t.id) for t in targets)


def _statement_candidates(tree):
    for owner, field in list(_bodies(tree)):
        stmts = getattr(owner, field)
        for i, stmt in enumerate(stmts):
            if _protected(stmt) or isinstance(owner, ast.Module):
                continue
            yield owner, field, i, None  # delete
            if isinstance(stmt, (ast.If, ast.For)):
                yield owner, field, i, stmt.body
                if stmt.orelse:
                    yield owner, field, i, stmt.orelse
            if isinstance(stmt, ast.If) and stmt.orelse:
                yield owner, field, i, "drop_else"


def _expr_replacements(node):
    if isinstance(node, ast.BinOp):
        yield node.left
        yield node.right
    elif isinstance(node, ast.BoolOp):
        yield from node.values
    elif isinstance(node, ast.UnaryOp):
        yield node.operand
    elif isinstance(node, ast.IfExp):
        yield node.body
        yield node.orelse
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in (
            "abs", "min", "max"):
        yield from node.args
    elif isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(
            node.value, bool) and node.value not in (0, 1):
        yield ast.Constant(value=0 if node.value < 0 else 1)


class _Shrinker:
    def __init__(self, source, inputs, param_types, signature, name, max_checks):
        self.tree = ast.parse(source)
        self.inputs = list(inputs)
        self.param_types = tuple(param_types)
        self.signature = signature
        self.name = name
        self.checks = max_checks

    def fails(self, tree, inputs, param_types):
        if self.checks <= 0:
            return False
        self.checks -= 1
        try:
            source = ast.unparse(ast.fix_missing_locations(tree)) + "\n"
            compile(source, "<shrink>", "exec")
            modes = (self.signature[0],)
            failures = harness.check_source(source, inputs, param_types, self.name, modes=modes)
        except Exception:  # noqa: BLE001 - an invalid candidate is simply rejected
            return False
        return any(f.signature() == self.signature for f in failures)

    def try_tree(self, tree):
        if _size(tree) < _size(self.tree) and self.fails(tree, self.inputs, self.param_types):
            self.tree = tree
            return True
        return False

    def shrink_inputs(self):
        if len(self.inputs) > 1:
            for one in self.inputs:
                if self.fails(self.tree, [one], self.param_types):
                    self.inputs = [one]
                    return True
        return False

    def shrink_statements(self):
        progress = False
        n = 0
        while True:
            candidates = list(_statement_candidates(self.tree))
            if n >= len(candidates):
                return progress
            new = copy.deepcopy(self.tree)
            owner, field, i, replacement = list(_statement_candidates(new))[n]
            stmts = getattr(owner, field)
            if replacement is None:
                stmts[i:i + 1] = [] if len(stmts) > 1 else [ast.Pass()]
            elif replacement == "drop_else":
                stmts[i].orelse = []
            else:
                stmts[i:i + 1] = replacement
            if self.try_tree(new):
                progress = True
            else:
                n += 1

    def shrink_expressions(self):
        progress = False
        n = 0
        while True:
            nodes = [x for x in ast.walk(self.tree) if isinstance(x, ast.expr)]
            if n >= len(nodes):
                return progress
            changed = False
            for k, replacement in enumerate(_expr_replacements(nodes[n])):
                new = copy.deepcopy(self.tree)
                target = [x for x in ast.walk(new) if isinstance(x, ast.expr)][n]
                repl = list(_expr_replacements(target))[k]
                if _replace_child(new, target, repl) and self.try_tree(new):
                    changed = progress = True
                    break
            if not changed:
                n += 1

    def run(self):
        self.shrink_inputs()
        while self.checks > 0:
            a = self.shrink_statements()
            b = self.shrink_expressions()
            if not (a or b):
                break
        return ast.unparse(self.tree) + "\n", self.inputs


def _replace_child(tree, target, replacement):
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if value is target:
                setattr(parent, field, replacement)
                return True
            if isinstance(value, list):
                for i, item in enumerate(value):
                    if item is target:
                        value[i] = replacement
                        return True
    return False


def shrink(source, inputs, param_types, failure, name="fuzz_fn", max_checks=400):
    """Returns a minimal (source, inputs) that still fails with `failure`'s signature.

    Args:
        source: the failing program.
        inputs: its argument tuples.
        param_types: the fuzz type of each parameter.
        failure: a harness.Failure of the program.
        name: the function name.
        max_checks: at most this many candidate runs.

    Returns:
        (source, inputs).
    """
    return _Shrinker(source, inputs, param_types, failure.signature(), name, max_checks).run()
