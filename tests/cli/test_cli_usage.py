"""The CLI as a user meets it: methods, packages, options in any order, --version, and a
one-line error with no traceback for every bad input of every subcommand."""
import os
import subprocess
import sys
import textwrap

import pytest

import autograph
from autograph import cli

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

MODEL = textwrap.dedent('''\
    import runtime as tf


    class Scaler:

        def __init__(self):
            self.factor = 3.0

        def call(self, x):
            if tf.reduce_sum(x) > 0:
                return x * self.factor
            return -x


    class NeedsArgs:

        def __init__(self, units):
            self.units = units

        def call(self, x):
            return x * self.units


    THRESHOLD = 3
    ''')


def run_cli(capsys, *argv):
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def run_module(*argv, cwd=None):
    env = dict(os.environ, PYTHONPATH=REPO)
    return subprocess.run([sys.executable, '-m', 'autograph', *argv], capture_output=True,
                          text=True, timeout=120, check=False, cwd=cwd, env=env)


@pytest.fixture
def model(tmp_path):
    path = tmp_path / 'model.py'
    path.write_text(MODEL)
    return str(path)


def test_version():
    proc = run_module('--version')
    assert proc.returncode == 0
    assert proc.stdout.startswith('autograph %s ' % autograph.__version__)


def test_graph_binds_a_method_to_a_fresh_instance(model, capsys):
    status, out, err = run_cli(capsys, 'graph', model + ':Scaler.call', '-s', 'float32[2]')
    assert status == 0, err
    assert out.startswith('graph call(%x: float32[2]) {')
    assert 'cond(' in out and '{value=3.0}' in out


def test_graph_method_of_a_class_that_needs_arguments_says_how(model, capsys):
    status, _, err = run_cli(capsys, 'graph', model + ':NeedsArgs.call', '-s', 'float32[2]')
    assert status == 1
    assert "NeedsArgs() failed: TypeError" in err
    assert 'add a module-level function that builds the instance' in err
    assert 'Traceback' not in err


def test_dump_of_a_package_walks_its_submodules(capsys):
    status, out, err = run_cli(capsys, 'dump', 'json')
    assert status == 0, err
    for module in ('json/__init__.py', 'json/decoder.py', 'json/encoder.py', 'json/tool.py'):
        assert module.replace('/', os.sep) + ':' in out, module
    assert '# 5 modules,' in out


def test_dump_of_a_package_to_output_mirrors_it(tmp_path, capsys):
    status, _, err = run_cli(capsys, 'dump', 'json', '-o', str(tmp_path / 'o'))
    assert status == 0, err
    assert (tmp_path / 'o' / 'json' / '__init__.py').is_file()
    assert (tmp_path / 'o' / 'json' / 'decoder.py').is_file()


def test_options_before_the_path(model, capsys):
    status, out, err = run_cli(capsys, 'dump', '--function', 'Scaler.call', model)
    assert status == 0, err
    assert out.count('# --- ') == 1 and 'Scaler.call ---' in out
    status, out, err = run_cli(capsys, 'graph', '-s', 'float32[2]', '--dot', model + ':Scaler.call')
    assert status == 0, err
    assert out.startswith('digraph')


