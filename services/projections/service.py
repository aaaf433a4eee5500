"""The ProjectionService gRPC adapter: views, seat feeds, audit logs, disputes, lag."""

from __future__ import annotations

import asyncio
import functools
import json
import time
from collections.abc import AsyncIterator, Mapping
from typing import Any

import grpc
from fallen.projections.v1 import projections_pb2 as pb
from fallen.projections.v1 import projections_pb2_grpc as pb_grpc

from services.audit import disputes
from services.audit.logfile import store_records
from services.audit.verify import Report, verify_game
from services.platform.auth import Principal, principal_from_metadata
from services.platform.errors import (
    DomainError,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    Unavailable,
    quote,
)
from services.platform.games import check_game_id, game_ended, game_info
from services.platform.grpcx.guard import client_host
from services.platform.grpcx.rpc import error_details, rpc, status_for
from services.platform.grpcx.server import Mount
from services.platform.grpcx.structs import to_struct, to_value
from services.platform.grpcx.times import from_iso
from services.platform.store.base import EventStore
from services.platform.streamlimits import StreamLimiter
from services.projections.consistency import known_mismatch
from services.projections.records import GAME_FAMILIES, game_streams, hashed_text, may_see
from services.projections.replay_views import Step, merge_patch, replay_steps
from services.projections.viewstore import ViewRecord, ViewStore
from services.projections.watch import WatchHub
from services.rules.engine.api import CHANCE, GameRules
from services.rules.registry import load

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["ProjectionService"].full_name
DEFAULT_WAIT_MS = 2000
MAX_WAIT_MS = 10_000
WATCH_POLL_S = 0.25
DEFAULT_LIMIT = 1000
MAX_LIMIT = 5000
DEFAULT_GAMES = 100
DEFAULT_STEPS = 200
MAX_STEPS = 500
REPLAY_CACHE = 4
MAX_GAMES = 500


@functools.lru_cache(maxsize=512)
def _watch_message(rec: ViewRecord) -> pb.WatchViewResponse:
    """Return the pushed message of a stored view, built once for all its watchers."""
    return pb.WatchViewResponse(
        game_id=rec.game_id,
        seat=rec.seat,
        version=rec.version,
        view=to_struct(json.loads(rec.view_json)),
        ended=rec.ended,
    )


