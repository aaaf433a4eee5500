"""The gateway's live views: Server-Sent Events over one gRPC WatchView per client.

Every stream is bounded (services.platform.streamlimits: per client address and in total,
HTTP 429 with Retry-After beyond), sends a heartbeat comment while the game is quiet
(``FALLEN_SSE_HEARTBEAT_S``, default 15 s), and is released as soon as its client goes
away (the server cancels the handler; its WatchView is cancelled with it). A client that
leaves is an INFO line, never a traceback. Stopping the gateway ends every open stream.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import Callable
from typing import Any

import grpc
from aiohttp import web
from fallen.projections.v1 import projections_pb2 as pb

from services.platform.quotas import QuotaExceeded
from services.platform.streamlimits import StreamBounds, StreamLimiter
from services.web.security import SECURITY_HEADERS

log = logging.getLogger("fallen.web")

LIMITER: web.AppKey[StreamLimiter] = web.AppKey("sse_limiter", StreamLimiter)
WATCHERS: web.AppKey[set[asyncio.Task[Any]]] = web.AppKey("sse_watchers")
DEFAULT_HEARTBEAT_S = 15.0


def heartbeat_s() -> float:
    """Return FALLEN_SSE_HEARTBEAT_S: seconds between two heartbeats of a quiet stream."""
    return float(os.environ.get("FALLEN_SSE_HEARTBEAT_S", DEFAULT_HEARTBEAT_S))


def setup(app: web.Application) -> None:
    """Give an app its stream bounds and the set of open streams (ended by end_all)."""
    app[LIMITER] = StreamLimiter(StreamBounds.web_from_env(), "sse")
    app[WATCHERS] = set()


async def end_all(app: web.Application) -> None:
    """End every open stream (the gateway is stopping)."""
    watching: set[asyncio.Task[Any]] = app[WATCHERS]
    tasks = list(watching)
    for task in tasks:
        task.cancel()
    if tasks:
        log.info("ending open event streams", extra={"streams": len(tasks)})
        await asyncio.gather(*tasks, return_exceptions=True)


def too_many(exc: QuotaExceeded) -> web.HTTPTooManyRequests:
    """Return the 429 answer of a stream beyond a bound."""
    return web.HTTPTooManyRequests(
        text=json.dumps({"code": "RESOURCE_EXHAUSTED", "error": str(exc)}),
        content_type="application/json",
        headers={"Retry-After": str(max(1, round(exc.retry_after_s)))},
    )


async def watch(
    request: web.Request,
    call_for: Callable[[web.Request], Any],
    to_json: Callable[[pb.WatchViewResponse], dict[str, Any]],
) -> web.StreamResponse:
    """Serve one SSE stream of the WatchView call call_for(request) opens."""
    address = request.remote or ""
    try:
        held = request.app[LIMITER].hold("", address)
        held.__enter__()
    except QuotaExceeded as exc:
        raise too_many(exc) from None
    task = asyncio.current_task()
    assert task is not None
    request.app[WATCHERS].add(task)
    call = None
    try:
        call = call_for(request)
        first = await call.read()  # errors surface here, before the stream starts
        out = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
        )
        out.headers.update(SECURITY_HEADERS)
        await out.prepare(request)
        await _pump(call, first, out, to_json)
        return out
    except (asyncio.CancelledError, ConnectionResetError) as exc:
        log.info(
            "event stream closed",
            extra={"path": request.path, "client": address, "why": type(exc).__name__},
        )
        if isinstance(exc, asyncio.CancelledError):
            raise
        return web.Response(status=499)
    finally:
        if call is not None:
            call.cancel()
        held.__exit__(None, None, None)
        request.app[WATCHERS].discard(task)


async def _pump(
    call: Any,
    msg: Any,
    out: web.StreamResponse,
    to_json: Callable[[pb.WatchViewResponse], dict[str, Any]],
) -> None:
    """Write each pushed view as an event, a heartbeat comment while quiet, then end."""
    every = heartbeat_s()
    while msg is not grpc.aio.EOF:
        payload = json.dumps(to_json(msg), separators=(",", ":"))
        await out.write(f"event: view\ndata: {payload}\n\n".encode())
        nxt = asyncio.ensure_future(call.read())
        try:
            while not nxt.done():
                done, _ = await asyncio.wait({nxt}, timeout=every)
                if not done:
                    await out.write(b": heartbeat\n\n")
        finally:
            if not nxt.done():
                nxt.cancel()
        msg = nxt.result()
    await out.write(b"event: end\ndata: {}\n\n")
