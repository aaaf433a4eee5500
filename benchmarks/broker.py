"""The Kafka-protocol broker's own hop, the faust lag's same-run baseline.

The faust runner's lag includes one broker hop: the relay produces a record, the broker
stores it, the worker's consumer fetches it. This measures that hop alone on the same
machine and broker, with nothing of ours around it: a producer configured as the relay's
(acks=all, linger 0) sends records of the same size, one append's records at a time, keyed
by game, paced at a given rate; a plain aiokafka consumer in its own process (fetching
with the worker's 10 ms wait) records each record's receipt time minus its timestamp,
which the producer sets when it sends. What the broker and a Kafka client cost at that
rate is then told apart from what the relay, Redis, faust and the views add.

Run by ``bench_faust.faust_lag`` after its load phase, at that phase's rate.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from services.platform.canonical import canonical_json
from services.platform.envelope import Envelope, NewEvent
from services.platform.stream.base import record_key
from services.projections.stages import quantiles

ROOT = Path(__file__).resolve().parents[2]
FETCH_WAIT_MS = 10  # as the faust worker's consumers (faust_app.FETCH_MAX_WAIT_MS)
PARTITIONS = 4
TIMEOUT_S = 120.0


def relayed(games: list[tuple[str, list[list[NewEvent]]]]) -> list[list[tuple[bytes, bytes]]]:
    """Return the games' appends as the relay would send them ((key, value) records, the
    envelope's canonical JSON keyed by game), the games' appends taken in turn."""
    out: list[list[tuple[bytes, bytes]]] = []
    position = 0
    for turn in range(max((len(a) for _, a in games), default=0)):
        for gid, appends in games:
            if turn >= len(appends):
                continue
            records = []
            for event in appends[turn]:
                position += 1
                env = Envelope(
                    event_id=event.event_id,
                    stream=f"game-{gid}",
                    version=position,
                    position=position,
                    type=event.type,
                    schema_version=event.schema_version,
                    occurred_at=dt.datetime.now(dt.UTC).isoformat(),
                    correlation_id=event.correlation_id,
                    causation_id=event.causation_id,
                    visibility=event.visibility,
                    data=event.data,
                    prev_hash="0" * 64,
                    hash="0" * 64,
                )
                value = canonical_json(env.to_dict()).encode("utf-8")
                records.append((record_key(env.stream), value))
            out.append(records)
    return out


async def consume(bootstrap: str, topic: str, count: int) -> dict[str, Any]:
    """Read count records from every partition of topic; return the hop's p50 and p99."""
    from aiokafka import AIOKafkaConsumer, TopicPartition

    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap, fetch_max_wait_ms=FETCH_WAIT_MS, enable_auto_commit=False
    )
    await consumer.start()
    try:
        consumer.assign([TopicPartition(topic, p) for p in range(PARTITIONS)])
        await consumer.seek_to_beginning()
        print("ready", flush=True)
        hops: list[float] = []
        deadline = time.monotonic() + TIMEOUT_S
        while len(hops) < count and time.monotonic() < deadline:
            batch = await consumer.getmany(timeout_ms=1000)
            now = time.time()
            hops += [now - m.timestamp / 1000 for msgs in batch.values() for m in msgs]
    finally:
        await consumer.stop()
    p50, p99 = quantiles([max(0.0, h) for h in hops])
    return {"records": len(hops), "hop_p50_s": p50, "hop_p99_s": p99}


async def produce(
    bootstrap: str, topic: str, appends: list[list[tuple[bytes, bytes]]], rate: float
) -> None:
    """Send each append's (key, value) records at once, paced at rate records/s."""
    from aiokafka import AIOKafkaProducer

    producer = AIOKafkaProducer(
        bootstrap_servers=bootstrap, acks="all", enable_idempotence=False, linger_ms=0
    )
    await producer.start()
    try:
        sent, start, acks = 0, time.perf_counter(), []
        for records in appends:
            acks += [await producer.send(topic, key=k, value=v) for k, v in records]
            sent += len(records)
            ahead = sent / rate - (time.perf_counter() - start)
            if ahead > 0:
                await asyncio.sleep(ahead)
        await asyncio.gather(*acks)
    finally:
        await producer.stop()


async def broker_hop(
    bootstrap: str, appends: list[list[tuple[bytes, bytes]]], rate: float
) -> dict[str, Any]:
    """Return the broker hop's p50 and p99 (seconds) for these appends sent at rate."""
    from services.platform.stream.kafka_topics import ensure_topics

    topic = f"benchbroker{time.time_ns()}"
    await ensure_topics(bootstrap, [topic], partitions=PARTITIONS)
    count = sum(len(records) for records in appends)
    cmd = [sys.executable, "-m", "benchmarks.broker", bootstrap, topic, str(count)]
    proc = await asyncio.create_subprocess_exec(
        *cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    try:
        assert proc.stdout is not None
        ready = await asyncio.wait_for(proc.stdout.readline(), TIMEOUT_S)
        if ready.strip() != b"ready":
            raise RuntimeError("the broker-hop consumer did not start")
        await produce(bootstrap, topic, appends, rate)
        line = await asyncio.wait_for(proc.stdout.readline(), TIMEOUT_S)
        await proc.wait()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    result: dict[str, Any] = json.loads(line)
    return result


if __name__ == "__main__":
    print(json.dumps(asyncio.run(consume(sys.argv[1], sys.argv[2], int(sys.argv[3])))), flush=True)
