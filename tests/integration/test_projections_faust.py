"""The faust runner against a real Kafka-protocol broker: kill -9 a worker mid-stream,
restart it, and the views equal a rebuild from scratch; the worker reports its lag.

One test, two worker runs (a worker takes 4-6 s to join its group).
"""

from __future__ import annotations

import asyncio
import json
import random
import signal
import uuid
from pathlib import Path

from services.platform.store.sqlite import SqliteEventStore
from services.platform.stream.kafka_relay import KafkaRelay
from services.projections.open_views import open_view_store
from tests.support.faust_worker import applied, start_worker, stop_worker, wait_for
from tests.support.projections_check import assert_equal_to_rebuild, drive, more
from tests.support.projections_play import play, runner_for


async def test_given_a_worker_killed_mid_stream_when_restarted_then_views_equal_a_rebuild(
    kafka_bootstrap: str, tmp_path: Path
):
    store = SqliteEventStore(tmp_path / "events.db")
    store_url = f"sqlite:///{tmp_path / 'events.db'}"
    views_url = f"sqlite:///{tmp_path / 'views.db'}"
    views = open_view_store(views_url)
    prefix = f"t{uuid.uuid4().hex[:8]}.events."
    app_id = f"proj-{uuid.uuid4().hex[:8]}"
    relay = KafkaRelay(store, kafka_bootstrap, topic_prefix=prefix)
    stop = asyncio.Event()
    relaying = asyncio.create_task(relay.run_forever(stop, idle_seconds=0.05))
    runner = runner_for(store)
    # given games relayed to Kafka (and more than a worker applies at once)
    ids = await drive(runner, "k", seed=21, fallen_steps=300)
    rng = random.Random(22)
    for i in range(120):
        ids.append(f"y{i}")
        await play(runner, "toy", ids[-1], rng)
    head = await store.head_position()
    worker = start_worker(kafka_bootstrap, store_url, views_url, app_id, prefix)
    try:
        # when the worker is killed -9 part-way through
        async def some() -> bool:
            return 0 < await applied(views) < head

        await wait_for(some, "the worker to apply some events")
        worker.send_signal(signal.SIGKILL)
        worker.wait(10)
        assert 0 < await applied(views) < head
        # and the games go on while no worker runs
        await more(runner, ids, seed=23, steps=5)
        # then a restarted worker catches up to views equal to a rebuild from scratch
        worker = start_worker(kafka_bootstrap, store_url, views_url, app_id, prefix)
        total = await store.head_position()

        async def caught_up() -> bool:
            return await applied(views) >= total

        await wait_for(caught_up, "the restarted worker to catch up")
        await assert_equal_to_rebuild(store, views, ids)

        # and it reports its lag (0 once caught up) in the view store
        async def reported() -> bool:
            # each worker reports under its own key: status:faust:<host>:<pid>
            statuses = await views.meta_items("status:faust:")
            return bool(statuses) and any(
                json.loads(raw)["lag_events"] == 0 for raw in statuses.values()
            )

        await wait_for(reported, "the worker's status")
    finally:
        stop_worker(worker)
        stop.set()
        await relaying
        await relay.close()
        await views.close()
        await store.close()
