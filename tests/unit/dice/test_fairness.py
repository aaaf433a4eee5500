"""The dice scheme equals docs/fairness.md, re-implemented here from the text alone."""

from __future__ import annotations

import hashlib
import hmac

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare

from services.dice import fair
from services.dice.engine import roll_event, shuffle_event, verify_ledger
from services.dice.kinds import catalog
from services.dice.ledger import Ledger


def published_uniform(seed: bytes, game_id: str, client_seed: str, nonce: int):
    """Yield uniform(k) answers exactly as docs/fairness.md words them (independent code)."""
    buf = b""
    r = 0

    def take4() -> int:
        nonlocal buf, r
        while len(buf) < 4:
            msg = f"{game_id}:{client_seed}:{nonce}:{r}".encode()
            buf += hmac.new(seed, msg, hashlib.sha256).digest()
            r += 1
        x, buf = int.from_bytes(buf[:4], "big"), buf[4:]
        return x

    def uniform(k: int) -> int:
        while True:
            x = take4()
            if x < (2**32 // k) * k:
                return x % k

    return uniform


SEED = bytes(range(32))


def test_given_a_revealed_seed_when_recomputing_rolls_then_every_face_matches():
    # given a seed, game and client seed
    for nonce in range(50):
        # when the engine rolls a mix of kinds
        dice = ["d6", "d10", "fallen_white", "fallen_red", "worlds_resource", "2d10"]
        event = roll_event("g1", SEED, "hero=abc", nonce, "test", dice)
        # then the published formula gives the same faces in order
        uniform = published_uniform(SEED, "g1", "hero=abc", nonce)
        for die in event["dice"]:
            assert die["index"] == uniform(len(die["faces"]))
            assert die["face"] == die["faces"][die["index"]]


def test_given_a_revealed_seed_when_recomputing_a_shuffle_then_the_order_matches():
    for nonce in range(20):
        event = shuffle_event("g1", SEED, "", nonce, "deck", 40)
        uniform = published_uniform(SEED, "g1", "", nonce)
        items = list(range(40))
        for i in range(len(items) - 1, 0, -1):
            j = uniform(i + 1)
            items[i], items[j] = items[j], items[i]
        assert event["order"] == items


def test_2d10_reads_00_plus_0_as_100_and_otherwise_tens_plus_units():
    readings = set()
    for nonce in range(3000):
        event = roll_event("g2", SEED, "", nonce, "p", ["2d10"])
        tens, units = (int(d["face"]) for d in event["dice"])
        value = int(event["results"][0])
        assert value == (tens + units or 100)
        readings.add(value)
    assert min(readings) == 1 and max(readings) == 100


def test_commitment_is_sha256_hex_of_the_seed():
    assert fair.commitment(SEED) == hashlib.sha256(SEED).hexdigest()


@pytest.mark.parametrize("kind", sorted(catalog().names()))
def test_each_kind_is_uniform_over_its_faces_chi_square_1e5_rolls(kind: str):
    # given 10^5 draws of one kind (one nonce, many dice per request)
    parts = catalog().expand(kind)
    counts: dict[str, int] = {}
    n = 0
    nonce = 0
    while n < 100_000:
        event = roll_event("chi", SEED, "", nonce, "chi", [kind] * 100)
        for res in event["results"]:
            counts[res] = counts.get(res, 0) + 1
        n += 100
        nonce += 1
    # then face frequencies match the face list (repeated faces weigh more)
    if len(parts) == 1:
        faces = catalog().faces[kind]
        expected = {f: faces.count(f) / len(faces) * n for f in set(faces)}
    else:
        expected = {str(v): n / 100 for v in range(1, 101)}
    observed = [counts.get(f, 0) for f in expected]
    stat = chisquare(observed, [expected[f] for f in expected])
    assert stat.pvalue > 1e-4, (kind, stat)


def test_rejection_sampling_rejects_the_biased_tail():
    # given k = 3, the largest accepted x is (2**32 // 3) * 3 - 1
    limit = (2**32 // 3) * 3
    assert limit < 2**32
    draws = fair.Draws(SEED, "g", "", 0)
    assert all(0 <= draws.uniform(3) < 3 for _ in range(1000))
    with pytest.raises(ValueError):
        draws.uniform(0)


def test_verify_ledger_names_the_first_tampered_roll():
    from services.platform.envelope import Envelope

    def env(version: int, type_: str, data: dict) -> Envelope:
        return Envelope(
            "e", "dice-g", version, version, type_, 1, "", "", "", "public", data, "", ""
        )

    rolls = [roll_event("g", SEED, "", i, "p", ["d6"] * 3) for i in range(3)]
    flipped = ["2" if r == "1" else "1" for r in rolls[1]["results"]]
    tampered = dict(rolls[1], results=flipped)
    ledger = Ledger(
        commitment=fair.commitment(SEED),
        revealed_seed=SEED.hex(),
        draws=(
            env(2, "DiceRolled", rolls[0]),
            env(3, "DiceRolled", tampered),
            env(4, "DiceRolled", rolls[2]),
        ),
    )
    result = verify_ledger("g", ledger)
    assert not result.ok
    assert "version 3" in result.mismatch and "results" in result.mismatch


@settings(max_examples=200, deadline=None)
@given(seed=st.binary(max_size=130), msg=st.binary(max_size=200))
def test_a_keyed_seed_digests_what_hmac_digests(seed: bytes, msg: bytes):
    # given a seed keyed once (short, block-sized or longer than SHA-256's 64-byte block)
    keyed = fair.keyed(seed)
    # when it digests a message, twice (its pads are copied, never consumed)
    # then both are HMAC-SHA256 of the seed and the message
    expected = hmac.digest(seed, msg, "sha256")
    assert keyed.digest(msg) == expected
    assert keyed.digest(msg) == expected


def test_draws_from_a_keyed_seed_are_the_draws_from_the_seed():
    # given the same nonce drawn with and without a keyed seed
    plain = fair.Draws(SEED, "g", "c", 7)
    shared = fair.Draws(SEED, "g", "c", 7, fair.keyed(SEED))
    # then every draw, across several HMAC blocks, is the same
    assert [plain.uniform(52) for _ in range(40)] == [shared.uniform(52) for _ in range(40)]
