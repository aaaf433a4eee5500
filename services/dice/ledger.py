"""A game's dice history folded from its dice stream (pure)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from services.platform.envelope import Envelope

SEED_COMMITTED = "DiceSeedCommitted"
CLIENT_SEED_SET = "DiceClientSeedSet"
ROLLED = "DiceRolled"
SHUFFLE_DRAWN = "DiceShuffleDrawn"
SEED_REVEALED = "DiceSeedRevealed"


@dataclass(frozen=True)
class Ledger:
    """What the dice stream says about one game."""

    version: int = 0
    commitment: str = ""
    client_seeds: tuple[tuple[str, str], ...] = ()
    next_nonce: int = 0
    revealed_seed: str = ""
    draws: tuple[Envelope, ...] = field(default=())
    keys: Mapping[str, int] = field(default_factory=dict)
    seats: tuple[str, ...] = ()  # every seat of the game (empty: committed without seats)
    seed_deadline: str = ""  # ISO-8601 UTC: after it a seat's missing seed is recorded empty

    @property
    def client_seed(self) -> str:
        """Return the combined client seed: 'seat=seed' pairs sorted by seat, ';'-joined."""
        return combine_client_seeds(dict(self.client_seeds))

    @property
    def awaiting(self) -> tuple[str, ...]:
        """Return the seats whose client seed is not recorded yet (sorted)."""
        given = {seat for seat, _ in self.client_seeds}
        return tuple(s for s in sorted(self.seats) if s not in given)


def combine_client_seeds(by_seat: dict[str, str]) -> str:
    """Return the client seed string made of every seat's contribution."""
    if set(by_seat) == {""}:
        return by_seat[""]
    return ";".join(f"{seat}={seed}" for seat, seed in sorted(by_seat.items()))


def evolve(ledger: Ledger, env: Envelope, keep_draws: bool = True) -> Ledger:
    """Return the ledger after one dice event (draws kept only when keep_draws)."""
    d: dict[str, Any] = env.data
    ledger = replace(ledger, version=env.version)
    if env.type == SEED_COMMITTED:
        seeds = (("", d["client_seed"]),) if d.get("client_seed") else ()
        return replace(
            ledger,
            commitment=d["commitment"],
            client_seeds=seeds,
            seats=tuple(sorted(d.get("seats", ()))),
            seed_deadline=str(d.get("seed_deadline", "")),
        )
    if env.type == CLIENT_SEED_SET:
        by_seat = {k: v for k, v in ledger.client_seeds if k}
        by_seat[d["seat"]] = d["seat_seed"]
        return replace(ledger, client_seeds=tuple(sorted(by_seat.items())))
    if env.type in (ROLLED, SHUFFLE_DRAWN):
        draws = (*ledger.draws, env) if keep_draws else ()
        keys = {**ledger.keys, d["key"]: env.version} if d.get("key") else ledger.keys
        return replace(ledger, next_nonce=d["nonce"] + 1, draws=draws, keys=keys)
    if env.type == SEED_REVEALED:
        return replace(ledger, revealed_seed=d["server_seed"])
    return ledger


def fold(
    events: Iterable[Envelope], ledger: Ledger | None = None, keep_draws: bool = True
) -> Ledger:
    """Return the ledger after events (from an empty ledger unless one is given)."""
    ledger = ledger or Ledger()
    for env in events:
        ledger = evolve(ledger, env, keep_draws)
    return ledger
