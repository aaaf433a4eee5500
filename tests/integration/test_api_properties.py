"""Generated requests for every RPC of every served service (derived from descriptors).

Whatever a client sends — plausible or hostile fields, raw bytes, with or without a
token — no answer is INTERNAL or UNKNOWN, and a refused request appends nothing.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc
import pytest
from fallen.rules.v1 import rules_pb2, rules_pb2_grpc
from google.protobuf.descriptor import MethodDescriptor
from grpc_health.v1 import health_pb2, health_pb2_grpc
from hypothesis import given, settings
from hypothesis import strategies as st

from services.app import Backend, serve
from services.platform.auth import issue_token
from services.platform.store.sqlite import SqliteEventStore
from tests.support.proto_strategies import message, served_methods
from tests.support.toy_game import RULES as TOY

NOT_SERVED = ("fallen.echo.v1.EchoService",)  # the benchmark's baseline, see services/app.py
METHODS = sorted(served_methods(exclude=NOT_SERVED), key=lambda m: m.full_name)
KNOWN = ("p1", "a", "b", "toy", "fallen", "ask_roll", "deck", "hand", "d6", "game", "c-1", "")
FORBIDDEN = {grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN}
EXAMPLES = 25  # per RPC: about 700 calls, 10-60 s depending on the machine
T = TypeVar("T")
TOKENS = st.sampled_from(["alice", "mallory", "service:prop", "", "garbage"])


def metadata(who: str) -> tuple[tuple[str, str], ...]:
    if not who:
        return ()
    if who == "garbage":
        return (("authorization", "Bearer not.a.jwt"),)
    token = issue_token(who, service=who.startswith("service:"))
    return (("authorization", f"Bearer {token}"),)


@dataclass
class Served:
    """A backend serving on its own event loop in a thread, and a blocking channel to it."""

    loop: asyncio.AbstractEventLoop
    backend: Backend
    channel: grpc.Channel
    store: SqliteEventStore

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=30)


async def cancel_others() -> None:
    """Cancel the tasks a stopped server leaves on its loop (server-side handlers)."""
    others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    for task in others:
        task.cancel()
    await asyncio.gather(*others, return_exceptions=True)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    mp = pytest.MonkeyPatch()
    mp.setenv("FALLEN_DEV", "1")
    mp.delenv("FALLEN_JWT_SECRET", raising=False)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    store = SqliteEventStore(tmp_path_factory.mktemp("props") / "events.db")
    start = serve(store, "127.0.0.1:0", extra_games={"toy": TOY})
    backend = asyncio.run_coroutine_threadsafe(start, loop).result(timeout=60)
    channel = grpc.insecure_channel(f"127.0.0.1:{backend.port}")
    s = Served(loop, backend, channel, store)
    rules_pb2_grpc.RulesServiceStub(channel).CreateGame(
        rules_pb2.CreateGameRequest(game="toy", game_id="p1", seats={"a": "alice", "b": "bob"}),
        metadata=metadata("alice"),
    )
    try:
        yield s
    finally:
        channel.close()
        s.run(backend.stop())
        s.run(store.close())
        s.run(cancel_others())
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()
        mp.undo()


def call(served: Served, method: MethodDescriptor, body: bytes, who: str) -> grpc.StatusCode:
    """Send raw request bytes to a method; return the status (first message of a stream)."""
    path = f"/{method.containing_service.full_name}/{method.name}"
    md = metadata(who)
    try:
        if method.server_streaming:
            stream = served.channel.unary_stream(path)(body, metadata=md, timeout=5)
            try:
                next(iter(stream), None)
            finally:
                stream.cancel()
            return grpc.StatusCode.OK
        served.channel.unary_unary(path)(body, metadata=md, timeout=5)
    except grpc.RpcError as err:
        return err.code()  # type: ignore[no-any-return,attr-defined]
    return grpc.StatusCode.OK


@pytest.mark.parametrize("method", METHODS, ids=lambda m: m.full_name)
def test_generated_requests_never_fail_internally_and_refusals_append_nothing(
    served: Served, method: MethodDescriptor
) -> None:
    # given the service is served (a new service must be served or listed in NOT_SERVED)
    health = health_pb2_grpc.HealthStub(served.channel)
    status = health.Check(
        health_pb2.HealthCheckRequest(service=method.containing_service.full_name)
    )
    assert status.status == health_pb2.HealthCheckResponse.SERVING
    bodies = st.one_of(
        message(method.input_type, KNOWN).map(lambda m: m.SerializeToString()),
        st.binary(max_size=24),
    )

    @settings(max_examples=EXAMPLES, deadline=None, database=None)
    @given(body=bodies, who=TOKENS)
    def probe(body: bytes, who: str) -> None:
        # when a generated request is sent
        head = served.run(served.store.head_position())
        code = call(served, method, body, who)
        # then the answer is never INTERNAL/UNKNOWN, and a refusal appends nothing
        assert code not in FORBIDDEN, (method.full_name, body[:200], who)
        if code != grpc.StatusCode.OK:
            assert served.run(served.store.head_position()) == head, (method.full_name, code)

    probe()
