"""Matchmaking: queues per game and mode, skill ratings, routing, quiet-seat timers."""
