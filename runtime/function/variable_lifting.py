"""Variables created on a tf.function's first trace: initial values computed from the trace.

TensorFlow lifts the initializers of variables created inside a function out of it and runs
them once. Here the first trace records each new variable with its symbolic initial value;
`initialize_from_trace` then runs only the nodes each initial value depends on, on the first
call's inputs (runtime.function traces the function a second time with the variables).
"""
from runtime.graph import Graph
from runtime.executor import interpret


def initialize_from_trace(name, graph, deferred, values):
    """Computes the initial values of variables created from a first trace's ops.

    As TensorFlow lifts initializers out of the function, only the nodes each initial value
    depends on run (not the prints, reads or assignments of the trace), on the first call's
    inputs, once per variable in creation order (so one initial value may read another).

    Args:
        name: The function's name, for messages.
        graph: The first trace's Graph.
        deferred: (Variable, SymbolicTensor) pairs in creation order.
        values: Numpy values for `graph.inputs`, or None when there was no call.

    Raises:
        ValueError: if an initial value was computed inside a tf.cond/while_loop branch, or
            depends on an argument when no argument values are known.
    """
    for variable, initial in deferred:
        if initial.node.graph is not graph:
            raise ValueError(
                f"in user code:\n\n    function `{name}` created the Variable "
                f"'{variable.name}' inside a tf.cond/tf.while_loop branch (or a staged "
                f"if/while) from a value computed there. Create it outside the staged branch "
                f"or loop, e.g. under a Python `if not self._built:` check.")
        view = Graph(f"{name}_initializer")
        view.nodes = dependencies(initial)
        needs_input = any(n.is_placeholder for n in view.nodes)
        if needs_input and values is None:
            raise ValueError(
                f"The initial value of Variable '{variable.name}', created by `{name}` on its "
                f"first trace, depends on the function's arguments, which are not known "
                f"while only tracing (get_concrete_function). Call the function once first.")
        feeds = values if values is not None else []
        run = interpret(view, graph.inputs if values is not None else [], [initial])
        variable._initialize(run(*feeds)[0])


def dependencies(tensor):
    """The nodes `tensor` depends on through data inputs, in graph order."""
    seen = {}
    stack = [tensor.node]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen[id(node)] = node
        stack.extend(t.node for t in node.inputs)
    return [n for n in tensor.node.graph.nodes if id(n) in seen]
