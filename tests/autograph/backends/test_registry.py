"""Backend discovery through the `autograph.backends` entry-point group."""

import importlib.metadata
import importlib.util
import os
import re
import sys

import pytest

from autograph import backends
from autograph.backends import registry
from tests.autograph.fake_backend import FakeBackend
from tests.checkout import ROOT
from tests.checkout import checkout_env
from tests.checkout import run_python



@pytest.fixture
def fresh_discovery(monkeypatch):
    """Lets `discover()` run again; removes what it registered afterwards."""
    before = registry.registered_backends()
    monkeypatch.setattr(registry, '_discovered', [False])
    yield
    for backend in registry.registered_backends():
        if backend not in before:
            registry.unregister_backend(backend)


def _install_dist(tmp_path, monkeypatch, entry_points):
    info = tmp_path / 'plugin_dist-1.0.dist-info'
    info.mkdir()
    (info / 'METADATA').write_text('Metadata-Version: 2.1\nName: plugin-dist\nVersion: 1.0\n')
    (info / 'entry_points.txt').write_text(
        '[autograph.backends]\n' + ''.join('%s = %s\n' % kv for kv in entry_points.items()))
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()


def test_discover_loads_entry_points(tmp_path, monkeypatch, fresh_discovery):
    _install_dist(tmp_path, monkeypatch, {'fake': 'tests.autograph.fake_backend:FakeBackend'})
    found = [b for b in backends.registered_backends() if type(b) is FakeBackend]
    assert len(found) == 1  # the class named by the entry point, instantiated and registered


def test_broken_entry_point_warns_and_is_skipped(tmp_path, monkeypatch, fresh_discovery):
    _install_dist(tmp_path, monkeypatch, {'broken': 'no_such_module_xyz:BACKEND'})
    with pytest.warns(UserWarning, match="entry point 'broken'"):
        registry.discover()


def test_pyproject_entry_points_name_backends():
    with open(os.path.join(ROOT, 'pyproject.toml')) as f:
        section = f.read().split('[project.entry-points."autograph.backends"]\n')[1]
    points = dict(re.findall(r'^(\w+) = "([^"]+)"$', section.split('\n\n')[0], re.M))
    assert set(points) == {'runtime', 'jax', 'torch'}
    for value in points.values():
        module, _, attr = value.partition(':')
        if module == 'autograph.backends.torch' and importlib.util.find_spec('torch') is None:
            continue  # the test extra has torch on CI's Python only, where tests/torch runs
        __import__(module)
        assert isinstance(getattr(sys.modules[module], attr), backends.Backend)


def _fresh_output(script):
    """What `script` prints in a new interpreter with this checkout on the path."""
    return run_python(['-c', script]).stdout


def test_loading_the_jax_backend_does_not_import_jax():
    script = ('import sys, autograph.backends.jax as j; '
              'print("jax" in sys.modules, j.BACKEND.is_staged(1.0))')
    assert _fresh_output(script) == 'False False\n'


def test_autograph_names_no_backend_package():
    offenders = []
    for folder, _, files in os.walk(os.path.join(ROOT, 'autograph')):
        for name in files:
            if not name.endswith('.py') or name == 'cli.py':  # cli's `graph` imports lazily
                continue
            with open(os.path.join(folder, name)) as f:
                for number, line in enumerate(f, 1):
                    if 'import runtime' in line or 'from runtime' in line:
                        offenders.append('%s:%d' % (name, number))
    assert offenders == []


def test_jax_functions_are_never_converted_even_before_a_tracer_is_seen():
    # A fresh process: jax imported, the backend not yet loaded; converted code calls a
    # pure-Python jax function before any control flow meets a tracer.
    script = ('import jax, autograph.impl.api as api; '
              'print(api._module_is_allowlisted("jax._src.nn.functions"), '
              'api._module_is_allowlisted("optax"))')
    assert _fresh_output(script) == 'True True\n'


_INSTALLED_SCRIPT = """
import sys
import autograph
from autograph.backends import registry
import steps
{before}
print(autograph.convert(steps.steps)(27))  # Python values only: no discovery yet
print(registry.discovered())
owned = 'flax' in registry.owned_modules()  # discovery
print('autograph.backends.jax' in sys.modules, owned)
from tests.autograph.fake_backend import FakeBackend
registry.register_backend(FakeBackend())  # registered after discovery
{after}
print(_ours(registry.registered_backends()))
"""
# The backends these tests place, in order (an installed autograph also declares the runtime's
# backend as an entry point: discovery loads it beside them).
_OURS = """
def _ours(backends):
    return [n for n in (type(b).__name__ for b in backends) if n in ('JaxBackend', 'FakeBackend')]
"""


