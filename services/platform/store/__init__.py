"""Event stores: the EventStore contract and its SQLite and Redis implementations."""
