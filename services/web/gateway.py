"""HTTP/SSE gateway in front of ProjectionService: JSON for the page, SSE for live views.

Every route is one read-side RPC. A request with `Authorization: Bearer <player token>` is
forwarded with that token (the read side then allows that player's seat); without one the
gateway asks with a spectator token (kind "spectator": not a player, so it holds no seat in
any game and can only ever receive the spectator's redaction). gRPC status codes map to
HTTP ones with the same message.
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
from aiohttp import web
from fallen.projections.v1 import projections_pb2 as pb
from fallen.projections.v1 import projections_pb2_grpc as pb_grpc

from services.dice.kinds import catalog
from services.platform.auth import issue_token
from services.platform.grpcx.structs import struct_to_py, value_to_py
from services.web import health, replays, sse
from services.web.security import security_headers

STATIC = Path(__file__).parent / "static"
SPECTATOR = "web"  # the spectator token's subject: the principal "spectator:web"
HTTP_OF = {
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.UNAUTHENTICATED: 401,
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.FAILED_PRECONDITION: 409,
    grpc.StatusCode.ABORTED: 409,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429,
}
STUB: web.AppKey[pb_grpc.ProjectionServiceStub] = web.AppKey("stub", pb_grpc.ProjectionServiceStub)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


_SPECTATOR_TOKEN: list[tuple[float, str]] = []  # (renew after, token): one token an hour
SPECTATOR_TTL_S = 3600


def spectator_token() -> str:
    """Return the gateway's spectator token (renewed well before it expires)."""
    now = time.monotonic()
    if not _SPECTATOR_TOKEN or _SPECTATOR_TOKEN[0][0] < now:
        token = issue_token(SPECTATOR, spectator=True, ttl_s=2 * SPECTATOR_TTL_S)
        _SPECTATOR_TOKEN[:] = [(now + SPECTATOR_TTL_S, token)]
    return _SPECTATOR_TOKEN[0][1]


MAX_AUTHORIZATION = 4096
STOP_WAIT_S = 1.0  # what stopping waits for in-flight requests once streams are ended
MAX_QUERY_INT = 2**31 - 1  # the largest count or version a query parameter may name


def _unauthorized(message: str) -> web.HTTPUnauthorized:
    return web.HTTPUnauthorized(
        text=json.dumps({"code": "UNAUTHENTICATED", "error": message}),
        content_type="application/json",
        headers={"WWW-Authenticate": "Bearer"},
    )


def _metadata(request: web.Request) -> tuple[tuple[str, str], ...]:
    """Return the caller's bearer token, or the anonymous spectator's (no Authorization).

    A present but malformed header (not `Bearer <token>`, too long, or a token with bytes
    outside printable ASCII) is 401, never forwarded."""
    auth = request.headers.get("Authorization")
    if auth is None:
        return (("authorization", f"Bearer {spectator_token()}"),)
    scheme, _, token = auth.partition(" ")
    if (
        scheme != "Bearer"
        or not token
        or len(auth) > MAX_AUTHORIZATION
        or not all("!" <= c <= "~" for c in token)
    ):
        raise _unauthorized("Authorization must be 'Bearer <token>' (printable ASCII)")
    return (("authorization", f"Bearer {token}"),)


@web.middleware
async def grpc_errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Answer a failed RPC with its HTTP status and message."""
    try:
        return await handler(request)
    except grpc.aio.AioRpcError as err:
        status = HTTP_OF.get(err.code(), 502)
        body = {"code": err.code().name, "error": err.details() or ""}
        return web.json_response(body, status=status)


def _int(request: web.Request, name: str) -> int:
    """Return a non-negative integer query parameter (0 when absent)."""
    raw = request.query.get(name, "0")
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 12 or int(raw) > MAX_QUERY_INT:
        raise web.HTTPBadRequest(text=f"{name}: must be an integer from 0 to {MAX_QUERY_INT}")
    return int(raw)


def _seat(request: web.Request) -> str:
    """Return the seat query parameter ('' = spectator)."""
    return request.query.get("seat", "")[:64]


async def games(request: web.Request) -> web.Response:
    """GET /api/games: the lobby (ListGames)."""
    resp = await request.app[STUB].ListGames(
        pb.ListGamesRequest(limit=_int(request, "limit")), metadata=_metadata(request)
    )
    return web.json_response(
        {
            "games": [
                {
                    "game_id": g.game_id,
                    "game": g.game,
                    "seats": dict(g.seats),
                    "version": g.version,
                    "ended": g.ended,
                }
                for g in resp.games
            ]
        }
    )


async def view(request: web.Request) -> web.Response:
    """GET /api/games/{id}/view?seat=: the current view (GetView)."""
    resp = await request.app[STUB].GetView(
        pb.GetViewRequest(
            game_id=request.match_info["game_id"],
            seat=_seat(request),
            min_version=_int(request, "min_version"),
        ),
        metadata=_metadata(request),
    )
    return web.json_response(_view_json(resp))


def _view_json(msg: pb.GetViewResponse | pb.WatchViewResponse) -> dict[str, Any]:
    """Return a view message as the page's JSON."""
    return {
        "game_id": msg.game_id,
        "seat": msg.seat,
        "version": msg.version,
        "ended": msg.ended,
        "view": struct_to_py(msg.view),
    }


def _watch_call(request: web.Request) -> Any:
    """Open the WatchView call of a /watch request."""
    return request.app[STUB].WatchView(
        pb.WatchViewRequest(
            game_id=request.match_info["game_id"],
            seat=_seat(request),
            after_version=_int(request, "after"),
        ),
        metadata=_metadata(request),
    )


