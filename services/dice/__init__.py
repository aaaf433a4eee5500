"""Dice service: provably fair rolls and shuffles (docs/fairness.md)."""
