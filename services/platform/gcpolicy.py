"""Garbage collection in long-running servers: what start-up built is frozen out of it.

A server process holds a large heap it built at start-up and never frees (modules, card
catalogs, compiled protobufs, warmed engines). CPython's full collection walks every
tracked object, so each one stalls the event loop for as long as that heap takes to walk:
measured on the embedded server (`fallenctl bench all`'s SubmitCommand path), one full
collection every 1,500 commands or so, of 134-135 ms. ``gc.freeze()`` moves the objects
alive at that moment to a permanent generation that collections skip: the same run then
showed full collections of 4-29 ms (docs/performance.md, "Stop 24"). Young-generation
thresholds are left at CPython's defaults: raising them made each young collection longer
(11-17 ms) and the tail worse.

``fallenctl bench rules`` freezes too, after its warm-up game, so that it measures the engine
under the policy the services run with (docs/engine-speed.md, "Stop 28").

``FALLEN_GC=default`` keeps CPython's behaviour (nothing frozen).
"""

from __future__ import annotations

import gc
import os
from collections.abc import Mapping


def freeze_startup(env: Mapping[str, str] | None = None) -> bool:
    """Collect once, then freeze every object alive now out of later collections (call
    when a server has started and warmed); return whether it froze (FALLEN_GC)."""
    mode = (env if env is not None else os.environ).get("FALLEN_GC", "freeze")
    if mode == "default":
        return False
    if mode != "freeze":
        raise ValueError(f"FALLEN_GC must be freeze or default, not {mode[:20]!r}")
    gc.collect()  # start-up's garbage is freed, not frozen with the rest
    gc.freeze()
    return True
