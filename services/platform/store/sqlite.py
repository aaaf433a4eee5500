"""SQLite event store: the embedded default (WAL, durable commits, multi-process safe).

Appends run in a worker thread on the one writer connection (each commit is fsynced:
synchronous=FULL; the appends of one command inside ``one_fsync()`` share one fsync, see
sqlite_sync.py). An append inside ``one_fsync()`` does not wait for the disk (its commit
is not fsynced, and WAL checkpoints run only on worker threads), so it runs inline when
the writer is free. Reads run inline on a connection of the calling thread: under WAL a
reader never waits for the writer, so a read neither hops threads nor queues behind
another append's fsync (an in-memory database has one connection, shared under the lock).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path

from services.platform.envelope import Envelope, NewEvent
from services.platform.errors import VersionConflict
from services.platform.store.base import (
    ANY_VERSION,
    MAX_VERSION,
    AppendResult,
    CommandKey,
    as_command_key,
    first_prev_hash,
    now_iso,
    replay_record,
    result_record,
    seal_encoded,
    validate_append,
    validate_command,
)
from services.platform.store.feed import FeedHead
from services.platform.store.sqlite_readers import Readers
from services.platform.store.sqlite_sync import SCOPES, Durability, Scope, open_scope
from services.platform.store.sqlite_wal import Checkpoints

FIND_COMMAND = "SELECT result FROM sent_commands WHERE stream=? AND sender=? AND command_id=?"

SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    position INTEGER PRIMARY KEY AUTOINCREMENT,
    stream TEXT NOT NULL,
    version INTEGER NOT NULL,
    event_id TEXT NOT NULL,
    type TEXT NOT NULL,
    schema_version INTEGER NOT NULL,
    occurred_at TEXT NOT NULL,
    correlation_id TEXT NOT NULL,
    causation_id TEXT NOT NULL,
    visibility TEXT NOT NULL,
    data TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL,
    UNIQUE (stream, version)
);
CREATE TABLE IF NOT EXISTS sent_commands (
    stream TEXT NOT NULL,
    sender TEXT NOT NULL,
    command_id TEXT NOT NULL,
    result TEXT NOT NULL,
    PRIMARY KEY (stream, sender, command_id)
);
CREATE TABLE IF NOT EXISTS secrets (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sync_barrier (id INTEGER PRIMARY KEY, n INTEGER NOT NULL);
"""

COLUMNS = (
    "position, stream, version, event_id, type, schema_version, occurred_at, "
    "correlation_id, causation_id, visibility, data, prev_hash, hash"
)

Listener = Callable[[list[Envelope]], None]


def _row_to_envelope(row: sqlite3.Row | tuple) -> Envelope:  # type: ignore[type-arg]
    """Return the envelope stored in one events row."""
    (pos, stream, version, event_id, type_, sv, at, corr, caus, vis, data, prev, h) = row
    return Envelope(
        event_id=event_id,
        stream=stream,
        version=version,
        position=pos,
        type=type_,
        schema_version=sv,
        occurred_at=at,
        correlation_id=corr,
        causation_id=caus,
        visibility=json.loads(vis),
        data=json.loads(data),
        prev_hash=prev,
        hash=h,
    )


