"""Internal calls: a dependency that drops a call in flight is retried, never an INTERNAL."""

from __future__ import annotations

import grpc
import pytest

from services.platform.errors import RuleViolation, Unavailable
from services.platform.grpcx.client import Retry, call

QUICK = Retry(attempts=3, first_s=0.001, max_s=0.002, timeout_s=1.0)


def _dropped(code: grpc.StatusCode) -> grpc.aio.AioRpcError:
    return grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(), "Stream removed")


@pytest.mark.parametrize("code", [grpc.StatusCode.UNKNOWN, grpc.StatusCode.CANCELLED])
async def test_given_a_dependency_killed_mid_call_when_it_is_back_then_the_call_succeeds(
    code: grpc.StatusCode,
) -> None:
    # given a dependency whose connection drops under the first call (its container killed)
    answers: list[object] = [_dropped(code), "dealt"]

    async def rpc(timeout: float) -> object:
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    # when the idempotent call is made, then it is retried and answered
    assert await call(rpc, QUICK) == "dealt"


async def test_given_a_dependency_that_stays_down_then_the_caller_sees_unavailable() -> None:
    async def rpc(timeout: float) -> object:
        raise _dropped(grpc.StatusCode.UNKNOWN)

    # then the error is a retryable Unavailable (UNAVAILABLE to the client), not INTERNAL
    with pytest.raises(Unavailable):
        await call(rpc, QUICK)


async def test_a_refusal_of_the_dependency_is_not_retried() -> None:
    calls = 0

    async def rpc(timeout: float) -> object:
        nonlocal calls
        calls += 1
        raise grpc.aio.AioRpcError(
            grpc.StatusCode.FAILED_PRECONDITION, grpc.aio.Metadata(), grpc.aio.Metadata(), "no"
        )

    with pytest.raises(RuleViolation):
        await call(rpc, QUICK)
    assert calls == 1


def _wrong_peer() -> grpc.aio.AioRpcError:
    return grpc.aio.AioRpcError(
        grpc.StatusCode.UNIMPLEMENTED, grpc.aio.Metadata(), grpc.aio.Metadata(), "Method not found!"
    )


@pytest.mark.parametrize("idempotent", [True, False])
async def test_given_an_address_that_answers_as_another_service_then_a_new_channel_answers(
    idempotent: bool,
) -> None:
    # given a dependency's address that first answers as another of our services (a
    # restarted container took the address), and a channel that can be made anew
    reconnects = 0

    def reconnect() -> None:
        nonlocal reconnects
        reconnects += 1

    async def rpc(timeout: float) -> object:
        # the old channel keeps reaching the wrong peer; a new one reaches the dependency
        if reconnects == 0:
            raise _wrong_peer()
        return "dealt"

    # when the call is made (idempotent or not: nothing was applied at the wrong peer)
    result = await call(rpc, QUICK, idempotent=idempotent, reconnect=reconnect)
    # then the channel was made anew once and the call answered through it
    assert (result, reconnects) == ("dealt", 1)


async def test_given_a_wrong_peer_and_no_new_channel_then_the_caller_sees_unavailable() -> None:
    calls = 0

    async def rpc(timeout: float) -> object:
        nonlocal calls
        calls += 1
        raise _wrong_peer()

    # then it is not retried on the same channel, and it is UNAVAILABLE, never INTERNAL
    with pytest.raises(Unavailable, match="UNIMPLEMENTED"):
        await call(rpc, QUICK)
    assert calls == 1


async def test_a_reconnecting_channel_gives_stubs_of_its_new_channel_and_closes_every_one() -> None:
    from services.platform.grpcx.client import Reconnecting, Stubs

    made: list[grpc.aio.Channel] = []

    def make(address: str) -> grpc.aio.Channel:
        made.append(grpc.aio.insecure_channel(address))
        return made[-1]

    # given a reconnecting channel and the stubs made of it
    conn = Reconnecting("127.0.0.1:1", make)
    stubs = Stubs(conn, lambda ch: ("stub", ch))
    first = stubs.get()
    assert first == ("stub", made[0]) and stubs.get() is first  # one stub per channel
    # when it reconnects
    renew = stubs.reconnect()
    assert renew is not None
    renew()
    # then the stubs are of the new channel, and closing closes both channels
    assert stubs.get() == ("stub", made[1]) and len(made) == 2
    await conn.close()
    assert all(ch.get_state() == grpc.ChannelConnectivity.SHUTDOWN for ch in made)
    # and stubs of a plain channel cannot renew it
    assert Stubs(made[0], lambda ch: ch).reconnect() is None
