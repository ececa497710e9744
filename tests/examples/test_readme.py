"""The README's set-up commands: the main job installs the core only, the tests the test extra.

The README's examples and their outputs are run by tests/docs/test_code_blocks.py, with every
other code block of the docs site.
"""
import os
import re

from tests.checkout import ROOT

VENV = 'python3 -m venv .venv && . .venv/bin/activate && python -m pip install -e '


def readme():
    with open(os.path.join(ROOT, 'README.md'), encoding='utf-8') as f:
        return f.read()


def test_readme_keeps_the_two_setup_commands():
    text = readme()
    assert '```\n%s. && python examples/quickstart.py\n```' % VENV in text
    assert '```\n%s".[test]" && python -m pytest\n```' % VENV in text


def test_readme_is_short_and_states_the_python_versions_of_pyproject():
    text = readme()
    assert text.count('\n') <= 250
    with open(os.path.join(ROOT, 'pyproject.toml'), encoding='utf-8') as f:
        pyproject = f.read()
    versions = re.findall(r'"Programming Language :: Python :: (3\.\d+)"', pyproject)
    assert 'Python %s to %s.' % (versions[0], versions[-1]) in text
    assert 'requires-python = ">=%s"' % versions[0] in pyproject


def test_the_main_job_needs_no_extra():
    # The quickstart imports only the core and the runtime (no jax, no IPython, no pytest).
    with open(os.path.join(ROOT, 'examples', 'quickstart.py'), encoding='utf-8') as f:
        imports = set(re.findall(r'^(?:import|from) (\w+)', f.read(), re.M))
    assert imports <= {'autograph', 'runtime', 'numpy'}, imports


def test_readme_names_the_core_dependencies_of_pyproject():
    with open(os.path.join(ROOT, 'pyproject.toml'), encoding='utf-8') as f:
        block = re.search(r'^dependencies = \[(.*?)\]', f.read(), re.M | re.S).group(1)
    names = re.findall(r'"([\w-]+)', block)
    assert names == ['gast', 'astunparse', 'numpy']
    assert 'The core needs only `gast`, `astunparse` and `numpy`.' in readme()
