"""Audit: verification of a game's log (chain, dice, shuffles, state replay), export, disputes."""