class SqliteEventStore:
    """EventStore on one SQLite file; every append is one IMMEDIATE transaction."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(
            self.path, check_same_thread=False, isolation_level=None, timeout=30.0
        )
        self._lock = threading.Lock()
        self._listeners: list[Listener] = []
        with self._lock:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=FULL")
            self.wal = Checkpoints(self._conn, self.path)  # on worker threads only
            self._conn.execute("PRAGMA busy_timeout=30000")
            self._conn.executescript(SCHEMA)
            head = self._conn.execute("SELECT MAX(position) FROM events").fetchone()[0]
        self._readers = Readers(self.path, self._conn, self._lock)
        self._durability = Durability(int(head or 0))
        self._full = True  # the writer connection's synchronous mode is FULL
        self.full_commits = 0  # commits that fsynced the log (appends, barriers, secrets, meta)

    def _rows(self, sql: str, args: tuple) -> list[tuple]:  # type: ignore[type-arg]
        """Return every row of a read (inline, on this thread's read connection)."""
        return self._readers.rows(sql, args)

    def _visible(self) -> int:
        """Return the last position reads may see now (see sqlite_sync.py)."""
        return self._durability.visible(open_scope(self) is not None)

    @contextlib.asynccontextmanager
    async def one_fsync(self) -> AsyncIterator[None]:
        """Let the appends made inside share one fsync, done before the block is left (its
        end waits for it); listeners hear of them then. Nested: the outermost one syncs."""
        if self.path == ":memory:" or open_scope(self) is not None:
            yield
            return
        scope = Scope(self)
        token = SCOPES.set((*SCOPES.get(), scope))
        try:
            yield
        finally:
            SCOPES.reset(token)
            scope.open = False
            if self._durability.synced < self._durability.committed:
                await asyncio.to_thread(self._barrier)
            for written in scope.written:
                self._notify(written)

    def _barrier(self) -> None:
        """fsync every commit made so far: one small FULL commit (skipped when another
        commit's fsync already covered them)."""
        with self._lock:
            self.wal.run_if_due()
            if self._durability.synced >= self._durability.committed:
                return
            self._set_full(True)
            cur = self._conn.cursor()
            cur.execute("BEGIN IMMEDIATE")
            try:
                cur.execute(
                    "INSERT INTO sync_barrier (id, n) VALUES (1, 1) "
                    "ON CONFLICT(id) DO UPDATE SET n = n + 1"
                )
                cur.execute("COMMIT")
            except BaseException:
                cur.execute("ROLLBACK")
                raise
            self._durability.synced = self._durability.committed
            self.full_commits += 1
            self.wal.committed()

    def _set_full(self, full: bool) -> None:
        """Set the writer's synchronous mode (call under the lock, outside a transaction)."""
        if full != self._full:
            self._conn.execute(f"PRAGMA synchronous={'FULL' if full else 'NORMAL'}")
            self._full = full

    def _notify(self, written: list[Envelope]) -> None:
        for listener in self._listeners:
            listener(written)

    def add_listener(self, listener: Listener) -> None:
        """Call listener with the new envelopes after every append in this process."""
        self._listeners.append(listener)

    async def append(
        self,
        stream: str,
        expected_version: int,
        events: Sequence[NewEvent],
        command_id: CommandKey | str | None = None,
    ) -> AppendResult:
        """Append events if the stream is at expected_version; dedupe command ids."""
        validate_append(stream, expected_version, events)
        key = as_command_key(command_id)
        validate_command(key)
        scope = open_scope(self) if self.path != ":memory:" else None
        if scope is not None and self._lock.acquire(blocking=False):
            # Inside a group commit a commit writes the WAL without waiting for the disk (no
            # fsync; checkpoints run on worker threads only, sqlite_wal.py), so it runs here:
            # a thread hop cost more than the commit. A busy writer (another command's
            # barrier fsyncing) is waited for on a worker thread, as before.
            try:
                result, written = self._append_locked(
                    stream, expected_version, list(events), key, False
                )
            finally:
                self._lock.release()
        else:
            result, written = await asyncio.to_thread(
                self._append_sync, stream, expected_version, list(events), key, scope is None
            )
        if written:
            if scope is None:
                self._notify(written)
            else:
                scope.written.append(written)
        return result

    def _append_sync(
        self,
        stream: str,
        expected_version: int,
        events: list[NewEvent],
        key: CommandKey | None,
        fsync: bool = True,
    ) -> tuple[AppendResult, list[Envelope]]:
        """Append on a worker thread (waits for the writer; may checkpoint the WAL)."""
        with self._lock:
            done = self._append_locked(stream, expected_version, events, key, fsync)
            self.wal.run_if_due()
            return done

    def _append_locked(
        self,
        stream: str,
        expected_version: int,
        events: list[NewEvent],
        key: CommandKey | None,
        fsync: bool,
    ) -> tuple[AppendResult, list[Envelope]]:
        """Append in one transaction (call with the writer's lock held)."""
        self._set_full(fsync)
        cur = self._conn.cursor()
        cur.execute("BEGIN IMMEDIATE")
        try:
            if key:
                row = cur.execute(FIND_COMMAND, (stream, key.sender, key.command_id)).fetchone()
                if row:
                    found = replay_record(row[0], key)
                    cur.execute("COMMIT")
                    return found, []
            row = cur.execute(
                "SELECT version, hash FROM events WHERE stream=? ORDER BY version DESC LIMIT 1",
                (stream,),
            ).fetchone()
            version, head_hash = (row[0], row[1]) if row else (0, None)
            if expected_version != ANY_VERSION and expected_version != version:
                raise VersionConflict(stream, expected_version, version)
            sealed = seal_encoded(
                stream, version + 1, first_prev_hash(version, head_hash), events, now_iso()
            )
            written: list[Envelope] = []
            for env, vis_json, data_json in sealed:
                cur.execute(
                    f"INSERT INTO events ({COLUMNS}) VALUES (NULL,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (
                        env.stream,
                        env.version,
                        env.event_id,
                        env.type,
                        env.schema_version,
                        env.occurred_at,
                        env.correlation_id,
                        env.causation_id,
                        vis_json,
                        data_json,
                        env.prev_hash,
                        env.hash,
                    ),
                )
                pos = cur.lastrowid
                assert pos is not None
                written.append(_with_position(env, pos))
            result = AppendResult(
                stream=stream,
                version=written[-1].version,
                first_position=written[0].position,
                last_position=written[-1].position,
            )
            if key:
                cur.execute(
                    "INSERT INTO sent_commands (stream, sender, command_id, result) "
                    "VALUES (?,?,?,?)",
                    (stream, key.sender, key.command_id, result_record(result, key.digest)),
                )
            cur.execute("COMMIT")
            self.wal.committed()
            self._durability.note_commit(result.last_position, fsynced=fsync)
            self.full_commits += fsync
            return result, written
        except BaseException:
            cur.execute("ROLLBACK")
            raise

    async def command_result(self, stream: str, key: CommandKey) -> AppendResult | None:
        """Return the first result of a command the sender already sent, or None."""
        validate_command(key)
        rows = self._rows(FIND_COMMAND, (stream, key.sender, key.command_id))
        return replay_record(rows[0][0], key) if rows else None

    def _query(self, sql: str, args: tuple) -> list[Envelope]:  # type: ignore[type-arg]
        return [_row_to_envelope(r) for r in self._rows(sql, args)]

    async def read(self, stream: str, from_version: int = 1) -> list[Envelope]:
        """Return the stream's events from from_version on."""
        return self._query(
            f"SELECT {COLUMNS} FROM events WHERE stream=? AND version>=? AND position<=? "
            "ORDER BY version",
            (stream, _clamp(from_version), self._visible()),
        )

    async def version(self, stream: str) -> int:
        """Return the stream's current version."""
        rows = self._rows(
            "SELECT MAX(version) FROM events WHERE stream=? AND position<=?",
            (stream, self._visible()),
        )
        return int(rows[0][0] or 0)

    async def read_all(self, from_position: int = 1, limit: int = 1000) -> list[Envelope]:
        """Return global-feed events from from_position on, at most limit."""
        return self._query(
            f"SELECT {COLUMNS} FROM events WHERE position>=? AND position<=? "
            "ORDER BY position LIMIT ?",
            (_clamp(from_position), self._visible(), _clamp(limit)),
        )

    async def read_feed_heads(self, from_position: int = 1, limit: int = 1000) -> list[FeedHead]:
        """Return the feed's (position, stream, version, type) from from_position on, at
        most limit, without decoding payloads (services/platform/store/feed.py)."""
        rows = self._rows(
            "SELECT position, stream, version, type FROM events WHERE position>=? "
            "AND position<=? ORDER BY position LIMIT ?",
            (_clamp(from_position), self._visible(), _clamp(limit)),
        )
        return [FeedHead(int(p), str(s), int(v), str(t)) for p, s, v, t in rows]

    async def head_position(self) -> int:
        """Return the last global position."""
        rows = self._rows("SELECT MAX(position) FROM events WHERE position<=?", (self._visible(),))
        return int(rows[0][0] or 0)

    def _kv_get(self, table: str, key: str) -> str | None:
        rows = self._rows(f"SELECT value FROM {table} WHERE key=?", (key,))
        return str(rows[0][0]) if rows else None

    async def put_secret(self, key: str, value: str) -> bool:
        """Store a secret if absent; return whether it was stored."""
        sql = "INSERT OR IGNORE INTO secrets (key, value) VALUES (?, ?)"
        return await asyncio.to_thread(self._write_full, sql, (key, value)) == 1

    async def get_secret(self, key: str) -> str | None:
        """Return a stored secret, or None."""
        return self._kv_get("secrets", key)

    async def get_meta(self, key: str) -> str | None:
        """Return an operational value, or None."""
        return self._kv_get("meta", key)

    async def set_meta(self, key: str, value: str) -> None:
        """Set an operational value."""
        sql = (
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value=excluded.value"
        )
        await asyncio.to_thread(self._write_full, sql, (key, value))

    def _write_full(self, sql: str, args: tuple[str, str]) -> int:
        """Run one durable write on a worker thread (it fsyncs); return the rows it changed."""
        with self._lock:
            self._set_full(True)
            self.full_commits += 1
            self.wal.committed()
            changed = self._conn.execute(sql, args).rowcount
            self.wal.run_if_due()
            return changed

    async def close(self) -> None:
        """Close the connections."""
        with self._lock:
            self._readers.close()
            self._conn.close()


def _clamp(n: int) -> int:
    """Return n clamped to what SQLite's integers hold (callers validate ranges first)."""
    return max(-MAX_VERSION, min(n, MAX_VERSION))


def _with_position(env: Envelope, position: int) -> Envelope:
    """Return env with its global position set."""
    from dataclasses import replace

    return replace(env, position=position)