class ProjectionServicer(pb_grpc.ProjectionServiceServicer):
    """Reads views and audit records from the view store; feeds and disputes from the store."""

    def __init__(
        self, store: EventStore, views: ViewStore, games: Mapping[str, GameRules] | None = None
    ) -> None:
        self.store = store
        self.views = views
        self.games = dict(games or {})
        self.hub = WatchHub(views)
        self.streams = StreamLimiter()
        self._replays: dict[tuple[str, str], tuple[list[Step], int]] = {}

    def rules_of(self, game: str) -> GameRules | None:
        """Return the engine of a game kind, or None."""
        try:
            return load(game, self.games)
        except Exception:
            return None

    async def _seats(self, game_id: str) -> dict[str, str]:
        """Return a game's seats (seat -> player); raise NotFound for an unknown game."""
        check_game_id(game_id)
        rec = await self.views.load_game(game_id)
        if rec and rec.get("seats"):
            return dict(rec["seats"])
        return dict((await game_info(self.store, game_id)).get("seats", {}))

    async def _reader(
        self, game_id: str, principal: Principal, seat: str, spectator_ok: bool = True
    ) -> str | None:
        """Return the seat the caller reads as (None = spectator), or raise."""
        seats = await self._seats(game_id)
        if not seat:
            if spectator_ok:
                return None
            raise InvalidArgument("seat", "is required")
        if seat == CHANCE or seat not in seats:
            raise InvalidArgument(
                "seat", f"game {game_id!r} has no seat {quote(seat)}; seats: {sorted(seats)}"
            )
        if principal.is_service:
            return seat
        if principal.is_spectator or seats[seat] != principal.subject:
            raise PermissionDenied(f"seat {quote(seat)} of game {game_id!r} is not yours")
        return seat

    async def _view(
        self, game_id: str, seat: str | None, min_version: int, wait_ms: int
    ) -> ViewRecord:
        """Return the stored view, waiting up to wait_ms for min_version (or for any view)."""
        key = seat or ""
        known = await known_mismatch(self.views)
        if known is not None:
            raise Unavailable(f"{known.describe()}; views are not served until it is rebuilt")
        deadline = time.monotonic() + min(wait_ms or DEFAULT_WAIT_MS, MAX_WAIT_MS) / 1000
        while True:
            rec = await self.views.get_view(game_id, key)
            if rec is not None and rec.version >= min_version:
                return rec
            left = deadline - time.monotonic()
            if left <= 0:
                if rec is not None:
                    return rec
                raise NotFound(f"the projections have not reached game {game_id!r} yet; retry")
            await self.views.wait_change(game_id, min(left, WATCH_POLL_S))

    @rpc
    async def GetView(
        self, request: pb.GetViewRequest, context: grpc.aio.ServicerContext, principal: Principal
    ) -> pb.GetViewResponse:
        """Return a seat's view or the spectator view, with its version."""
        seat = await self._reader(request.game_id, principal, request.seat)
        rec = await self._view(request.game_id, seat, request.min_version, request.wait_ms)
        return pb.GetViewResponse(
            game_id=rec.game_id,
            seat=rec.seat,
            version=rec.version,
            view=to_struct(json.loads(rec.view_json)),
            ended=rec.ended,
        )

    async def WatchView(
        self, request: pb.WatchViewRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[pb.WatchViewResponse]:
        """Push the view each time its version moves past after_version; end after the game."""
        try:
            principal = principal_from_metadata(context.invocation_metadata())
            seat = await self._reader(request.game_id, principal, request.seat)
            held = self.streams.hold_for(principal, client_host(context.peer()))
            held.__enter__()
        except DomainError as exc:
            code = status_for(exc)
            await context.abort(code, str(exc), error_details(exc, code, str(exc)))
            return
        try:
            async for rec in self.hub.watch(request.game_id, seat or "", request.after_version):
                yield _watch_message(rec)
        finally:
            held.__exit__(None, None, None)

    @rpc
    async def ListGames(
        self, request: pb.ListGamesRequest, context: grpc.aio.ServicerContext, principal: Principal
    ) -> pb.ListGamesResponse:
        """List the games of the read model (public facts only), in progress first; a game's
        player ids only to its players and services, like GetGame."""
        if len(request.game) > 64:
            raise InvalidArgument("game", "is longer than 64 characters")
        limit = min(request.limit or DEFAULT_GAMES, MAX_GAMES)
        out: list[pb.GameSummary] = []
        for game_id in await self.views.games():
            rec = await self.views.load_game(game_id)
            if not rec or not rec.get("game") or (request.game and rec["game"] != request.game):
                continue
            heads = rec.get("heads", {})
            seats = dict(rec.get("seats", {}))
            if not (principal.is_service or principal.subject in seats.values()):
                seats = dict.fromkeys(seats, "")  # player ids only to players (decisions.md)
            out.append(
                pb.GameSummary(
                    game_id=game_id,
                    game=rec["game"],
                    seats=seats,
                    version=int(heads.get(f"game-{game_id}", [0])[0]),
                    ended=bool(rec.get("ended")),
                )
            )
        out.sort(key=lambda g: (g.ended, g.game_id))
        del out[limit:]
        return pb.ListGamesResponse(games=out)

    @rpc
    async def ReplayViews(
        self,
        request: pb.ReplayViewsRequest,
        context: grpc.aio.ServicerContext,
        principal: Principal,
    ) -> pb.ReplayViewsResponse:
        """Return a page of a finished game's replay as the caller's seat (or spectator)."""
        seat = await self._reader(request.game_id, principal, request.seat)
        if not await game_ended(self.store, request.game_id):
            raise disputes.not_finished(request.game_id)
        steps, head = await self._replay(request.game_id, seat)
        start = max(1, request.from_version)
        limit = min(request.limit or DEFAULT_STEPS, MAX_STEPS)
        page = [st for st in steps if st.version >= start][:limit]
        more = len(page) == limit and page[-1].version < steps[-1].version
        out = []
        for i, st in enumerate(page):
            step = pb.ReplayStep(version=st.version, type=st.type, data=to_struct(st.data))
            if i == 0:
                step.view.CopyFrom(to_struct(st.view))
            else:
                step.view_patch.SetInParent()
                step.view_patch.CopyFrom(to_struct(merge_patch(page[i - 1].view, st.view)))
            out.append(step)
        return pb.ReplayViewsResponse(
            steps=out,
            head_version=head,
            next_version=page[-1].version + 1 if more else head + 1,
        )

    async def _replay(self, game_id: str, seat: str | None) -> tuple[list[Step], int]:
        """Return a finished game's replay steps for a seat and its head (a few kept cached)."""
        key = (game_id, seat or "")
        if key not in self._replays:
            envs = await self.store.read(f"game-{game_id}", 1)
            steps = await asyncio.to_thread(replay_steps, game_id, envs, seat, self.rules_of)
            while len(self._replays) >= REPLAY_CACHE:
                self._replays.pop(next(iter(self._replays)))
            self._replays[key] = (steps, envs[-1].version if envs else 0)
        return self._replays[key]

    @rpc
    async def ReadEvents(
        self, request: pb.ReadEventsRequest, context: grpc.aio.ServicerContext, principal: Principal
    ) -> pb.ReadEventsResponse:
        """Return a page of one game stream's events that the caller's seat may see."""
        family = request.stream or "game"
        if family not in GAME_FAMILIES:
            raise InvalidArgument("stream", f"must be one of {', '.join(GAME_FAMILIES)}")
        seat = await self._reader(request.game_id, principal, request.seat)
        limit = min(request.limit or DEFAULT_LIMIT, MAX_LIMIT)
        stream = f"{family}-{request.game_id}"
        envs = await self.store.read(stream, max(1, request.from_version))
        out: list[pb.SeatEvent] = []
        next_version = max(1, request.from_version)
        for env in envs:
            if len(out) >= limit:
                break
            next_version = env.version + 1
            if not may_see(env, seat):
                continue
            out.append(
                pb.SeatEvent(
                    stream=env.stream,
                    version=env.version,
                    position=env.position,
                    type=env.type,
                    schema_version=env.schema_version,
                    data=to_struct(env.data),
                    occurred_at=env.occurred_at,
                    occurred_time=from_iso(env.occurred_at),
                    visibility=to_value(env.visibility),
                )
            )
        head = envs[-1].version if envs else await self.store.version(stream)
        return pb.ReadEventsResponse(events=out, head_version=head, next_version=next_version)

    async def _finished_for(self, game_id: str, principal: Principal) -> None:
        """Raise unless the game is over and the caller is a seated player or a service."""
        seats = await self._seats(game_id)
        if principal.is_spectator or (
            not principal.is_service and principal.subject not in seats.values()
        ):
            raise PermissionDenied(f"only the players of game {game_id!r} may read its audit log")
        if not await game_ended(self.store, game_id):
            raise disputes.not_finished(game_id)

    async def _audit_records(self, game_id: str) -> list[dict[str, Any]]:
        """Return the audit records from the projection if complete and not known wrong, else
        from the store."""
        if await known_mismatch(self.views) is not None:
            return await store_records(self.store, game_id)
        rec = await self.views.load_game(game_id)
        heads = (rec or {}).get("heads", {})
        complete = True
        for stream in game_streams(game_id):
            if int(heads.get(stream, [0])[0]) != await self.store.version(stream):
                complete = False
                break
        if complete and rec is not None:
            return await self.views.read_audit(game_id)
        return await store_records(self.store, game_id)

    @rpc
    async def ReadAuditLog(
        self,
        request: pb.ReadAuditLogRequest,
        context: grpc.aio.ServicerContext,
        principal: Principal,
    ) -> pb.ReadAuditLogResponse:
        """Return a finished game's audit log with its chain and dice check results."""
        await self._finished_for(request.game_id, principal)
        records = await self._audit_records(request.game_id)
        report: Report = await asyncio.to_thread(
            verify_game, request.game_id, records, self.rules_of
        )
        resp = pb.ReadAuditLogResponse(
            game_id=request.game_id,
            records=[pb.AuditRecord(record=to_struct(r), hashed=hashed_text(r)) for r in records],
            commitment=report.commitment,
            server_seed=report.server_seed,
            chain_ok=report.chain_ok,
            dice_ok=report.dice_ok,
        )
        if report.mismatch is not None:
            m = report.mismatch
            resp.mismatch.CopyFrom(pb.Mismatch(stream=m.stream, version=m.version, what=m.what))
        return resp

    @rpc
    async def OpenDispute(
        self,
        request: pb.OpenDisputeRequest,
        context: grpc.aio.ServicerContext,
        principal: Principal,
    ) -> pb.OpenDisputeResponse:
        """Verify a finished game for one of its players and record the ruling."""
        seat = await self._reader(request.game_id, principal, request.seat, spectator_ok=False)
        assert seat is not None
        ruling = await disputes.open_dispute(
            self.store,
            request.game_id,
            seat,
            principal.subject,
            request.reason,
            request.command_id,
            self.rules_of,
        )
        return pb.OpenDisputeResponse(
            dispute_id=ruling.dispute_id,
            verified=ruling.verified,
            report=to_struct(ruling.report),
            version=ruling.version,
            deduplicated=ruling.deduplicated,
        )

    @rpc
    async def GetProjectionStatus(
        self,
        request: pb.GetProjectionStatusRequest,
        context: grpc.aio.ServicerContext,
        principal: Principal,
    ) -> pb.GetProjectionStatusResponse:
        """Return every runner's last reported status."""
        items = await self.views.meta_items("status:")
        known = await known_mismatch(self.views)
        mismatch = "" if known is None else known.describe()
        runners = []
        for raw in items.values():
            s = json.loads(raw)
            runners.append(
                pb.RunnerStatus(
                    runner=s["runner"],
                    lag_events=int(s["lag_events"]),
                    lag_seconds=float(s["lag_seconds"]),
                    position=int(s["position"]),
                    updated_at=s["updated_at"],
                    updated_time=from_iso(str(s["updated_at"])),
                    applied=int(s.get("applied", 0)),
                    mismatch=mismatch,
                )
            )
        return pb.GetProjectionStatusResponse(runners=runners)


def mount(
    store: EventStore, views: ViewStore, games: Mapping[str, GameRules] | None = None
) -> Mount:
    """Return the ProjectionService ready to add to a server."""
    return Mount(
        pb_grpc.add_ProjectionServiceServicer_to_server,
        ProjectionServicer(store, views, games),
        SERVICE_NAME,
    )
