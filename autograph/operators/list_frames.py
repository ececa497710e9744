"""Python lists that a staged loop or if changes: a list appended to, popped from or assigned
at a staged index while a staged statement that carries it is traced must be a staged value
(`with_staged_list`) before the statement is staged. The statement's scout (see
`staged_block`) finds such lists with a recording frame; a list the real staging meets
without a plan stops it (`NewStagedList`). A list assigned in place gets its final elements
back (`write_back`)."""

import builtins
import collections
import contextlib
import threading

from autograph.errors import StagingError
from autograph.operators import list_directives


class NewStagedList(BaseException):
    """Signal: a staged loop or if must make one of its Python-list variables a staged list.

    A BaseException, like GeneratorExit, so that `except Exception` in user code staged inside
    the loop body does not swallow this control-flow signal.
    """

    def __init__(self, frame, target, element):
        super().__init__()
        self.frame = frame  # the ListFrame of the loop that owns `target`
        self.target = target  # the initial Python list, unchanged
        self.element = element  # the value being appended, POPPED or ITEM_ASSIGNED
        # how many times a scout's one trace of the loop changed the list (an upper bound of
        # one iteration's appends: every traced path counts), and whether a staged loop
        # nested in the owner changed it (then one iteration's appends have no bound)
        self.appends = 1
        self.nested = False
        self.grows = element is not POPPED  # whether one change seen appends


class ListFrame:
    """The Python lists among the state of one staged loop or if statement being staged.

    A recording frame (a scout's, see `staged_block`) collects in `requests` what a staging
    that meets one of its lists would stop with, and lets the staging go on.
    """

    def __init__(self, init_vars, loop=False, recording=False, is_list_value=None):
        # id -> (list, initial list): the top-level Python lists among the initial loop
        # variables, and the lists the loop packs them into for its condition and body. The
        # lists are held so that their ids stay unique while the loop is staged.
        self.lists = {}
        # the same for lists the frame watches only for item assignment at a staged index:
        # an if statement's variables that are no output (nothing reads them after it)
        self.assigned_lists = {}
        self.loop = loop  # a staged loop's (else a staged if statement's)
        self.recording = recording
        self.requests = []  # NewStagedList signals recorded, the first for each list
        # the backend's `is_list_value`: a staged value that stands for a list of a run-time
        # length (torch's `[0] * n`), watched as the Python lists are
        self.is_list_value = is_list_value or (lambda value: False)
        for value in init_vars:
            self.add(value, value)

    def record(self, request):
        """Records `request`, or counts it in the one for the same list that came first."""
        for first in self.requests:
            if first.target is request.target:
                first.appends += 1
                first.nested = first.nested or request.nested
                first.grows = first.grows or request.grows
                return
        self.requests.append(request)

    def add(self, value, initial, assigned_only=False):
        """Records that loop variable `value` stands for the initial Python list `initial`
        (`assigned_only`: for item assignment only, see `assigned_lists`)."""
        if type(value) is list and type(initial) is list or (
                self.is_list_value(initial) and self.is_list_value(value)):
            lists = self.assigned_lists if assigned_only else self.lists
            lists[id(value)] = (value, initial)

    def initial(self, value, element=None):
        """The initial list that `value` (by identity) stands for in this frame, or None;
        for `element` ITEM_ASSIGNED the lists watched for item assignment only count too."""
        entry = self.lists.get(id(value))
        if entry is None and element is ITEM_ASSIGNED:
            entry = self.assigned_lists.get(id(value))
        return entry[1] if entry is not None and entry[0] is value else None


_LOCAL = threading.local()


class Growth(collections.namedtuple('Growth', ['iterations', 'appends', 'loop'])):
    """How a list that a staged loop or if appends to can grow, as autograph knows it: the
    loop's most iterations (a for loop's length: a Python int or a staged int; None for a
    while loop; 1 for an if, whose branch runs once), the most elements one iteration
    appends (every path the body traces counted; None when a staged loop nested in the
    statement appends), and whether the statement is a loop. `len(items) + appends *
    iterations` bounds the list. A backend whose staged list cannot grow again in a later
    statement (JAX's fixed buffers) bounds only loops' lists so: a list that an if grows is
    often grown again by the next if."""


def growth():
    """The Growth of the list that `Backend.new_list` is making, or None: for a backend that
    sizes a list's buffer when the program runs (torch's)."""
    return getattr(_LOCAL, 'growth', None)


def frame_stack():
    """The stack of ListFrames of the staged loops being staged in this thread."""
    frames = getattr(_LOCAL, 'frames', None)
    if frames is None:
        frames = _LOCAL.frames = []
    return frames


