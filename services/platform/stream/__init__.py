"""The stream every appended event reaches: in-process, Redis feed, Kafka relay and feed."""