def test_survey_labels_unreadable_files_by_kind(tmp_path):
    (tmp_path / 'lib.py').write_text('def h(:\n')
    (tmp_path / 'tests').mkdir()
    (tmp_path / 'tests' / 'data.py').write_text('def h(:\n')
    (tmp_path / 'latin.py').write_bytes(b'# -*- coding: no-such-codec -*-\nx = 1\n')
    proc = run_module('survey', str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    version = '%d.%d' % sys.version_info[:2]
    assert '| modules not valid Python %s | 1 |' % version in proc.stdout
    assert '| modules not valid Python %s (test data) | 1 |' % version in proc.stdout
    assert '| modules could not be read | 1 |' in proc.stdout


BAD_INPUTS = [
    # (argv, exit status, words the one-line error must contain)
    (['dump', 'no/such/file.py'], 1, "found no file 'no/such/file.py'"),
    (['dump', 'no_such_module_xyz'], 1, "found neither for 'no_such_module_xyz'"),
    (['dump', 'sys'], 1, "expected Python source for module 'sys'"),
    (['dump', '{model}', '-o', '{model}'], 1, 'expected --output to name a directory'),
    (['dump', '{model}', '-o', '{model}/sub'], 1, 'could not write'),
    (['dump', '{model}', '-f', 'nope'], 1, 'expected functions named nope'),
    (['dump', '{model}', '-f', ','], 2, 'expected function names after -f'),
    (['dump', '{model}', '--timeout', 'soon'], 2, "expected a number of seconds > 0"),
    (['dump', '{model}', '--timeout', '0'], 2, "expected a number of seconds > 0"),
    (['dump', '{empty}'], 1, 'expected .py files under directory'),
    (['dump'], 2, 'the following arguments are required: PATH_OR_MODULE'),
    (['dump', '{model}', '--frobnicate'], 2, 'unrecognized arguments: --frobnicate'),
    (['graph', '{model}:Scaler.call'], 2, 'the following arguments are required: --signature'),
    (['graph', '{model}', '-s', 'float32[]'], 1, 'expected FILE.py:FUNCTION'),
    (['graph', 'nofile.py:f', '-s', 'float32[]'], 1, "found no file 'nofile.py'"),
    (['graph', '{model}:nope', '-s', 'float32[]'], 1, "found no 'nope'; it defines: NeedsArgs"),
    (['graph', '{model}:THRESHOLD', '-s', 'float32[]'], 1, 'to be a function, found a value of type int'),
    (['graph', '{model}:Scaler.call', '-s', 'int32'], 1, 'expected a shape in brackets'),
    (['graph', '{model}:Scaler.call', '-s', 'int32[-1]'], 1, 'not -1'),
    (['graph', '{model}:Scaler.call', '-s', 'float99[]'], 1, "found 'float99'"),
    (['graph', '{model}:Scaler.call', '-s', ''], 1, 'at least one spec'),
    (['graph', '{model}:Scaler.call', '-s', 'float32[2], int32[]'], 1, 'tracing'),
    (['graph', '{misplaced}:f', '-s', 'int32[]'], 1,
     'set_loop_options at {misplaced}:3 must be the first statement'),
    (['graph', '{broken}:f', '-s', 'float32[]'], 1, 'could not import'),
    (['graph', '{exits}:f', '-s', 'float32[]'], 1, 'could not import'),
    (['survey', 'no/such/dir'], 1, "expected a directory to survey, found nothing at"),
    (['survey', '{model}'], 1, 'expected a directory to survey, found a file'),
    (['survey', '{empty}'], 1, 'expected .py files under directory'),
    (['survey', '{tmp}', '--shard', '2/2'], 1, 'expected --shard K/N'),
    (['survey', '{tmp}', '--chunk', '0'], 1, 'expected --chunk >= 1'),
    (['survey', '{tmp}', '--records', '{empty}'], 1, 'expected --records to be a JSON-lines'),
    (['survey', '{tmp}', '--timeout', '-3'], 2, 'expected a number of seconds > 0'),
    (['frobnicate'], 2, "invalid choice: 'frobnicate'"),
]


@pytest.mark.parametrize('argv, status, words', BAD_INPUTS,
                         ids=['-'.join(a[:1] + [str(i)]) for i, (a, _, _) in
                              enumerate(BAD_INPUTS)])
def test_bad_input_is_one_clear_line_without_traceback(argv, status, words, tmp_path, model):
    (tmp_path / 'empty').mkdir()
    (tmp_path / 'broken.py').write_text('import no_such_module_xyz\n')
    (tmp_path / 'exits.py').write_text('import sys\nsys.exit(3)\n')
    (tmp_path / 'misplaced.py').write_text(
        'import runtime as tf\ndef f(n):\n'
        '    tf.autograph.experimental.set_loop_options(maximum_iterations=3)\n    return n\n')
    paths = {'model': model, 'empty': str(tmp_path / 'empty'), 'tmp': str(tmp_path),
             'broken': str(tmp_path / 'broken.py'), 'exits': str(tmp_path / 'exits.py'),
             'misplaced': str(tmp_path / 'misplaced.py')}
    proc = run_module(*[a.format(**paths) for a in argv], cwd=str(tmp_path))
    assert proc.returncode == status, proc.stderr
    assert words.format(**paths) in proc.stderr
    assert 'Traceback' not in proc.stderr
    assert 'error' in proc.stderr
