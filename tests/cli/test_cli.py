"""Tests for autograph/cli/: dump, graph and survey, and no traceback for any bad input."""
import ast
import os
import subprocess
import sys
import textwrap
import time

import pytest

from autograph import cli
from autograph.cli import dump as cli_dump
from autograph.cli import graph as cli_graph
from autograph.impl import conversion

SAMPLE = textwrap.dedent('''\
    import os
    open(os.path.join(os.path.dirname(__file__), 'EXECUTED'), 'w').close()


    def absolute(x):
        if x > 0:
            return x
        return -x


    class Counter:

        @undefined_decorator(1)
        def count(self, n=os.sep):
            i = 0
            while i < n:
                i += 1
            return i


    def numbers():
        yield 1


    if True:
        def guarded(items):
            return [i for i in items if i]
    ''')


@pytest.fixture
def sample(tmp_path):
    path = tmp_path / 'sample.py'
    path.write_text(SAMPLE)
    return str(path)


def run_cli(capsys, *argv):
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_dump_prints_each_function_under_its_file_line(sample, capsys):
    status, out, err = run_cli(capsys, 'dump', sample)
    assert status == 0, err
    assert '# --- %s:5  absolute ---\ndef tf__absolute(x):' % sample in out
    assert '# --- %s:14  Counter.count ---\ndef tf__count(self, n=None):' % sample in out
    assert '# --- %s:26  guarded ---\n' % sample in out
    assert 'ag__.while_stmt(' in out


def test_dump_output_is_valid_python(sample, capsys):
    _, out, _ = run_cli(capsys, 'dump', sample)
    ast.parse(out)


def test_dump_does_not_execute_the_file(sample, capsys):
    run_cli(capsys, 'dump', sample)
    assert not os.path.exists(os.path.join(os.path.dirname(sample), 'EXECUTED'))


def test_dump_lists_unconvertible_functions_with_reasons_and_count(sample, capsys):
    _, out, _ = run_cli(capsys, 'dump', sample)
    footer = out[out.index('# 1 function could not be converted'):]
    assert ('#   %s:21  numbers: a generator function (yield) at %s:22 is not supported'
            % (sample, sample)) in footer
    assert footer.endswith('# 1 module, 4 functions: 3 converted, 1 not converted\n')


def test_dump_function_filter(sample, capsys):
    status, out, _ = run_cli(capsys, 'dump', '--function', 'count', sample, '-f', 'absolute')
    assert status == 0
    assert [line for line in out.splitlines() if line.startswith('# ---')] == [
        '# --- %s:5  absolute ---' % sample, '# --- %s:14  Counter.count ---' % sample]
    assert out.endswith('# 1 module, 2 functions: 2 converted, 0 not converted\n')


def test_dump_unknown_function_is_an_error(sample, capsys):
    status, _, err = run_cli(capsys, 'dump', sample, '--function', 'nope')
    assert status == 1
    assert 'expected functions named nope' in err


def test_dump_output_dir_writes_one_module_per_input(sample, tmp_path, capsys):
    out_dir = tmp_path / 'out'
    status, out, _ = run_cli(capsys, 'dump', sample, '--output', str(out_dir))
    assert status == 0
    written = out_dir / 'sample.py'
    assert 'wrote %s (3 converted, 1 not converted)' % written in out
    text = written.read_text()
    ast.parse(text)
    assert text.count('# --- ') == 3
    assert '# Not converted:\n#   %s:21  numbers:' % sample in text


def test_dump_directory_mirrors_paths_in_output(tmp_path, capsys):
    pkg = tmp_path / 'src' / 'pkg'
    pkg.mkdir(parents=True)
    (pkg / '__init__.py').write_text('def a(x):\n    return not x\n')
    (pkg / 'mod.py').write_text('def b(x):\n    return x and 1\n')
    status, _, _ = run_cli(capsys, 'dump', str(tmp_path / 'src'), '-o', str(tmp_path / 'o'))
    assert status == 0
    assert 'def tf__a(x):' in (tmp_path / 'o' / 'pkg' / '__init__.py').read_text()
    assert 'ag__.and_(' in (tmp_path / 'o' / 'pkg' / 'mod.py').read_text()


def test_dump_importable_module_by_name(capsys):
    status, out, _ = run_cli(capsys, 'dump', 'json.decoder', '-f', 'py_scanstring')
    assert status == 0
    assert 'decoder.py:' in out and 'py_scanstring ---\ndef tf__py_scanstring(' in out


