"""What staged if statements, conditional expressions and loops share: one object per
statement that threads its state, makes the Python lists it changes staged values, and is
staged once after an explicit plan.

The plan comes first. A block whose state holds something whose staging it cannot know
before it runs (a Python list that it may append to, pop from or assign at a staged index;
a variable not defined yet) is first staged in the backend's scratch (`scout`: its ops are
discarded), with its list frame recording what it meets instead of stopping at it. What the
scout found is the plan: the lists that become staged values before the block is staged
(`list_frames.with_staged_list`), and what the subclass learnt (an if statement's branch
outputs, the types a loop gives its undefined variables). Then the block is staged once.

A scout that fails after recording lists (a Python list that grew in a loop body fails the
loop's type check) is repeated with those lists staged, while Python lists remain; so the
real staging runs the same code as the last scout and meets no list it did not plan for.
Only code that runs differently each time it is traced can still meet one: the block then
plans again from that list.
"""

from autograph.errors import StagingError
from autograph.errors import UnsupportedByBackendError
from autograph.operators import list_frames
from autograph.operators import variables
from autograph.operators.list_frames import ListFrame


class StagedBlock:
    """One staged statement: its backend, state and list frame, and its plan.

    Subclasses set `construct` (for messages) and `loop`, and implement `framed` (the values
    whose Python lists the frame watches), `needs_plan`, `scout` and `stage_once`.

    Args:
        backend: the backend that stages the statement.
        state: the pair (get_state, set_state) of the statement's variables.
        symbol_names: their names (str, or `Symbol` for generated ones).
    """

    construct = 'block'
    loop = False

    def __init__(self, backend, state, symbol_names):
        self.backend = backend
        self.get_state, self.set_state = state
        self.symbol_names = tuple(symbol_names)
        self.type_of = backend.type_of
        self.frame = None  # the ListFrame of the staging under way
        # the positions of the Python lists it changed in place (see `_changed_in_place`)
        self.in_place = ()
        self.grown = []  # the positions of the lists it made staged to grow them

    def framed(self, init_vars):
        """The values whose top-level Python lists the statement's frame watches."""
        return init_vars

    def needs_plan(self, init_vars):
        """Whether the statement must be scouted before it is staged (by default: it
        carries a Python list)."""
        return any(type(v) is list or self.backend.is_list_value(v)
                   for v in self.framed(init_vars))

    def scout(self, init_vars):
        """Stages the statement in a scratch; returns what the subclass learnt."""
        raise NotImplementedError

    def stage_once(self, init_vars, plan):
        """Stages the statement from `init_vars`; `plan` is the scout's finding, or None."""
        raise NotImplementedError

    def read_state(self):
        """The statement's variables now, as a tuple.

        Raises:
            StagingError: when a branch or the body deleted one (`del x`).
        """
        try:
            return tuple(self.get_state())
        except NameError:
            deleted = variables.empty_cells(self.get_state)
            if not deleted:
                raise
        raise StagingError(
            '{} is deleted (`del`) in a staged {}: staged code traces every branch and the '
            'loop body as one program, so it cannot unbind a variable on one path only. '
            'Assign it a value instead, or delete it after the {}.'.format(
                ', '.join(repr(name) for name in deleted), self.construct, self.construct))

    def stage(self):
        """Plans, stages the statement once and assigns its final state."""
        init_vars = before = tuple(self.get_state())
        assigned = []  # see list_frames.write_back
        self.grown = []  # see list_frames.finish_grown
        while True:
            init_vars, plan = self._plan(init_vars, assigned)
            request = self._stage_in_frame(init_vars, plan)
            if request is None:
                break
            # a list that no scout reached (see the module's doc)
            init_vars = self._promote(init_vars, [request], assigned)
        state = (self.get_state, self.set_state)
        list_frames.write_back(state, assigned + self._changed_in_place(before))
        list_frames.finish_grown(self.backend, state, self.grown)
        # a Python list the statement gives back as a new list (a loop packs its variables)
        # stands for the same list in the statements around it
        for old, new in zip(before, self.get_state()):
            if type(old) is list and type(new) is list and new is not old:
                list_frames.rebound(old, new)

    def _changed_in_place(self, before):
        """`list_frames.write_back` entries for the Python lists of `in_place` (each one that
        the statement changed in place, never rebinding its variable), outside any other
        staged statement: another name may hold one (`row = dp[i]`, then `row[j] = v` in a
        staged branch or loop), so it gets its final elements in place, as in Python. The
        statement worked on copies; inside another one, its list frame threads them
        instead."""
        if list_frames.frame_stack():
            return []
        state = self.get_state()
        return [([k], before[k]) for k in self.in_place
                if type(before[k]) is list and type(state[k]) is list]

    def _stage_in_frame(self, init_vars, plan):
        """`stage_once` in a frame that stops at a list; returns that request, else None.

        The state holds `init_vars` when it is called (`_plan` and `_promote` leave it so).
        """
        self.frame = self._frame(init_vars)
        try:
            with list_frames.entered(self.frame):
                self.stage_once(init_vars, plan)
        except list_frames.NewStagedList as request:
            if request.frame is not self.frame:
                raise
            pending = request  # returned below, so that no error chains this signal
        else:
            return None
        self.set_state(init_vars)
        return pending

    def _frame(self, init_vars, recording=False):
        return ListFrame(self.framed(init_vars), loop=self.loop, recording=recording,
                         is_list_value=self.backend.is_list_value)

    def _plan(self, init_vars, assigned):
        """Scouts until a scout asks for no new staged list; returns (init_vars, plan)."""
        plan = None
        while self.needs_plan(init_vars):
            try:
                scratch = self.backend.scratch()
            except UnsupportedByBackendError:
                return init_vars, None
            frame = self._frame(init_vars, recording=True)
            self.frame = frame
            error = None
            try:
                with list_frames.entered(frame), scratch:
                    plan = self.scout(init_vars)
            except Exception as raised:  # pylint: disable=broad-except  # re-raised below
                error = raised
            finally:
                self.set_state(init_vars)
            if not frame.requests:
                if error is not None:
                    raise error
                return init_vars, plan
            # the staging met the lists it records, and may have failed for that reason
            init_vars = self._promote(init_vars, frame.requests, assigned)
            plan = None
        return init_vars, plan

    def _promote(self, init_vars, requests, assigned):
        """`init_vars` with the lists of `requests` made staged values (`with_staged_list`)."""
        for request in requests:
            assigned.append(list_frames.assigned_list(init_vars, request))
            grown = list_frames.grown_list(init_vars, request)
            self.grown.append(grown)
            if grown is not None:
                list_frames.note_replaced(request.target)
            init_vars = self.with_staged_list(init_vars, request)
        self.set_state(init_vars)
        return init_vars

    def with_staged_list(self, init_vars, request, opts=None):
        """`list_frames.with_staged_list` for this statement (a subclass adds loop options or
        its own message)."""
        return list_frames.with_staged_list(self.backend, init_vars, self.symbol_names,
                                            request, opts)


def unforeseen(construct, name):
    """The StagingError for a statement whose staging differs from its plan."""
    return StagingError(
        '{} is assigned differently than planned in a staged {}: autograph stages code more '
        'than once (to plan it, then to stage it), and the runs gave it different kinds of '
        'values. Make the code give the same kind of value each time it runs; if it does, '
        'this is a bug in autograph: please report it.'.format(name, construct))

