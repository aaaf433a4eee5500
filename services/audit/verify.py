"""Verify a finished game from its log alone (pure): the check behind replay, audit and disputes.

Four checks over a game's audit records (any of its streams, in global order):
1. order and chains: positions rise, each stream runs 1, 2, 3, ... and every hash is the
   SHA-256 of its record chained to the one before (docs/audit.md);
2. dice: every die and shuffle re-derives from the revealed seed (docs/fairness.md);
3. deck: every DeckShuffled is its before list permuted by the same nonce's dice order;
4. keys and state: draws run in nonce order, each keyed by the decision it answers
   (services/audit/keys.py); the game stream refolds with the engine (old payloads upcast
   first), every dice answer in it is what the engine decides for the draw keyed by that
   decision, every deck answer is what the deck stream dealt at that moment (a drawn card
   is the card the deck stream took off the top of that deck), every draw is used, and the
   final state hash equals the one GameEnded recorded live.
The report names the first mismatch in log order: stream, version, what differs.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from json.encoder import encode_basestring
from typing import Any

from services.audit.deckcheck import DeckReplay
from services.audit.dicecheck import Problem, check_deck, check_dice, deck_nonces
from services.audit.keys import check_keys, unused_problems
from services.dice.ledger import ROLLED, SHUFFLE_DRAWN
from services.platform.canonical import (
    GENESIS_HASH,
    canonical_json,
    chain_hash_encoded,
    scalar_json,
)
from services.platform.decision import decision_key
from services.platform.envelope import Envelope, normalize_visibility, stream_game
from services.platform.games import (
    ABANDONED_KEY,
    ABANDONED_OUTCOME,
    GAME_CREATED,
    GAME_ENDED,
    SEAT_FORFEITED,
    forfeit_outcome,
    is_seat_event,
)
from services.platform.upcast import REGISTRY, Upcasters, for_rules
from services.projections.core import to_rules_event
from services.projections.records import HASHED_FIELDS, record_envelope
from services.rules.bot_seats import engine_options
from services.rules.engine.api import CHANCE, DECK_KINDS, Command, Event, GameRules, Setup

RulesOf = Callable[[str], GameRules | None]


@dataclass(frozen=True)
class Mismatch:
    """The first place a check failed: stream, version and what differs."""

    stream: str
    version: int
    what: str

    def to_dict(self) -> dict[str, Any]:
        """Return the mismatch as JSON-ready data."""
        return {"stream": self.stream, "version": self.version, "what": self.what}

    def __str__(self) -> str:
        return f"{self.stream} version {self.version}: {self.what}"


@dataclass(frozen=True)
class Report:
    """What verifying a game found."""

    game_id: str
    events: int
    final_state_hash: str
    chain_ok: bool
    dice_ok: bool
    state_ok: bool
    live_state_hash: str = ""
    mismatch: Mismatch | None = None
    mismatches: tuple[Mismatch, ...] = ()
    unused_draws: tuple[int, ...] = ()
    commitment: str = ""
    server_seed: str = ""

    @property
    def verified(self) -> bool:
        """Return whether every check passed."""
        return self.mismatch is None and self.chain_ok and self.dice_ok and self.state_ok

    def to_dict(self) -> dict[str, Any]:
        """Return the report as the JSON object replay --verify prints."""
        return {
            "game_id": self.game_id,
            "events": self.events,
            "final_state_hash": self.final_state_hash,
            "chain_ok": self.chain_ok,
            "dice_ok": self.dice_ok,
            "verified": self.verified,
            "state_ok": self.state_ok,
            "live_state_hash": self.live_state_hash,
            "mismatch": self.mismatch.to_dict() if self.mismatch else None,
            "mismatches": [m.to_dict() for m in self.mismatches],
            "unused_draws": list(self.unused_draws),
        }


@dataclass
class _Found:
    """Problems per check, each with the index of its record in log order."""

    chain: list[tuple[int, Mismatch]] = field(default_factory=list)
    dice: list[tuple[int, Mismatch]] = field(default_factory=list)
    state: list[tuple[int, Mismatch]] = field(default_factory=list)


def parse_records(
    records: Sequence[Mapping[str, Any]], lines: dict[int, str] | None = None
) -> tuple[list[Envelope], list[tuple[int, Mismatch]]]:
    """Return the envelopes of well-formed records and a mismatch for each malformed one
    (lines, if given, gets the log line of each envelope that came from one, by index)."""
    envs: list[Envelope] = []
    bad: list[tuple[int, Mismatch]] = []
    for i, rec in enumerate(records):
        try:
            try:
                envs.append(record_envelope(rec))
            except (KeyError, AttributeError):  # name every missing field, not the first read
                fields = (*HASHED_FIELDS, "hash")
                missing = [f for f in fields if not isinstance(rec, Mapping) or f not in rec]
                raise KeyError(", ".join(missing)) from None
            line = getattr(rec, "line", None)
            if lines is not None and isinstance(line, str):
                lines[len(envs) - 1] = line
        except (KeyError, TypeError, ValueError) as exc:
            stream = str(rec.get("stream", "?")) if isinstance(rec, Mapping) else "?"
            version = rec.get("version", 0) if isinstance(rec, Mapping) else 0
            what = f"record {i + 1} is malformed (missing or bad {exc})"
            bad.append((i, Mismatch(stream, version if isinstance(version, int) else 0, what)))
    return envs, bad


Texts = dict[int, tuple[Envelope, str]]  # id of an envelope -> it, its data's canonical JSON


def _data_text(env: Envelope, texts: Texts | None) -> str:
    """Return env.data as canonical JSON, encoded once per envelope when texts is given."""
    if texts is None:
        return canonical_json(env.data)
    known = texts.get(id(env))
    if known is not None and known[0] is env:
        return known[1]
    text = canonical_json(env.data)
    texts[id(env)] = (env, text)
    return text


def _logged_data(env: Envelope, line: str, vis_json: str) -> str | None:
    """Return the text of env's payload in its log line when the line is the canonical
    audit line of env (the payload's text is then what canonical_json writes), else None."""
    c = encode_basestring  # canonical_json of a str; the ints below are ints (int())
    head = '{"data":'
    tail = (
        f',"hash":{c(env.hash)},"position":{env.position},"prev_hash":{c(env.prev_hash)},'
        f'"schema_version":{env.schema_version},"stream":{c(env.stream)},'
        f'"type":{c(env.type)},"version":{env.version},"visibility":{vis_json}}}'
    )
    if not line.startswith(head) or not line.endswith(tail):
        return None
    return line[len(head) : len(line) - len(tail)]


def _hash_ok(env: Envelope, texts: Texts | None, line: str | None = None) -> bool:
    """Return whether env.hash is the SHA-256 of its record (docs/audit.md).

    With its log line, the payload is hashed as the line writes it; only when that digest
    differs is the payload encoded (a non-canonical line of an unaltered event passes as
    before; a digest equal to the hash means the line's text is the one the server hashed)."""
    if texts is None:
        return env.hash == env.expected_hash()
    vis = scalar_json(env.visibility)  # "public" mostly; a list of seats is encoded
    logged = _logged_data(env, line, vis) if line is not None else None
    if logged is not None:
        args = (env.stream, env.version, env.type, vis, logged, env.prev_hash)
        if env.hash == chain_hash_encoded(*args):
            texts[id(env)] = (env, logged)
            return True
    data = _data_text(env, texts)
    return env.hash == chain_hash_encoded(
        env.stream, env.version, env.type, vis, data, env.prev_hash
    )


def check_chains(
    game_id: str,
    envs: Sequence[Envelope],
    texts: Texts | None = None,
    lines: Mapping[int, str] | None = None,
) -> list[tuple[int, Mismatch]]:
    """Return order and hash-chain problems, in log order (texts: remember each payload's
    canonical JSON for the state replay, which compares the same payloads; lines: the log
    line of an envelope by index, whose payload text is hashed as it stands)."""
    out: list[tuple[int, Mismatch]] = []
    heads: dict[str, tuple[int, str]] = {}
    last_position = 0
    for i, env in enumerate(envs):
        if stream_game(env.stream) != game_id:
            out.append((i, Mismatch(env.stream, env.version, f"is not a stream of {game_id}")))
            continue
        if env.position:
            if env.position <= last_position:
                what = f"out of global order: position {env.position} after {last_position}"
                out.append((i, Mismatch(env.stream, env.version, what)))
            last_position = max(last_position, env.position)
        version, prev = heads.get(env.stream, (0, GENESIS_HASH))
        if env.version != version + 1:
            what = f"version {env.version} where {version + 1} was expected (missing or reordered)"
            out.append((i, Mismatch(env.stream, env.version, what)))
        elif env.prev_hash != prev:
            what = "prev_hash is not the hash of the event before it"
            out.append((i, Mismatch(env.stream, env.version, what)))
        elif not _hash_ok(env, texts, lines.get(i) if lines else None):
            what = "hash is not the SHA-256 of its record (the event was altered)"
            out.append((i, Mismatch(env.stream, env.version, what)))
        heads[env.stream] = (max(version, env.version), env.hash)
    return out


def _same(
    expected: Sequence[Event], stored: Sequence[Envelope], texts: Texts | None = None
) -> bool:
    """Return whether engine events equal stored (upcast) events in type, data, visibility."""
    if len(expected) != len(stored):
        return False
    for ev, env in zip(expected, stored, strict=True):
        vis = ev.visibility if isinstance(ev.visibility, str) else list(ev.visibility)
        if ev.type != env.type or canonical_json(dict(ev.data)) != _data_text(env, texts):
            return False
        if normalize_visibility(vis) != env.visibility:
            return False
    return True


def _chance_command(req_kind: str, draw: Envelope) -> Command:
    """Return the chance command the runner submitted for a dice draw."""
    d = draw.data
    if req_kind == "roll":
        return Command(CHANCE, "roll", {"faces": list(d["results"]), "nonce": d["nonce"]})
    return Command(CHANCE, "shuffle", {"order": list(d["order"]), "nonce": d["nonce"]})


def _fits(req: Any, draw: Envelope) -> bool:
    """Return whether a dice draw answers a chance request (kind, purpose, dice or count)."""
    d = draw.data
    if d.get("purpose") != req.purpose:
        return False
    if req.kind == "roll":
        return draw.type == ROLLED and list(d.get("requested", [])) == list(req.dice)
    return draw.type == SHUFFLE_DRAWN and d.get("count") == req.count


@dataclass
class _Replay:
    """The state replay's progress."""

    state: Any
    used: set[int] = field(default_factory=set)
    live_hash: str = ""
    ended: bool = False
    forfeit: str = ""


def _draw_for(
    game_id: str,
    asked: int,
    draws: Mapping[int, Envelope],
    by_key: Mapping[str, int] | None,
    taken: set[int],
) -> tuple[int | None, str]:
    """Return the nonce of the draw that must answer the decision asked at a version (by
    its key; in a log without keys the next draw in nonce order), or None and why not."""
    if by_key is None:
        free = [n for n in sorted(draws) if n not in taken]
        return (free[0], "") if free else (None, "chance was asked but no dice draw is left")
    key = decision_key(game_id, asked)
    nonce = by_key.get(key)
    if nonce is None or nonce in taken:
        return None, f"chance asked at version {asked} has no draw keyed {key!r}"
    return nonce, ""


def _answer(rules: GameRules, state: Any, req: Any, draw: Envelope | None) -> list[Event]:
    """Return the events the engine decides for a draw answering a request ([] if it does not
    fit or the engine refuses it)."""
    if draw is None or not _fits(req, draw):
        return []
    try:
        return list(rules.decide(state, _chance_command(req.kind, draw)))
    except Exception:
        return []


def _older_setup(
    rules: Any,
    game_id: str,
    setup: Setup,
    events: Sequence[tuple[int, Envelope]],
    initial: list[Event],
    head: list[Envelope],
) -> tuple[list[Event], list[Envelope]]:
    """Return the engine's older setup that created this game (an engine that changed how
    it sets a game up lists its older setups in `older_setups`), else (initial, head)."""
    older = getattr(rules, "older_setups", None)
    if older is None:
        return initial, head
    for alt in older(game_id, setup):
        alt_head = [env for _, env in events[: len(alt)]]
        if _same(alt, alt_head):
            return list(alt), alt_head
    return initial, head


def replay_state(
    game_id: str,
    game_events: Sequence[tuple[int, Envelope]],
    draws: Mapping[int, Envelope],
    rules_of: RulesOf,
    upcasters: Upcasters = REGISTRY,
    by_key: Mapping[str, int] | None = None,
    deck_used: set[int] | None = None,
    deck_events: Sequence[tuple[int, Envelope]] = (),
    texts: Texts | None = None,
) -> tuple[str, str, list[tuple[int, Mismatch]], set[int]]:
    """Refold the game stream checking each dice answer against the draw keyed by its
    decision (by_key None: a log without keys, draws taken in nonce order) and each deck
    answer against the deck stream; return (final hash, live hash, problems, nonces used)."""
    deck_used = deck_used or set()
    dealt = DeckReplay(list(deck_events))
    problems: list[tuple[int, Mismatch]] = []
    stream = f"game-{game_id}"
    if not game_events or game_events[0][1].type != GAME_CREATED:
        return (
            "",
            "",
            [(0, Mismatch(stream, 1, "the game stream does not start with GameCreated"))],
            set(),
        )
    created = game_events[0][1].data
    rules = rules_of(str(created.get("game", "")))
    if rules is None:
        what = f"no engine for game kind {created.get('game')!r} to replay with"
        return "", "", [(game_events[0][0], Mismatch(stream, 1, what))], set()
    up = for_rules(rules, upcasters)
    rp = _Replay(rules.initial_state())
    events = [(i, up.upcast(env)) for i, env in game_events[1:]]
    setup = Setup(
        dict(created.get("seats", {})), engine_options(rules, dict(created.get("options", {})))
    )
    try:
        initial = rules.initial_events(game_id, setup)
    except Exception as exc:
        initial = []
        problems.append((game_events[0][0], Mismatch(stream, 1, f"setup refused: {exc}")))
    head = [env for _, env in events[: len(initial)]]
    if initial and not _same(initial, head):
        initial, head = _older_setup(rules, game_id, setup, events, initial, head)
    if initial and not _same(initial, head):
        i, env = events[0] if events else game_events[0]
        problems.append((i, Mismatch(stream, env.version, "differs from the engine's setup")))
    k = 0
    strict = not problems

    def fold(env: Envelope) -> None:
        rp.state = rules.evolve(rp.state, to_rules_event(env))

    while k < len(events):
        i, env = events[k]
        try:
            if env.type == GAME_ENDED:
                rp.ended, rp.live_hash = True, str(env.data.get("state_hash", ""))
                if k != len(events) - 1:
                    nxt_i, nxt = events[k + 1]
                    problems.append((nxt_i, Mismatch(stream, nxt.version, "event after GameEnded")))
                    strict = False
                replayed = rules.state_hash(rp.state)
                if strict and rp.live_hash != replayed:
                    what = f"state hash differs: live {rp.live_hash}, replay {replayed}"
                    problems.append((i, Mismatch(stream, env.version, what)))
                outcome = rules.outcome(rp.state) or {}
                if rp.forfeit:
                    outcome = forfeit_outcome(list(created.get("seats", {})), rp.forfeit)
                if ABANDONED_KEY in env.data:  # ended by the server after a quiet spell
                    outcome = dict(ABANDONED_OUTCOME)
                if strict and env.data.get("outcome") != json.loads(canonical_json(outcome)):
                    problems.append((i, Mismatch(stream, env.version, "outcome differs")))
                k += 1
                continue
            if is_seat_event(env.type):  # timer facts, not engine events (docs/matchmaking.md)
                if env.type == SEAT_FORFEITED:
                    rp.forfeit = str(env.data.get("seat", ""))
                k += 1
                continue
            pending = rules.pending(rp.state) if k >= len(initial) else None
            if strict and k >= len(initial) and pending is None:
                problems.append((i, Mismatch(stream, env.version, "event after the game was over")))
                strict = False
            if (
                strict
                and pending is not None
                and pending.chance
                and pending.chance.kind in DECK_KINDS
            ):
                req = pending.chance
                expected = rules.decide(rp.state, dealt.answer(i, req))
                stored = [e for _, e in events[k : k + len(expected)]]
                if not expected or not _same(expected, stored, texts):
                    what = f"does not follow from the deck stream for {req.kind} {req.deck!r}"
                    problems.append((i, Mismatch(stream, env.version, what)))
                    strict = False
                    continue
                for e in stored:
                    fold(e)
                k += len(expected)
                continue
            if strict and pending is not None and pending.seat == CHANCE and pending.chance:
                asked = events[k - 1][1].version if k else game_events[0][1].version
                nonce, what = _draw_for(game_id, asked, draws, by_key, rp.used | deck_used)
                drawn = draws.get(nonce) if nonce is not None else None
                expected = _answer(rules, rp.state, pending.chance, drawn)
                stored = [e for _, e in events[k : k + len(expected)]]
                if nonce is not None and expected and _same(expected, stored, texts):
                    for e in stored:
                        fold(e)
                    rp.used.add(nonce)
                    k += len(expected)
                    continue
                if not what:
                    what = f"does not follow from dice nonce {nonce} ({pending.chance.kind} "
                    what += f"for {pending.chance.purpose!r}, asked at version {asked})"
                problems.append((i, Mismatch(stream, env.version, what)))
                strict = False
                continue
            fold(env)
            k += 1
        except Exception as exc:
            what = f"the engine cannot apply it ({type(exc).__name__}: {exc})"
            problems.append((i, Mismatch(stream, env.version, what)))
            return "", rp.live_hash, problems, rp.used
    if not rp.ended:
        last = events[-1][1].version if events else 1
        problems.append((len(game_events), Mismatch(stream, last, "the game has not ended")))
    return rules.state_hash(rp.state), rp.live_hash, problems, rp.used


def verify_game(
    game_id: str,
    records: Sequence[Mapping[str, Any]],
    rules_of: RulesOf,
    upcasters: Upcasters = REGISTRY,
    problems: Sequence[tuple[int, Mismatch]] = (),
) -> Report:
    """Return the report of verifying a game from its audit records (in log order)."""
    lines: dict[int, str] = {}
    envs, bad = parse_records(records, lines)
    found = _Found(chain=[*problems, *bad])
    texts: Texts = {}  # each payload is encoded at most once (none read from a log line)
    found.chain += check_chains(game_id, envs, texts, lines)
    index: dict[tuple[str, int], int] = {}  # (stream, version) -> log index, built on demand

    def at(p: Problem) -> tuple[int, Mismatch]:
        if not index:
            index.update(((e.stream, e.version), i) for i, e in enumerate(envs))
        return index.get((p.stream, p.version), len(envs)), Mismatch(p.stream, p.version, p.what)

    by_stream: dict[str, list[tuple[int, Envelope]]] = {}  # stream -> (log index, event)
    for i, env in enumerate(envs):
        by_stream.setdefault(env.stream, []).append((i, env))
    game_events = by_stream.get(f"game-{game_id}", [])
    deck_at = by_stream.get(f"deck-{game_id}", [])
    deck_events = [env for _, env in deck_at]
    dice = check_dice(game_id, [env for _, env in by_stream.get(f"dice-{game_id}", [])])
    found.dice += [at(p) for p in dice.problems]
    found.dice += [at(p) for p in check_deck(deck_events, dice.draws)]
    keys = check_keys(game_id, dice.draws, deck_events)
    found.dice += [at(p) for p in keys.problems]
    deck_used = deck_nonces(deck_events)
    final, live, state_problems, used = replay_state(
        game_id,
        game_events,
        dice.draws,
        rules_of,
        upcasters,
        keys.by_key if keys.keyed else None,
        deck_used,
        deck_at,
        texts,
    )
    found.state += state_problems
    unused = sorted(set(dice.draws) - used - deck_used)
    if not state_problems:  # after a state problem the replay stopped consuming draws
        found.dice += [at(p) for p in unused_problems(dice.draws, unused)]
    ordered = sorted([*found.chain, *found.dice, *found.state], key=lambda p: p[0])
    return Report(
        game_id=game_id,
        events=len(records),
        final_state_hash=final,
        chain_ok=not found.chain,
        dice_ok=not found.dice,
        state_ok=not found.state,
        live_state_hash=live,
        mismatch=ordered[0][1] if ordered else None,
        mismatches=tuple(m for _, m in ordered[:50]),
        unused_draws=tuple(unused),
        commitment=dice.commitment,
        server_seed=dice.server_seed,
    )