@contextlib.contextmanager
def entered(frame):
    """A context in which `frame` is the innermost frame of this thread's stack."""
    frames = frame_stack()
    frames.append(frame)
    try:
        yield frame
    finally:
        frames.pop()


@contextlib.contextmanager
def replaced_lists():
    """A context that collects the Python lists that staged statements replace by staged
    lists while it lasts (a list appended to in a staged loop or branch: its variables hold
    the staged list from then on, the Python list is left as it was); yields their list.
    A tracer that passes the traced function its own lists tells its caller so."""
    collectors = getattr(_LOCAL, 'replaced', None)
    if collectors is None:
        collectors = _LOCAL.replaced = []
    found = []
    collectors.append(found)
    try:
        yield found
    finally:
        collectors.remove(found)


def note_replaced(original):
    """Tells the innermost `replaced_lists` that `original` was replaced by a staged list."""
    collectors = getattr(_LOCAL, 'replaced', None)
    if collectors and type(original) is list:
        collectors[-1].append(original)


def check_python_iterator_step(fn):
    """Raises when `fn` is `next` or an iterator's `__next__` called while a staged loop's body
    is traced: the body is traced once, so a Python iterator (a generator) would advance once,
    not once per iteration, and every iteration would see that one value."""
    if any(frame.loop for frame in frame_stack()) and (
            fn is builtins.next or getattr(fn, '__name__', None) == '__next__'):
        raise StagingError(
            'A Python iterator is advanced ({}) inside a staged loop: the loop body is traced '
            'once, so the iterator would advance once, not once per iteration. Advance it in '
            'a Python loop (a loop over a Python range or list), or compute the values with '
            'staged operations in the loop.'.format(
                'next()' if fn is builtins.next else '__next__()'))


def stage_list_if_loop_variable(target, element):
    """Stops staging when `target` is a Python list that a staged loop or if carries.

    Called by `list_append`, `list_pop` and item assignment at a staged index before they
    change a Python list, and by a backend before it changes the length of a staged value
    that stands for a list (`Backend.is_list_value`). When `target` is (by identity) a
    list variable of a staged statement being staged, the statement must carry a staged list
    instead: the outermost such statement's frame records it when it is a scout's, else this
    raises.

    Args:
        target: the list about to be changed.
        element: the value being appended, POPPED for a pop, or ITEM_ASSIGNED.

    Returns:
        Whether a scout's frame recorded `target` (the caller changes it as it would outside
        staged code, so that the scout goes on and counts the appends it meets).

    Raises:
        NewStagedList: to the `_stage` of the loop that owns `target`.
    """
    owner = None
    frames = frame_stack()
    # Innermost loop first: the initial list of an inner loop may be the list that an outer
    # loop packed its own loop variable into.
    for depth in range(len(frames) - 1, -1, -1):
        initial = frames[depth].initial(target, element)
        if initial is not None:
            owner, target, owner_depth = frames[depth], initial, depth
    if owner is None:
        return False
    request = NewStagedList(owner, target, element)
    request.nested = any(frame.loop for frame in frames[owner_depth + 1:])
    if not owner.recording:
        raise request
    owner.record(request)
    return True


def carried(target):
    """Whether `target` is (by identity) a list that a staged statement being staged
    carries, or watches for item assignment."""
    return any(frame.initial(target, ITEM_ASSIGNED) is not None for frame in frame_stack())


def carried_by_a_loop(target):
    """Whether `target` is (by identity) a list that a staged loop being staged carries."""
    return any(frame.loop and frame.initial(target) is not None for frame in frame_stack())


def rebound(old, new):
    """Records that `new` stands for the list that `old` stood for, in each frame that
    watches `old`: a staged statement nested in the frame's gives its Python lists back as
    new lists (a staged loop packs its variables), and a statement after it that changes
    one at a staged index must still find its owner."""
    for frame in frame_stack():
        for lists in (frame.lists, frame.assigned_lists):
            entry = lists.get(id(old))
            if entry is not None and entry[0] is old:
                lists[id(new)] = (new, entry[1])
    return new


# The `element` of a NewStagedList for `l[i] = v` with a staged `i`: the list keeps its length,
# so it becomes the backend's stack of its elements (a JAX array too), not a growing list.
ITEM_ASSIGNED = object()
# The `element` of a NewStagedList for `l.pop()`: the loop pops before it appends.
POPPED = object()


def assigned_list(init_vars, request):
    """(positions, list) of a Python list that a staged loop or if assigns at a staged index
    (`l[i] = v`, carried as its stack from now on), for `write_back`; None for others."""
    if request.element is not ITEM_ASSIGNED:
        return None
    return [k for k, v in enumerate(init_vars) if v is request.target], request.target


