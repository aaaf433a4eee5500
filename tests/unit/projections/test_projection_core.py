"""The pure projection: apply is idempotent by stream version, views equal a direct fold."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest

from services.platform.envelope import Envelope
from services.platform.store.sqlite import SqliteEventStore
from services.platform.upcast import Upcasters
from services.projections import core
from services.projections.core import GameProjection, Gap, NeedsState
from services.projections.records import audit_record, record_envelope, seat_feed
from services.rules.runner import fold
from tests.support.projections_play import engines, finished_game, play, runner_for

RULES_OF = engines().get


@pytest.fixture
async def logged() -> tuple[str, list[Envelope]]:
    """Return a finished toy game's id and every event of all its streams, in order."""
    store = SqliteEventStore(":memory:")
    await finished_game(store, "toy", "g1", seed=4)
    envs = await store.read_all(1, 10_000)
    await store.close()
    return "g1", envs


def test_given_a_game_log_when_folded_then_every_view_equals_the_engine_fold(logged):
    game_id, envs = logged
    # when the projection folds every stream of the game
    proj = core.fold_game(game_id, envs, RULES_OF)
    # then each seat's view is rules.view of the runner's own fold of the game stream
    rules = RULES_OF("toy")
    state = fold(rules, [e for e in envs if e.stream == f"game-{game_id}"])
    views = core.views(proj, RULES_OF)
    assert views == {
        "a": rules.view(state, "a"),
        "b": rules.view(state, "b"),
        "": rules.view(state, None),
    }
    assert proj.ended and proj.version == max(
        e.version for e in envs if e.stream.startswith("game-")
    )
    assert proj.chain_break == "" and proj.events == len(envs)


def test_given_redelivered_events_when_applied_then_nothing_is_applied_twice(logged):
    game_id, envs = logged
    once = core.fold_game(game_id, envs, RULES_OF)
    # given at-least-once delivery: every event again, and random older events re-sent
    rng = random.Random(7)
    noisy: list[Envelope] = []
    for i, env in enumerate(envs):
        noisy.append(env)
        if i and rng.random() < 0.5:
            noisy.append(envs[rng.randrange(i)])
    # when applied
    twice = core.fold_game(game_id, [*noisy, *envs], RULES_OF)
    # then the projection is the same as applying each event once
    assert twice.to_record() == once.to_record()
    assert core.views(twice, RULES_OF) == core.views(once, RULES_OF)


def test_given_a_skipped_version_when_applied_then_gap_names_the_stream(logged):
    game_id, envs = logged
    game = [e for e in envs if e.stream == f"game-{game_id}"]
    proj = core.fold_game(game_id, game[:3], RULES_OF)
    with pytest.raises(Gap) as gap:
        core.apply(proj, game[4], RULES_OF)
    assert (gap.value.stream, gap.value.have, gap.value.got) == (f"game-{game_id}", 3, 5)


def test_given_a_persisted_record_when_reloaded_then_state_refolds_from_the_log(logged):
    game_id, envs = logged
    game = [e for e in envs if e.stream == f"game-{game_id}"]
    half = core.fold_game(game_id, envs[: len(envs) // 2], RULES_OF)
    # given only the persisted record (no engine state)
    cold = GameProjection.from_record(half.to_record())
    with pytest.raises(NeedsState):
        core.apply(cold, next(e for e in game if e.version == half.version + 1), RULES_OF)
    # when the state is refolded from the game stream and the rest applied
    warm = core.load_state(cold, game, RULES_OF)
    for env in envs[len(envs) // 2 :]:
        warm = core.apply(warm, env, RULES_OF)
    # then it equals the projection built in one go
    full = core.fold_game(game_id, envs, RULES_OF)
    assert core.views(warm, RULES_OF) == core.views(full, RULES_OF)
    assert warm.to_record() == full.to_record()


def test_given_an_altered_event_when_applied_then_the_chain_break_is_recorded(logged):
    game_id, envs = logged
    i = next(i for i, e in enumerate(envs) if e.type == "Rolled")
    value = envs[i].data["value"]
    bad = replace(envs[i], data={**envs[i].data, "value": 6 if value != 6 else 1})
    proj = core.fold_game(game_id, [*envs[:i], bad, *envs[i + 1 :]], RULES_OF)
    assert proj.chain_break == f"{bad.stream} version {bad.version}: hash differs from its record"


def test_given_hidden_events_when_filtered_then_a_seat_sees_only_its_own(logged):
    _, envs = logged
    feed_a = seat_feed(envs, "a")
    spectator = seat_feed(envs, None)
    assert all(e["visibility"] in ("public", ["a"]) for e in feed_a)
    assert all(e["visibility"] == "public" for e in spectator)
    assert not any(e["type"] == "DiceShuffleDrawn" for e in feed_a)
    assert all("hash" not in e and "prev_hash" not in e for e in feed_a)
    dealt_b = next(e for e in envs if e.type == "CardDealt" and e.data["seat"] == "b")
    assert dealt_b.data["card"] not in json.dumps(feed_a)


def test_audit_records_round_trip_to_envelopes(logged):
    _, envs = logged
    for env in envs:
        again = record_envelope(audit_record(env))
        assert again.hash == env.hash == again.expected_hash()
        assert (again.stream, again.version, again.position) == (
            env.stream,
            env.version,
            env.position,
        )


def test_upcasters_chain_from_old_versions_to_the_newest():
    ups = Upcasters()
    ups.register("Rolled", 1, lambda d: {"seat": d["seat"], "pips": d["roll"]})
    ups.register("Rolled", 2, lambda d: {"seat": d["seat"], "value": d["pips"]})
    old = record_envelope(
        {"stream": "game-x", "version": 1, "type": "Rolled", "visibility": "public",
         "data": {"seat": "a", "roll": 3}, "prev_hash": "0" * 64, "hash": "", "schema_version": 1}
    )  # fmt: skip
    new = ups.upcast(old)
    assert (new.schema_version, new.data) == (3, {"seat": "a", "value": 3})
    assert ups.upcast(replace(old, type="Other")) == replace(old, type="Other")
    with pytest.raises(ValueError):
        ups.register("Rolled", 1, lambda d: d)


async def test_given_a_game_in_progress_when_folded_then_views_track_each_version():
    store = SqliteEventStore(":memory:")
    runner = runner_for(store)
    await play(runner, "toy", "g2", random.Random(2), steps=1)
    envs = await store.read_all(1, 10_000)
    proj = core.fold_game("g2", envs, RULES_OF)
    loaded = await runner.load("g2")
    assert not proj.ended and proj.version == loaded.version
    assert core.views(proj, RULES_OF)["a"] == loaded.rules.view(loaded.state, "a")
    await store.close()