async def watch(request: web.Request) -> web.StreamResponse:
    """GET /api/games/{id}/watch?seat=&after=: Server-Sent Events, one per new view
    (bounded, with heartbeats, released when the client leaves: services/web/sse.py)."""
    return await sse.watch(request, _watch_call, _view_json)


async def replay(request: web.Request) -> web.Response:
    """GET /api/games/{id}/replay?seat=: every step of a finished game (ReplayViews), built
    once and kept gzipped with an ETag (services/web/replays.py).

    Each step has the full `view` or, mostly, a JSON merge `patch` against the previous one.
    """
    gid, seat, md = request.match_info["game_id"], _seat(request), _metadata(request)
    cache = request.app[replays.REPLAYS]
    anonymous = "Authorization" not in request.headers
    # without a token only the spectator's replay is served from the cache (a seat's needs
    # the read side's yes first)
    built = cache.get((gid, seat)) if anonymous and not seat else None
    if built is not None:
        return replays.answer(request, built)
    if anonymous:
        cache.charge(request.remote or "")
    steps: list[dict[str, Any]] = []
    start = 1
    while True:
        resp = await request.app[STUB].ReplayViews(
            pb.ReplayViewsRequest(game_id=gid, seat=seat, from_version=start, limit=200),
            metadata=md,
        )
        if not anonymous and start == 1 and (known := cache.get((gid, seat))) is not None:
            return replays.answer(request, known)  # the read side said this caller may read it
        for s in resp.steps:
            step = {"version": s.version, "type": s.type, "data": struct_to_py(s.data)}
            if s.HasField("view_patch"):
                step["patch"] = struct_to_py(s.view_patch)
            else:
                step["view"] = struct_to_py(s.view)
            steps.append(step)
        if resp.next_version > resp.head_version or not resp.steps:
            break
        start = resp.next_version
    body: dict[str, object] = {"game_id": gid, "seat": seat, "steps": steps}
    return replays.answer(request, cache.put((gid, seat), body))


async def events(request: web.Request) -> web.Response:
    """GET /api/games/{id}/events?seat=&stream=: a whole stream as the seat may see it."""
    gid, seat, md = request.match_info["game_id"], _seat(request), _metadata(request)
    family = request.query.get("stream", "game")[:16]
    out: list[dict[str, Any]] = []
    start = max(1, _int(request, "from"))
    while True:
        resp = await request.app[STUB].ReadEvents(
            pb.ReadEventsRequest(game_id=gid, seat=seat, stream=family, from_version=start),
            metadata=md,
        )
        out += [
            {
                "stream": e.stream,
                "version": e.version,
                "type": e.type,
                "data": struct_to_py(e.data),
                "visibility": value_to_py(e.visibility),
            }
            for e in resp.events
        ]
        if resp.next_version > resp.head_version or resp.next_version <= start:
            break
        start = resp.next_version
    return web.json_response({"game_id": gid, "seat": seat, "stream": family, "events": out})


async def audit(request: web.Request) -> web.Response:
    """GET /api/games/{id}/audit: a finished game's audit log (its players only)."""
    resp = await request.app[STUB].ReadAuditLog(
        pb.ReadAuditLogRequest(game_id=request.match_info["game_id"]), metadata=_metadata(request)
    )
    return web.json_response(
        {
            "game_id": resp.game_id,
            "records": [struct_to_py(r.record) for r in resp.records],
            "commitment": resp.commitment,
            "server_seed": resp.server_seed,
        }
    )


async def dice_kinds(request: web.Request) -> web.Response:
    """GET /api/dice/kinds: every dice kind's faces (public data, services/dice/kinds.yaml)."""
    return web.json_response({"kinds": {k: list(v) for k, v in catalog().faces.items()}})


async def index(request: web.Request) -> web.FileResponse:
    """GET /: the single page (lobby, live view, replay)."""
    return web.FileResponse(STATIC / "index.html")


def make_app(channel: grpc.aio.Channel) -> web.Application:
    """Return the gateway application talking to the read side over channel."""
    app = web.Application(middlewares=[security_headers, grpc_errors])
    sse.setup(app)
    app[replays.REPLAYS] = replays.ReplayCache()
    health.add_routes(app, channel)
    app[STUB] = pb_grpc.ProjectionServiceStub(channel)
    app.router.add_get("/", index)
    app.router.add_get("/api/games", games)
    app.router.add_get("/api/dice/kinds", dice_kinds)
    app.router.add_get("/api/games/{game_id}/view", view)
    app.router.add_get("/api/games/{game_id}/watch", watch)
    app.router.add_get("/api/games/{game_id}/replay", replay)
    app.router.add_get("/api/games/{game_id}/events", events)
    app.router.add_get("/api/games/{game_id}/audit", audit)
    app.router.add_static("/static/", STATIC)
    from services.web.play_routes import add_play_routes  # imports this module's helpers

    add_play_routes(app, channel)
    return app


async def start_web(grpc_target: str, host: str, port: int) -> Callable[[], Awaitable[None]]:
    """Serve the page on host:port in front of the read side at grpc_target; return stop."""
    channel = grpc.aio.insecure_channel(grpc_target)
    app = make_app(channel)
    # handler_cancellation: a client that goes away cancels its handler at once (an idle
    # SSE stream is released, not kept until its next write)
    runner = web.AppRunner(app, handler_cancellation=True, shutdown_timeout=STOP_WAIT_S)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()

    async def stop() -> None:
        await sse.end_all(app)
        await runner.cleanup()
        await channel.close()

    return stop
