"""Frequent-tracing detection across the tf.function objects made for one Python function.

TensorFlow warns when most recent calls to a Python function trace it again, the usual cause
being a new `tf.function` object created in a loop for the same function: each new object
starts with an empty trace cache. Each Function's own retracing warning (in function.py)
cannot see this, since every object traces only once.
"""

import sys
import weakref

# Traces among the last calls that make the detector warn, as in TensorFlow.
THRESHOLD = 5
# The number of recent calls considered.
HISTORY = 10
# Warnings per Python function at most.
MAX_WARNINGS = 2

MESSAGE = (
    "{traced} out of the last {calls} calls to {fn} triggered tf.function retracing. Tracing "
    "is expensive and the excessive number of tracings could be due to (1) creating "
    "@tf.function repeatedly in a loop, (2) passing tensors with different shapes, (3) "
    "passing Python objects instead of tensors. For (1), please define your @tf.function "
    "outside of the loop. For (2), @tf.function has reduce_retracing=True option that can "
    "avoid unnecessary retracing. For (3), please refer to "
    "https://www.tensorflow.org/guide/function#controlling_retracing and "
    "https://www.tensorflow.org/api_docs/python/tf/function for  more details.")
# Added when a Function was made again for the same code: where (the user's line).
SITE = " The tf.function is created anew at {site}: create it once, outside the loop."

# id(code object) -> (weak reference to it, {closure cells: Detector}). As TensorFlow, the key
# is the code object, so that a function defined (or a lambda written) inside a loop, a new
# object each time, shares one detector; by identity, since equal code objects of two files
# (two tests with the same lambda on the same line) compare equal. Unlike TensorFlow, the
# closure's cells are part of the key: functions that one factory makes (the runtime's
# elementwise ops, tf.add and tf.multiply among them) share code but not cells, and are not
# one function made anew, while a function defined in a loop closes over the same cells at
# every iteration. An entry goes with its code.
_DETECTORS = {}


class Detector:
    """Remembers the recent calls of one Python function, over all its Function objects.

    Every traced function has one, for its whole life, so it is small: a tuple of the last
    calls as of the latest trace, plus a count of the calls since then that did not trace (a
    deque of HISTORY calls took 760 bytes). The hot path of a call only increments the count.
    """

    __slots__ = ("recent", "untraced", "warnings", "created", "site")

    def __init__(self):
        # the last HISTORY calls up to the latest trace: 0 no trace, 1 a trace, 2 the first
        # trace of a new Function
        self.recent = ()
        self.untraced = 0  # calls without a trace since the latest trace
        self.warnings = 0
        self.created = 0  # Function objects made for this code
        # where the latest Function object after the first was made, 'File "f.py", line 3'
        self.site = None

    def called_without_tracing(self):
        self.untraced += 1

    def calls(self):
        """Returns the last HISTORY calls (0 no trace, 1 a trace, 2 a Function's first)."""
        return (self.recent + (0,) * min(self.untraced, HISTORY))[-HISTORY:]

    def traced(self, first, fn):
        """Records a trace; returns the warning text when one is due.

        Args:
            first: whether this is the first trace of its Function object.
            fn: the Python function, for the message.

        Only recent traces that include the first traces of two Function objects warn
        here: the repeated traces of one object have their own warning, which names the
        argument that changed.
        """
        # One detector serves every thread calling the function. Another thread's count or
        # trace may be lost between these lines, which only shifts the heuristic by a call.
        calls = (self.calls() + (2 if first else 1,))[-HISTORY:]
        self.recent = calls
        self.untraced = 0
        if self.warnings >= MAX_WARNINGS:
            return None
        traced = sum(1 for call in calls if call)
        if traced < THRESHOLD or sum(1 for call in calls if call == 2) < 2:
            return None
        self.warnings += 1
        message = MESSAGE.format(traced=traced, calls=len(calls), fn=fn)
        return message if self.site is None else message + SITE.format(site=self.site)


def detector_for(python_function):
    """Returns the Detector shared by every Function made for `python_function`'s code.

    Called once per Function object made; from the second on, the detector remembers the
    user's line that made it, for the warning.
    """
    target = getattr(python_function, "__func__", python_function)
    key = getattr(target, "__code__", target)
    cells = tuple(id(cell) for cell in getattr(target, "__closure__", None) or ())
    entry = _DETECTORS.get(id(key))
    if entry is None or entry[0]() is not key:
        try:
            ref = weakref.ref(key, lambda _, k=id(key): _DETECTORS.pop(k, None))
        except TypeError:  # not weak-referenceable: a detector of its own
            return Detector()
        entry = _DETECTORS[id(key)] = (ref, {})
    detector = entry[1].setdefault(cells, Detector())
    detector.created += 1
    if detector.created > 1:
        detector.site = _user_site(sys._getframe(1))
    return detector


def _user_site(frame):
    from autograph.pyct import inspect_utils
    frame, _ = inspect_utils.first_user_frame(frame, with_source=True)
    if frame is None:
        return "(an unknown line)"
    return f'File "{frame.f_code.co_filename}", line {frame.f_lineno}'

