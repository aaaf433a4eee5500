"""Two matchmaker processes racing over one Redis queue: no ticket in two games, none lost."""

from __future__ import annotations

import asyncio
import sys
import time
import uuid
from collections import Counter

from services.app import serve
from services.matchmaking.engine import Matchmaker, Request
from services.matchmaking.model import MATCHED
from services.matchmaking.modes import load_modes
from services.matchmaking.pools import Pools
from services.matchmaking.redis_state import RedisState
from services.platform.games import game_info
from services.platform.store.sqlite import SqliteEventStore

PLAYERS = 120
WORKER_S = 90


async def test_two_replicas_never_double_book_or_lose_a_ticket(redis_url, tmp_path, monkeypatch):
    monkeypatch.setenv("FALLEN_DEV", "1")
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)
    prefix = f"race-{uuid.uuid4().hex[:8]}"
    store = SqliteEventStore(tmp_path / "f.db")
    backend = await serve(store, "127.0.0.1:0", pools="*=127.0.0.1:1")  # its own queue idles
    state = RedisState(redis_url, prefix=prefix)
    # given 120 players queued for ranked Fallen, half wanting the hero, half the lord
    clock = [time.time() - 120]  # queued long ago: every rating window is open
    mm = Matchmaker(state, load_modes(), Pools({"*": "unused:1"}), clock=lambda: clock[0])
    tickets = []
    for n in range(PLAYERS):
        role = ["hero", "dungeon_lord"][n % 2]
        tickets.append(await mm.enqueue(f"p{n}", Request("fallen", "ranked", role=role)))
    try:
        # when two matchmaker processes work the same queue at once
        cmd = [sys.executable, "-m", "tests.support.mm_race_worker", redis_url, prefix,
               f"127.0.0.1:{backend.port}", str(WORKER_S)]  # fmt: skip
        procs = [
            await asyncio.create_subprocess_exec(*cmd, stdout=asyncio.subprocess.PIPE)
            for _ in range(2)
        ]
        for p in procs:
            assert p.stdout is not None
            assert (await p.stdout.readline()).strip() == b"ready"
        await state.redis.set(f"{state.p}:go", 1)
        outs = [await p.communicate() for p in procs]
        assert [p.returncode for p in procs] == [0, 0]
        made = [int(out.decode().strip()) for out, _ in outs]
        # then every ticket is matched exactly once, both replicas took part
        assert sum(made) == PLAYERS // 2
        assert all(m > 0 for m in made), made
        final = [await state.ticket(t.ticket_id) for t in tickets]
        assert {t.state for t in final} == {MATCHED}
        games = Counter(t.matches[t.players[0]].game_id for t in final)
        assert len(games) == PLAYERS // 2 and set(games.values()) == {2}
        # and each game in the store seats exactly the two players its tickets say
        for game_id in games:
            seats = (await game_info(store, game_id))["seats"]
            booked = {t.matches[t.players[0]].seat: t.players[0] for t in final
                      if t.matches[t.players[0]].game_id == game_id}  # fmt: skip
            assert seats == booked
        # and no game was created beyond those (a double-booked ticket would make one more)
        created = [e for e in await store.read_all(1, 100_000) if e.type == "GameCreated"]
        assert sorted(e.stream.removeprefix("game-") for e in created) == sorted(games)
        assert await state.stale_claims(float("inf")) == []
    finally:
        await state.close()
        await backend.stop()
