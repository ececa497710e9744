"""Reproducible speed comparisons of the runtime against hand-written numpy (not timed tests)."""
