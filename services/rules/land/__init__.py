"""Fallen Land: rules and data for the core game (2-5 players) and the Epic game (6)."""
