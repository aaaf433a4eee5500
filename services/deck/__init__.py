"""Deck service: decks, piles and hands per game with committed shuffles (docs/deck.md)."""
