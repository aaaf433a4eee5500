"""fallenctl bench rules: a warm-up game apart, and the served processes' GC policy."""

from __future__ import annotations

import gc
import json

import pytest
from typer.testing import CliRunner

from services.cli.main import app

runner = CliRunner()


@pytest.fixture(autouse=True)
def _unfreeze():
    yield
    gc.unfreeze()  # the bench freezes this process's heap, as a server does; give it back


def _bench(monkeypatch, gc_mode: str) -> dict:
    monkeypatch.setenv("FALLEN_GC", gc_mode)
    gc.unfreeze()  # whatever an earlier test froze
    result = runner.invoke(app, ["bench", "rules", "fallen", "--games", "2", "--grpc-games", "0"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)["in_process"]


def test_the_bench_freezes_the_warmed_heap_as_a_served_process_does(monkeypatch):
    # given the default GC policy of served processes
    # when two games are benchmarked in-process
    out = _bench(monkeypatch, "freeze")
    # then the warm-up game is reported apart, the heap was frozen, and both games counted
    assert out["games"] == 2 and out["warmup_game_ms"] > 0
    assert out["gc"] == "start-up heap frozen" and gc.get_freeze_count() > 0
    assert out["events_per_game"] > 100 and out["games_per_s"] > 0


def test_the_bench_keeps_cpythons_collector_when_asked(monkeypatch):
    # given FALLEN_GC=default, when the bench runs, then nothing is frozen
    out = _bench(monkeypatch, "default")
    assert out["gc"].startswith("CPython default") and gc.get_freeze_count() == 0
