"""Test-wide fixtures: real servers (redis-server, Tansu) and the parametrized event store."""

from fixtures.servers import event_store, free_port, kafka_bootstrap, redis_url

__all__ = ["event_store", "free_port", "kafka_bootstrap", "redis_url"]