def _run_installed(tmp_path, before='', after='', dists=('autograph_installed',)):
    """Runs _INSTALLED_SCRIPT in a new process that sees the JAX backend's entry point."""
    import textwrap  # pylint: disable=import-outside-toplevel
    for dist in dists:
        info = tmp_path / ('%s-1.0.dist-info' % dist)
        info.mkdir()
        (info / 'entry_points.txt').write_text(
            '[autograph.backends]\njax = autograph.backends.jax:BACKEND\n')
    (tmp_path / 'steps.py').write_text(textwrap.dedent('''
        def steps(n):
            count = 0
            while n > 1:
                n = n // 2 if n % 2 == 0 else 3 * n + 1
                count += 1
            return count


        def pick(x):
            if x > 0:
                x = x * 2
            return x
    '''))
    script = _OURS + _INSTALLED_SCRIPT.format(before=before, after=after)
    env = checkout_env()  # the dists first: their entry points are the ones found
    env.update(AUTOGRAPH_CACHE_DIR='', PYTHONPATH=str(tmp_path) + os.pathsep + env['PYTHONPATH'])
    proc = run_python(['-c', script], env=env, check=False)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


def test_the_installed_jax_backend_loads_when_asked_for_in_its_discovered_place(tmp_path):
    # jax unused: discovery does not import the JAX backend; it owns its modules all the
    # same, and registered_backends loads it, before the backend registered after discovery.
    lines = _run_installed(tmp_path)
    assert lines == ['111', 'False', 'False True', "['JaxBackend', 'FakeBackend']"]


def test_the_installed_jax_backend_stages_jax_values_in_its_discovered_place(tmp_path):
    # jax imported after the first conversion: its first value loads the backend, which
    # stages it from the place discovery gave it (before the later FakeBackend).
    lines = _run_installed(tmp_path, after='''
import jax, jax.numpy as jnp
print(int(jax.jit(autograph.convert(steps.pick))(jnp.int32(3))))
print(_ours(registry._BACKENDS))''')
    assert lines == ['111', 'False', 'False True', '6', "['JaxBackend', 'FakeBackend']",
                     "['JaxBackend', 'FakeBackend']"]


def test_two_entry_points_of_the_jax_backend_register_it_once(tmp_path):
    lines = _run_installed(tmp_path, dists=('autograph_installed', 'autograph_vendored'))
    assert lines == ['111', 'False', 'False True', "['JaxBackend', 'FakeBackend']"]


def test_the_installed_jax_backend_loads_at_discovery_when_jax_is_imported(tmp_path):
    lines = _run_installed(tmp_path, before='import jax')
    assert lines == ['111', 'False', 'True True', "['JaxBackend', 'FakeBackend']"]


def test_a_deferred_backend_that_fails_to_load_warns_and_leaves_its_place(monkeypatch):
    # A shipped backend whose module cannot be imported (as a broken entry point would be at
    # discovery): the placeholder goes, with a warning, when its library is in use.
    module = 'autograph.backends.ag_missing_backend'
    monkeypatch.setitem(registry.SHIPPED_OWNED_MODULES, module, ('json',))
    placeholder = registry._Deferred(module, 'json')
    monkeypatch.setattr(registry, '_DEFERRED', [placeholder])
    monkeypatch.setattr(registry, '_BACKENDS', registry._BACKENDS + [placeholder])
    assert 'json' in registry.owned_modules()
    with pytest.warns(UserWarning, match='ag_missing_backend could not be loaded'):
        assert registry.backend_for(object()) is None
    assert placeholder not in registry._BACKENDS and registry._DEFERRED == []
    assert 'json' not in registry.owned_modules()


def test_direct_scan_finds_what_importlib_metadata_finds(tmp_path, monkeypatch):
    _install_dist(tmp_path, monkeypatch, {'fake': 'tests.autograph.fake_backend:FakeBackend'})
    other = tmp_path / 'other_dist-2.0.dist-info'
    other.mkdir()
    (other / 'METADATA').write_text('Metadata-Version: 2.1\nName: other-dist\nVersion: 2.0\n')
    (other / 'entry_points.txt').write_text(
        '[console_scripts]\nx = y:z\n\n[autograph.backends]\n# a comment\n'
        'second = pkg.mod:OBJ.attr\n\n[other.group]\nnot_this = a:b\n')
    want = sorted((e.name, e.value) for e in importlib.metadata.entry_points(
        group=registry.ENTRY_POINT_GROUP))
    got = sorted(registry._entry_points(registry.ENTRY_POINT_GROUP))  # pylint: disable=protected-access
    assert got == want
    assert ('second', 'pkg.mod:OBJ.attr') in got and ('fake', 'tests.autograph.fake_backend:FakeBackend') in got


def test_direct_scan_reads_crlf_and_non_ascii_files_as_importlib_metadata(tmp_path,
                                                                         monkeypatch):
    info = tmp_path / 'crlf_dist-1.0.dist-info'
    info.mkdir()
    (info / 'METADATA').write_text('Metadata-Version: 2.1\nName: crlf-dist\nVersion: 1.0\n')
    (info / 'entry_points.txt').write_bytes(
        '[autograph.backends]\r\nnaïve = pkg.mödule:BACKEND\r\n\r\n[x]\r\ny = z:w\r\n'
        .encode('utf-8'))
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    want = sorted((e.name, e.value) for e in importlib.metadata.entry_points(
        group=registry.ENTRY_POINT_GROUP))
    got = sorted(registry._entry_points(registry.ENTRY_POINT_GROUP))  # pylint: disable=protected-access
    assert got == want
    assert ('naïve', 'pkg.mödule:BACKEND') in got


def test_discovery_does_not_import_importlib_metadata():
    script = ('import sys, autograph.backends as b; b.discover(); '
              'print("importlib.metadata" in sys.modules)')
    assert _fresh_output(script) == 'False\n'


# -- discovery on demand ----------------------------------------------------------------------

_PROBING_PLUGIN = '''
import contextlib
from tests.autograph.fake_backend import FakeBackend


class ProbingFake(FakeBackend):
    owned_modules = ('lazy_plugin_lib',)

    @contextlib.contextmanager
    def _probing(self):
        self.calls.append('probe')
        yield

    def probe(self):
        return self._probing()
'''


def _install_probing_plugin(tmp_path, monkeypatch):
    (tmp_path / 'lazy_plugin.py').write_text(_PROBING_PLUGIN)
    _install_dist(tmp_path, monkeypatch, {'lazy': 'lazy_plugin:ProbingFake'})


def _loaded_plugin():
    return [b for b in registry._BACKENDS if type(b).__name__ == 'ProbingFake']


def test_a_value_no_loaded_backend_claims_loads_the_installed_backends(
        tmp_path, monkeypatch, fresh_discovery):
    from tests.autograph.fake_backend import Sym  # pylint: disable=import-outside-toplevel
    _install_probing_plugin(tmp_path, monkeypatch)
    assert not registry.discovered() and _loaded_plugin() == []
    assert registry.backend_for(1.5) is None and not registry.discovered()  # Python: no scan
    backend = registry.backend_for(Sym(3))
    assert registry.discovered() and [backend] == _loaded_plugin()


def _count_up(x):
    while x < 3:
        x = x + 1
    return x


def test_a_loop_variable_loads_its_backend_before_the_loop_test_runs_under_its_probe(
        tmp_path, monkeypatch, fresh_discovery):
    import autograph  # pylint: disable=import-outside-toplevel
    from tests.autograph.fake_backend import Sym  # pylint: disable=import-outside-toplevel
    _install_probing_plugin(tmp_path, monkeypatch)
    result = autograph.convert(_count_up)(Sym(0))
    backend, = _loaded_plugin()
    assert backend.calls[0] == 'probe' and 'while_loop' in backend.calls
    assert result.value == 3


def test_a_module_an_installed_backend_owns_is_never_converted_before_discovery(
        tmp_path, monkeypatch, fresh_discovery):
    from autograph.impl import api  # pylint: disable=import-outside-toplevel
    _install_probing_plugin(tmp_path, monkeypatch)
    assert api._module_is_allowlisted('lazy_plugin_lib.layers')  # pylint: disable=protected-access
    assert registry.discovered() and len(_loaded_plugin()) == 1


def test_converting_with_python_and_runtime_values_does_not_scan_the_entry_points():
    # The runtime's backend is registered by `import runtime`; a numpy array is claimed by
    # none, so it loads the installed backends.
    script = ('import numpy, runtime, autograph, autograph.backends as b\n'
              'from benchmarks.workloads import collatz\n'
              'print(int(runtime.function(collatz)(runtime.constant(27))), b.discovered())\n'
              'print(autograph.convert(collatz)(27), b.discovered())\n'
              'b.is_staged(numpy.zeros(2))\n'
              'print(b.discovered())\n')
    assert _fresh_output(script) == '111 False\n111 False\nTrue\n'
