"""Thin gRPC adapter of the rules service (one shape for every game)."""

from __future__ import annotations

import uuid

import grpc
from fallen.rules.v1 import rules_pb2, rules_pb2_grpc

from services.platform.auth import Principal, reserved_id
from services.platform.errors import InvalidArgument, PermissionDenied, RuleViolation, quote
from services.platform.gamemetrics import COMMANDS, GAMES_CREATED, GAMES_ENDED, conclusion_of
from services.platform.games import SEAT_EVENTS
from services.platform.grpcx.rpc import rpc
from services.platform.grpcx.server import Mount
from services.platform.grpcx.structs import client_struct, to_struct
from services.platform.quotas import Quotas
from services.rules.engine.api import CHANCE, Command
from services.rules.pools import POOL_HEADER, pool_for
from services.rules.registry import ENGINES
from services.rules.runner import GameRunner, Loaded, new_game_id
from services.rules.solo_records import check_request, read_record

SERVICE_NAME = rules_pb2.DESCRIPTOR.services_by_name["RulesService"].full_name


def _authorize(loaded: Loaded, principal: Principal, seat: str) -> str:
    """Return the caller's seat or raise."""
    if not seat:
        raise InvalidArgument("seat", "is required")
    if seat == CHANCE or seat not in loaded.seats:
        raise InvalidArgument(
            "seat",
            f"game {loaded.game_id!r} has no seat {quote(seat)}; seats: {sorted(loaded.seats)}",
        )
    if principal.is_service:
        return seat
    if loaded.seats[seat] != principal.subject or reserved_id(principal.subject):
        raise PermissionDenied(f"seat {quote(seat)} of game {loaded.game_id!r} is not yours")
    return seat


def _legal(loaded: Loaded, seat: str) -> list[rules_pb2.LegalCommand]:
    """Return a seat's legal commands as the API lists them."""
    return [
        rules_pb2.LegalCommand(kind=c.kind, args=to_struct(c.args))
        for c in loaded.rules.legal_commands(loaded.state, seat)
    ]


def _next_turn(loaded: Loaded, principal: Principal) -> rules_pb2.NextTurn | None:
    """Return the decision a game waits for, with the seat's legal commands only when the
    caller holds that seat (or is a service)."""
    pending = loaded.rules.pending(loaded.state)
    if pending is None:
        return None
    seat = pending.seat
    holds = seat in loaded.seats and (
        principal.is_service or loaded.seats[seat] == principal.subject
    )
    return rules_pb2.NextTurn(
        waiting_for=seat, decision=pending.kind, commands=_legal(loaded, seat) if holds else []
    )


def _creation_seeds(request: rules_pb2.CreateGameRequest, principal: Principal) -> dict[str, str]:
    """Return the client seeds given at creation: a player's for the seats they hold, a
    service's as given (client_seed for every seat client_seeds leaves out)."""
    seats = dict(request.seats)
    seeds = dict(request.client_seeds)
    if not principal.is_service:
        if seeds:
            raise PermissionDenied(
                "client_seeds: only services pass other seats' seeds; use client_seed"
            )
        mine = [s for s, p in seats.items() if p == principal.subject]
        return dict.fromkeys(mine, request.client_seed) if request.client_seed else {}
    strangers = [s for s in seeds if s not in seats]
    if strangers:
        raise InvalidArgument("client_seeds", f"{quote(strangers[0])} is not a seat of the game")
    if request.client_seed:
        seeds = {**dict.fromkeys(seats, request.client_seed), **seeds}
    return seeds


async def _tell_pool(context: grpc.aio.ServicerContext, loaded: Loaded) -> str:
    """Return the game's rules pool and send it as the x-fallen-pool response header, for a
    client to echo behind the stack's one address (docs/clients.md)."""
    pool = pool_for(loaded.game, len(loaded.seats))
    await context.send_initial_metadata(((POOL_HEADER, pool),))
    return pool


