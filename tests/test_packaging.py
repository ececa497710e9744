"""Packaging and set-up: what a fresh clone relies on (pyproject, versions, README, .ci/run)."""
import os
import re
import subprocess
import sys

import autograph
import runtime
from tests.checkout import checkout_env

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
    for requirement in ('"pytest>=9"', '"ipython>=8.19"', '"onnx>=1.17"', '"onnxruntime>=1.20"'):
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
    venv = 'python3 -m venv .venv && . .venv/bin/activate && python -m pip install -e '
    assert test_cmd == venv + '".[test]" && python -m pytest'
    assert main_cmd == venv + '. && python examples/quickstart.py'
    # .ci/run extracts the command from the README rather than repeating it.
    script = os.path.join(ROOT, '.ci', 'run')
    extract = re.search(r'^cmd=\$\((.*)\)$', read('.ci/run'), re.M).group(1)
    got = subprocess.run(['bash', '-c', extract], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout.strip()
    assert got == test_cmd
    assert 'if [ "$rc" -eq 5 ]' in read('.ci/run') and os.access(script, os.X_OK)


def test_license_file_is_apache_2_and_goes_into_the_distribution():
    text = read('LICENSE')
    assert text.lstrip().startswith('Apache License\n') and 'Version 2.0, January 2004' in text
    assert 'END OF TERMS AND CONDITIONS' in text
    assert re.search(r'^license-files = \["LICENSE"\]$', read('pyproject.toml'), re.M)


def test_ci_builds_the_docs_strict_with_the_docs_extra():
    script = read('.ci/run')
    assert 'pip install -q -e ".[docs]"' in script and 'mkdocs build --strict' in script
    extra = re.search(r'^docs = \[(.*?)\]$', read('pyproject.toml'), re.M | re.S).group(1)
    assert '"mkdocs' in extra and '"mkdocstrings[python]' in extra
    assert re.search(r'^strict: true$', read('mkdocs.yml'), re.M)


_WITHOUT_EXTRAS = '''
import sys
OPTIONAL = ('jax', 'jaxlib', 'IPython', 'hypothesis', 'torch')


class NotInstalled:  # as if the optional packages were not installed
    def find_spec(self, name, path=None, target=None):
        if name.partition('.')[0] in OPTIONAL:
            raise ModuleNotFoundError('No module named %r' % name)


sys.meta_path.insert(0, NotInstalled())
import pytest
sys.exit(pytest.main(['--collect-only', '-p', 'no:cacheprovider', '-p', 'no:hypothesispytest',
                      'tests']))
'''


def test_the_suite_collects_without_the_optional_packages_but_where_a_module_needs_one():
    # (tests/torch's modules import torch at the top; the test extra has it on Python 3.11.)
    proc = subprocess.run([sys.executable, '-c', _WITHOUT_EXTRAS], cwd=ROOT, capture_output=True,
                          text=True, check=False, env=checkout_env(), timeout=600)
    failed = sorted(set(re.findall(r'^ERROR (tests/\S+\.py)', proc.stdout, re.M)))
    # Only modules that import an optional package at the top (all in the test extra) fail.
    needs = {}
    for path in failed:
        top = re.findall(r'^(?:import|from) (jax|IPython|hypothesis|torch)\b', read(path), re.M)
        needs[path] = top
    assert failed and all(needs.values()), (needs, proc.stdout[-3000:])
    extra = re.search(r'^test = \[(.*?)\]$', read('pyproject.toml'), re.M | re.S).group(1)
    for package in {p for packages in needs.values() for p in packages}:
        assert '"%s' % package.lower() in extra.lower(), package
