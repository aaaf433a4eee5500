"""Re-derive every die and shuffle of a game from its revealed seed (docs/fairness.md), pure.

Works from the recorded events alone: each DiceRolled is checked against the face lists it
recorded (so a game verifies against the faces it was rolled with), each DiceShuffleDrawn
against the permutation of its nonce, and each DeckShuffled against the DiceShuffleDrawn of
the same nonce.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from services.dice import fair
from services.dice.kinds import catalog, read_composite
from services.dice.ledger import (
    CLIENT_SEED_SET,
    ROLLED,
    SEED_COMMITTED,
    SEED_REVEALED,
    SHUFFLE_DRAWN,
    combine_client_seeds,
)
from services.dice.seeds import bot_seed
from services.platform.envelope import PUBLIC, Envelope

DECK_SHUFFLED = "DeckShuffled"


@dataclass(frozen=True)
class Problem:
    """One failed check: the event (stream, version) and what differs."""

    stream: str
    version: int
    what: str


@dataclass
class DiceFindings:
    """What the dice and deck checks found."""

    problems: list[Problem] = field(default_factory=list)
    commitment: str = ""
    server_seed: str = ""
    draws: dict[int, Envelope] = field(default_factory=dict)
    checked: int = 0


def _where(env: Envelope) -> tuple[str, int]:
    return env.stream, env.version


def _show(env: Envelope, value: Any) -> str:
    """Return value for a message if the event was public, else a placeholder."""
    return repr(value) if env.visibility == PUBLIC else "(hidden)"


def rederive_roll(game_id: str, seed: bytes, env: Envelope) -> str:
    """Return what differs between a DiceRolled event and its re-derivation ('' if nothing)."""
    d = env.data
    draws = fair.Draws(seed, game_id, d["client_seed"], int(d["nonce"]))
    dice: list[dict[str, Any]] = list(d["dice"])
    for k, die in enumerate(dice):
        faces = list(die["faces"])
        index = draws.uniform(len(faces))
        if die["index"] != index:
            return (
                f"dice[{k}].index is {_show(env, die['index'])}, the seed gives {_show(env, index)}"
            )
        if die["face"] != faces[index]:
            return (
                f"dice[{k}].face is {_show(env, die['face'])}, "
                f"the seed gives {_show(env, faces[index])}"
            )
    requested, results = list(d["requested"]), list(d["results"])
    if len(results) != len(requested):
        return f"results has {len(results)} entries for {len(requested)} requested dice"
    i = 0
    for n, (kind, result) in enumerate(zip(requested, results, strict=True)):
        try:
            parts = catalog().expand(kind)
        except Exception:
            return f"requested[{n}] is an unknown dice kind {kind!r}"
        rolled = dice[i : i + len(parts)]
        if [r["kind"] for r in rolled] != list(parts):
            return f"dice for requested[{n}] ({kind}) are not {list(parts)}"
        faces = [str(r["face"]) for r in rolled]
        expected = faces[0] if len(parts) == 1 else read_composite(kind, faces)
        if str(result) != str(expected):
            return f"results[{n}] is {_show(env, result)}, the dice read {_show(env, expected)}"
        i += len(parts)
    if i != len(dice):
        return f"dice has {len(dice)} entries, the requested kinds need {i}"
    return ""


def rederive_shuffle(game_id: str, seed: bytes, env: Envelope) -> str:
    """Return what differs between a DiceShuffleDrawn event and its re-derivation."""
    d = env.data
    count = int(d["count"])
    order = fair.shuffle(
        fair.Draws(seed, game_id, d["client_seed"], int(d["nonce"])), list(range(count))
    )
    logged = list(d["order"])
    if logged == order:
        return ""
    if len(logged) != count:
        return f"order has {len(logged)} entries, count is {count}"
    first = next(i for i, (a, b) in enumerate(zip(logged, order, strict=True)) if a != b)
    return f"order differs from the permutation the seed gives, first at index {first}"


def check_dice(game_id: str, dice_events: Sequence[Envelope]) -> DiceFindings:
    """Return the findings of re-deriving every draw of a game's dice stream."""
    out = DiceFindings()
    seeds: dict[str, str] = {}
    seats: list[str] = []  # every seat, when the game was committed with its seats
    committed: Envelope | None = None
    revealed: Envelope | None = None
    for env in dice_events:
        d = env.data
        try:
            if env.type == SEED_COMMITTED:
                committed = env
                out.commitment = str(d["commitment"])
                seeds = {"": d["client_seed"]} if d.get("client_seed") else {}
                seats = [str(s) for s in d.get("seats", [])]
            elif env.type == CLIENT_SEED_SET:
                out.problems += _seed_problems(env, out, seats, seeds)
                seeds.pop("", None)
                seeds[str(d["seat"])] = str(d["seat_seed"])
            elif env.type in (ROLLED, SHUFFLE_DRAWN):
                if seats and set(seeds) != set(seats):
                    missing = sorted(set(seats) - set(seeds))
                    out.problems.append(
                        Problem(*_where(env), f"drawn before seat(s) {missing} had a client seed")
                    )
                nonce = int(d["nonce"])
                if nonce != len(out.draws):
                    out.problems.append(
                        Problem(*_where(env), f"nonce is {nonce}, expected {len(out.draws)}")
                    )
                combined = combine_client_seeds(seeds) if seeds else ""
                if d["client_seed"] != combined:
                    out.problems.append(
                        Problem(*_where(env), "client_seed is not the game's client seed")
                    )
                out.draws[nonce] = env
            elif env.type == SEED_REVEALED:
                revealed = env
        except (KeyError, TypeError, ValueError) as exc:
            out.problems.append(Problem(*_where(env), f"malformed payload ({exc!r})"))
    stream = f"dice-{game_id}"
    if committed is None:
        out.problems.append(Problem(stream, 0, "no DiceSeedCommitted: nothing to verify against"))
        return out
    if revealed is None:
        last = dice_events[-1].version if dice_events else 0
        out.problems.append(
            Problem(stream, last, "the server seed is not revealed (game not over)")
        )
        return out
    out.server_seed = str(revealed.data.get("server_seed", ""))
    try:
        seed = bytes.fromhex(out.server_seed)
    except ValueError:
        out.problems.append(Problem(*_where(revealed), "server_seed is not hex"))
        return out
    if hashlib.sha256(seed).hexdigest() != out.commitment:
        out.problems.append(
            Problem(*_where(revealed), "SHA-256 of server_seed is not the commitment")
        )
        return out
    if revealed.data.get("commitment") != out.commitment:
        out.problems.append(Problem(*_where(revealed), "commitment differs from the committed one"))
    for env in out.draws.values():
        try:
            what = (rederive_roll if env.type == ROLLED else rederive_shuffle)(game_id, seed, env)
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            what = f"malformed payload ({exc!r})"
        if what:
            out.problems.append(
                Problem(*_where(env), f"{env.type} nonce {env.data.get('nonce')}: {what}")
            )
        out.checked += 1
    return out


