"""List operations that converted code calls: `append` and `pop`, on Python or staged lists.

A Python list that a staged loop carries as a loop variable becomes a staged list (the
backend's `new_list`) when the loop appends to it or pops from it; see
`staged_loops.stage_list_if_loop_variable`.
"""

from autograph.operators import staged_loops
from autograph.operators.backends import PYTHON_TYPES
from autograph.operators.backends import backend_for


def list_append(target, element):
    """Appends `element` to `target`, as `target.append(element)`.

    Args:
        target: a Python list (or any object with `append`), or a staged list.
        element: the value to append.

    Returns:
        The list to rebind `target` to: `target` itself for Python objects (appended in place),
        the backend's new staged list for a staged one.

    Raises:
        StagingError: if the backend of a staged `target` has no `list_append` hook, or
            `target` is a Python list that a staged loop carries and its backend has no
            `new_list` hook.
    """
    backend = None if type(target) in PYTHON_TYPES else backend_for(target)
    if backend is None:
        staged_loops.stage_list_if_loop_variable(target, element)
        target.append(element)
        return target
    return backend.list_append(target, element)


def list_pop(target, i=None):
    """Pops an element from `target`, as `target.pop()` or `target.pop(i)`.

    Args:
        target: a Python list (or any object with `pop`), or a staged list.
        i: the index to pop, or None for the last element.

    Returns:
        A tuple (list to rebind `target` to, popped element).

    Raises:
        StagingError: if the backend of a staged `target` has no `list_pop` hook, or
            `target` is a Python list that a staged loop carries and its backend has no
            `new_list` hook (or it is empty on entry to the loop).
    """
    backend = None if type(target) in PYTHON_TYPES else backend_for(target)
    if backend is None:
        staged_loops.stage_list_if_loop_variable(target, None)
        if i is None:
            return target, target.pop()
        return target, target.pop(i)
    return backend.list_pop(target, i)