def test_dump_of_a_submodule_imports_no_parent_package(tmp_path, capsys, monkeypatch):
    package = tmp_path / 'dumped_pkg_xyz'
    (package / 'inner').mkdir(parents=True)
    marker = tmp_path / 'EXECUTED'
    for init in (package / '__init__.py', package / 'inner' / '__init__.py'):
        init.write_text('open(%r, "w").close()\nraise SystemExit("imported")\n' % str(marker))
    (package / 'inner' / 'sub.py').write_text(
        'def absolute(x):\n    if x > 0:\n        return x\n    return -x\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    status, out, _ = run_cli(capsys, 'dump', 'dumped_pkg_xyz.inner.sub')
    assert status == 0
    assert 'def tf__absolute(x):' in out
    assert not marker.exists()
    assert not any(m.startswith('dumped_pkg_xyz') for m in sys.modules)


@pytest.mark.parametrize('target, message', [
    ('no/such/file.py', "expected a Python file, found no file 'no/such/file.py'"),
    ('no_such_module_xyz', "found neither for 'no_such_module_xyz'"),
    ('sys', "expected Python source for module 'sys'"),
])
def test_dump_unreadable_input_exits_1(target, message, capsys):
    status, _, err = run_cli(capsys, 'dump', target)
    assert status == 1
    assert message in err
    assert 'Traceback' not in err


def test_dump_syntax_error_file_exits_1_without_traceback(tmp_path, capsys):
    bad = tmp_path / 'bad.py'
    bad.write_text('def f(:\n    pass\n')
    status, out, err = run_cli(capsys, 'dump', str(bad))
    assert status == 1
    assert 'bad.py is not valid Python' in err and 'SyntaxError' in err
    assert out.endswith('# 1 module, 0 functions: 0 converted, 0 not converted\n')


def test_convert_entity_turns_internal_errors_into_reasons(sample, monkeypatch):
    entity = cli_dump.read_module(sample)[0]
    fn = cli_dump.stub_function(entity, sample, 'sample')

    def broken(fn, check_code=True):
        del fn, check_code
        raise KeyError('boom')
    monkeypatch.setattr(conversion, 'convert_tree', broken)
    assert cli_dump.convert_entity(fn) == (None, "internal converter error: KeyError: 'boom'",
                                           'internal converter error: KeyError')


def test_convert_entity_stops_a_hanging_conversion(sample, monkeypatch):
    entity = cli_dump.read_module(sample)[0]
    fn = cli_dump.stub_function(entity, sample, 'sample')
    monkeypatch.setattr(conversion, 'convert_tree', lambda fn, check_code=True: time.sleep(30))
    start = time.monotonic()
    assert cli_dump.convert_entity(fn, timeout=0.2) == (
        None, 'conversion took longer than 0.2s and was stopped', 'conversion timed out')
    assert time.monotonic() - start < 5


def test_stub_function_carries_name_line_and_qualname(sample):
    entities = cli_dump.read_module(sample)
    assert [(e.qualname, e.line, e.first_line) for e in entities] == [
        ('absolute', 5, 5), ('Counter.count', 14, 13), ('numbers', 21, 21), ('guarded', 26, 26)]
    fn = cli_dump.stub_function(entities[1], sample, 'sample')
    assert (fn.__name__, fn.__qualname__, fn.__module__) == ('count', 'Counter.count', 'sample')
    assert (fn.__code__.co_filename, fn.__code__.co_firstlineno) == (sample, 13)


def test_parse_signature():
    dtypes = {'float32', 'int32', 'bool'}
    assert cli_graph.parse_signature('float32[None,3], int32[]', dtypes) == [
        ('float32', (None, 3)), ('int32', ())]
    assert cli_graph.parse_signature(' bool[] , float32[?, 2 ]', dtypes) == [
        ('bool', ()), ('float32', (None, 2))]
    with pytest.raises(cli.InputError, match="expected a dtype among bool, float32, int32, "
                                             "found 'float33'"):
        cli_graph.parse_signature('float33[1]', dtypes)
    with pytest.raises(cli.InputError, match="found 'x'"):
        cli_graph.parse_signature('int32[x]', dtypes)
    with pytest.raises(cli.InputError, match='expected a signature like'):
        cli_graph.parse_signature('int32[1] int32[2]', dtypes)
    with pytest.raises(cli.InputError, match=r"shape in brackets after 'int32'.*int32\[\] for a"):
        cli_graph.parse_signature('int32', dtypes)
    with pytest.raises(cli.InputError, match="found '-1'.* None or \\?, not -1"):
        cli_graph.parse_signature('int32[-1]', dtypes)
    with pytest.raises(cli.InputError, match='at least one spec'):
        cli_graph.parse_signature(' ', dtypes)


GRAPH_SAMPLE = textwrap.dedent('''\
    def relu_sum(x, n):
        total = 0.0
        for i in range(n):
            total += x[i] if x[i] > 0 else 0.0
        return total
    ''')


def test_graph_prints_the_traced_graph(tmp_path, capsys):
    path = tmp_path / 'model.py'
    path.write_text(GRAPH_SAMPLE)
    status, out, err = run_cli(capsys, 'graph', '%s:relu_sum' % path,
                               '--signature', 'float32[None], int32[]')
    assert status == 0, err
    assert out.startswith('graph relu_sum(%x: float32[?], %n: int32[]) {') or \
        out.startswith('graph relu_sum(%x: float32[None], %n: int32[]) {'), out
    assert 'while(' in out and 'cond(' in out


def test_graph_dot(tmp_path, capsys):
    path = tmp_path / 'model.py'
    path.write_text(GRAPH_SAMPLE)
    status, out, _ = run_cli(capsys, 'graph', '%s:relu_sum' % path, '-s', 'float32[4], int32[]',
                             '--dot')
    assert status == 0
    assert out.startswith('digraph "relu_sum" {')
    assert '"x" [label="x: float32[4]", tooltip="x", fillcolor="#dbe9f7"];' in out


def test_graph_errors(tmp_path, capsys):
    path = tmp_path / 'model.py'
    path.write_text(GRAPH_SAMPLE)
    status, _, err = run_cli(capsys, 'graph', '%s:nope' % path, '-s', 'float32[]')
    assert status == 1 and "found no 'nope'; it defines: relu_sum" in err
    status, _, err = run_cli(capsys, 'graph', '%s:relu_sum' % path, '-s', 'float32[]')
    assert status == 1 and 'tracing' in err and 'failed' in err
    status, _, err = run_cli(capsys, 'graph', str(path), '-s', 'float32[]')
    assert status == 1 and 'expected FILE.py:FUNCTION' in err


def test_unsupported_syntax_is_grouped_by_its_construct(sample):
    numbers = cli_dump.read_module(sample)[2]
    fn = cli_dump.stub_function(numbers, sample, 'sample')
    source, reason, group = cli_dump.convert_entity(fn)
    assert source is None and reason.startswith('a generator function (yield) at ')
    assert group == 'a generator function (yield) is not supported'


def test_survey_reports_totals(tmp_path):
    (tmp_path / 'a.py').write_text('def f(x):\n    return x\n\nasync def g():\n    pass\n')
    (tmp_path / 'b.py').write_text('def h(:\n')
    proc = subprocess.run([sys.executable, '-m', 'autograph', 'survey', str(tmp_path)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert '| modules (.py files) | 2 |' in out
    assert '| modules parsed | 1 |' in out
    assert '| functions and methods | 2 |' in out
    assert '| converted | 1 |' in out and '| not converted | 1 |' in out
    assert '| an async function is not supported | 1 | g (a.py:4) |' in out


def test_python_dash_m_and_help():
    proc = subprocess.run([sys.executable, '-m', 'autograph', '--help'], capture_output=True,
                          text=True, timeout=60, check=False)
    assert proc.returncode == 0
    assert 'autograph dump FILE.py|DIR|MODULE' in proc.stdout
    assert 'autograph graph FILE.py:FUNCTION' in proc.stdout
    proc = subprocess.run([sys.executable, '-m', 'autograph'], capture_output=True,
                          text=True, timeout=60, check=False)
    assert proc.returncode == 2 and 'COMMAND' in proc.stderr


def test_a_shard_reports_only_its_own_modules(tmp_path):
    for name in ('a', 'b', 'c'):
        (tmp_path / (name + '.py')).write_text('def f(x):\n    return x\n')
    records = tmp_path / 'records.jsonl'
    proc = subprocess.run([sys.executable, '-m', 'autograph', 'survey', str(tmp_path),
                           '--records', str(records), '--shard', '0/2'],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert 'shard 0/2' in proc.stdout
    assert '| modules (.py files) | 2 |' in proc.stdout  # a.py and c.py, not the other shard's
    assert 'crashed or timed out:' not in proc.stdout
    assert '| modules that crashed or timed out | 0 |' in proc.stdout
