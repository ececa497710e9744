"""Reproducible speed comparisons of the runtime against hand-written numpy (not timed tests)."""
import os

# The on-disk conversion cache is off in the benchmarks (and the processes they start): a
# "cold" conversion must convert, and thousands of generated functions must not fill the
# user's cache. run.py turns it on where it measures it (the fresh first call, "+disk"), by
# naming its own directory in AUTOGRAPH_BENCH_CACHE_DIR (an AUTOGRAPH_CACHE_DIR of the
# user's shell is not used).
os.environ["AUTOGRAPH_CACHE_DIR"] = os.environ.get("AUTOGRAPH_BENCH_CACHE_DIR", "")
