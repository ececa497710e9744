"""The garbage collector pause around conversion and tracing restores the collector's state."""
import gc
import linecache
import threading

import pytest

import autograph as ag
import runtime as tf
from autograph.impl import collector
from tests.checkout import run_python


def _fresh_function(_count=[0]):  # noqa: B006 - a counter for unique file names
    # A new code object in a new (linecache) file each time: the conversion cache never answers.
    _count[0] += 1
    filename = f"<collector test {_count[0]}>"
    source = "def f(x):\n    return x + 1\n"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {}
    exec(compile(source, filename, "exec"), namespace)
    return namespace["f"]


@pytest.fixture
def restore_gc():
    was = gc.isenabled()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


def test_paused_disables_and_restores(restore_gc):
    gc.enable()
    with collector.paused():
        assert not gc.isenabled()
        with collector.paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer pause is still running
    assert gc.isenabled()


def test_paused_keeps_a_disabled_collector_disabled(restore_gc):
    gc.disable()
    with collector.paused():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_paused_restores_on_error(restore_gc):
    gc.enable()
    with pytest.raises(ZeroDivisionError):
        with collector.paused():
            1 / 0  # noqa: B018 - the error is the point
    assert gc.isenabled()


def test_overlapping_pauses_in_two_threads(restore_gc):
    gc.enable()
    inside, release = threading.Event(), threading.Event()

    def hold():
        with collector.paused():
            inside.set()
            release.wait(10)

    thread = threading.Thread(target=hold)
    thread.start()
    inside.wait(10)
    with collector.paused():
        pass
    assert not gc.isenabled()  # the other thread's pause still holds
    release.set()
    thread.join(10)
    assert gc.isenabled()


def test_conversion_and_trace_restore_the_collector(restore_gc):
    seen = []

    def probe(x):
        seen.append(gc.isenabled())  # runs while tracing
        return x * 2

    gc.enable()
    assert ag.convert(_fresh_function(), strict=True)(1) == 2
    assert gc.isenabled()
    assert int(tf.function(probe)(tf.constant(3)).numpy()) == 6
    assert seen == [False] and gc.isenabled()
    gc.disable()
    assert ag.convert(_fresh_function(), strict=True)(1) == 2
    assert int(tf.function(lambda x: x - 1)(tf.constant(3)).numpy()) == 2
    assert not gc.isenabled()


_IMPORT_SCRIPT = '''
import gc, sys
{before}
try:
    import runtime
except ImportError as e:
    print("ImportError", e.name if e.name else "")
print(gc.isenabled())
'''


@pytest.mark.parametrize("before, expected", [
    ("", "True"),
    ("gc.disable()", "False"),  # the user's choice stands
    # an import that fails half way (a module of the package missing) still restores it
    ("sys.modules['runtime.tensor_array'] = None", "ImportError runtime.tensor_array\nTrue"),
])
def test_importing_the_packages_restores_the_collector(before, expected):
    done = run_python(["-c", _IMPORT_SCRIPT.format(before=before)])
    assert done.stdout.strip().startswith(expected), done.stdout
