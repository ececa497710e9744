"""Conversion without a .py file: a real IPython shell, and Python 3.13's REPL on a pty.

Both keep the source of what the user typed in `linecache` (IPython under
`<ipython-input-N-...>`, Python 3.13's REPL under `<python-input-N>`), which is where the
converter reads it from.
"""

import glob
import os
import select
import shutil
import signal
import subprocess
import sys
import time
import traceback

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))

_CELL_DEFINE = '''
import autograph as ag
import runtime as tf

def halve_until_small(x):
    steps = 0
    while x > 1:
        x = x // 2
        steps += 1
    return steps
'''

_CELL_CALLER = '''
def first_step_over(x, limit):
    # calls a function from an earlier cell: converted recursively from that cell's source
    if halve_until_small(x) > limit:
        return 1
    return 0
'''

_CELL_FAILS = '''
def divides(x):
    if x > 0:
        raise ValueError('positive: %d' % x)
    return x
'''


@pytest.fixture(scope='module')
def shell():
    interactiveshell = pytest.importorskip(
        'IPython.core.interactiveshell',
        reason='IPython is in the test extra; this test needs it to start a shell')
    sh = interactiveshell.InteractiveShell.instance()
    yield sh
    interactiveshell.InteractiveShell.clear_instance()


def _run(sh, cell):
    result = sh.run_cell(cell)
    if result.error_before_exec is not None:
        raise result.error_before_exec
    if result.error_in_exec is not None:
        raise result.error_in_exec
    return result.result


def test_ipython_cells_convert_trace_and_show_code(shell):
    _run(shell, _CELL_DEFINE)
    _run(shell, _CELL_CALLER)
    filename = _run(shell, 'halve_until_small.__code__.co_filename')
    assert filename.startswith('<ipython-input-')
    # Plain Python values: the converted function equals the original.
    assert _run(shell, '[ag.convert(halve_until_small)(n) for n in (0, 1, 2, 40, 1000)]') \
        == [0, 0, 1, 5, 9]
    # to_code reads the cell's source.
    code = _run(shell, 'ag.to_code(halve_until_small)')
    assert code.startswith('def tf__halve_until_small(x):\n')
    assert 'ag__.while_stmt(loop_test, loop_body, get_state, set_state, (\'steps\', \'x\'),' \
        in code
    # Traced: the staged while gives the same numbers, and the graph has a while node.
    staged = _run(shell, '''
f = tf.function(halve_until_small)
[int(f(tf.constant(n))) for n in (0, 1, 2, 40, 1000)]
''')
    assert staged == [0, 0, 1, 5, 9]
    ops = _run(shell, '[n.op for n in f.get_concrete_function(tf.constant(3))'
                      '.graph.as_graph_def().node]')
    assert 'StatelessWhile' in ops
    # A function of a later cell calling one of an earlier cell, staged.
    assert _run(shell, '[int(tf.function(first_step_over)(tf.constant(n), 3))'
                       ' for n in (4, 40)]') == [0, 1]


def _last_frame_of(sh, call, name):
    with pytest.raises(ValueError, match='positive: 3') as info:
        _run(sh, call)
    frames = [(f.filename, f.lineno) for f in traceback.extract_tb(info.value.__traceback__)
              if f.name == name]
    return frames[-1]


def test_ipython_error_names_the_cell_and_line(shell):
    _run(shell, _CELL_DEFINE)
    _run(shell, _CELL_FAILS)
    converted = _last_frame_of(shell, 'ag.convert(divides)(3)', 'divides')
    plain = _last_frame_of(shell, 'divides(3)', 'divides')
    assert converted == plain and plain[0].startswith('<ipython-input-')


def test_ipython_redefined_function_converts_its_new_source(shell):
    _run(shell, 'import autograph as ag\ndef g(x):\n    return x + 1 if x else 0\n')
    assert _run(shell, 'ag.convert(g)(1)') == 2
    _run(shell, 'def g(x):\n    return x * 10 if x else 0\n')
    assert _run(shell, 'ag.convert(g)(1)') == 10
    assert 'x * 10' in _run(shell, 'ag.to_code(g)')


# --- Python 3.13's REPL, through a pseudo-terminal ------------------------------------------

