"""Whether the read side agrees with the event store it is built from, and a fresh start.

The event store carries an identity (a random id written the first time it is asked for);
the view store records the identity it was built from beside its checkpoints. The views
disagree with the store when they were built from another store (a store file replaced,
emptied or swapped) or when a checkpoint is ahead of the store's head (an older backup
restored under newer views). Both are only repaired by building the views again.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import asdict, dataclass
from typing import Any

STORE_ID = "store:id"  # event store meta: this store's identity
BUILT_FROM = "store:id"  # view store meta: the identity of the store the views came from
MISMATCH = "mismatch"  # view store meta: what is known wrong, while it is (JSON)
ON_MISMATCH = ("rebuild", "stop")


@dataclass(frozen=True)
class Mismatch:
    """Why the views cannot be trusted: a reason and both positions."""

    reason: str
    checkpoint: int
    head: int

    def describe(self) -> str:
        """Return one line naming the reason and both positions."""
        return (
            f"the read side disagrees with the event store ({self.reason}): "
            f"views checkpoint {self.checkpoint}, store head {self.head}"
        )

    def to_json(self) -> str:
        """Return the mismatch as the JSON kept in the view store's meta."""
        return json.dumps(asdict(self), sort_keys=True)


def compare(checkpoint: int, head: int, store_id: str, built_from: str | None) -> Mismatch | None:
    """Return the mismatch between views and store, or None when they may agree."""
    if built_from is not None and built_from != store_id:
        return Mismatch("the views were built from another event store", checkpoint, head)
    if checkpoint > head:
        return Mismatch("the views are ahead of the event store's head", checkpoint, head)
    return None


async def store_identity(store: Any) -> str:
    """Return the event store's identity, writing a new one the first time."""
    found = await store.get_meta(STORE_ID)
    if found:
        return str(found)
    made = uuid.uuid4().hex
    await store.set_meta(STORE_ID, made)
    return made


async def known_mismatch(views: Any) -> Mismatch | None:
    """Return the mismatch a runner recorded in the view store, or None."""
    raw = await views.get_meta(MISMATCH)
    if not raw:
        return None
    data = json.loads(raw)
    return Mismatch(str(data["reason"]), int(data["checkpoint"]), int(data["head"]))
