"""The page's routes beyond watching: card data, events in words, playing a seat.

- GET  /api/cards/{game}/{version}: card names and texts of one card-data release.
- GET  /api/games/{id}/info: the game's public facts (GetGame), its card-data version and mode.
- GET  /api/games/{id}/words?seat=&from=: the seat's events, each in a sentence.
- GET  /api/games/{id}/legal?seat=: the seat's legal commands, each in words (player token).
- POST /api/games/{id}/commands: submit one command {seat, kind, args, command_id,
  expected_version}; a refusal answers with its status and reason, and changes nothing.
- POST /api/play/{game}: queue the caller for a game mode (matchmaking) and wait for the
  match (a vs_bot or solo mode matches at once).
- POST /api/dev/token: a player token for a name, only on a development server
  (FALLEN_DEV=1 and no FALLEN_JWT_SECRET: the secret is public anyway).
"""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path
from typing import Any

import grpc
from aiohttp import web
from fallen.matchmaking.v1 import matchmaking_pb2 as mm_pb
from fallen.matchmaking.v1 import matchmaking_pb2_grpc as mm_grpc
from fallen.projections.v1 import projections_pb2 as pj_pb
from fallen.rules.v1 import rules_pb2 as rules_pb
from fallen.rules.v1 import rules_pb2_grpc as rules_grpc
from google.protobuf.json_format import ParseDict, ParseError

from services.platform.auth import issue_token
from services.platform.grpcx.structs import struct_to_py
from services.web.carddata import UnknownCardData, card_data, versions
from services.web.gateway import STUB, _int, _metadata, _seat
from services.web.words import Describer, describer
from services.web.words.land import LandWords

RULES: web.AppKey[rules_grpc.RulesServiceStub] = web.AppKey("rules", rules_grpc.RulesServiceStub)
MATCH: web.AppKey[mm_grpc.MatchmakingServiceStub] = web.AppKey(
    "match", mm_grpc.MatchmakingServiceStub
)
PLAYER = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
MATCH_WAIT_S = 20.0
MAX_BODY = 16_384
META_ENTRIES = 4096
META: web.AppKey[dict[str, tuple[str, int]]] = web.AppKey("game_meta", dict)


async def cards(request: web.Request) -> web.Response:
    """GET /api/cards/{game}/{version}: one release's card names and texts (public data)."""
    raw = request.match_info["version"]
    if not raw.isdigit() or len(raw) > 4:
        raise web.HTTPBadRequest(text="version: must be a card-data version number")
    try:
        body = card_data(request.match_info["game"], int(raw))
    except UnknownCardData as err:
        return web.json_response({"code": "NOT_FOUND", "error": str(err)}, status=404)
    return web.json_response(body, headers={"Cache-Control": "public, max-age=86400"})


def card_version(game: str, events: list[dict[str, Any]]) -> int:
    """Return the card-data version a game was created with (absent: the first release)."""
    for e in events[:8]:
        opts = e["data"].get("options") if isinstance(e["data"], dict) else None
        if isinstance(opts, dict) and "card_data" in opts:
            return int(opts["card_data"])
    return versions(game)[0]


def mode_of(game: str, options: dict[str, Any], seats: int) -> str:
    """Return how a game was set up, in words (variant, challenge, seat count)."""
    if game == "land":
        variant = str(options.get("variant", "standard"))
        if variant == "solo2":
            return f"solo II, challenge {options.get('challenge', '?')}"
        return "solo I" if variant == "solo1" else ("epic" if seats == 6 else f"{seats} players")
    return f"{seats} players"


async def _events(request: web.Request, gid: str, seat: str, start: int = 1) -> list[Any]:
    """Return the seat's game-stream events from `start` (paged ReadEvents)."""
    out: list[dict[str, Any]] = []
    md = _metadata(request)
    while True:
        resp = await request.app[STUB].ReadEvents(
            pj_pb.ReadEventsRequest(game_id=gid, seat=seat, stream="game", from_version=start),
            metadata=md,
        )
        out += [
            {"version": e.version, "type": e.type, "data": struct_to_py(e.data)}
            for e in resp.events
        ]
        if resp.next_version > resp.head_version or resp.next_version <= start:
            return out
        start = resp.next_version


async def _game(request: web.Request, gid: str) -> rules_pb.GetGameResponse:
    return await request.app[RULES].GetGame(
        rules_pb.GetGameRequest(game_id=gid), metadata=_metadata(request)
    )