def _python313():
    """A Python 3.13 (or newer) interpreter, or None: this one, else one on PATH or pyenv's."""
    if sys.version_info >= (3, 13):
        return sys.executable
    candidates = sorted(glob.glob(os.path.expanduser('~/.pyenv/versions/3.1[3-9]*/bin/python3')))
    candidates.append(shutil.which('python3.13'))  # may be a pyenv shim that refuses to run
    for candidate in candidates:
        if candidate and subprocess.run(
                [candidate, '-c', 'import sys; sys.exit(sys.version_info < (3, 13))'],
                capture_output=True, timeout=60, check=False).returncode == 0:
            return candidate
    return None


def _pure_deps_dir(directory):
    """A directory holding links to this interpreter's gast and astunparse (and six).

    All three are pure Python, so another interpreter can import them from here; the
    converter itself needs nothing else (numpy only for the runtime).
    """
    import astunparse  # pylint: disable=g-import-not-at-top
    import gast  # pylint: disable=g-import-not-at-top
    import six  # pylint: disable=g-import-not-at-top
    deps = str(directory)
    for module in (gast, astunparse, six):
        path = module.__file__
        if os.path.basename(path) == '__init__.py':
            path = os.path.dirname(path)
        os.symlink(path, os.path.join(deps, os.path.basename(path)))
    return deps


class _Pty(object):
    """An interactive interpreter on a pseudo-terminal; `typed` returns what it echoed."""

    def __init__(self, python, env):
        import pty  # pylint: disable=g-import-not-at-top
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: become the REPL
            os.execve(python, [python, '-q', '-i'], env)
        self.output = ''

    def read(self, until, timeout=60):
        end = time.time() + timeout
        while (not until or until not in self.output) and time.time() < end:
            ready, _, _ = select.select([self.fd], [], [], 0.2)
            if ready:
                try:
                    self.output += os.read(self.fd, 65536).decode('utf-8', 'replace')
                except OSError:
                    break
        return until in self.output

    def paste(self, text):
        # Bracketed paste: the REPL takes the block as typed, without adding indentation.
        os.write(self.fd, b'\x1b[200~' + text.replace('\n', '\r').encode() + b'\x1b[201~')
        os.write(self.fd, b'\r\r')

    def line(self, text):
        os.write(self.fd, text.encode() + b'\r')

    def close(self):
        try:
            os.write(self.fd, b'\r\rexit()\r')
            end = time.time() + 10
            while os.waitpid(self.pid, os.WNOHANG) == (0, 0):
                if time.time() > end:
                    os.kill(self.pid, signal.SIGKILL)
                    os.waitpid(self.pid, 0)
                    break
                self.read('', timeout=0.2)  # drain the output so that the child can exit
        finally:
            os.close(self.fd)


_REPL_FUNCTION = '''def count_halvings(x):
    n = 0
    while x > 1:
        x = x // 2
        n += 1
    return n'''


@pytest.mark.skipif(sys.platform == 'win32', reason='pseudo-terminals are POSIX only')
# pty forks this process, where JAX (imported by other tests) has threads; the child only execs.
@pytest.mark.filterwarnings('ignore:os.fork:RuntimeWarning')
@pytest.mark.filterwarnings('ignore:.*use of forkpty:DeprecationWarning')
def test_python313_repl_functions_convert_from_their_typed_source(tmp_path):
    python = _python313()
    if python is None:
        pytest.skip('no Python 3.13 interpreter (the REPL that keeps typed input for inspect)')
    env = dict(os.environ, TERM='xterm', NO_COLOR='1', PYTHON_COLORS='0',
               PYTHONPATH=os.pathsep.join([ROOT, _pure_deps_dir(tmp_path)]))
    env.pop('PYTHON_BASIC_REPL', None)
    env.pop('PYTHONSTARTUP', None)
    repl = _Pty(python, env)
    try:
        assert repl.read('>>> '), repl.output
        repl.line('import autograph as ag; from tests.autograph.fake_backend import Sym, '
                  'registered, unwrap')
        repl.paste(_REPL_FUNCTION)
        repl.line('print("FILE", count_halvings.__code__.co_filename)')
        assert repl.read('FILE <python-input-'), repl.output
        repl.line('print("PLAIN", [ag.convert(count_halvings)(n) for n in (1, 2, 40)])')
        assert repl.read('PLAIN [0, 1, 5]'), repl.output
        repl.line('with registered() as b: print("STAGED", unwrap(ag.convert(count_halvings)'
                  '(Sym(40))), b.calls)\r')  # ends the with statement
        assert repl.read("STAGED 5 ['while_loop']"), repl.output
        repl.line('print("CODE", "ag__.while_stmt(" in ag.to_code(count_halvings))')
        assert repl.read('CODE True'), repl.output
        assert 'could not convert' not in repl.output
    finally:
        repl.close()
