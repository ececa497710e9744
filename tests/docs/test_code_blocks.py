"""Runs or checks every code block of README.md and the docs site (tests/docs/blocks.py)."""
import functools
import importlib
import importlib.util
import inspect
import json
import os
import re
import shlex
import sys

import pytest

from tests.checkout import ROOT
from tests.checkout import marked_for_another_python
from tests.checkout import run_python
from tests.docs import blocks as blocks_mod

BLOCKS = blocks_mod.all_blocks()


def of_kind(lang, mark=''):
    return [b for b in BLOCKS if b.lang == lang and b.mark.startswith(mark)]


def ids(block):
    return block.id


def test_every_block_has_a_known_kind():
    unknown = [b.id for b in BLOCKS if b.lang not in blocks_mod.KINDS
               or (b.lang != 'python' and b.mark)]
    assert not unknown
    # The pages show real runs of the examples and of the command line.
    commands = [b.text.split('\n', 1)[0] for b in of_kind('console')]
    for command in ('$ python examples/quickstart.py', '$ python -m autograph dump ',
                    '$ python -m autograph graph '):
        assert any(c.startswith(command) for c in commands), command
    assert len(of_kind('python')) >= 5


# --- python: each page's blocks run in order in one process -----------------------------------

_DRIVER = r'''
import contextlib, io, json, sys
namespace = {'__name__': '__main__'}
outputs = []
for path in sys.argv[2:]:
    with open(path, encoding='utf-8') as f:
        code = compile(f.read(), path, 'exec')
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        exec(code, namespace)
    outputs.append(buffer.getvalue())
with open(sys.argv[1], 'w', encoding='utf-8') as f:
    json.dump(outputs, f)
'''

RUN_PAGES = sorted({b.page for b in BLOCKS if b.lang == 'python' and not b.mark})


def _not_in_the_test_extra_here(block):
    """Whether `block` imports a package that the test extra installs only on another Python
    (torch: CI's); there the block is compiled, not run, and must show no output."""
    return any(marked_for_another_python(name) and importlib.util.find_spec(name) is None
               for name in re.findall(r'^(?:import|from) (\w+)', block.text, re.M))


