"""One matchmaker replica for the race test: tick a Redis-backed queue until it is empty.

Run as: python -m tests.support.mm_race_worker REDIS_URL PREFIX RULES_ADDR SECONDS
Prints the number of games this replica created.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time

from services.matchmaking.engine import Matchmaker
from services.matchmaking.modes import load_modes
from services.matchmaking.pools import Pools
from services.matchmaking.redis_state import RedisState


async def main(url: str, prefix: str, rules: str, seconds: float) -> int:
    state = RedisState(url, prefix=prefix)
    pools = Pools({"*": rules})
    mm = Matchmaker(state, load_modes(), pools)
    made, deadline = 0, time.monotonic() + seconds
    print("ready", flush=True)
    while not await state.redis.exists(f"{state.p}:go"):  # start together with the other
        await asyncio.sleep(0.01)
    try:
        while time.monotonic() < deadline:
            made += await mm.tick()
            queued = sum([len(await state.queued(k)) for k in mm.modes], 0)
            if queued == 0 and not await state.stale_claims(float("inf")):
                break
    finally:
        await pools.close()
        await state.close()
    return made


if __name__ == "__main__":
    os.environ.setdefault("FALLEN_DEV", "1")
    url, prefix, rules, seconds = sys.argv[1:5]
    print(asyncio.run(main(url, prefix, rules, float(seconds))), flush=True)
