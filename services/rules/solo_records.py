"""Best solo records: each player's fewest turns to a solo victory, per variant and challenge.

"Record the number of Turns it took you to achieve victory and document whether it was a
Town Health or Prestige Victory. Then, attempt to surpass it in fewer Turns next game."
(Fallen Land: A Journey into Darkness, Solo Variant Overview.)

The record is derived from GameEnded facts: when a solo game ends in a victory, the rules
service folds its outcome into the player's record, kept in the event store's metadata
(docs/games/land.md 1.7). It can be rebuilt from the finished games' logs.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from services.platform.errors import InvalidArgument

VICTORIES = ("prestige", "town_health")
SOLO_VARIANTS = {"land": {"solo1": (0,), "solo2": (1, 2, 3, 4)}}
MAX_PLAYER_ID = 128


@dataclass(frozen=True)
class SoloRecord:
    """A player's best victory of one solo variant and challenge, and how many they won."""

    turns: int
    kind: str
    game_id: str
    victories: int


def record_key(game: str, player: str, variant: str, challenge: int) -> str:
    """Return the metadata key of a record."""
    return f"solo_record:{game}:{variant}:{challenge}:{player}"


def check_request(game: str, player: str, variant: str, challenge: int) -> None:
    """Raise InvalidArgument naming the field unless a record request is well formed."""
    variants = SOLO_VARIANTS.get(game)
    if variants is None:
        raise InvalidArgument(
            "game", f"must be one of {sorted(SOLO_VARIANTS)} (games with solo variants)"
        )
    if not player or len(player) > MAX_PLAYER_ID:
        raise InvalidArgument("player_id", f"must be 1-{MAX_PLAYER_ID} characters")
    if variant not in variants:
        raise InvalidArgument("variant", f"must be one of {', '.join(sorted(variants))}")
    if challenge not in variants[variant]:
        allowed = ", ".join(str(c) for c in variants[variant])
        raise InvalidArgument("challenge", f"must be {allowed} for {variant}")


def victory_of(outcome: Mapping[str, Any]) -> tuple[int, str] | None:
    """Return (turns, kind) of a solo victory, or None (a loss at the turn limit, a forfeit)."""
    kind = outcome.get("kind")
    turns = outcome.get("turns")
    if kind not in VICTORIES or not isinstance(turns, int) or not outcome.get("winners"):
        return None
    return turns, str(kind)


def merged(old: SoloRecord | None, turns: int, kind: str, game_id: str) -> SoloRecord:
    """Return the record after one more victory: fewer turns replace it (ties keep the first)."""
    if old is None:
        return SoloRecord(turns, kind, game_id, 1)
    if old.game_id == game_id:
        return old  # the same game told twice
    if turns < old.turns:
        return SoloRecord(turns, kind, game_id, old.victories + 1)
    return SoloRecord(old.turns, old.kind, old.game_id, old.victories + 1)


def decode(raw: str | None) -> SoloRecord | None:
    """Return a stored record, or None."""
    if not raw:
        return None
    d = json.loads(raw)
    return SoloRecord(int(d["turns"]), str(d["kind"]), str(d["game_id"]), int(d["victories"]))


def encode(rec: SoloRecord) -> str:
    """Return a record's stored form."""
    return json.dumps(asdict(rec), sort_keys=True)


async def read_record(
    store: Any, game: str, player: str, variant: str, challenge: int
) -> SoloRecord | None:
    """Return a player's record from the store, or None."""
    return decode(await store.get_meta(record_key(game, player, variant, challenge)))


async def note_game_end(
    store: Any,
    game: str,
    game_id: str,
    seats: Mapping[str, str],
    key: tuple[str, int] | None,
    outcome: Mapping[str, Any],
) -> SoloRecord | None:
    """Fold a finished solo game's victory into its player's record; return the new record."""
    won = victory_of(outcome)
    if key is None or won is None or len(seats) != 1:
        return None
    ((_, player),) = seats.items()
    variant, challenge = key
    k = record_key(game, player, variant, challenge)
    rec = merged(decode(await store.get_meta(k)), won[0], won[1], game_id)
    await store.set_meta(k, encode(rec))
    return rec