class RulesServicer(rules_pb2_grpc.RulesServiceServicer):
    """Parse, call the GameRunner, answer; errors mapped by @rpc."""

    def __init__(self, runner: GameRunner, quotas: Quotas | None = None) -> None:
        self.runner = runner
        self.quotas = quotas or Quotas()
        self.event_store = runner.store  # each call is one group commit (rpc)

    @rpc
    async def CreateGame(
        self,
        request: rules_pb2.CreateGameRequest,
        context: grpc.aio.ServicerContext,
        principal: Principal,
    ) -> rules_pb2.CreateGameResponse:
        """Create a game."""
        self.quotas.charge("create", principal)
        if not request.game:
            raise InvalidArgument("game", f"is required; one of {sorted(ENGINES)}")
        options = client_struct(request.options, "options")
        if not request.seats:
            raise InvalidArgument("seats", "map each seat to a player id")
        for seat, player in request.seats.items():
            if reserved_id(player) and not (principal.is_service or player.startswith("bot:")):
                raise InvalidArgument(f"seats.{seat}", f"player id {quote(player)} is reserved")
        if not principal.is_service and principal.subject not in request.seats.values():
            raise PermissionDenied(
                "seats: a player may only create a game in which they hold a seat "
                "(matchmakers use a service token)"
            )
        game_id = request.game_id or new_game_id(str(uuid.uuid4()))
        seeds = _creation_seeds(request, principal)
        loaded, commitment = await self.runner.create(
            request.game, game_id, dict(request.seats), options, "", seeds
        )
        GAMES_CREATED.labels(loaded.game).inc()
        gate = await self.runner.seed_gate(game_id)
        pool = await _tell_pool(context, loaded)
        return rules_pb2.CreateGameResponse(
            game_id=game_id,
            version=loaded.version,
            dice_commitment=commitment,
            awaiting_seeds=list(gate.awaiting) if gate else [],
            seed_deadline=gate.seed_deadline if gate else "",
            pool=pool,
        )

    @rpc
    async def SubmitCommand(
        self,
        request: rules_pb2.SubmitCommandRequest,
        context: grpc.aio.ServicerContext,
        principal: Principal,
    ) -> rules_pb2.SubmitCommandResponse:
        """Submit one command."""
        self.quotas.charge("submit", principal)
        if not request.kind:
            raise InvalidArgument("kind", "is required; see ListLegalCommands")
        args = client_struct(request.args, "args")
        loaded = await self.runner.latest(request.game_id)
        seat = _authorize(loaded, principal, request.seat)
        expected = request.expected_version or None

        def not_taken_over(game: Loaded) -> None:
            if not principal.is_service and game.seat_status.get(seat) == "taken_over":
                raise RuleViolation(
                    f"seat {seat!r} is played by a bot; reclaim it first "
                    "(RecordSeatEvent reclaimed)"
                )

        after, dedup = await self.runner.submit(
            request.game_id,
            Command(seat, request.kind, args),
            request.command_id,
            expected,
            not_taken_over,
        )
        outcome = after.outcome if after.ended else None
        if not dedup:
            COMMANDS.labels(after.game).inc()
            if after.ended:
                GAMES_ENDED.labels(after.game, conclusion_of(outcome)).inc()
        return rules_pb2.SubmitCommandResponse(
            version=after.version,
            deduplicated=dedup,
            outcome=to_struct(outcome) if outcome else None,
            ended=after.ended,
            next_turn=None if after.ended or dedup else _next_turn(after, principal),
        )

    @rpc
    async def ListLegalCommands(
        self,
        request: rules_pb2.ListLegalCommandsRequest,
        context: grpc.aio.ServicerContext,
        principal: Principal,
    ) -> rules_pb2.ListLegalCommandsResponse:
        """List a seat's legal commands."""
        loaded = await self.runner.current(request.game_id)
        seat = _authorize(loaded, principal, request.seat)
        pending = loaded.rules.pending(loaded.state)
        commands = loaded.rules.legal_commands(loaded.state, seat) if pending else []
        return rules_pb2.ListLegalCommandsResponse(
            version=loaded.version,
            waiting_for=pending.seat if pending else "",
            decision=pending.kind if pending else "",
            commands=[
                rules_pb2.LegalCommand(kind=c.kind, args=to_struct(c.args)) for c in commands
            ],
        )

    @rpc
    async def GetGame(
        self,
        request: rules_pb2.GetGameRequest,
        context: grpc.aio.ServicerContext,
        principal: Principal,
    ) -> rules_pb2.GetGameResponse:
        """Summarize a game; player ids only to its players and services."""
        loaded = await self.runner.current(request.game_id)
        gate = None if loaded.ended else await self.runner.seed_gate(request.game_id)
        seeds = await self.runner.seeds(request.game_id)
        insider = principal.is_service or principal.subject in loaded.seats.values()
        outcome = loaded.outcome if loaded.ended else None
        pending = None if loaded.ended else loaded.rules.pending(loaded.state)
        pool = await _tell_pool(context, loaded)
        return rules_pb2.GetGameResponse(
            game_id=loaded.game_id,
            game=loaded.game,
            seats={s: (p if insider else "") for s, p in loaded.seats.items()},
            version=loaded.version,
            ended=loaded.ended,
            outcome=to_struct(outcome) if outcome else None,
            final_state_hash=loaded.rules.state_hash(loaded.state) if loaded.ended else "",
            waiting_for=pending.seat if pending else "",
            seat_status=dict(loaded.seat_status),
            awaiting_seeds=list(gate.awaiting) if gate else [],
            seed_deadline=gate.seed_deadline if gate else "",
            client_seeds={s: v for s, v in seeds.client_seeds if s},
            seed_sources=dict(seeds.seed_sources),
            pool=pool,
        )

    @rpc
    async def RecordSeatEvent(
        self,
        request: rules_pb2.RecordSeatEventRequest,
        context: grpc.aio.ServicerContext,
        principal: Principal,
    ) -> rules_pb2.RecordSeatEventResponse:
        """Append a turn-timer seat fact."""
        if request.kind not in SEAT_EVENTS:
            raise InvalidArgument("kind", f"must be one of {sorted(SEAT_EVENTS)}")
        loaded = await self.runner.load(request.game_id)
        if request.kind == "reclaimed":
            _authorize(loaded, principal, request.seat)
            if loaded.seat_status.get(request.seat) != "taken_over":
                raise RuleViolation(f"seat {request.seat!r} is not taken over")
        else:
            principal.require_service()
        expected = request.expected_version or None
        after = await self.runner.record_seat(request.game_id, request.seat, request.kind, expected)
        return rules_pb2.RecordSeatEventResponse(version=after.version, ended=after.ended)

    @rpc
    async def GetSoloRecord(
        self,
        request: rules_pb2.GetSoloRecordRequest,
        context: grpc.aio.ServicerContext,
        principal: Principal,
    ) -> rules_pb2.GetSoloRecordResponse:
        """Return a player's best solo record for a variant and challenge."""
        player = request.player_id or principal.subject
        check_request(request.game, player, request.variant, request.challenge)
        if not principal.is_service and player != principal.subject:
            raise PermissionDenied("player_id: a player may only read their own solo records")
        rec = await read_record(
            self.runner.store, request.game, player, request.variant, request.challenge
        )
        if rec is None:
            return rules_pb2.GetSoloRecordResponse(found=False)
        return rules_pb2.GetSoloRecordResponse(
            found=True, turns=rec.turns, kind=rec.kind, game_id=rec.game_id, victories=rec.victories
        )

    @rpc
    async def ListGames(
        self,
        request: rules_pb2.ListGamesRequest,
        context: grpc.aio.ServicerContext,
        principal: Principal,
    ) -> rules_pb2.ListGamesResponse:
        """List the game kinds served."""
        bots = self.runner.bots
        kinds = [
            rules_pb2.GameKind(
                game=g,
                seats=list(self.runner.engine(g).seats),
                bot_seats_refused=await bots.refusal(g, None) if bots is not None else "",
            )
            for g in self.runner.games()
        ]
        return rules_pb2.ListGamesResponse(games=kinds)


def mount(runner: GameRunner) -> Mount:
    """Return the rules service ready to add to a server."""
    return Mount(
        rules_pb2_grpc.add_RulesServiceServicer_to_server, RulesServicer(runner), SERVICE_NAME
    )
