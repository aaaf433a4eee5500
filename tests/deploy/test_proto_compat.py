"""The protos stay buf-lint clean and wire-compatible with the previous commit."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUF = str(Path(sys.executable).parent / "buf")


def test_protos_are_compatible_with_the_previous_commit():
    # when the check `make lint` runs is run on this tree
    done = subprocess.run(
        ["bash", str(ROOT / ".ci" / "buf-breaking")], capture_output=True, text=True, cwd=ROOT
    )
    # then buf finds no breaking change (or the commit declares one with API-Break:)
    assert done.returncode == 0, done.stdout + done.stderr


def test_buf_breaking_catches_a_removed_rpc(tmp_path: Path):
    # given a copy of the protos with one RPC removed
    changed = tmp_path / "protos"
    shutil.copytree(ROOT / "protos", changed)
    proto = changed / "fallen" / "rules" / "v1" / "rules.proto"
    text = proto.read_text()
    cut = "  rpc ListLegalCommands(ListLegalCommandsRequest) returns (ListLegalCommandsResponse);\n"
    assert cut in text
    proto.write_text(text.replace(cut, ""))
    # when buf compares it with the real protos
    done = subprocess.run(
        [BUF, "breaking", "--against", str(ROOT / "protos")],
        capture_output=True,
        text=True,
        cwd=changed,
    )
    # then the removal is reported
    assert done.returncode != 0 and "ListLegalCommands" in done.stdout + done.stderr
    lint = subprocess.run([BUF, "lint"], capture_output=True, text=True, cwd=ROOT / "protos")
    assert lint.returncode == 0, lint.stdout + lint.stderr
