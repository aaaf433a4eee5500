"""Fallen backend: dice, deck, rules, matchmaking and projections services."""

from services.native import install as _install_native

_install_native()  # compiled engine modules, or their sources when stale (services/native.py)