def _seed_problems(
    env: Envelope, out: DiceFindings, seats: list[str], seeds: dict[str, str]
) -> list[Problem]:
    """Return the problems of one DiceClientSeedSet (docs/fairness.md, "Client seeds")."""
    d = env.data
    found: list[Problem] = []
    if out.draws:
        found.append(Problem(*_where(env), "client seed set after a draw"))
    if seats and (d["seat"] not in seats or d["seat"] in seeds):
        found.append(Problem(*_where(env), f"seat {d['seat']!r} is no seat or has a seed"))
    if d.get("source") == "bot" and d["seat_seed"] != bot_seed(out.commitment, str(d["seat"])):
        found.append(Problem(*_where(env), "a bot seat's seed is not derived from the commitment"))
    return found


def _zone_cards(state: Any, zone: str) -> list[str] | None:
    """Return a zone's cards in a folded deck state, or None when it has no such zone."""
    found = getattr(state, "zones", {}).get(zone)
    return None if found is None else list(found.cards)


def check_deck(deck_events: Sequence[Envelope], draws: dict[int, Envelope]) -> list[Problem]:
    """Return the problems of the deck stream: a fold that contradicts itself, and shuffles
    whose before is not the deck, or whose after is not before permuted by the dice order."""
    from services.deck import zones

    problems: list[Problem] = []
    state: Any = zones.Zones()
    for env in deck_events:
        d = env.data
        if env.type == DECK_SHUFFLED:
            problems.extend(_check_shuffle(env, draws, _zone_cards(state, str(d.get("zone")))))
        try:
            state = zones.evolve(state, env)
        except Exception as exc:
            problems.append(Problem(*_where(env), f"does not fit the deck stream ({exc})"))
            return problems
    return problems


def _check_shuffle(
    env: Envelope, draws: dict[int, Envelope], deck_now: list[str] | None
) -> list[Problem]:
    """Return the problems of one DeckShuffled event."""
    d = env.data
    problems: list[Problem] = []
    if deck_now is not None and list(d.get("before", [])) != deck_now:
        problems.append(Problem(*_where(env), "before is not the deck as the stream left it"))
    try:
        nonce = int(d["nonce"])
        drawn = draws.get(nonce)
        if drawn is None or drawn.type != SHUFFLE_DRAWN:
            return [*problems, Problem(*_where(env), f"no DiceShuffleDrawn has nonce {nonce}")]
        order = list(drawn.data["order"])
        before, after = list(d["before"]), list(d["after"])
        if len(before) != len(order):
            what = f"before has {len(before)} cards, the shuffle of nonce {nonce} {len(order)}"
        elif "order" in d and list(d["order"]) != order:
            what = f"order is not the order of DiceShuffleDrawn nonce {nonce}"
        elif after != [before[i] for i in order]:
            what = f"after is not before permuted by the order of nonce {nonce}"
        else:
            what = ""
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        what = f"malformed payload ({exc!r})"
    return [*problems, Problem(*_where(env), what)] if what else problems


def deck_nonces(deck_events: Sequence[Envelope]) -> set[int]:
    """Return the dice nonces the deck stream's shuffles used."""
    out: set[int] = set()
    for env in deck_events:
        if env.type == DECK_SHUFFLED and isinstance(env.data.get("nonce"), int):
            out.add(int(env.data["nonce"]))
    return out
