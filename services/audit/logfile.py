"""Audit logs as JSON Lines: one canonical audit record per line, in global order."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from services.audit.verify import Mismatch
from services.platform.canonical import canonical_json
from services.platform.envelope import Envelope
from services.platform.games import GAME_ENDED
from services.platform.store.base import EventStore
from services.projections.records import audit_record, game_streams

STREAM_RE = re.compile(r'"stream"\s*:\s*"([^"]*)"')
VERSION_RE = re.compile(r'"version"\s*:\s*(\d+)')


class LoggedRecord(dict[str, Any]):
    """An audit record read from a log line, keeping the line: the verifier hashes the
    payload's text from it instead of encoding the payload again (services/audit/verify.py)."""

    __slots__ = ("line",)

    def __init__(self, fields: dict[str, Any], line: str) -> None:
        super().__init__(fields)
        self.line = line


def to_jsonl(records: Iterable[Mapping[str, Any]]) -> str:
    """Return records as JSON Lines (canonical JSON, one per line)."""
    return "".join(canonical_json(dict(r)) + "\n" for r in records)


def parse_jsonl(text: str) -> tuple[list[dict[str, Any]], list[tuple[int, Mismatch]]]:
    """Return the records of a JSON Lines log and a mismatch per unreadable line.

    An unreadable line is named by the stream and version it still shows, if any.
    """
    records: list[dict[str, Any]] = []
    bad: list[tuple[int, Mismatch]] = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
            if not isinstance(rec, dict):
                raise ValueError("not a JSON object")
            rec = LoggedRecord(rec, line)
        except ValueError as exc:
            stream = STREAM_RE.search(line)
            version = VERSION_RE.search(line)
            what = f"line {n} is not a valid JSON record ({exc})"
            mismatch = Mismatch(
                stream.group(1) if stream else "?", int(version.group(1)) if version else 0, what
            )
            bad.append((len(records), mismatch))
            continue
        records.append(rec)
    return records, bad


def merge_streams(streams: Iterable[list[Envelope]]) -> list[Envelope]:
    """Return the events of several streams in global order."""
    return sorted((e for s in streams for e in s), key=lambda e: e.position)


async def store_records(store: EventStore, game_id: str) -> list[dict[str, Any]]:
    """Return a game's audit records (every stream of the game) read from an event store."""
    envs = merge_streams([await store.read(s, 1) for s in game_streams(game_id)])
    return [audit_record(e) for e in envs]


def is_finished(records: Iterable[Mapping[str, Any]], game_id: str) -> bool:
    """Return whether the records hold the game's GameEnded and revealed dice seed."""
    ended = revealed = False
    for r in records:
        ended |= r.get("stream") == f"game-{game_id}" and r.get("type") == GAME_ENDED
        revealed |= r.get("stream") == f"dice-{game_id}" and r.get("type") == "DiceSeedRevealed"
    return ended and revealed
