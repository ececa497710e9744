"""This checkout's root directory, and running Python in a fresh process on its packages.

For the tests that need a new interpreter (imports, logging set-up, examples, the garbage
collector's state after an import).
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def checkout_env():
    """The environment for a script of this checkout: its packages first on the path (an
    installed copy, e.g. an editable install of another checkout, must not shadow them)."""
    path = os.environ.get('PYTHONPATH')
    return dict(os.environ, PYTHONPATH=ROOT if not path else ROOT + os.pathsep + path)


def run_python(args, env=None, timeout=120, check=True, cwd=None):
    """Runs this interpreter with `args` (a script path, or '-c' and code, and arguments).

    Args:
      args: the interpreter's arguments, a list.
      env: the environment (default: checkout_env()).
      timeout: seconds.
      check: raise CalledProcessError on a non-zero exit status.
      cwd: the working directory (default: this one).

    Returns:
      The CompletedProcess, with stdout and stderr as text.
    """
    return subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          env=checkout_env() if env is None else env, timeout=timeout,
                          check=check, cwd=cwd)


def marked_for_another_python(package):
    """Whether the test extra installs `package` only on another Python (a marker in
    pyproject.toml, such as torch's `python_version == '3.11'` or flax's `>= '3.11'`)."""
    with open(os.path.join(ROOT, 'pyproject.toml'), encoding='utf-8') as f:
        extra = re.search(r'^test = \[(.*?)\]$', f.read(), re.M | re.S).group(1)
    marker = re.search(r'"%s[^";]*; python_version (==|>=) \'(\d+)\.(\d+)\'"' % package, extra)
    if marker is None:
        return False
    wanted, running = (int(marker.group(2)), int(marker.group(3))), sys.version_info[:2]
    return running != wanted if marker.group(1) == '==' else running < wanted
