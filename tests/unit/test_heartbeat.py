"""The heartbeat liveness check of processes without a gRPC port (the faust worker)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from services.platform import heartbeat

ROOT = Path(__file__).resolve().parents[2]


def test_given_a_fresh_beat_then_the_check_passes(tmp_path: Path) -> None:
    path = tmp_path / "alive"
    heartbeat.beat(str(path))
    assert heartbeat.main([str(path), "15"]) == 0


def test_given_an_old_beat_then_the_check_fails(tmp_path: Path) -> None:
    path = tmp_path / "alive"
    heartbeat.beat(str(path))
    old = time.time() - 60
    os.utime(path, (old, old))
    assert heartbeat.main([str(path), "15"]) == 1


def test_given_no_beat_then_the_check_fails_and_usage_errors_are_2(tmp_path: Path) -> None:
    assert heartbeat.main([str(tmp_path / "never")]) == 1
    assert heartbeat.main(["a", "1", "b"]) == 2


def test_beat_follows_the_env_and_the_module_runs(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "env-alive"
    monkeypatch.setenv(heartbeat.ENV, str(path))
    heartbeat.beat()
    env = {**os.environ, heartbeat.ENV: str(path)}
    done = subprocess.run(
        [sys.executable, "-m", "services.platform.heartbeat"], cwd=ROOT, env=env,
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout
    assert done.stdout.startswith("ALIVE")
