"""Replay a deck stream and re-derive each of its shuffles from the revealed dice seed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from services.deck import zones
from services.dice import fair
from services.dice import ledger as dice_ledger
from services.platform.envelope import Envelope


@dataclass(frozen=True)
class DeckVerification:
    """The result of replaying a deck stream: ok, shuffles checked, first mismatch."""

    ok: bool
    checked: int
    mismatch: str = ""
    state: zones.Zones | None = None


def expected_order(seed: bytes, game_id: str, client_seed: str, nonce: int, n: int) -> list[int]:
    """Return the permutation of n cards the fairness scheme derives for one nonce."""
    return fair.shuffle(fair.Draws(seed, game_id, client_seed, nonce), list(range(n)))


def verify_deck(
    game_id: str, deck_events: Sequence[Envelope], dice_events: Sequence[Envelope]
) -> DeckVerification:
    """Return whether the deck stream folds cleanly and every shuffle re-derives from the seed."""
    ledger = dice_ledger.fold(dice_events)
    if not ledger.revealed_seed:
        return DeckVerification(False, 0, "the dice seed of this game is not revealed yet")
    seed = bytes.fromhex(ledger.revealed_seed)
    if fair.commitment(seed) != ledger.commitment:
        return DeckVerification(False, 0, "revealed seed does not match the commitment")
    drawn = {
        env.data["nonce"]: env.data for env in ledger.draws if env.type == dice_ledger.SHUFFLE_DRAWN
    }
    state = zones.Zones()
    checked = 0
    for env in deck_events:
        where = f"{env.stream} version {env.version} ({env.type})"
        if env.type == zones.DECK_SHUFFLED:
            d = env.data
            dice = drawn.get(d["nonce"])
            if dice is None:
                return DeckVerification(
                    False, checked, f"{where}: no dice shuffle has nonce {d['nonce']}"
                )
            order = expected_order(seed, game_id, dice["client_seed"], d["nonce"], len(d["before"]))
            if order != d["order"] or order != dice["order"]:
                return DeckVerification(
                    False, checked, f"{where}: order does not re-derive from the seed"
                )
            if d["after"] != [d["before"][i] for i in order]:
                return DeckVerification(
                    False, checked, f"{where}: after is not before permuted by order"
                )
            checked += 1
        try:
            state = zones.evolve(state, env)
        except zones.LogMismatch as exc:
            return DeckVerification(False, checked, f"{where}: {exc}")
    return DeckVerification(True, checked, state=state)
