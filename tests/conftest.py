"""Test-wide fixtures: real servers (redis-server, Tansu) and the parametrized event store."""

import os

import pytest
from fixtures.servers import event_store, free_port, kafka_bootstrap, redis_url

__all__ = ["event_store", "free_port", "kafka_bootstrap", "redis_url"]

# The compose stack tests need a Docker engine and the built images: `make stack-test`
# (deploy/local/stack-test.sh) prepares both and runs them with FALLEN_STACK=1.
collect_ignore = [] if os.environ.get("FALLEN_STACK") == "1" else ["stack"]

# Games the tests create start at once: a seat that gave no client seed at creation plays
# with the empty seed, as after the seed deadline (docs/fairness.md, "Client seeds"). The
# tests of the seed gate give their engines and servers a real wait.
os.environ.setdefault("FALLEN_SEED_WAIT_S", "0")

SERVER_FIXTURES = {"redis_url", "kafka_bootstrap"}


def uses_servers(item: pytest.Item) -> bool:
    """Return whether a test talks to Redis or the broker (directly or via event_store[redis])."""
    names = set(getattr(item, "fixturenames", ()))
    if names & SERVER_FIXTURES:
        return True
    callspec = getattr(item, "callspec", None)
    return (
        "event_store" in names
        and callspec is not None
        and (callspec.params.get("event_store") == "redis")
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With FALLEN_TEST_SERVER_TESTS_ONLY=1 keep only the tests that use the servers: what
    `make stack-test` runs again on testcontainers (the rest ran in `make test` already)."""
    if os.environ.get("FALLEN_TEST_SERVER_TESTS_ONLY") != "1":
        return
    keep = [item for item in items if uses_servers(item)]
    dropped = [item for item in items if not uses_servers(item)]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep
