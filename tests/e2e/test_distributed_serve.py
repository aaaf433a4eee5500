"""`fallenctl serve` on Redis with the Kafka stream, as its own process: events reach Kafka."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import grpc
import pytest
from fallen.dice.v1 import dice_pb2, dice_pb2_grpc

from services.platform.auth import issue_token
from services.platform.localservers import free_port
from services.platform.store.redis import RedisEventStore
from services.platform.stream.kafka_feed import KafkaFeed
from tests.e2e.test_split_topology import SECRET, wait_serving


async def test_served_events_land_in_redis_and_reach_kafka(redis_url, kafka_bootstrap, tmp_path):
    # given the whole backend serving from Redis and relaying to Kafka
    prefix = f"e2e{os.getpid()}"
    address = f"127.0.0.1:{free_port()}"
    env = {**os.environ, "FALLEN_JWT_SECRET": SECRET}
    env.pop("FALLEN_DEV", None)
    log = tmp_path / "serve.log"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "services.cli.main",
            "serve",
            "--address",
            address,
            "--store",
            f"{redis_url}?prefix={prefix}",
            "--stream",
            f"kafka://{kafka_bootstrap}",
            "--metrics-port",
            "0",
        ],
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        env=env,
    )
    try:
        wait_serving(address, proc, log)
        md = (("authorization", f"Bearer {issue_token('service:t', service=True, secret=SECRET)}"),)
        # when a game's seed is committed and dice are rolled through gRPC
        async with grpc.aio.insecure_channel(address) as ch:
            dice = dice_pb2_grpc.DiceServiceStub(ch)
            await dice.CommitSeed(dice_pb2.CommitSeedRequest(game_id="kx1"), metadata=md)
            await dice.Roll(
                dice_pb2.RollRequest(game_id="kx1", purpose="p", dice=["d6"]), metadata=md
            )
        # then the events are in Redis
        store = RedisEventStore(redis_url, prefix=prefix)
        stored = await store.read("dice-kx1")
        await store.close()
        assert [e.type for e in stored] == ["DiceSeedCommitted", "DiceRolled"]
        # and the relay carried them to the Kafka dice topic, hashes intact
        feed = KafkaFeed(kafka_bootstrap, ["dice"], group_id=f"g-{prefix}")
        seen: dict[tuple[str, int], str] = {}

        async def collect() -> None:
            async for env_ in feed.events():
                if env_.stream == "dice-kx1":
                    seen[(env_.stream, env_.version)] = env_.hash
                if len(seen) == 2:
                    return

        await asyncio.wait_for(collect(), 60)
        await feed.close()
        assert seen == {(e.stream, e.version): e.hash for e in stored}
    finally:
        proc.terminate()
        proc.wait(10)
    if proc.returncode not in (0, -15):
        pytest.fail(log.read_text()[-2000:])
