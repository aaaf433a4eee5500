"""Per-thread read connections to a SQLite file in WAL mode (shared by the event and view
stores): a reader never waits for the writer, so reads run inline, with no thread hop and
no queueing behind another commit's fsync."""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterator
from typing import Any


class Readers:
    """Read connections to one database file, one per calling thread.

    An in-memory database exists only on its one connection: there every read shares
    that connection (shared) under the writer's lock, as before.
    """

    def __init__(self, path: str, shared: sqlite3.Connection, lock: threading.Lock) -> None:
        self.path = path
        self._shared = shared
        self._lock = lock
        self._local = threading.local()
        self._opened: list[sqlite3.Connection] = []

    @contextlib.contextmanager
    def connection(self) -> Iterator[sqlite3.Connection]:
        """Yield a connection to read on."""
        if self.path == ":memory:":
            with self._lock:
                yield self._shared
            return
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(
                self.path, check_same_thread=False, isolation_level=None, timeout=30.0
            )
            conn.execute("PRAGMA busy_timeout=30000")
            self._local.conn = conn
            with self._lock:
                self._opened.append(conn)
        yield conn

    def rows(self, sql: str, args: tuple[Any, ...]) -> list[Any]:
        """Return every row of a query, fetched whole (no open statement pins a snapshot)."""
        with self.connection() as conn:
            return conn.execute(sql, args).fetchall()

    def close(self) -> None:
        """Close every read connection (call with the writer's lock held)."""
        for conn in self._opened:
            conn.close()
        self._opened.clear()
