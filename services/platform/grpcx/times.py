"""google.protobuf.Timestamp, the API's one type for a point in time."""

from __future__ import annotations

from datetime import datetime

from google.protobuf.timestamp_pb2 import Timestamp


def from_seconds(seconds: float) -> Timestamp:
    """Return the Timestamp of seconds since the Unix epoch (UTC)."""
    stamp = Timestamp()
    if seconds > 0:
        stamp.FromNanoseconds(round(seconds * 1e9))
    return stamp


def from_iso(text: str) -> Timestamp | None:
    """Return the Timestamp of an ISO-8601 time with an offset, or None when unreadable."""
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        return None
    stamp = Timestamp()
    stamp.FromDatetime(when)
    return stamp