@pytest.mark.parametrize('page', RUN_PAGES)
def test_python_blocks_run_and_print_what_the_page_shows(page, tmp_path):
    blocks = [b for b in blocks_mod.blocks_of(page) if b.lang == 'python' and not b.mark]
    for b in [b for b in blocks if _not_in_the_test_extra_here(b)]:
        compile(b.text, b.id, 'exec')
        assert not b.output, b.id
        blocks.remove(b)
    paths = []
    for b in blocks:
        # One file per block, example.py as a reader would name it (messages show the name),
        # in a folder named after the page and line, so that a failure says which block.
        folder = tmp_path / ('%s_line%d' % (re.sub(r'\W', '_', page), b.line))
        folder.mkdir()
        path = folder / 'example.py'
        path.write_text(b.text, encoding='utf-8')
        paths.append(str(path))
    result = tmp_path / 'outputs.json'
    driver = tmp_path / 'driver.py'
    driver.write_text(_DRIVER, encoding='utf-8')
    proc = run_python([str(driver), str(result)] + paths, timeout=300, check=False, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    outputs = json.loads(result.read_text(encoding='utf-8'))
    for b, out in zip(blocks, outputs):
        if b.output:
            assert out == b.output, b.id


# --- console: `$ python ...` and its exact output ---------------------------------------------

@pytest.mark.parametrize('block', of_kind('console'), ids=ids)
def test_console_output_matches_a_fresh_run(block):
    command, expected = block.text.split('\n', 1)
    argv = shlex.split(command)
    assert argv[:2] == ['$', 'python'], block.id
    proc = run_python(argv[2:], timeout=300, check=False, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == expected


# --- python excerpts and signature listings ---------------------------------------------------

def _squash(text):
    return [line.strip() for line in text.splitlines() if line.strip()]


@pytest.mark.parametrize('block', of_kind('python', 'excerpt'), ids=ids)
def test_excerpt_is_a_piece_of_its_file(block):
    path = block.mark.split(': ', 1)[1]
    with open(os.path.join(ROOT, path), encoding='utf-8') as f:
        source = _squash(f.read())
    piece = _squash(block.text)
    # Each excerpted line is in the file, in order (elided lines between them are allowed).
    position = 0
    for line in piece:
        assert line in source[position:], '%s: %r is not in %s' % (block.id, line, path)
        position = source.index(line, position) + 1


_SIGNATURE = re.compile(r'^(?:with )?([A-Za-z_][\w.]*)\(([^()]*)\)')
_NAMESPACES = {'ag__': 'autograph.impl.ag_namespace', 'runtime': 'runtime'}


def _resolve(dotted):
    head, *rest = dotted.split('.')
    module_name = _NAMESPACES[head]
    obj = importlib.import_module(module_name)
    for i, part in enumerate(rest):
        if not hasattr(obj, part):
            obj = importlib.import_module('%s.%s' % (module_name, '.'.join(rest[:i + 1])))
        else:
            obj = getattr(obj, part)
    return obj


@pytest.mark.parametrize('block', of_kind('python', 'signatures'), ids=ids)
def test_signature_listing_names_real_callables(block):
    checked = 0
    for line in block.text.splitlines():
        for call in re.split(r',\s+(?=[a-z_]+\.)', line.split('#')[0].strip()):
            m = _SIGNATURE.match(call)
            if not m or m.group(1).split('.')[0] not in _NAMESPACES:
                continue
            obj = _resolve(m.group(1))
            params = inspect.signature(obj).parameters
            for param in filter(None, (p.split('=')[0].strip(' *') for p in m.group(2).split(','))):
                assert param in params, '%s: %s has no parameter %r' % (block.id, m.group(1), param)
            checked += 1
    assert checked >= 5


# --- sh: commands to type ---------------------------------------------------------------------

PROGRAMS = {'python', 'python3', 'pip', 'autograph', 'mkdocs', 'dot', '.', 'git', 'cd'}


@functools.lru_cache(maxsize=None)
def _help(*argv):
    proc = run_python(list(argv) + ['--help'], timeout=120, check=False, cwd=ROOT)
    assert proc.returncode == 0, (argv, proc.stderr)
    return proc.stdout


def _check_python(args, where):
    if args[:2] in (['-m', 'venv'], ['-m', 'pip'], ['-m', 'pytest']):
        return
    if args[0] == '-m':
        assert importlib.util.find_spec(args[1]) is not None, where
        target, rest = args[:2], args[2:]
    else:
        assert os.path.isfile(os.path.join(ROOT, args[0])), where
        target, rest = args[:1], args[1:]
    if target == ['-m', 'autograph'] and rest and not rest[0].startswith('-'):
        target, rest = target + rest[:1], rest[1:]
    text = _help(*target)
    for token in rest:
        if token.startswith('--'):
            assert token.split('=')[0] in text, '%s: %s not in %s --help' % (where, token, target)


@pytest.mark.parametrize('block', of_kind('sh'), ids=ids)
def test_shell_commands_name_real_programs_files_and_options(block):
    for line in block.text.splitlines():
        line = line.split(' #')[0].strip()
        if not line or line.startswith('#'):
            continue
        for command in re.split(r'\s*(?:&&|\||;|&)\s*', line):
            words = [w for w in shlex.split(command) if not re.match(r'^[A-Z_]+=', w)]
            if not words:
                continue
            where = '%s: %s' % (block.id, command)
            assert words[0] in PROGRAMS, where
            if words[0] in ('python', 'python3'):
                _check_python(words[1:], where)
            elif words[0] == 'autograph':
                _check_python(['-m', 'autograph'] + [w for w in words[1:] if w[:1] != '['
                                                     and w.isupper() is False], where)


# --- toml: a table of pyproject.toml ----------------------------------------------------------

@pytest.mark.parametrize('block', of_kind('toml'), ids=ids)
def test_toml_block_is_a_table_of_pyproject(block):
    with open(os.path.join(ROOT, 'pyproject.toml'), encoding='utf-8') as f:
        pyproject = f.read()
    header, *entries = block.text.strip().splitlines()
    assert header in pyproject.splitlines(), block.id
    for entry in entries:
        assert re.match(r'^\w+ = "[\w.]+:\w+"$', entry), (block.id, entry)
    if sys.version_info >= (3, 11):
        import tomllib  # pylint: disable=import-outside-toplevel
        assert tomllib.loads(block.text)
