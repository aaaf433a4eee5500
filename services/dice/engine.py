"""Dice for every game: commit, roll, shuffle, reveal and verify over the event store."""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from services.dice import fair
from services.dice.kinds import catalog, read_composite
from services.dice.ledger import (
    CLIENT_SEED_SET,
    ROLLED,
    SEED_COMMITTED,
    SEED_REVEALED,
    SHUFFLE_DRAWN,
    Ledger,
    fold,
)
from services.dice.port import Permutation, Roll, RolledDie
from services.dice.seeds import (
    BOT,
    PLAYER,
    bot_seed,
    check_seats,
    check_seed,
    deadline,
    deadline_passed,
    now_utc,
    opening,
    seed_event,
    seed_wait_s,
)
from services.platform.decision import check_key
from services.platform.envelope import NOBODY, PUBLIC, Envelope, NewEvent, Visibility
from services.platform.errors import (
    AlreadyExists,
    InvalidArgument,
    NotFound,
    RuleViolation,
    VersionConflict,
    quote,
)
from services.platform.games import check_game_id, game_ended
from services.platform.store.base import EventStore

MAX_DICE = 100
MAX_SHUFFLE = 10_000
RETRIES = 20
T = TypeVar("T")


def dice_stream(game_id: str) -> str:
    """Return the dice stream id of a game."""
    return f"dice-{game_id}"


def secret_key(game_id: str) -> str:
    """Return the secrets-store key of a game's server seed."""
    return f"dice-seed:{game_id}"


@dataclass(frozen=True)
class Verification:
    """The result of re-deriving every draw of a game from its revealed seed."""

    ok: bool
    checked: int
    mismatch: str = ""


def roll_event(
    game_id: str,
    seed: bytes,
    client_seed: str,
    nonce: int,
    purpose: str,
    dice: list[str],
    key: str = "",
) -> dict[str, Any]:
    """Return the DiceRolled payload of rolling dice with one nonce (pure)."""
    cat = catalog()
    draws = fair.Draws(seed, game_id, client_seed, nonce)
    rolled: list[dict[str, Any]] = []
    results: list[str] = []
    for kind in dice:
        parts = cat.expand(kind)
        faces_read: list[str] = []
        for part in parts:
            faces = cat.faces[part]
            index = draws.uniform(len(faces))
            rolled.append(
                {"kind": part, "faces": list(faces), "index": index, "face": faces[index]}
            )
            faces_read.append(faces[index])
        results.append(faces_read[0] if len(parts) == 1 else read_composite(kind, faces_read))
    data = {
        "nonce": nonce,
        "purpose": purpose,
        "client_seed": client_seed,
        "requested": list(dice),
        "dice": rolled,
        "results": results,
    }
    return {**data, "key": key} if key else data


def shuffle_event(
    game_id: str,
    seed: bytes,
    client_seed: str,
    nonce: int,
    purpose: str,
    count: int,
    key: str = "",
) -> dict[str, Any]:
    """Return the DiceShuffleDrawn payload of a permutation of count items (pure)."""
    order = fair.shuffle(fair.Draws(seed, game_id, client_seed, nonce), list(range(count)))
    data = {
        "nonce": nonce,
        "purpose": purpose,
        "client_seed": client_seed,
        "count": count,
        "order": order,
    }
    return {**data, "key": key} if key else data


def verify_ledger(game_id: str, ledger: Ledger) -> Verification:
    """Return whether every recorded draw re-derives from the revealed seed (pure)."""
    if not ledger.revealed_seed:
        return Verification(False, 0, "the server seed has not been revealed")
    seed = bytes.fromhex(ledger.revealed_seed)
    if fair.commitment(seed) != ledger.commitment:
        return Verification(False, 0, "revealed seed does not match the commitment")
    for i, env in enumerate(ledger.draws):
        d = env.data
        if d["nonce"] != i:
            return Verification(
                False, i, f"version {env.version}: nonce {d['nonce']}, expected {i}"
            )
        key = str(d.get("key", ""))
        if env.type == ROLLED:
            again = roll_event(
                game_id, seed, d["client_seed"], i, d["purpose"], d["requested"], key
            )
        else:
            again = shuffle_event(game_id, seed, d["client_seed"], i, d["purpose"], d["count"], key)
        if again != d:
            diff = sorted(k for k in again if again[k] != d.get(k))
            return Verification(
                False,
                i,
                f"{env.stream} version {env.version} ({env.type}): {', '.join(diff)} differ",
            )
    return Verification(True, len(ledger.draws))


