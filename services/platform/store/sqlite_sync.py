"""Group commit for the SQLite store: the appends of one command share one fsync.

A served command is several appends in a row (its events, the dice or deck draw on its
own stream, chance's answer, sometimes GameEnded); with ``synchronous=FULL`` each one is
an fsync of the WAL. Inside ``SqliteEventStore.one_fsync()`` (the rules runner opens one
per command) appends commit with ``synchronous=NORMAL``: in WAL mode every commit is
appended to the one log in commit order, and an fsync of the log makes every commit
before it durable. When the scope closes, one small FULL commit (a barrier) fsyncs them
all, unless another commit's fsync already covered them (concurrent commands share it),
and only then does the command answer. The durability promise is unchanged: nothing is
acknowledged before it is on disk.

What a power cut can take is what it could take before: the appends of commands not yet
answered, as a prefix of the log (a crash between a command's appends was always
possible; the chance sweeper answers a decision left pending). Readers of this process
outside a scope see only durable events (``visible``): the in-process projections,
watchers and feeds never show an event a power cut could still take back, and the
store's listeners hear of a scope's appends when it closes. (Another process sharing the
file reads what is committed, durable or not, for the few milliseconds until the fsync.)
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

ALL = 2**63 - 1


@dataclass
class Scope:
    """One command's appends on one store: open until its barrier; the appends it made."""

    store: Any
    open: bool = True
    written: list[Any] = field(default_factory=list)


SCOPES: ContextVar[tuple[Scope, ...]] = ContextVar("fallen_sqlite_one_fsync", default=())


def open_scope(store: Any) -> Scope | None:
    """Return the open scope of store in this context (None: appends fsync each commit)."""
    for scope in SCOPES.get():
        if scope.store is store and scope.open:
            return scope
    return None


class Durability:
    """Positions committed and fsynced by this process's writer (guarded by its lock)."""

    def __init__(self, head: int) -> None:
        self.committed = head
        self.synced = head

    def note_commit(self, last_position: int, fsynced: bool) -> None:
        """Record a commit (call under the writer's lock)."""
        self.committed = max(self.committed, last_position)
        if fsynced:
            self.synced = self.committed

    def visible(self, in_scope: bool) -> int:
        """Return the last position a reader may see (ALL: no event is pending its fsync)."""
        if in_scope or self.synced >= self.committed:
            return ALL
        return self.synced
