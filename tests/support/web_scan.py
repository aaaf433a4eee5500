"""Run the hidden-information scanner over what the web page (or its gateway) received."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from services.audit.logfile import merge_streams
from services.platform.envelope import Envelope
from services.platform.store.base import EventStore
from services.platform.store.sqlite import SqliteEventStore
from services.projections.records import game_streams
from tests.support.hidden_scan import ID, TOKEN, Knowledge, all_strings, vocabulary

FALLEN_READERS: list[str | None] = ["hero", "dungeon_lord", None]


async def game_envelopes(store: EventStore, game_id: str) -> list[Envelope]:
    """Return every event of a game's streams in global order."""
    return merge_streams([await store.read(s, 1) for s in game_streams(game_id)])


async def _from_file(db: Path, game_id: str) -> list[Envelope]:
    """Return a game's events read from a SQLite store file."""
    store = SqliteEventStore(db)
    try:
        return await game_envelopes(store, game_id)
    finally:
        await store.close()


class Timeline:
    """Each reader's knowledge as of any game-stream version (knowledge only grows)."""

    def __init__(self, game: str, envs: list[Envelope], game_id: str) -> None:
        self.envs = envs
        self.vocab = vocabulary(game, envs)
        self.game_stream = f"game-{game_id}"
        self.index = {(e.stream, e.version): i for i, e in enumerate(envs)}

    def game_version_end(self, version: int) -> int:
        """Return how many global events come up to game-stream version `version`."""
        return self.index.get((self.game_stream, version), -1) + 1 if version else 0


def _checks(payload: dict[str, Any], reader: str | None) -> list[tuple[int | None, Any, Any]]:
    """Return (game version or None, (stream, version) or None, object) items to check."""
    out: list[tuple[int | None, Any, Any]] = []
    for step in payload.get("steps", []):
        view = step.get("view", step.get("patch"))  # the page receives patches after the first
        out.append((int(step["version"]), None, {"data": step["data"], "view": view}))
    for ev in payload.get("events", []):
        out.append((None, (ev["stream"], int(ev["version"])), ev))
    if "view" in payload and "version" in payload:
        out.append((int(payload["version"]), None, payload["view"]))
    if "games" in payload or "kinds" in payload:
        out.append((0, None, payload))
    return out


def scan_payloads(
    envs: list[Envelope],
    game_id: str,
    payloads: list[tuple[str | None, dict[str, Any]]],
    game: str = "fallen",
    readers: list[str | None] = FALLEN_READERS,
) -> int:
    """Check every (reader, payload) against what that reader knew then; return checks."""
    line = Timeline(game, envs, game_id)
    items = [
        (reader, at, key, obj) for reader, p in payloads for at, key, obj in _checks(p, reader)
    ]
    ends = sorted(
        {line.game_version_end(a) if a is not None else line.index[k] + 1 for _, a, k, _ in items}
    )
    knowledge_at = {}
    k = Knowledge(line.vocab, readers)
    done = 0
    for end in ends:
        for env in envs[done:end]:
            k.see(env)
        done = end
        knowledge_at[end] = {r: set(k.hidden(r)) for r in readers}
    checks = 0
    for reader, at, key, obj in items:
        end = line.game_version_end(at) if at is not None else line.index[key] + 1
        hidden = knowledge_at[end][reader]
        leaked = {t for t in all_strings(obj) if ID.fullmatch(t) and t in hidden}
        leaked |= {w for t in all_strings(obj) if not ID.fullmatch(t) for w in TOKEN.findall(t)}
        leaked &= hidden
        assert not leaked, f"page payload at {key or at} for {reader} names hidden {leaked}"
        checks += 1
    return checks


def scan_page_payloads(
    db: Path, game_id: str, received: list[tuple[str | None, dict[str, Any]]]
) -> int:
    """Scan what a page received, each payload as the reader (seat or None) it asked as."""
    envs = asyncio.run(_from_file(db, game_id))
    return scan_payloads(envs, game_id, received)
