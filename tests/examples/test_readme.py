"""Checks that every command output pasted in README.md matches what the command prints now."""
import os
import re
import shlex
import subprocess
import sys

import pytest

from tests.checkout import ROOT
from tests.checkout import checkout_env

README = os.path.join(ROOT, 'README.md')

# A pasted run: a ```console block whose first line is `$ python ...`; the rest is its stdout.
_BLOCK_RE = re.compile(r'^```console\n\$ (python [^\n]*)\n(.*?)^```$', re.M | re.S)


def pasted_runs():
    with open(README, encoding='utf-8') as f:
        text = f.read()
    return [(m.group(1), m.group(2)) for m in _BLOCK_RE.finditer(text)]


def test_readme_has_pasted_runs_of_the_examples_and_the_cli():
    commands = [command for command, _ in pasted_runs()]
    assert 'python examples/quickstart.py' in commands
    assert any(c.startswith('python -m autograph dump ') for c in commands)
    assert any(c.startswith('python -m autograph graph ') for c in commands)
    assert len(commands) >= 6


def test_readme_keeps_the_two_setup_commands():
    with open(README, encoding='utf-8') as f:
        text = f.read()
    venv = 'python3 -m venv .venv && . .venv/bin/activate && python -m pip install -e ".[test]"'
    assert '```\n%s && python examples/quickstart.py\n```' % venv in text
    assert '```\n%s && python -m pytest\n```' % venv in text


@pytest.mark.parametrize('command, expected', pasted_runs(), ids=lambda v: v[:60])
def test_pasted_output_matches_a_fresh_run(command, expected):
    argv = shlex.split(command)
    assert argv[0] == 'python'
    proc = subprocess.run([sys.executable] + argv[1:], capture_output=True, text=True,
                          timeout=300, cwd=ROOT, check=False, env=checkout_env())
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == expected
