"""What a converted function reads from outside its arguments: its globals and closure cells.

Dynamo runs a `torch._dynamo.nonstrict_trace` function only at trace time, as plain Python,
and neither guards nor lifts what it reads from outside its arguments. A global tensor or
`nn.Parameter` would reach the AOT trace as a real tensor (inductor refuses it: "Please convert
all Tensors to FakeTensors first"; no gradient would reach it anyway), and a global Python
number would be baked into the graph, stale after the global changes. `reader` gives the
values that the function names as globals or closure cells, read in the wrapper that dynamo
traces: dynamo guards them (a changed number recompiles) and lifts the tensors and modules
among them, which the wrapper passes to the `nonstrict_trace` call. There the converted code
still reads the real tensors; `torch_values.call_device` maps each to the traced one that
stands for it (`torch_values.outside`).

Read are the function's globals and cells, and the globals of the functions of its module
(its globals) that it calls by name. A function of another module that it calls reads its
own, unlifted.
"""

import dis
import types

import torch

# The values passed to the nonstrict_trace call: numbers and strings, which dynamo then
# specializes (a changed one recompiles), and tensors and modules, which it lifts. Others
# (None, functions, containers, objects) are only read inside the trace.
_PASSED = (bool, int, float, complex, str, torch.Tensor, torch.nn.Module)


def _global_names(code):
    """The global names that `code` and the code nested in it (lambdas, comprehensions,
    inner functions) read, in order, each once."""
    names = {}
    for instruction in dis.get_instructions(code):
        if instruction.opname in ('LOAD_GLOBAL', 'LOAD_NAME'):
            names.setdefault(instruction.argval)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names.update(dict.fromkeys(_global_names(const)))
    return tuple(names)


def _filled(cell):
    try:
        cell.cell_contents  # pylint: disable=pointless-statement
    except ValueError:  # a cell not assigned yet
        return False
    return True


def _reachable_names(fn):
    """The global names that `fn` reads, and that the functions of its module (its globals)
    which it calls by a global name read, and so on."""
    scope = fn.__globals__
    names, seen, todo = {}, {fn.__code__}, [fn.__code__]
    while todo:
        for name in _global_names(todo.pop()):
            names.setdefault(name)
            value = scope.get(name)
            if isinstance(value, types.FunctionType) and value.__globals__ is scope and (
                    value.__code__ not in seen):
                seen.add(value.__code__)
                todo.append(value.__code__)
    return tuple(names)


def reader(fn):
    """A function of no arguments giving the numbers, strings, tensors and modules among the
    globals that `fn` and the functions of its module that it calls read, and among `fn`'s
    closure cells, as a tuple (see the module's docstring)."""
    cells = fn.__closure__ or ()

    # Which names and cells to read: run by dynamo as plain Python, its result a constant
    # of the trace (what a changed value changes, the guards on the values catch).
    @torch._dynamo.assume_constant_result
    def where():
        scope = fn.__globals__
        found = tuple(n for n in _reachable_names(fn) if isinstance(scope.get(n), _PASSED))
        filled = tuple(k for k, cell in enumerate(cells)
                       if _filled(cell) and isinstance(cell.cell_contents, _PASSED))
        return found, filled

    def read():
        scope = fn.__globals__
        found, filled = where()
        return tuple(scope[n] for n in found) + tuple(cells[k].cell_contents for k in filled)
    return read
