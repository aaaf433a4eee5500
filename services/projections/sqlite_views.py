"""View store on a SQLite file: each batch (views, audit, records, checkpoint) is atomic."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

from services.platform.canonical import canonical_json
from services.platform.store.sqlite_readers import Readers
from services.platform.store.sqlite_wal import Checkpoints
from services.projections.viewstore import Batch, ChangeHub, ViewRecord, record_not_older

SCHEMA = """
CREATE TABLE IF NOT EXISTS proj_games (game_id TEXT PRIMARY KEY, record TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS proj_views (
    game_id TEXT NOT NULL,
    seat TEXT NOT NULL,
    version INTEGER NOT NULL,
    ended INTEGER NOT NULL,
    view TEXT NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE TABLE IF NOT EXISTS proj_audit (
    game_id TEXT NOT NULL,
    stream TEXT NOT NULL,
    version INTEGER NOT NULL,
    position INTEGER NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (game_id, stream, version)
);
CREATE INDEX IF NOT EXISTS proj_audit_order ON proj_audit (game_id, position);
CREATE TABLE IF NOT EXISTS proj_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


class SqliteViewStore:
    """ViewStore on one SQLite file (WAL); a batch is atomic, so a kill -9 loses none of it."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(
            self.path, check_same_thread=False, isolation_level=None, timeout=30.0
        )
        self._lock = threading.Lock()
        self.hub = ChangeHub()
        with self._lock:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")  # WAL: a process crash loses nothing
            self._conn.execute("PRAGMA busy_timeout=30000")
            self._conn.executescript(SCHEMA)
            self.wal = Checkpoints(self._conn, self.path)  # on worker threads only
        # reads run inline on this thread's own connection (WAL: never behind a commit)
        self._readers = Readers(self.path, self._conn, self._lock)

    def _one(self, sql: str, args: tuple[Any, ...]) -> Any:
        rows = self._readers.rows(sql, args)
        return rows[0] if rows else None

    def _all(self, sql: str, args: tuple[Any, ...]) -> list[Any]:
        return self._readers.rows(sql, args)

    async def load_game(self, game_id: str) -> dict[str, Any] | None:
        """Return a game's projection record, or None."""
        row = self._one("SELECT record FROM proj_games WHERE game_id=?", (game_id,))
        return None if row is None else dict(json.loads(row[0]))

    def _commit_sync(self, batch: Batch) -> None:
        """Commit on a worker thread (waits for the writer; checkpoints the WAL when due)."""
        with self._lock:
            self._commit_locked(batch)
            self.wal.run_if_due()

    def _commit_locked(self, batch: Batch) -> None:
        """Write a batch in one transaction (call with the writer's lock held)."""
        cur = self._conn.cursor()
        cur.execute("BEGIN IMMEDIATE")
        try:
            for game_id in batch.drop:
                for table in ("proj_views", "proj_audit", "proj_games"):
                    cur.execute(f"DELETE FROM {table} WHERE game_id=?", (game_id,))
            for game_id, seats in batch.views.items():
                rec = batch.games[game_id]
                version = int(rec["heads"].get(f"game-{game_id}", [0])[0])
                ended = 1 if rec.get("ended") else 0
                cur.executemany(
                    "INSERT INTO proj_views (game_id, seat, version, ended, view) "
                    "VALUES (?,?,?,?,?) ON CONFLICT(game_id, seat) DO UPDATE SET "
                    "version=excluded.version, ended=excluded.ended, view=excluded.view "
                    "WHERE excluded.version >= proj_views.version",
                    [(game_id, s, version, ended, v) for s, v in seats.items()],
                )
            cur.executemany(
                "INSERT OR IGNORE INTO proj_audit (game_id, stream, version, position, record) "
                "VALUES (?,?,?,?,?)",
                [
                    (g, r["stream"], r["version"], r["position"], canonical_json(r))
                    for g, r in batch.audit
                ],
            )
            cur.executemany(
                "INSERT INTO proj_games (game_id, record) VALUES (?,?) "
                "ON CONFLICT(game_id) DO UPDATE SET record=excluded.record",
                [(g, canonical_json(r)) for g, r in self._newer(cur, batch.games)],
            )
            if batch.checkpoint is not None:
                cur.execute(
                    "INSERT INTO proj_meta (key, value) VALUES (?,?) "
                    "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                    batch.checkpoint,
                )
            cur.execute("COMMIT")
            self.wal.committed()
        except BaseException:
            cur.execute("ROLLBACK")
            raise

    @staticmethod
    def _newer(
        cur: sqlite3.Cursor, games: dict[str, dict[str, Any]]
    ) -> list[tuple[str, dict[str, Any]]]:
        """Return the game records of a batch that are not older than the stored ones."""
        out = []
        for game_id, rec in games.items():
            row = cur.execute(
                "SELECT record FROM proj_games WHERE game_id=?", (game_id,)
            ).fetchone()
            if record_not_older(rec, None if row is None else json.loads(row[0])):
                out.append((game_id, rec))
        return out

    async def commit(self, batch: Batch) -> None:
        """Write a batch in one transaction and wake local watchers."""
        if batch.empty():
            return
        if not self.wal.due and self._lock.acquire(blocking=False):
            # a commit here writes the WAL only (synchronous=NORMAL, no checkpoint: those
            # run on worker threads, sqlite_wal.py), so it runs inline: a thread hop costs
            # more than the write
            try:
                self._commit_locked(batch)
            finally:
                self._lock.release()
        else:
            await asyncio.to_thread(self._commit_sync, batch)
        self.hub.notify(set(batch.games))

    async def get_view(self, game_id: str, seat: str) -> ViewRecord | None:
        """Return a seat's view ('' = spectator), or None."""
        row = self._one(
            "SELECT version, ended, view FROM proj_views WHERE game_id=? AND seat=?",
            (game_id, seat),
        )
        if row is None:
            return None
        return ViewRecord(game_id, seat, int(row[0]), str(row[2]), bool(row[1]))

    async def read_audit(self, game_id: str) -> list[dict[str, Any]]:
        """Return a game's audit records in global order."""
        rows = self._all(
            "SELECT record FROM proj_audit WHERE game_id=? ORDER BY position, stream, version",
            (game_id,),
        )
        return [dict(json.loads(r[0])) for r in rows]

    async def get_meta(self, key: str) -> str | None:
        """Return a meta value, or None."""
        row = self._one("SELECT value FROM proj_meta WHERE key=?", (key,))
        return None if row is None else str(row[0])

    async def set_meta(self, key: str, value: str) -> None:
        """Set a meta value."""
        await asyncio.to_thread(self._commit_sync, Batch(checkpoint=(key, value)))

    async def meta_items(self, prefix: str) -> dict[str, str]:
        """Return every meta value whose key starts with prefix."""
        rows = self._all(
            "SELECT key, value FROM proj_meta WHERE substr(key, 1, ?)=? ORDER BY key",
            (len(prefix), prefix),
        )
        return {str(k): str(v) for k, v in rows}

    async def games(self) -> list[str]:
        """Return the ids of every game with a record."""
        rows = self._all("SELECT game_id FROM proj_games ORDER BY game_id", ())
        return [str(r[0]) for r in rows]

    def _clear_sync(self) -> None:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            for table in ("proj_views", "proj_audit", "proj_games", "proj_meta"):
                self._conn.execute(f"DELETE FROM {table}")
            self._conn.execute("COMMIT")

    async def clear(self) -> None:
        """Remove every game record, view, audit record and meta value in one transaction."""
        games = set(await self.games())
        await asyncio.to_thread(self._clear_sync)
        self.hub.notify(games)

    async def wait_change(self, game_id: str, timeout: float) -> None:
        """Return when this process commits a change to the game, or after timeout."""
        await self.hub.wait(game_id, timeout)

    async def close(self) -> None:
        """Close the connections."""
        with self._lock:
            self._readers.close()
            self._conn.close()
