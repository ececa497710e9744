"""Soak: converts and traces many short-lived functions and reports resident memory.

    python -m benchmarks.soak_memory [--functions 20000]
    python -m benchmarks.soak_memory --module-files 20000


Each round makes a closure, a lambda and (every tenth round) a module loaded afresh from a
file with a 1 MB global; each is converted (autograph.convert) and traced (runtime.function),
called, checked and dropped. Resident memory (VmRSS) is printed every tenth of the run: it
stays flat when the caches hold nothing the user dropped.

With `--module-files N`, each round instead loads a module from a new file of its own text
(N files in all, each deleted after use) and converts its function with the on-disk
conversion cache on (in a temporary directory): memory stays flat when the disk cache's
memory of the files it hashed is bounded.
"""

import argparse
import gc
import importlib.util
import linecache
import os
import tempfile

import autograph as ag
import runtime as tf

_MODULE = '''
import numpy as np

BIG = np.ones(1 << 17)  # 1 MB


def step(x):
    while x > 10:
        x -= 3
    return x
'''


def rss_mb():
    """Resident memory of this process in MB (Linux /proc)."""
    with open('/proc/self/status') as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1]) / 1024
    return float('nan')


def _closure(k):
    def fn(x):
        if x > k:
            return x - k
        return x + k
    return fn


def _load(directory, i):
    path = os.path.join(directory, 'soak_module_%d.py' % i)
    with open(path, 'w') as f:
        f.write(_MODULE)
    spec = importlib.util.spec_from_file_location('soak_module_%d' % i, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def one_round(i, directory):
    """Converts and traces the round's functions; returns how many it made."""
    fn = _closure(i % 7)
    assert ag.convert(fn, strict=True)(3) == (3 - i % 7 if 3 > i % 7 else 3 + i % 7)
    assert int(tf.function(fn)(tf.constant(3)).numpy()) == ag.convert(fn)(3)
    lam = lambda x: x * 2 if x > 0 else -x  # noqa: E731
    assert ag.convert(lam)(-4) == 4
    assert int(tf.function(lam)(tf.constant(5)).numpy()) == 10
    made = 2
    if i % 10 == 0:
        module = _load(directory, i)
        converted = ag.convert(module.step, strict=True)
        assert converted(20) == 8 and converted.__code__.co_filename == module.__file__
        assert int(tf.function(module.step)(tf.constant(20)).numpy()) == 8
        os.remove(module.__file__)
        made += 1
    return made


_NUMBERED_MODULE = '''
# %s

def step(x):
    while x > %d:
        x -= 3
    return x
'''


def module_file_round(i, directory):
    """Converts the function of a module loaded from a new file (its own text); deletes it."""
    path = os.path.join(directory, 'soak_file_%d.py' % i)
    with open(path, 'w') as f:
        f.write(_NUMBERED_MODULE % ('padding ' * 256, i % 5 + 10))  # 2 KB of text a file
    spec = importlib.util.spec_from_file_location('soak_file_%d' % i, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert ag.convert(module.step)(20 + i % 3) == module.step(20 + i % 3)
    os.remove(path)


def soak_module_files(count):
    """Runs `count` module_file_rounds with the disk cache on; prints memory as it goes."""
    from autograph.impl import disk_cache  # pylint: disable=import-outside-toplevel
    with tempfile.TemporaryDirectory() as directory:
        disk_cache.set_directory(os.path.join(directory, 'cache'))
        print('files   rss_mb   linecache_files')
        for i in range(count):
            module_file_round(i, directory)
            if (i + 1) % max(count // 10, 1) == 0:
                gc.collect()
                print('%5d   %6.1f   %d' % (i + 1, rss_mb(), len(linecache.cache)), flush=True)
        print('disk cache: %s' % disk_cache.stats)
        disk_cache.reset()
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--functions', type=int, default=20000)
    parser.add_argument('--module-files', type=int, default=0,
                        help='soak over this many module files with the disk cache on instead')
    args = parser.parse_args(argv)
    if args.module_files:
        return soak_module_files(args.module_files)
    import warnings
    warnings.simplefilter('ignore')  # the retracing warning is expected here
    made, i, report_every = 0, 0, max(args.functions // 10, 1)
    next_report = report_every
    with tempfile.TemporaryDirectory() as directory:
        print('functions   rss_mb')
        while made < args.functions:
            made += one_round(i, directory)
            i += 1
            if made >= next_report:
                gc.collect()
                print('%9d   %6.1f' % (made, rss_mb()), flush=True)
                next_report += report_every
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
