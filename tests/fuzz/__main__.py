"""`python -m tests.fuzz --programs N --seed S`: the long differential fuzzing run.

Generates N programs from seed S, runs each three ways (plain, converted, traced) and prints
every failure shrunk to a minimal program, ready to paste into tests/fuzz/regressions.py.
Exits 1 when any program failed.

With `--backend torch` each program is converted and exported with torch.export instead
(tests/torch/fuzz_way.py) and compared with plain Python; failures are printed as found.
The programs run in worker processes forked from this one (tests/fuzz/isolation.py): after
a program that timed out, or that killed its worker, the next one runs in a fresh process.

With `--cache-dir DIR` the on-disk conversion cache is on, in DIR, and each program is written
to a file named after its text (in DIR.programs), so that a second run with the same seed
loads every conversion from the cache; the cache's counts are printed at the end.
"""

import argparse
import collections
import os
import sys
import time

# Thousands of generated programs must not fill the user's on-disk conversion cache
# (unless --cache-dir names one).
os.environ['AUTOGRAPH_CACHE_DIR'] = ''

from tests.fuzz import harness  # noqa: E402
from tests.fuzz import isolation  # noqa: E402
from tests.fuzz import shrink  # noqa: E402
from tests.fuzz.generator import ALL_FEATURES  # noqa: E402
from tests.fuzz.generator import FEATURES  # noqa: E402
from tests.fuzz.generator import generate  # noqa: E402


def main(argv=None):
    """Runs the fuzzer from the command line.

    Args:
        argv: the arguments (default: sys.argv[1:]).

    Returns:
        The exit code: 0 when every program agreed, 1 otherwise.
    """
    args = _parser().parse_args(argv)
    if args.cache_dir:
        _use_cache(os.path.abspath(args.cache_dir))
    features = FEATURES if args.features is None else frozenset(
        f for f in args.features.split(",") if f)

    check, runs = _backend(args.backend)
    stats = collections.Counter()
    seen = {}
    start = time.perf_counter()

    def task(index, counts):
        return check(_program(args, features, index), counts)

    indices = list(range(args.start, args.start + args.programs))
    for i, failures, counts in isolation.outcomes(indices, task, args.backend == "torch"):
        stats.update(counts)
        if failures:
            stats["failed"] += 1
            if _record(seen, _program(args, features, i), failures[0], args):
                break
        if (i + 1 - args.start) % 100 == 0:
            print("... {} programs, {:.0f}s, {}".format(
                i + 1 - args.start, time.perf_counter() - start, dict(stats)), file=sys.stderr)
    elapsed = time.perf_counter() - start
    print("{} programs in {:.1f}s: {} {} runs, {} documented limitations, {} failed "
          "({} distinct)".format(stats["programs"], elapsed, stats[runs], runs,
                                 stats["limitation"], stats["failed"], len(seen)))
    for key in sorted(stats):
        if key.startswith(("limitation:", "known bug:", "torch semantics:")):
            print("  {}: {} runs".format(key, stats[key]))
    if args.cache_dir:
        from autograph.impl import disk_cache  # pylint: disable=import-outside-toplevel
        print("disk cache {}: {}".format(args.cache_dir, disk_cache.stats))
    return 1 if seen else 0


def _program(args, features, index):
    """Program `index` of the run: seed 'SEED:index'."""
    return generate("{}:{}".format(args.seed, index), max_stmts=args.max_stmts,
                    max_depth=args.max_depth, features=features)


def _record(seen, program, failure, args):
    """Prints a failed program (in full when its kind of failure is new); returns whether
    the run should stop (args.max_failures distinct kinds seen)."""
    key = (failure.signature(), failure.detail[:40])
    if key in seen:
        print("seed {!r}: failed as {!r} did: {}".format(program.seed, seen[key], failure))
        sys.stdout.flush()
        return False
    seen[key] = program.seed
    _report(program, failure, not args.no_shrink and args.backend == "runtime")
    return len(seen) >= args.max_failures


def _parser():
    """The command line's arguments."""
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__)
    parser.add_argument("--programs", type=int, default=2000, help="number of programs")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first program")
    parser.add_argument("--start", type=int, default=0,
                        help="index of the first program (program i is seed 'SEED:i'), to run "
                        "a long run in chunks or one program again")
    parser.add_argument("--max-stmts", type=int, default=24, help="statements per program")
    parser.add_argument("--max-failures", type=int, default=20,
                        help="stop after this many distinct failure signatures")
    parser.add_argument("--features", default=None,
                        help="comma-separated generator features (default: {}; known: {})"
                        .format(",".join(sorted(FEATURES)), ",".join(sorted(ALL_FEATURES))))
    parser.add_argument("--no-shrink", action="store_true", help="print failures as found")
    parser.add_argument("--backend", choices=("runtime", "torch"), default="runtime",
                        help="runtime: converted and traced with runtime.function; torch: "
                        "exported with torch.export (needs torch)")
    parser.add_argument("--max-depth", type=int, default=3, help="nesting of statements")
    parser.add_argument("--cache-dir", default=None,
                        help="turn the on-disk conversion cache on, in this directory")
    return parser


def _backend(name):
    """(check(program, stats) -> failures, the stats key that counts staged runs)."""
    if name == "torch":
        from tests.torch import fuzz_way  # pylint: disable=import-outside-toplevel
        return fuzz_way.check_program, "exported"
    return (lambda program, stats: harness.check_program(program, stats=stats)), "traced"


def _use_cache(directory):
    """Turns the disk cache on in `directory`; programs go to files named after their text."""
    from autograph.impl import disk_cache  # pylint: disable=import-outside-toplevel
    os.environ['AUTOGRAPH_CACHE_DIR'] = directory
    disk_cache.reset()
    # every program's entries kept, so that a second run can load them all
    disk_cache.MAX_ENTRIES = 1 << 20
    disk_cache.MAX_BYTES = 16 << 30
    sys.dont_write_bytecode = False
    harness.set_program_directory(directory.rstrip(os.sep) + ".programs")


def _report(program, failure, do_shrink):
    print("=" * 100)
    print("seed {!r}: {}".format(program.seed, failure))
    source, inputs = program.source, program.inputs
    if do_shrink:
        source, inputs = shrink.shrink(source, inputs, program.param_types, failure)
        print("shrunk to (inputs {}, param types {}):".format(inputs, program.param_types))
    print(source)
    sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
