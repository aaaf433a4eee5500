"""Thin gRPC adapter of the matchmaking service."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import grpc
from fallen.matchmaking.v1 import matchmaking_pb2 as pb
from fallen.matchmaking.v1 import matchmaking_pb2_grpc as pb_grpc

from services.matchmaking.engine import PLAYER_RE, Matchmaker, Request
from services.matchmaking.model import CANCELLED, CLAIMED, EXPIRED, MATCHED, QUEUED, RatingRow
from services.matchmaking.model import Ticket as DomainTicket
from services.matchmaking.modes import find_mode
from services.matchmaking.ratings import default_row
from services.platform.auth import Principal, principal_from_metadata
from services.platform.errors import DomainError, InvalidArgument
from services.platform.grpcx.guard import client_host
from services.platform.grpcx.rpc import error_details, public_rpc, rpc, status_for
from services.platform.grpcx.server import Mount
from services.platform.grpcx.times import from_seconds
from services.platform.quotas import Quotas
from services.platform.streamlimits import StreamLimiter

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["MatchmakingService"].full_name
WATCH_POLL_S = 0.1
STATE = {
    QUEUED: pb.TICKET_STATE_QUEUED,
    CLAIMED: pb.TICKET_STATE_QUEUED,
    MATCHED: pb.TICKET_STATE_MATCHED,
    CANCELLED: pb.TICKET_STATE_CANCELLED,
    EXPIRED: pb.TICKET_STATE_EXPIRED,
}
FINAL = (MATCHED, CANCELLED, EXPIRED)


def ticket_pb(t: DomainTicket, viewer: str) -> pb.Ticket:
    """Return a ticket as its member viewer sees it (their own seat only)."""
    msg = pb.Ticket(
        ticket_id=t.ticket_id,
        game=t.game,
        mode=t.mode,
        players=list(t.players),
        state=STATE[t.state],
        queued_at=t.queued_at,
        expires_at=t.expires_at,
        queued_time=from_seconds(t.queued_at),
        expires_time=from_seconds(t.expires_at),
    )
    m = t.matches.get(viewer) or (t.matches.get(t.players[0]) if viewer not in t.players else None)
    if m is not None:
        msg.match.CopyFrom(
            pb.MatchFound(
                game_id=m.game_id,
                seat=m.seat if viewer in t.players else "",
                endpoint=m.endpoint,
                dice_commitment=m.dice_commitment,
                pool=m.pool,
            )
        )
    return msg


def rating_pb(r: RatingRow) -> pb.Rating:
    """Return a rating row as a message."""
    return pb.Rating(player=r.player, mu=r.mu, sigma=r.sigma, ordinal=r.ordinal, games=r.games)


class MatchmakingServicer(pb_grpc.MatchmakingServiceServicer):
    """Parse, call the Matchmaker, answer; errors mapped by @rpc."""

    def __init__(self, mm: Matchmaker, quotas: Quotas | None = None) -> None:
        self.mm = mm
        self.quotas = quotas or Quotas()
        self.streams = StreamLimiter()

    @rpc
    async def Enqueue(
        self, request: pb.EnqueueRequest, context: grpc.aio.ServicerContext, principal: Principal
    ) -> pb.EnqueueResponse:
        """Queue the caller and their party."""
        principal.require_player("Enqueue")
        self.quotas.charge("queue", principal)
        prefs = request.preferences
        req = Request(
            game=request.game,
            mode=request.mode,
            role=prefs.role,
            seat_counts=tuple(int(n) for n in prefs.seat_counts),
            challenge_level=int(prefs.challenge_level),
            bot_takeover=prefs.bot_takeover,
            party=tuple(request.party),
            client_seed=request.client_seed,
        )
        ticket = await self.mm.enqueue(principal.subject, req)
        return pb.EnqueueResponse(ticket=ticket_pb(ticket, principal.subject))

    @rpc
    async def GetTicket(
        self, request: pb.GetTicketRequest, context: grpc.aio.ServicerContext, principal: Principal
    ) -> pb.GetTicketResponse:
        """Return a ticket of the caller."""
        t = await self.mm.ticket_for(principal.subject, request.ticket_id, principal.is_service)
        return pb.GetTicketResponse(ticket=ticket_pb(t, principal.subject))

    async def WatchTicket(
        self, request: pb.WatchTicketRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[pb.WatchTicketResponse]:
        """Push the ticket each time its state changes, ending once it is final."""
        try:
            principal = principal_from_metadata(context.invocation_metadata())
            t = await self.mm.ticket_for(principal.subject, request.ticket_id, principal.is_service)
            held = self.streams.hold_for(principal, client_host(context.peer()))
            held.__enter__()
        except DomainError as exc:
            code = status_for(exc)
            await context.abort(code, str(exc), error_details(exc, code, str(exc)))
            return
        try:
            last = ""
            while True:
                shown = STATE[t.state]
                if str(shown) != last:
                    last = str(shown)
                    yield pb.WatchTicketResponse(ticket=ticket_pb(t, principal.subject))
                if t.state in FINAL:
                    return
                await asyncio.sleep(WATCH_POLL_S)
                t = await self.mm.state.ticket(t.ticket_id)
        finally:
            held.__exit__(None, None, None)

    @rpc
    async def CancelTicket(
        self,
        request: pb.CancelTicketRequest,
        context: grpc.aio.ServicerContext,
        principal: Principal,
    ) -> pb.CancelTicketResponse:
        """Cancel a queued ticket of the caller's party."""
        principal.require_player("CancelTicket")
        self.quotas.charge("queue", principal)
        t = await self.mm.cancel(principal.subject, request.ticket_id)
        return pb.CancelTicketResponse(ticket=ticket_pb(t, principal.subject))

    @public_rpc
    async def GetRating(
        self, request: pb.GetRatingRequest, context: grpc.aio.ServicerContext, principal: Principal
    ) -> pb.GetRatingResponse:
        """Return a player's rating (public, like a leaderboard row)."""
        mode = find_mode(self.mm.modes, request.game, request.mode)
        if not request.player and principal.is_spectator:
            raise InvalidArgument("player", "is required without a player token")
        player = request.player or principal.subject
        if not PLAYER_RE.match(player):
            raise InvalidArgument("player", "is not a player id")
        row = await self.mm.state.rating(mode.key(), player) or default_row(player)
        return pb.GetRatingResponse(rating=rating_pb(row))

    @public_rpc
    async def Leaderboard(
        self,
        request: pb.LeaderboardRequest,
        context: grpc.aio.ServicerContext,
        principal: Principal,
    ) -> pb.LeaderboardResponse:
        """List the best rated players."""
        mode = find_mode(self.mm.modes, request.game, request.mode)
        if request.limit > 100:
            raise InvalidArgument("limit", "must be at most 100")
        rows = await self.mm.state.leaderboard(mode.key(), request.limit or 20)
        return pb.LeaderboardResponse(ratings=[rating_pb(r) for r in rows])

    @public_rpc
    async def ListModes(
        self, request: pb.ListModesRequest, context: grpc.aio.ServicerContext, principal: Principal
    ) -> pb.ListModesResponse:
        """List every queue."""
        return pb.ListModesResponse(
            modes=[
                pb.Mode(
                    game=m.game,
                    mode=m.name,
                    pool=m.pool,
                    min_players=m.min_players,
                    max_players=m.max_players,
                    turn_timer_s=int(m.turn_timer_s),
                    instant=m.instant,
                )
                for m in self.mm.modes.values()
            ]
        )


def mount(mm: Matchmaker) -> Mount:
    """Return the matchmaking service ready to add to a server."""
    return Mount(
        pb_grpc.add_MatchmakingServiceServicer_to_server, MatchmakingServicer(mm), SERVICE_NAME
    )
