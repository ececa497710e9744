"""Packaging and set-up: what a fresh clone relies on (pyproject, versions, README, .ci/run)."""
import os
import re
import subprocess

import autograph
import runtime

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read(name):
    with open(os.path.join(ROOT, name), encoding='utf-8') as f:
        return f.read()


def test_version_is_the_distributions_on_both_packages():
    version = re.search(r'^version = "([^"]+)"$', read('pyproject.toml'), re.M).group(1)
    assert autograph.__version__ == runtime.__version__ == version


def test_license_is_an_spdx_expression_with_the_setuptools_that_reads_it():
    text = read('pyproject.toml')
    assert re.search(r'^license = "Apache-2.0"$', text, re.M)
    floor = re.search(r'"setuptools>=(\d+)"', text).group(1)
    assert int(floor) >= 77  # PEP 639 license expressions; older setuptools warns or fails
    assert re.search(r'^requires-python = ">=3.10"$', text, re.M)


def test_test_extra_has_ipython_and_floors_that_need_python_3_10():
    extra = re.search(r'^test = \[(.*?)\]$', read('pyproject.toml'), re.M | re.S).group(1)
    for requirement in ('"pytest>=9"', '"ipython>=8.19"'):
        assert requirement in extra
    # torch exactly as tested (a range would take the newest release, a CUDA build on Linux),
    # on CI's Python, where tests/torch runs
    assert '"torch==2.13.0; python_version == \'3.11\'"' in extra


def readme_block_after(marker):
    text = read('README.md')
    block = text[text.index(marker):].split('```')[1]
    return block.strip()


def test_readme_commands_make_a_venv_and_ci_runs_the_test_command():
    test_cmd = readme_block_after('Run the tests:')
    main_cmd = readme_block_after('Run the main job')
    venv = 'python3 -m venv .venv && . .venv/bin/activate && python -m pip install -e ".[test]"'
    assert test_cmd == venv + ' && python -m pytest'
    assert main_cmd == venv + ' && python examples/quickstart.py'
    # .ci/run extracts the command from the README rather than repeating it.
    script = os.path.join(ROOT, '.ci', 'run')
    extract = re.search(r'^cmd=\$\((.*)\)$', read('.ci/run'), re.M).group(1)
    got = subprocess.run(['bash', '-c', extract], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout.strip()
    assert got == test_cmd
    assert 'if [ "$rc" -eq 5 ]' in read('.ci/run') and os.access(script, os.X_OK)