def write_back(state, assigned):
    """Gives each Python list that a staged loop or if assigned at a staged index (or
    changed in place at Python positions: `StagedBlock._changed_in_place`) its final
    elements, and makes its variables that list again: Python's `l[i] = v` changes the list in
    place, so every name bound to it (a caller's argument too) sees the change.

    Args:
        state: the statement's (get_state, set_state).
        assigned: `assigned_list` results (None entries skipped).
    """
    assigned = [a for a in assigned if a is not None]
    if not assigned:
        return
    get_state, set_state = state
    values = list(get_state())
    for positions, original in assigned:
        final = values[positions[0]]
        if _length(final) == len(original):  # else a run-time length: left alone
            _write_elements(original, final)
            for k in positions:
                values[k] = original
    set_state(tuple(values))


def _write_elements(original, final):
    """Gives the Python list `original` the elements of `final` (staged, or a Python list;
    as long), in place; a row that was a Python list (a table's) keeps its identity and gets
    its own elements, so that the table keeps the structure it had (a branch that left it
    alone gives it too)."""
    elements = [final[i] for i in range(len(original))]
    for i, (before, element) in enumerate(zip(original, elements)):
        if type(before) is list and (before or type(element) is list) and (
                _length(element) == len(before)):
            _write_elements(before, element)
            elements[i] = before
    original[:] = elements


def grown_list(init_vars, request):
    """The positions of a Python list that a staged statement appends to or pops from (made
    a staged list from then on), for `finish_grown`; None for others."""
    if request.element is ITEM_ASSIGNED:
        return None
    return [k for k, v in enumerate(init_vars) if v is request.target]


def finish_grown(backend, state, grown):
    """Gives each list that a staged statement made a staged list to grow it the value the
    backend makes of it once the statement is staged (`Backend.finished_list`: torch's
    buffer and length become the tensor of its elements).

    Args:
        backend: the statement's backend.
        state: the statement's (get_state, set_state).
        grown: `grown_list` results (None entries skipped).
    """
    grown = [positions for positions in grown if positions]
    if not grown:
        return
    get_state, set_state = state
    values = list(get_state())
    for positions in grown:
        finished = backend.finished_list(values[positions[0]])
        for k in positions:
            values[k] = finished
    set_state(tuple(values))


def _length(value):
    """The length of a Python list, or `_static_length` of a staged value."""
    return len(value) if type(value) is list else _static_length(value)


def _static_length(value):
    """The first dimension of a staged value when it is known while tracing, else None."""
    shape = getattr(value, 'shape', None)
    try:
        first = tuple(shape)[0]
    except (TypeError, IndexError):
        return None
    return first if type(first) is int else None


def with_staged_list(backend, init_vars, symbol_names, request, opts=None):
    """Returns `init_vars` with every occurrence of `request.target` made a staged list (for
    an item assignment, the stack of its elements); `opts` are the staged loop's options
    (`maximum_iterations`, `list_sizes` from set_list_options, and `iterations`, a for loop's
    number of iterations), or None."""
    target = request.target
    k = next(k for k, v in enumerate(init_vars) if v is target)
    name = symbol_names[k]
    if request.element is ITEM_ASSIGNED:
        staged = backend.stack(list(target))
        return tuple(staged if v is target else v for v in init_vars)
    element = None if request.element is POPPED else request.element
    if type(target) is list and not target and request.element is POPPED:
        raise StagingError(
            "'{}' is an empty list on entry to a staged loop that pops from it before "
            'appending: a list that a staged loop changes becomes a staged list, whose element '
            "type must be known on entry. Append to '{}' before popping, or fill it before "
            'the loop.'.format(name, name))
    opts = opts or {}
    size = list_directives.checked_size(
        name, opts.get('list_sizes', {}).get(name, list_directives.maximum_size()))
    bound = {} if size is None else {'maximum_size': size}  # a backend of before it: no key
    # a list that a scout saw only popped needs no room to grow (a statement staged with no
    # scout stopped at its first change, which says nothing of the rest)
    popped_only = request.frame.recording and not request.grows
    appends = 0 if popped_only else None if request.nested else request.appends
    _LOCAL.growth = Growth(opts.get('iterations'), appends, request.frame.loop)
    try:
        staged = backend.new_list(list(target) if type(target) is list else target, element,
                                  name, opts.get('maximum_iterations'), **bound)
    finally:
        _LOCAL.growth = None
    return tuple(staged if v is target else v for v in init_vars)
