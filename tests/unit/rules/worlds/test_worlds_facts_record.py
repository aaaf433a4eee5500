"""Rules version 3: a Worlds game records only facts, and version 2 logs still verify."""

from __future__ import annotations

import gzip
from collections import Counter
from pathlib import Path

from services.audit.logfile import parse_jsonl
from services.audit.verify import verify_game
from services.rules.engine.api import Setup
from services.rules.playout import play
from services.rules.registry import load

RULES = load("worlds")
LOG = Path(__file__).parents[3] / "golden" / "worlds_legacy_main_rules2.jsonl.gz"
SEATS = {"p1": "alice", "p2": "bob"}


def test_given_new_games_then_after_creation_no_event_is_engine_bookkeeping() -> None:
    # "Engine bookkeeping (the task queue, the continuation) is not an event a player has to
    # read": new games (rules version 3) carry the flow inside their facts
    for i in range(3):
        # (playouts seal the decks into the dealer as the service does: rules version 3)
        p = play(RULES, Setup(SEATS, {"decks": {"p1": "uea", "p2": "draga"}}), f"wf-{i}", f"w{i}")
        played = Counter(e.type for e in p.events[p.batches[0] :])
        assert RULES.outcome(p.state) is not None
        assert not {"flow", "var_set", "vars_set"} & set(played), i
        assert sum("_flow" in e.data for e in p.events) > len(p.batches) / 2, i


def test_given_a_rules_version_2_log_when_verified_then_every_check_passes() -> None:
    # given a finished game recorded before version 3 (its answers as `flow` events)
    records, problems = parse_jsonl(gzip.decompress(LOG.read_bytes()).decode())
    assert not problems and any(r["type"] == "flow" for r in records)
    # when it is verified with today's engine, then its older setup is found and it verifies
    report = verify_game("legacyw", records, lambda game: load(game))
    assert report.mismatch is None, report.mismatch
    assert report.verified and report.state_ok and report.final_state_hash
