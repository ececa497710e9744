"""Loads generated trees as Python code objects, keeping the user's file and line numbers."""

import builtins

import gast

from autograph.pyct import ast_convert


def load_ast(nodes, filename, flags=0):
    """Compiles and executes a list of gast statements in a fresh namespace.

    Generated nodes carry the line numbers of the user code they came from, and the code is
    compiled under the user's file name, so tracebacks from converted code show the user's
    file, line and source text.

    Args:
      nodes: a list of gast statements.
      filename: the file name to compile under.
      flags: compiler flags (e.g. `__future__` features of the user's module).

    Returns:
      The namespace dict after execution.
    """
    return load_code(compile_ast(nodes, filename, flags))


def compile_ast(nodes, filename, flags=0):
    """Compiles a list of gast statements into a module code object (see load_ast).

    The statements become the ast tree that is compiled (ast_convert.gast_to_ast_in_place):
    they are no longer gast nodes afterwards.

    Args:
      nodes: a list of gast statements.
      filename: the file name to compile under.
      flags: compiler flags.

    Returns:
      A code object.
    """
    module = gast.Module(body=list(nodes), type_ignores=[])
    tree = ast_convert.gast_to_ast_in_place(module)
    return compile(tree, filename, 'exec', flags=flags, dont_inherit=True)


def load_code(code):
    """Executes a module code object in a fresh namespace and returns the namespace.

    Args:
      code: a code object from compile_ast.

    Returns:
      The namespace dict.
    """
    namespace = {'__builtins__': builtins}
    exec(code, namespace)  # pylint: disable=exec-used
    return namespace


def iter_code_objects(code):
    """Yields `code` and every code object nested in its constants.

    Args:
      code: a code object.

    Yields:
      Code objects.
    """
    stack = [code]
    while stack:
        c = stack.pop()
        yield c
        for const in c.co_consts:
            if hasattr(const, 'co_consts'):
                stack.append(const)
