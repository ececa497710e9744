"""Standalone AutoGraph: converts Python control flow into functional, stageable calls."""
