"""An outside verifier of a game's chance, written from docs/fairness.md and docs/audit.md only.

It imports no project code: hashlib, hmac and json are all it needs. Given the audit records
of a finished game (the JSON objects of `fallenctl audit export`, or ReadAuditLog's canonical
lines parsed), it checks the commitment, rebuilds the combined client seed from the seats
and their DiceClientSeedSet events, and re-derives every die and shuffle and every
DeckShuffled. Any difference raises AssertionError naming the record.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Checked:
    """What the verifier re-derived: draws (rolls and shuffles), dice, deck shuffles, seats."""

    draws: int
    dice: int
    deck_shuffles: int
    seats: tuple[str, ...]
    seeds: Mapping[str, str]


def record_hash(rec: Mapping[str, Any]) -> str:
    """docs/audit.md: SHA-256 hex of the canonical JSON of the hashed fields."""
    body = {k: rec[k] for k in ("stream", "version", "type", "visibility", "data", "prev_hash")}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _stream(server_seed: bytes, game_id: str, client_seed: str, nonce: int) -> Iterator[int]:
    """docs/fairness.md "Deriving results": the 4-byte words of one nonce's byte stream."""
    r = 0
    while True:
        msg = f"{game_id}:{client_seed}:{nonce}:{r}".encode()
        block = hmac.new(server_seed, msg, hashlib.sha256).digest()
        for i in range(0, 32, 4):
            yield int.from_bytes(block[i : i + 4], "big")
        r += 1


class _Uniform:
    def __init__(self, words: Iterator[int]) -> None:
        self.words = words

    def __call__(self, k: int) -> int:
        limit = (2**32 // k) * k
        while True:
            x = next(self.words)
            if x < limit:
                return x % k


def combined_seed(seats: Sequence[str], seeds: Mapping[str, str]) -> str:
    """docs/fairness.md "Client seeds": `seat=seed` for every seat in sorted order, `;`-joined."""
    return ";".join(f"{seat}={seeds[seat]}" for seat in sorted(seats))


def rederive(game_id: str, records: Sequence[Mapping[str, Any]]) -> Checked:
    """Re-derive every draw of a finished game from its audit records; raise on a difference."""
    for rec in records:
        assert record_hash(rec) == rec["hash"], f"{rec['stream']}@{rec['version']}: hash differs"
    dice = sorted(
        (r for r in records if r["stream"] == f"dice-{game_id}"), key=lambda r: r["version"]
    )
    first = dice[0]
    assert first["type"] == "DiceSeedCommitted", "the dice stream starts with the commitment"
    commitment = first["data"]["commitment"]
    seats = tuple(sorted(first["data"]["seats"]))
    revealed = [r for r in dice if r["type"] == "DiceSeedRevealed"]
    assert revealed, "the server seed is revealed once the game ended"
    server_seed = bytes.fromhex(revealed[0]["data"]["server_seed"])
    assert hashlib.sha256(server_seed).hexdigest() == commitment, "seed matches commitment"
    seeds: dict[str, str] = {}
    orders: dict[int, list[int]] = {}
    nonce = n_dice = 0
    for rec in dice:
        d = rec["data"]
        where = f"dice-{game_id}@{rec['version']}"
        if rec["type"] == "DiceClientSeedSet":
            assert d["seat"] in seats and d["seat"] not in seeds, f"{where}: one seed a seat"
            if d.get("source") == "bot":
                expect = hashlib.sha256(f"bot:{commitment}:{d['seat']}".encode()).hexdigest()
                assert d["seat_seed"] == expect[:32], f"{where}: bot seed is not derived"
            seeds[d["seat"]] = d["seat_seed"]
            continue
        if rec["type"] not in ("DiceRolled", "DiceShuffleDrawn"):
            continue
        assert set(seeds) == set(seats), f"{where}: drawn before every seat had a seed"
        assert d["nonce"] == nonce, f"{where}: nonce {d['nonce']}, expected {nonce}"
        client_seed = combined_seed(seats, seeds)
        assert d["client_seed"] == client_seed, f"{where}: client seed is not every seat's"
        uniform = _Uniform(_stream(server_seed, game_id, client_seed, nonce))
        if rec["type"] == "DiceRolled":
            for die in d["dice"]:
                index = uniform(len(die["faces"]))
                assert (die["index"], die["face"]) == (index, die["faces"][index]), where
                n_dice += 1
            results, i = [], 0
            for kind in d["requested"]:
                if kind == "2d10":  # tens die then units die, read as their sum; 00 + 0 = 100
                    tens, units = d["dice"][i]["face"], d["dice"][i + 1]["face"]
                    results.append(str(int(tens) + int(units) or 100))
                    i += 2
                else:
                    results.append(d["dice"][i]["face"])
                    i += 1
            assert results == list(d["results"]), f"{where}: results differ"
        else:
            order = list(range(d["count"]))
            for i in range(len(order) - 1, 0, -1):
                j = uniform(i + 1)
                order[i], order[j] = order[j], order[i]
            assert order == list(d["order"]), f"{where}: shuffle order differs"
            orders[nonce] = order
        nonce += 1
    decks = [r for r in records if r["stream"] == f"deck-{game_id}" and r["type"] == "DeckShuffled"]
    for rec in decks:
        d = rec["data"]
        order = orders[d["nonce"]]
        assert d["after"] == [d["before"][i] for i in order], f"deck@{rec['version']}: after"
    return Checked(nonce, n_dice, len(decks), seats, seeds)
