"""`python -m benchmarks`: the full suite (benchmarks/run.py), or ops_bench until it exists."""
import importlib.util
import sys


def main(argv=None):
    """Runs the benchmark suite.

    Args:
        argv: Command-line arguments (default sys.argv[1:]).

    Returns:
        The process exit code.
    """
    argv = sys.argv[1:] if argv is None else argv
    if importlib.util.find_spec("benchmarks.run") is not None:
        from benchmarks import run
        return run.main(argv) if hasattr(run, "main") else 0
    from benchmarks import ops_bench
    return ops_bench.main(argv)


if __name__ == "__main__":
    sys.exit(main())