async def info(request: web.Request) -> web.Response:
    """GET /api/games/{id}/info: seats, version, outcome, waiting seat, card data, mode."""
    gid = request.match_info["game_id"]
    g = await _game(request, gid)
    first = await request.app[STUB].ReadEvents(
        pj_pb.ReadEventsRequest(game_id=gid, stream="game", from_version=1),
        metadata=_metadata(request),
    )
    head = [{"type": e.type, "data": struct_to_py(e.data)} for e in list(first.events)[:8]]
    started = first.events[0].occurred_at if first.events else ""
    options: dict[str, Any] = {}
    for e in head:
        if isinstance(e["data"].get("options"), dict):
            options.update(e["data"]["options"])
    return web.json_response(
        {
            "game_id": g.game_id,
            "game": g.game,
            "seats": dict(sorted(g.seats.items())),
            "version": g.version,
            "ended": g.ended,
            "outcome": struct_to_py(g.outcome) if g.HasField("outcome") else None,
            "waiting_for": g.waiting_for,
            "seat_status": dict(g.seat_status),
            "card_data": card_version(g.game, head),
            "mode": mode_of(g.game, options, len(g.seats)),
            "started": started,
        }
    )


async def _meta(request: web.Request, gid: str) -> tuple[str, int]:
    """Return a game's kind and card-data version (asked once per game, then remembered)."""
    known = request.app[META]
    if gid in known:
        return known[gid]
    g = await _game(request, gid)
    meta = (g.game, await _version_of(request, gid, g.game))
    if len(known) >= META_ENTRIES:
        known.pop(next(iter(known)))
    known[gid] = meta
    return meta


async def _describer(request: web.Request, gid: str, seat: str) -> tuple[str, Describer]:
    """Return a game's kind and a describer knowing its card data (and, for Worlds, which
    card each uid in play is, from the seat's current view)."""
    game, version = await _meta(request, gid)
    data = card_data(game, version)
    w = describer(game, data["cards"])
    if isinstance(w, LandWords):
        w.factions = data.get("factions", {})
    if game == "worlds":
        view = await request.app[STUB].GetView(
            pj_pb.GetViewRequest(game_id=gid, seat=seat), metadata=_metadata(request)
        )
        w.learn("view", struct_to_py(view.view))
    return game, w


async def words_route(request: web.Request) -> web.Response:
    """GET /api/games/{id}/words?seat=&from=: the seat's events, each in a sentence."""
    gid, seat = request.match_info["game_id"], _seat(request)
    game, w = await _describer(request, gid, seat)
    events = await _events(request, gid, seat, max(1, _int(request, "from")))
    for e in events:
        w.learn(e["type"], e["data"])
    lines = [
        {"version": e["version"], "type": e["type"], "text": w.event(e["type"], e["data"])}
        for e in events
    ]
    return web.json_response({"game_id": gid, "game": game, "seat": seat, "lines": lines})


async def legal(request: web.Request) -> web.Response:
    """GET /api/games/{id}/legal?seat=: the seat's legal commands in words."""
    gid, seat = request.match_info["game_id"], _seat(request)
    resp = await request.app[RULES].ListLegalCommands(
        rules_pb.ListLegalCommandsRequest(game_id=gid, seat=seat), metadata=_metadata(request)
    )
    _, w = await _describer(request, gid, seat)
    commands = []
    for c in resp.commands:
        args = struct_to_py(c.args)
        commands.append({"kind": c.kind, "args": args, "text": w.command(c.kind, args)})
    return web.json_response(
        {
            "version": resp.version,
            "waiting_for": resp.waiting_for,
            "decision": resp.decision,
            "commands": commands,
        }
    )


async def _version_of(request: web.Request, gid: str, game: str) -> int:
    first = await request.app[STUB].ReadEvents(
        pj_pb.ReadEventsRequest(game_id=gid, stream="game", from_version=1),
        metadata=_metadata(request),
    )
    head = [{"type": e.type, "data": struct_to_py(e.data)} for e in list(first.events)[:8]]
    return card_version(game, head)


async def _body(request: web.Request) -> dict[str, Any]:
    if request.content_length is not None and request.content_length > MAX_BODY:
        raise web.HTTPRequestEntityTooLarge(max_size=MAX_BODY, actual_size=request.content_length)
    try:
        body = await request.json()
    except ValueError as err:
        raise web.HTTPBadRequest(text="the body must be a JSON object") from err
    if not isinstance(body, dict):
        raise web.HTTPBadRequest(text="the body must be a JSON object")
    return body


