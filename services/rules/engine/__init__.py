"""The shared engine kernel every game is built on (see README.md in this folder)."""
