"""Static analyses over annotated gast trees: activity, reaching definitions, liveness."""
