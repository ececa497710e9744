"""Reproducible speed comparisons of the runtime against hand-written numpy (not timed tests)."""
import os

# The on-disk conversion cache is off in the benchmarks (and the processes they start): a
# "cold" conversion must convert, and thousands of generated functions must not fill the
# user's cache. run.py turns it on where it measures it (the fresh first call, "+disk").
os.environ["AUTOGRAPH_CACHE_DIR"] = ""