async def submit(request: web.Request) -> web.Response:
    """POST /api/games/{id}/commands: one command for the caller's seat."""
    body = await _body(request)
    args = body.get("args") or {}
    version = body.get("expected_version", 0)
    if not isinstance(args, dict) or not isinstance(version, int) or version < 0:
        raise web.HTTPBadRequest(text="args must be an object and expected_version >= 0")
    req = rules_pb.SubmitCommandRequest(
        game_id=request.match_info["game_id"],
        seat=str(body.get("seat", ""))[:64],
        kind=str(body.get("kind", ""))[:64],
        command_id=str(body.get("command_id", ""))[:128],
        expected_version=version,
    )
    try:
        ParseDict(args, req.args)
    except ParseError as err:
        raise web.HTTPBadRequest(text=f"args: {err}") from err
    resp = await request.app[RULES].SubmitCommand(req, metadata=_metadata(request))
    return web.json_response(
        {
            "version": resp.version,
            "ended": resp.ended,
            "deduplicated": resp.deduplicated,
            "outcome": struct_to_py(resp.outcome) if resp.HasField("outcome") else None,
        }
    )


async def play(request: web.Request) -> web.Response:
    """POST /api/play/{game} {mode, role, challenge}: queue the caller; answer the match."""
    body = await _body(request)
    prefs = mm_pb.Preferences(
        role=str(body.get("role", ""))[:32], challenge_level=int(body.get("challenge", 0) or 0)
    )
    req = mm_pb.EnqueueRequest(
        game=request.match_info["game"],
        mode=str(body.get("mode", "vs_bot"))[:32],
        preferences=prefs,
    )
    md = _metadata(request)
    ticket = (await request.app[MATCH].Enqueue(req, metadata=md)).ticket
    deadline = asyncio.get_running_loop().time() + MATCH_WAIT_S
    while ticket.state == mm_pb.TICKET_STATE_QUEUED:
        if asyncio.get_running_loop().time() > deadline:
            return web.json_response(
                {"ticket_id": ticket.ticket_id, "state": "queued", "error": "no match yet"},
                status=202,
            )
        await asyncio.sleep(0.2)
        got = await request.app[MATCH].GetTicket(
            mm_pb.GetTicketRequest(ticket_id=ticket.ticket_id), metadata=md
        )
        ticket = got.ticket
    if ticket.state != mm_pb.TICKET_STATE_MATCHED:
        state = mm_pb.TicketState.Name(ticket.state)
        return web.json_response({"code": "ABORTED", "error": f"ticket {state}"}, status=409)
    return web.json_response(
        {"game_id": ticket.match.game_id, "seat": ticket.match.seat, "ticket_id": ticket.ticket_id}
    )


def dev_login_enabled() -> bool:
    """Return whether this server signs with the public development secret."""
    return os.environ.get("FALLEN_DEV") == "1" and not os.environ.get("FALLEN_JWT_SECRET")


async def dev_token(request: web.Request) -> web.Response:
    """POST /api/dev/token {player}: a development token (404 on a real deployment)."""
    if not dev_login_enabled():
        raise web.HTTPNotFound(text="no development login on this server")
    player = str((await _body(request)).get("player", ""))
    if not PLAYER.match(player):
        raise web.HTTPBadRequest(text="player: 1-64 letters, digits, '.', '_' or '-'")
    return web.json_response({"player": player, "token": issue_token(player)})


DISPUTES = Path(__file__).resolve().parents[2] / "docs" / "disputes.md"


async def dispute_guide(request: web.Request) -> web.StreamResponse:
    """GET /guide/disputes: how a player checks a finished game and opens a dispute."""
    if not DISPUTES.exists():
        raise web.HTTPNotFound(text="the dispute guide is docs/disputes.md in the source tree")
    return web.Response(text=DISPUTES.read_text(), content_type="text/plain", charset="utf-8")


def add_play_routes(app: web.Application, channel: grpc.aio.Channel) -> None:
    """Mount the routes on app; the rules and matchmaking services share the channel."""
    app[RULES] = rules_grpc.RulesServiceStub(channel)
    app[MATCH] = mm_grpc.MatchmakingServiceStub(channel)
    app[META] = {}
    app.router.add_get("/api/cards/{game}/{version}", cards)
    app.router.add_get("/api/games/{game_id}/info", info)
    app.router.add_get("/api/games/{game_id}/words", words_route)
    app.router.add_get("/api/games/{game_id}/legal", legal)
    app.router.add_post("/api/games/{game_id}/commands", submit)
    app.router.add_post("/api/play/{game}", play)
    app.router.add_post("/api/dev/token", dev_token)
    app.router.add_get("/guide/disputes", dispute_guide)
