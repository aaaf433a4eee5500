"""The Fallen engine behind the GameRules protocol: decide, evolve, legal commands, views."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from services.kernel.errors import InvalidArgument, RuleViolation
from services.rules.common.api import CHANCE, ChanceRequest, Command, Event, Pending, Setup

# Importing the rule modules registers their tasks, answers and option functions.
from services.rules.fallen import (  # noqa: F401
    challenge,
    creatures,
    effects,
    equipment,
    explain,
    final_battle,
    resources,
    rewards,
    rolls,
    skills,
    story,
    triggers,
    windows,
    wounds,
)
from services.rules.fallen import setup as setup_mod
from services.rules.fallen.cards import catalog
from services.rules.fallen.dice_faces import faces_of
from services.rules.fallen.flow import ANSWERS, TASKS, Ctx, static_or_dynamic
from services.rules.fallen.state import SEATS, State, dumps, evolve, to_json
from services.rules.fallen.view import build_view

# kind -> {field: type}; a trailing "?" marks an optional field.
SCHEMAS: dict[str, dict[str, type]] = {
    "choose_hero": {"character": str},
    "choose_dungeon_lord": {"character": str},
    "choose_skill": {"skill": str},
    "choose": {"choice": str},
    "activate": {"slot": int},
    "challenge_roll": {"fortune": int, "ultimate": bool},
    "resolve_symbol": {"die": int, "as": str},
    "pass": {},
    "play": {"card": str},
    "fortune": {"n": int},
    "ultimate": {},
    "use": {"card": str, "ability": int},
    "discard": {"card": str},
    "take_token": {"token": str},
    "take_card": {"card": str},
    "equip": {"replace?": str},
    "decline": {},
    "upgrade": {"slot": int},
    "done": {},
    "buy": {"skill": str},
    "target": {"slot": int},
    "reroll": {"die": int},
    "cancel": {"die": int},
    "lose_equipment": {"card": str},
}
CHANCE_SCHEMAS: dict[str, dict[str, type]] = {
    "roll": {"faces": list, "nonce": int},
    "shuffle": {"order": list, "nonce": int},
}


def _check_shape(cmd: Command) -> None:
    if cmd.seat not in (*SEATS, CHANCE):
        raise InvalidArgument("seat", f"unknown seat {cmd.seat!r}; seats are {', '.join(SEATS)}")
    table = CHANCE_SCHEMAS if cmd.seat == CHANCE else SCHEMAS
    schema = table.get(cmd.kind)
    if schema is None:
        raise InvalidArgument(
            "kind",
            f"unknown command kind {cmd.kind!r} for {cmd.seat}; known: {', '.join(sorted(table))}",
        )
    if not isinstance(cmd.args, Mapping):
        raise InvalidArgument("args", "args must be a mapping")
    allowed = {k.rstrip("?") for k in schema}
    for key in cmd.args:
        if key not in allowed:
            raise InvalidArgument(f"args.{key}", f"unexpected field for {cmd.kind!r}")
    for key, typ in schema.items():
        name = key.rstrip("?")
        if name not in cmd.args:
            if key.endswith("?"):
                continue
            raise InvalidArgument(f"args.{name}", f"required for {cmd.kind!r}")
        value = cmd.args[name]
        if not isinstance(value, typ) or (typ is int and isinstance(value, bool)):
            raise InvalidArgument(f"args.{name}", f"must be {typ.__name__}")


def _check_chance(pending: dict[str, Any], cmd: Command) -> dict[str, Any]:
    data = pending["data"]
    if cmd.kind != pending["kind"]:
        raise RuleViolation(f"chance must answer a {pending['kind']!r} request")
    if cmd.kind == "roll":
        faces = list(cmd.args["faces"])
        if len(faces) != len(data["dice"]):
            raise InvalidArgument("args.faces", f"expected {len(data['dice'])} faces")
        for kind, face in zip(data["dice"], faces, strict=True):
            if face not in faces_of(kind):
                raise InvalidArgument("args.faces", f"{face!r} is not a face of {kind}")
        return dict(data, faces=faces, nonce=cmd.args["nonce"])
    order = list(cmd.args["order"])
    if sorted(order) != list(range(int(data["count"]))) or any(isinstance(i, bool) for i in order):
        raise InvalidArgument("args.order", f"must be a permutation of range({data['count']})")
    return dict(data, order=order, nonce=cmd.args["nonce"])


def _refusal(state: State, command: Command, pending: dict[str, Any]) -> str:
    """Return the message refusing a command that is not a legal answer now."""
    generic = (
        f"{command.kind} {dumps(dict(command.args))} is not a legal answer to "
        f"{pending['kind']!r} now; ask legal_commands"
    )
    try:
        reason = explain.why_not(state, command, pending)
    except (KeyError, IndexError, TypeError, ValueError):  # an explainer gap: keep the generic
        reason = None
    if not reason:
        return generic
    return f"{reason} (not a legal answer to {pending['kind']!r} now; ask legal_commands)"


class FallenRules:
    """Fallen: Hero vs Dungeon Lord, as a pure engine."""

    game = "fallen"
    seats = SEATS

    def initial_state(self) -> State:
        """Return the empty state."""
        return State()

    def initial_events(self, game_id: str, setup: Setup) -> list[Event]:
        """Return the events creating a game: zones filled, the first decision pending."""
        if set(setup.seats) != set(SEATS):
            raise RuleViolation(f"fallen needs exactly the seats {', '.join(SEATS)}")
        catalog()
        ctx = Ctx(State())
        ctx.emit(
            "game_created",
            {"game_id": game_id, "seats": dict(setup.seats), "options": dict(setup.options)},
        )
        setup_mod.place_initial(ctx)
        ctx.push(("setup", {}))
        ctx.run()
        return ctx.finish()

    def evolve(self, state: State, event: Event) -> State:
        """Return the state after one event."""
        return evolve(state, event)

    def decide(self, state: State, command: Command) -> list[Event]:
        """Return the events a command causes; raise RuleViolation when it is not legal now."""
        _check_shape(command)
        pending = state.pending_dict()
        if pending is None:
            raise RuleViolation("the game is over" if state.phase == "over" else "no game yet")
        if command.seat != pending["seat"]:
            raise RuleViolation(explain.not_your_turn(pending))
        ctx = Ctx(state)
        if command.seat == CHANCE:
            args = _check_chance(pending, command)
            TASKS[args["resume"]](ctx, args)
        else:
            legal = {dumps([k, a]) for k, a in static_or_dynamic(state, pending)}
            if dumps([command.kind, dict(command.args)]) not in legal:
                raise RuleViolation(_refusal(state, command, pending))
            ANSWERS[pending["data"]["resume"]](
                ctx, pending["data"], command.kind, dict(command.args)
            )
        ctx.run()
        return ctx.finish()

    def pending(self, state: State) -> Pending | None:
        """Return the pending decision (None when over)."""
        p = state.pending_dict()
        if p is None:
            return None
        request = None
        if p["seat"] == CHANCE:
            data = p["data"]
            deck = str(data["purpose"]).startswith("shuffle ")
            request = ChanceRequest(
                kind=p["kind"],
                purpose=data["purpose"],
                dice=tuple(data.get("dice", ())),
                count=int(data.get("count", 0)),
                visible_to=() if deck else SEATS,
            )
        return Pending(seat=p["seat"], kind=p["kind"], prompt=p["prompt"], chance=request)

    def legal_commands(self, state: State, seat: str) -> list[Command]:
        """Return every legal answer for a seat (for chance: one example answer)."""
        p = state.pending_dict()
        if p is None or p["seat"] != seat:
            return []
        if seat == CHANCE:
            data = p["data"]
            if p["kind"] == "roll":
                faces = [faces_of(k)[0] for k in data["dice"]]
                return [Command(CHANCE, "roll", {"faces": faces, "nonce": 0})]
            return [Command(CHANCE, "shuffle", {"order": list(range(data["count"])), "nonce": 0})]
        return [Command(seat, k, a) for k, a in static_or_dynamic(state, p)]

    def view(self, state: State, seat: str | None) -> dict[str, Any]:
        """Return what a seat (None: a spectator) may see."""
        view = build_view(state, seat)
        if seat is not None:
            view["legal"] = [[c.kind, dict(c.args)] for c in self.legal_commands(state, seat)]
        return view

    def outcome(self, state: State) -> dict[str, Any] | None:
        """Return the winner once the game is over."""
        if state.phase != "over":
            return None
        return {
            "winner": state.winner,
            "final_battle": {s: len(state.zone(f"fb.won.{s}")) for s in SEATS},
            "conclusion": state.var("conclusion"),
        }

    def state_hash(self, state: State) -> str:
        """Return the SHA-256 of the canonical JSON of the state."""
        return hashlib.sha256(dumps(to_json(state)).encode()).hexdigest()


RULES = FallenRules()
