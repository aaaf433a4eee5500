"""The client guide's Python example (docs/clients.md) runs against a `make run` server."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from services.platform.auth import issue_token
from tests.support.make_run import make_run

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "clients.md"


def guide_example() -> str:
    """Return the one ```python block of the guide."""
    blocks = re.findall(r"```python\n(.*?)```", GUIDE.read_text(), flags=re.S)
    assert len(blocks) == 1, "docs/clients.md must hold exactly one python example"
    return str(blocks[0])


def test_the_guides_python_client_plays_a_game_and_disputes_it(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("FALLEN_DEV", "1")
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)
    monkeypatch.setenv("FALLEN_SEED_WAIT_S", "120")  # chance waits for both seats' seeds
    script = tmp_path / "client.py"
    script.write_text(guide_example())
    with make_run(tmp_path) as served:
        # when the guide's program runs as a separate client process
        env = {
            **os.environ,
            "FALLEN_TARGET": served.grpc,
            "ALICE_TOKEN": issue_token("alice"),
            "BOB_TOKEN": issue_token("bob"),
        }
        done = subprocess.run(
            [sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=240
        )
    # then it finished the game, saw each refusal, and the dispute verified the game
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    out = done.stdout
    assert "dungeon_lord added a client seed" in out
    assert "refused as expected: INVALID_ARGUMENT: args.character" in out
    assert "refused as expected: PERMISSION_DENIED" in out
    assert "refused as expected: ABORTED" in out
    assert re.search(r"spectator: \d+ views pushed, game over", out)
    assert "chain True, dice True" in out and "verified=True" in out
