"""Internal calls: a dependency that drops a call in flight is retried, never an INTERNAL."""

from __future__ import annotations

import grpc
import pytest

from services.kernel.errors import RuleViolation, Unavailable
from services.kernel.grpcx.client import Retry, call

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
