"""Import layering of autograph/ and runtime/ (issue #28): no import cycle among module-level
imports, and a function-level (late) import that closes a cycle says why in a comment.

An edge A -> B is an import in A that names module B (`import B`, `from B import x`, or
`from pkg import B` for a submodule B). A late import A -> B closes a cycle when B reaches A
through module-level imports: moving it to the top of A would make the cycle happen as the
modules load. Such an import stays late, with a comment on its line or on the line above its
run of imports (`# late: B imports this module as it loads`). A late import that closes no
such cycle belongs at the top of its module.
"""
import ast
import collections
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGES = ("autograph", "runtime")


def _modules():
    """{module name: path} of every module of the packages."""
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


MODULES = _modules()


def _resolve(name):
    """The module of the packages that `name` names (a module, or a name inside one)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _targets(node, current):
    """The modules of the packages that an import statement in `current` names."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            package = current.split(".")
            if MODULES[current].name != "__init__.py":
                package = package[:-1]
            package = package[:len(package) - node.level + 1]
            base = ".".join(package + ([base] if base else []))
        names = [base + "." + alias.name if base + "." + alias.name in MODULES else base
                 for alias in node.names]
    targets = {_resolve(n) for n in names if n.split(".")[0] in PACKAGES}
    return targets - {None, current}


def _imports():
    """(module-level edges, late imports): {A: {B}}, and (A, B, path, line, commented)."""
    top, late = collections.defaultdict(set), []
    for module, path in MODULES.items():
        lines = path.read_text(encoding="utf-8").splitlines()
        tree = ast.parse("\n".join(lines))
        in_functions = {id(n) for f in ast.walk(tree)
                        if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                        for n in ast.walk(f) if isinstance(n, (ast.Import, ast.ImportFrom))}
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for target in _targets(node, module):
                if id(node) not in in_functions:
                    top[module].add(target)
                    continue
                late.append((module, target, path, node.lineno,
                             _commented(lines, node.lineno)))
    return top, late


def _commented(lines, lineno):
    """Whether the import on `lineno` has a comment, on its line or above its run of imports."""
    if "#" in lines[lineno - 1]:
        return True
    k = lineno - 1
    while k > 0 and lines[k - 1].strip().startswith(("import ", "from ")):
        k -= 1
    return k > 0 and lines[k - 1].strip().startswith("#")


def _reach(start, edges):
    seen, stack = {start}, [start]
    while stack:
        for target in edges.get(stack.pop(), ()):
            if target not in seen:
                seen.add(target)
                stack.append(target)
    return seen


def test_the_analysis_sees_the_packages():
    top, late = _imports()
    assert len(MODULES) > 200 and sum(len(t) for t in top.values()) > 500
    assert "runtime.ops.registry" in top["runtime.gradients"]
    assert any(m == "runtime.ops.registry" and t == "runtime.gradients" for m, t, *_ in late)


def test_no_cycle_among_module_level_imports():
    top, _ = _imports()
    cycles = sorted(m for m in MODULES if any(m in _reach(t, top) for t in top[m]))
    assert cycles == []


def test_a_late_import_that_closes_a_cycle_says_why():
    top, late = _imports()
    silent = ["{}:{} imports {}".format(path.relative_to(ROOT), line, target)
              for module, target, path, line, commented in late
              if module in _reach(target, top) and not commented]
    assert silent == []


def test_a_late_import_that_closes_no_cycle_is_at_the_top_or_says_why():
    top, late = _imports()
    movable = ["{}:{} imports {}".format(path.relative_to(ROOT), line, target)
               for module, target, path, line, commented in late
               if module.startswith("runtime") and target.startswith("runtime")
               and module not in _reach(target, top) and not commented]
    assert movable == []
