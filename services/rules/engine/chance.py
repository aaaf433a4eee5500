"""Chance decisions: the request a pending chance decision makes, and checking its answer."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, fields
from functools import cache
from itertools import product
from typing import Any, Final

from services.dice.kinds import catalog, read_composite
from services.platform.errors import InvalidArgument, RuleViolation
from services.rules.engine.api import CHANCE, DECK_ANSWERS, DECK_KINDS, ChanceRequest, Command

# answer kind -> {field: type}
CHANCE_SCHEMAS: Final[dict[str, dict[str, type]]] = {
    "roll": {"faces": list, "nonce": int},
    "shuffle": {"order": list, "nonce": int},
    "deck_formed": {"deck": str, "count": int},
    "deck_drawn": {"deck": str, "cards": list},
    "deck_put": {"deck": str, "count": int},
    "deck_searched": {"deck": str, "cards": list},
    "deck_shuffled": {"deck": str, "count": int},
    "deck_moved": {"deck": str, "count": int},
}


@cache
def faces_of(kind: str) -> tuple[str, ...]:
    """Return the faces of a dice kind (from services/dice/kinds.yaml).

    A composite kind (2d10) answers with its reading, as the dice service reports it, so its
    faces are every reading of its parts' faces (2d10: "1" to "100"), in first-seen order.
    """
    cat = catalog()
    if kind in cat.faces:
        return tuple(cat.faces[kind])
    parts = cat.expand(kind)  # InvalidArgument naming the known kinds for an unknown one
    readings = (read_composite(kind, list(f)) for f in product(*(cat.faces[p] for p in parts)))
    return tuple(dict.fromkeys(readings))


_REQUEST_DEFAULTS: Final = {
    f.name: f.default for f in fields(ChanceRequest) if f.default is not MISSING
}


def _request(**given: Any) -> ChanceRequest:
    """Return ChanceRequest(**given), built without the frozen dataclass's slow __init__."""
    req = object.__new__(ChanceRequest)
    req.__dict__.update(_REQUEST_DEFAULTS, **given)
    return req


def request_of(pending: Mapping[str, Any], seats: tuple[str, ...]) -> ChanceRequest:
    """Return the ChanceRequest of a pending chance decision."""
    data = pending["data"]
    kind = pending["kind"]
    if kind in DECK_KINDS:
        return _request(
            kind=kind,
            purpose=data["purpose"],
            count=int(data.get("count", 0)),
            visible_to=tuple(data.get("visible_to", ())),
            deck=data["deck"],
            cards=tuple(data.get("cards", ())),
            match=tuple(data.get("match", ())),
            position=data.get("position", "top"),
            shuffled=bool(data.get("shuffled", True)),
            to=str(data.get("to", "")),
        )
    hidden = str(data["purpose"]).startswith("shuffle ")
    return _request(
        kind=kind,
        purpose=data["purpose"],
        dice=tuple(data.get("dice", ())),
        count=int(data.get("count", 0)),
        visible_to=() if hidden else seats,
    )


def _cards(cmd: Command, data: Mapping[str, Any], exact: bool) -> list[str]:
    cards = list(cmd.args["cards"])
    if not all(isinstance(c, str) and c for c in cards):
        raise InvalidArgument("args.cards", "must be a list of card ids")
    want = int(data["count"])
    if len(cards) > want or (exact and len(cards) != want):
        raise InvalidArgument("args.cards", f"expected {want} card(s)")
    if data.get("match") and not set(cards) <= set(data["match"]):
        raise InvalidArgument("args.cards", "a card does not match the search")
    return cards


def _check_deck(data: Mapping[str, Any], cmd: Command) -> dict[str, Any]:
    if cmd.args["deck"] != data["deck"]:
        raise InvalidArgument("args.deck", f"expected deck {data['deck']!r}")
    if cmd.kind == "deck_drawn":
        return dict(data, cards=_cards(cmd, data, exact=True))
    if cmd.kind == "deck_searched":
        return dict(data, cards=_cards(cmd, data, exact=False))
    count = cmd.args["count"]
    if count < 0:
        raise InvalidArgument("args.count", "must not be negative")
    return dict(data, size=count)


def check_chance(pending: Mapping[str, Any], cmd: Command) -> dict[str, Any]:
    """Return the resume task's args for a chance answer, or raise if it does not fit."""
    data = pending["data"]
    kind = pending["kind"]
    if cmd.kind != DECK_ANSWERS.get(kind, kind):
        raise RuleViolation(f"chance must answer a {kind!r} request")
    if kind in DECK_KINDS:
        return _check_deck(data, cmd)
    if kind == "roll":
        faces = list(cmd.args["faces"])
        if len(faces) != len(data["dice"]):
            raise InvalidArgument("args.faces", f"expected {len(data['dice'])} faces")
        for dice_kind, face in zip(data["dice"], faces, strict=True):
            if face not in faces_of(dice_kind):
                raise InvalidArgument("args.faces", f"{face!r} is not a face of {dice_kind}")
        return dict(data, faces=faces, nonce=cmd.args["nonce"])
    order = list(cmd.args["order"])
    if sorted(order) != list(range(int(data["count"]))) or any(isinstance(i, bool) for i in order):
        raise InvalidArgument("args.order", f"must be a permutation of range({data['count']})")
    return dict(data, order=order, nonce=cmd.args["nonce"])


def example_answer(pending: Mapping[str, Any]) -> Command:
    """Return one well-formed answer to a pending chance decision (for legal_commands)."""
    data, kind = pending["data"], pending["kind"]
    if kind == "roll":
        return Command(
            CHANCE, "roll", {"faces": [faces_of(k)[0] for k in data["dice"]], "nonce": 0}
        )
    if kind == "shuffle":
        return Command(CHANCE, "shuffle", {"order": list(range(data["count"])), "nonce": 0})
    answer = DECK_ANSWERS[kind]
    if answer in ("deck_drawn", "deck_searched"):
        return Command(CHANCE, answer, {"deck": data["deck"], "cards": []})
    return Command(CHANCE, answer, {"deck": data["deck"], "count": int(data.get("count", 0))})
