"""Converters: one tree transformer per Python language feature."""
