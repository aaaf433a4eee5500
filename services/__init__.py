"""Fallen backend: dice, deck, rules, matchmaking and projections services."""