class DiceEngine:
    """Provably fair dice for every game, kept in per-game dice streams."""

    def __init__(self, store: EventStore, seed_wait: float | None = None) -> None:
        self.store = store
        self.seed_wait_s = seed_wait_s(seed_wait)  # how long a new game waits for seeds
        self._heads: dict[str, Ledger] = {}
        self._seeds: dict[str, bytes] = {}

    async def ledger(self, game_id: str) -> Ledger:
        """Return the game's whole folded dice stream, draws included."""
        return fold(await self.store.read(dice_stream(game_id)))

    async def head(self, game_id: str) -> Ledger:
        """Return the game's ledger without draws, folded incrementally and cached."""
        cached = self._heads.get(game_id, Ledger())
        fresh = await self.store.read(dice_stream(game_id), cached.version + 1)
        head = fold(fresh, cached, keep_draws=False)
        if len(self._heads) > 10_000:
            self._heads.clear()
        self._heads[game_id] = head
        return head

    async def _committed(self, game_id: str, full: bool = False) -> Ledger:
        check_game_id(game_id)
        ledger = await (self.ledger(game_id) if full else self.head(game_id))
        if not ledger.commitment:
            raise NotFound(f"no dice seed committed for game {game_id!r}; call CommitSeed first")
        return ledger

    async def _retry(self, attempt: Callable[[], Awaitable[T]]) -> T:
        for _ in range(RETRIES):
            try:
                return await attempt()
            except VersionConflict:
                continue
        raise RuleViolation("too much contention on the dice stream; retry the request")

    async def commit_seed(
        self,
        game_id: str,
        client_seed: str = "",
        seats: tuple[str, ...] = (),
        bots: tuple[str, ...] = (),
        seeds: dict[str, str] | None = None,
    ) -> str:
        """Create and commit the game's server seed (idempotent); return the commitment."""
        return (await self.commit_ledger(game_id, client_seed, seats, bots, seeds)).commitment

    async def reveal(self, game_id: str) -> str:
        """Reveal an ended game's server seed (idempotent); return it in hex."""
        return (await self.reveal_ledger(game_id)).revealed_seed

    async def commit_ledger(
        self,
        game_id: str,
        client_seed: str = "",
        seats: tuple[str, ...] = (),
        bots: tuple[str, ...] = (),
        seeds: dict[str, str] | None = None,
    ) -> Ledger:
        """Create and commit the game's server seed (idempotent); return the ledger.

        With seats, the game waits for every seat's client seed (services/dice/seeds.py):
        bot seats' seeds are derived and recorded now, with the seeds given (seat -> seed).
        """
        check_game_id(game_id)
        check_seed(client_seed)
        given = {s: v for s, v in (seeds or {}).items() if v}
        all_seats, bot_seats = check_seats(seats, bots, given)
        await self.store.put_secret(secret_key(game_id), secrets.token_bytes(fair.SEED_BYTES).hex())
        seed = await self._seed(game_id)
        ledger = await self.head(game_id)
        if ledger.commitment:
            return ledger
        commitment = fair.commitment(seed)
        data: dict[str, Any] = {"commitment": commitment, "client_seed": client_seed}
        events = []
        if all_seats:
            data |= {"seats": all_seats, "seed_deadline": deadline(now_utc(), self.seed_wait_s)}
            events += [seed_event(s, bot_seed(commitment, s), BOT) for s in bot_seats]
            events += [seed_event(s, given[s], PLAYER) for s in sorted(given)]
        try:
            await self.store.append(
                dice_stream(game_id), 0, [NewEvent(SEED_COMMITTED, data, PUBLIC), *events]
            )
        except VersionConflict:
            pass
        return await self.head(game_id)

    async def set_client_seed(self, game_id: str, seat: str, seat_seed: str) -> Ledger:
        """Record a seat's client seed before the first draw; return the ledger after it."""
        check_seed(seat_seed)
        if not seat:
            raise InvalidArgument("seat", "is required")

        async def attempt() -> Ledger:
            ledger = await self._committed(game_id)
            if ledger.seats:
                _check_settable(ledger, seat)
            elif ledger.next_nonce > 0:
                raise RuleViolation("client seeds can only be set before the first roll or shuffle")
            event = NewEvent(
                CLIENT_SEED_SET, {"seat": seat, "seat_seed": seat_seed, "source": PLAYER}, PUBLIC
            )
            await self.store.append(dice_stream(game_id), ledger.version, [event])
            return await self.head(game_id)

        return await self._retry(attempt)

    async def roll(
        self,
        game_id: str,
        purpose: str,
        dice: list[str],
        visible_to: list[str] | None = None,
        key: str = "",
    ) -> Roll:
        """Roll dice with the game's next nonce and record a DiceRolled event; a key
        drawn before returns its recorded roll."""
        check_key(key, game_id)
        if not purpose:
            raise InvalidArgument("purpose", "is required")
        if not 1 <= len(dice) <= MAX_DICE:
            raise InvalidArgument("dice", f"roll 1 to {MAX_DICE} dice, not {len(dice)}")
        for kind in dice:
            catalog().expand(kind)
        vis: Visibility = sorted(set(visible_to)) if visible_to else PUBLIC

        async def attempt() -> Roll:
            ledger = await self._committed(game_id)  # a keyed repeat answers even after the end
            if key in ledger.keys:
                env = await self._drawn(game_id, ledger.keys[key], ROLLED, purpose)
                if list(env.data["requested"]) != list(dice):
                    raise RuleViolation(f"chance key {key!r} was drawn for other dice")
                return Roll(env.data["nonce"], _rolled_dice(env.data), env.version)
            _check_open(game_id, ledger)
            missing, client_seed = opening(ledger, now_utc())
            seed = await self._seed(game_id)
            nonce = ledger.next_nonce
            data = roll_event(game_id, seed, client_seed, nonce, purpose, dice, key)
            res = await self.store.append(
                dice_stream(game_id), ledger.version, [*missing, NewEvent(ROLLED, data, vis)]
            )
            return Roll(ledger.next_nonce, _rolled_dice(data), res.version)

        return await self._retry(attempt)

    async def shuffle(self, game_id: str, purpose: str, count: int, key: str = "") -> Permutation:
        """Draw a permutation of count items with the next nonce (recorded for audit only);
        a key drawn before returns its recorded permutation."""
        check_key(key, game_id)
        if not purpose:
            raise InvalidArgument("purpose", "is required")
        if not 1 <= count <= MAX_SHUFFLE:
            raise InvalidArgument("count", f"shuffle 1 to {MAX_SHUFFLE} items, not {count}")

        async def attempt() -> Permutation:
            ledger = await self._committed(game_id)  # a keyed repeat answers even after the end
            if key in ledger.keys:
                env = await self._drawn(game_id, ledger.keys[key], SHUFFLE_DRAWN, purpose)
                if env.data["count"] != count:
                    raise RuleViolation(f"chance key {key!r} was drawn for another count")
                return Permutation(env.data["nonce"], tuple(env.data["order"]))
            _check_open(game_id, ledger)
            missing, client_seed = opening(ledger, now_utc())
            seed = await self._seed(game_id)
            data = shuffle_event(game_id, seed, client_seed, ledger.next_nonce, purpose, count, key)
            await self.store.append(
                dice_stream(game_id),
                ledger.version,
                [*missing, NewEvent(SHUFFLE_DRAWN, data, NOBODY)],
            )
            return Permutation(ledger.next_nonce, tuple(data["order"]))

        return await self._retry(attempt)

    async def reveal_ledger(self, game_id: str) -> Ledger:
        """Publish the server seed of an ended game (idempotent); return the ledger."""
        ledger = await self._committed(game_id)
        if ledger.revealed_seed:
            return ledger
        if not await game_ended(self.store, game_id):
            raise RuleViolation(f"game {game_id!r} has not ended; the seed stays secret until then")
        seed = await self._seed(game_id)
        event = NewEvent(
            SEED_REVEALED, {"server_seed": seed.hex(), "commitment": ledger.commitment}, PUBLIC
        )
        try:
            await self.store.append(dice_stream(game_id), ledger.version, [event])
        except VersionConflict:
            pass
        return await self.head(game_id)

    async def verify(self, game_id: str) -> Verification:
        """Re-derive every roll and shuffle of a revealed game from its seed."""
        ledger = await self._committed(game_id, full=True)
        if not ledger.revealed_seed:
            raise RuleViolation(f"game {game_id!r}: the seed is not revealed yet")
        return verify_ledger(game_id, ledger)

    async def _drawn(self, game_id: str, version: int, type_: str, purpose: str) -> Envelope:
        """Return the draw recorded at a dice stream version, checking it fits the request."""
        env = (await self.store.read(dice_stream(game_id), version))[0]
        if env.type != type_ or env.data.get("purpose") != purpose:
            key = env.data.get("key")
            raise RuleViolation(f"chance key {key!r} was drawn for another request")
        return env

    async def _open(self, game_id: str) -> Ledger:
        ledger = await self._committed(game_id)
        if ledger.revealed_seed:
            raise RuleViolation(f"game {game_id!r} has ended; its seed is revealed")
        return ledger

    async def _seed(self, game_id: str) -> bytes:
        if game_id in self._seeds:
            return self._seeds[game_id]
        hex_seed = await self.store.get_secret(secret_key(game_id))
        if hex_seed is None:
            raise NotFound(f"no dice seed committed for game {game_id!r}; call CommitSeed first")
        if len(self._seeds) > 10_000:
            self._seeds.clear()
        self._seeds[game_id] = bytes.fromhex(hex_seed)
        return self._seeds[game_id]


