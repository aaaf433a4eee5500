"""Test-wide fixtures: real servers (redis-server, Tansu) and the parametrized event store."""

import os

from fixtures.servers import event_store, free_port, kafka_bootstrap, redis_url

__all__ = ["event_store", "free_port", "kafka_bootstrap", "redis_url"]

# The compose stack tests need a Docker engine and the built images: `make stack-test`
# (deploy/local/stack-test.sh) prepares both and runs them with FALLEN_STACK=1.
collect_ignore = [] if os.environ.get("FALLEN_STACK") == "1" else ["stack"]
