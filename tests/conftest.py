"""Test-session settings shared by every test."""
import os
import sys

import pytest

from tests.checkout import marked_for_another_python

# The on-disk cache of converted code (autograph/impl/disk_cache.py) is off for the suite, in
# this process and in the processes tests start: each test converts afresh and nothing is
# written to the user's cache directory. tests/autograph/impl/test_disk_cache.py turns it on
# in temporary directories.
os.environ['AUTOGRAPH_CACHE_DIR'] = ''


# The test extra installs torch only on the Python that CI runs (torch's default Linux wheel
# brings several GB of CUDA libraries); on the others the README's test command has no torch,
# and the torch backend's tests are not collected.
# Likewise flax (Python 3.11 and later) for the Flax NNX tests.
collect_ignore = ([name for name, package in (('torch', 'torch'), ('jax_nnx', 'flax'))
                   if marked_for_another_python(package)])


@pytest.fixture(autouse=True)
def _fresh_retracing_detectors():
    """Each test starts with no history of tf.function calls. The frequent-retracing detector
    is keyed by code object, as TensorFlow's, so a test run again with other parameters (one
    lambda's code, new Function objects) would otherwise see the earlier run's traces. The
    runtime is not imported for this: autograph's tests run without it."""
    tracing = sys.modules.get("runtime.function.tracing")
    if tracing is not None:
        tracing._DETECTORS.clear()
    yield
