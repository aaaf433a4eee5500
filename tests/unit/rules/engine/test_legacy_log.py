"""A Fallen game recorded on main before the kernel (commit 22ffcf1) still replays and verifies."""

from __future__ import annotations

import gzip
from pathlib import Path

from services.audit.logfile import parse_jsonl
from services.audit.verify import verify_game
from services.rules.registry import load

LOG = Path(__file__).parents[3] / "golden" / "fallen_legacy_main_22ffcf1.jsonl.gz"


def test_given_a_pre_kernel_fallen_log_when_verified_then_every_check_passes() -> None:
    # given the audit log of a finished Fallen game exported before the kernel existed
    records, problems = parse_jsonl(gzip.decompress(LOG.read_bytes()).decode())
    assert not problems and len(records) > 2000
    # when it is verified with today's engine (chains, dice, refold and final hash)
    report = verify_game("legacy1", records, lambda game: load(game))
    # then it verifies: the refolded state hashes to what GameEnded recorded live
    assert report.mismatch is None, report.mismatch
    assert report.verified and report.state_ok and report.dice_ok
    assert report.final_state_hash == report.live_state_hash


COMPACT_LOG = Path(__file__).parents[3] / "golden" / "fallen_legacy_main_4c977d6.jsonl.gz"


def test_given_a_record_format_1_log_when_verified_then_every_check_passes() -> None:
    # given a finished Fallen game of card data 2 dealt by the deck service, exported on main
    # (4c977d6) before record format 2 (its counters as `counter_changed`, its answers as `flow`)
    records, problems = parse_jsonl(gzip.decompress(COMPACT_LOG.read_bytes()).decode())
    created = next(r for r in records if r["type"] == "GameCreated")
    assert not problems and created["data"]["options"] == {"card_data": 2}
    assert any(r["type"] == "counter_changed" for r in records)
    # when it is verified with today's engine
    report = verify_game("legacy2", records, lambda game: load(game))
    # then it verifies, decks and final state hash included
    assert report.mismatch is None, report.mismatch
    assert report.verified and report.state_ok and report.dice_ok
    assert report.final_state_hash == report.live_state_hash
