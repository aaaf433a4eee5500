"""WAL checkpoints for a SQLite writer whose commits may run on the event loop.

In WAL mode a commit that is not fsynced (the event store's appends inside a group commit,
every view-store commit) only writes the log, so it can run inline on the event loop,
without a worker-thread hop. A checkpoint, though, copies the log into the database and
fsyncs it, and SQLite's automatic checkpoint runs inside whichever commit crosses its
threshold. So the writer's automatic checkpoint is off, and the store runs a PASSIVE
checkpoint on a worker thread once ``every`` commits have gone into the log.
"""

from __future__ import annotations

import sqlite3

# Commits between checkpoints: a command's commit is a few pages, so about as often as
# SQLite's own default (every 1,000 log pages).
CHECKPOINT_COMMITS = 250


class Checkpoints:
    """When the writer connection checkpoints its WAL (all calls with its lock held)."""

    def __init__(self, conn: sqlite3.Connection, path: str, every: int = CHECKPOINT_COMMITS):
        self._conn = conn
        self.every = every
        self.enabled = path != ":memory:"  # an in-memory database has no log to checkpoint
        self.unchecked = 0  # commits since the last checkpoint
        self.done = 0  # checkpoints run
        conn.execute("PRAGMA wal_autocheckpoint=0")

    def committed(self) -> None:
        """Count a commit into the log."""
        self.unchecked += 1

    @property
    def due(self) -> bool:
        """Whether the next commit should run on a worker thread and checkpoint."""
        return self.enabled and self.unchecked >= self.every

    def run_if_due(self) -> None:
        """Checkpoint if due (call on a worker thread: it fsyncs). PASSIVE waits for no
        reader; the log is reused from its start once every reader has moved past it."""
        if not self.due:
            return
        self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
        self.unchecked = 0
        self.done += 1