def _check_open(game_id: str, ledger: Ledger) -> None:
    """Raise unless the game's seed is still secret (no new draw after the reveal)."""
    if ledger.revealed_seed:
        raise RuleViolation(f"game {game_id!r} has ended; its seed is revealed")


def _rolled_dice(data: dict[str, Any]) -> tuple[RolledDie, ...]:
    """Return the requested dice of a roll payload, composites as their reading."""
    cat = catalog()
    out: list[RolledDie] = []
    i = 0
    for kind, result in zip(data["requested"], data["results"], strict=True):
        parts = cat.expand(kind)
        if len(parts) == 1:
            d = data["dice"][i]
            out.append(RolledDie(kind, tuple(d["faces"]), d["index"], d["face"]))
        else:
            out.append(RolledDie(kind, (), int(result) - 1, result))
        i += len(parts)
    return tuple(out)


def _check_settable(ledger: Ledger, seat: str) -> None:
    """Raise unless a seat of a game committed with its seats may give its seed now."""
    if seat not in ledger.seats:
        raise InvalidArgument("seat", f"{quote(seat)} is not a seat of the game")
    if deadline_passed(ledger, now_utc()):
        raise RuleViolation(
            f"the deadline for client seeds passed at {ledger.seed_deadline}; the seeds are fixed"
        )
    if seat in dict(ledger.client_seeds):
        raise AlreadyExists(f"seat {quote(seat)} has given its client seed already")
