"""fallenctl replay --verify and audit export, from a store and through gRPC; tampered logs;
and a third-party check written from docs/fairness.md and docs/audit.md alone."""

from __future__ import annotations

import asyncio
import json
import os
import random
import sys
import textwrap
from pathlib import Path

import pytest

from services.app import serve
from services.platform.store.sqlite import SqliteEventStore
from tests.support.projections_play import engines, play, rechain, runner_for

ROOT = Path(__file__).resolve().parents[2]
REPORT_KEYS = {"game_id", "events", "final_state_hash", "chain_ok", "dice_ok", "verified"}


def cli_env() -> dict[str, str]:
    env = dict(os.environ, FALLEN_DEV="1", FALLEN_EXTRA_GAMES="toy=tests.support.toy_game:RULES")
    env.pop("FALLEN_JWT_SECRET", None)
    env["PYTHONPATH"] = str(ROOT)
    return env


async def fallenctl(*args: str) -> tuple[int, str, str]:
    """Run fallenctl in a subprocess; return (exit code, stdout, stderr)."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "services.cli.main", *args,
        cwd=ROOT, env=cli_env(),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


@pytest.fixture
async def games(tmp_path: Path) -> str:
    """Return the URL of a store holding a finished game g1, an unfinished g2 and a Fallen f1."""
    store = SqliteEventStore(tmp_path / "events.db")
    runner = runner_for(store)
    assert await play(runner, "toy", "g1", random.Random(8))
    await play(runner, "toy", "g2", random.Random(8), steps=1)
    if "fallen" in engines():
        assert await play(runner, "fallen", "f1", random.Random(8))
    await store.close()
    return f"sqlite:///{tmp_path / 'events.db'}"


async def test_replay_verify_from_a_store_prints_the_report_and_exits_zero(games):
    code, out, err = await fallenctl("replay", "g1", "--verify", "--store", games)
    assert code == 0, err
    report = json.loads(out)
    assert REPORT_KEYS <= set(report) and report["verified"] and report["chain_ok"]
    assert report["dice_ok"] and report["game_id"] == "g1" and report["events"] > 10
    assert len(report["final_state_hash"]) == 64


async def test_replay_verify_of_a_fallen_game(games):
    assert "fallen" in engines(), "the Fallen engine must import"
    code, out, err = await fallenctl("replay", "f1", "--verify", "--store", games)
    assert code == 0, err
    assert json.loads(out)["verified"]


async def test_export_of_an_unfinished_game_is_refused(games, tmp_path):
    code, out, err = await fallenctl("audit", "export", "g2", "--store", games)
    assert code == 2 and out == "" and "not finished" in err
    code, _, err = await fallenctl("replay", "g2", "--verify", "--store", games)
    assert code == 1 and "mismatch:" in err


THIRD_PARTY = textwrap.dedent(
    """
    # Written from docs/fairness.md and docs/audit.md only; runs with `python -I` (no project code).
    import hashlib, hmac, json, sys
    KINDS = {"2d10": ["d10_tens", "d10_units"]}
    recs = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
    prev = {}
    for e in recs:
        p = prev.get(e["stream"], ("0" * 64, 0))
        rec = {k: e[k] for k in ("stream", "version", "type", "visibility", "data")}
        rec["prev_hash"] = p[0]
        text = json.dumps(rec, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        where = (e["stream"], e["version"])
        assert e["version"] == p[1] + 1 and e["prev_hash"] == p[0], ("order", where)
        assert hashlib.sha256(text.encode("utf-8")).hexdigest() == e["hash"], ("hash", where)
        prev[e["stream"]] = (e["hash"], e["version"])
    game_id = recs[0]["stream"].split("-", 1)[1]
    seed_ev = [e for e in recs if e["type"] == "DiceSeedRevealed"][0]["data"]
    seed = bytes.fromhex(seed_ev["server_seed"])
    commit = [e for e in recs if e["type"] == "DiceSeedCommitted"][0]["data"]["commitment"]
    assert hashlib.sha256(seed).hexdigest() == commit
    def draws(client_seed, nonce):
        buf, r = b"", 0
        def take4():
            nonlocal buf, r
            while len(buf) < 4:
                msg = f"{game_id}:{client_seed}:{nonce}:{r}".encode()
                buf += hmac.new(seed, msg, hashlib.sha256).digest()
                r += 1
            x, buf = int.from_bytes(buf[:4], "big"), buf[4:]
            return x
        def uniform(k):
            while True:
                x = take4()
                if x < (2**32 // k) * k:
                    return x % k
        return uniform
    orders = {}
    checked = 0
    for e in recs:
        d = e["data"]
        if e["type"] == "DiceRolled":
            u = draws(d["client_seed"], d["nonce"])
            for die in d["dice"]:
                i = u(len(die["faces"]))
                assert die["index"] == i and die["face"] == die["faces"][i], ("die", e["version"])
            k = 0
            for kind, result in zip(d["requested"], d["results"]):
                parts = KINDS.get(kind, [kind])
                faces = [x["face"] for x in d["dice"][k:k + len(parts)]]
                if len(parts) == 1:
                    assert result == faces[0]
                else:
                    assert int(result) == (int(faces[0]) + int(faces[1]) or 100)
                k += len(parts)
            checked += 1
        elif e["type"] == "DiceShuffleDrawn":
            u = draws(d["client_seed"], d["nonce"])
            items = list(range(d["count"]))
            for i in range(len(items) - 1, 0, -1):
                j = u(i + 1)
                items[i], items[j] = items[j], items[i]
            assert items == d["order"], ("shuffle", e["version"])
            orders[d["nonce"]] = items
            checked += 1
    for e in recs:
        if e["type"] == "DeckShuffled":
            d = e["data"]
            assert d["after"] == [d["before"][i] for i in orders[d["nonce"]]]
    # keys: in nonce order, each draw names one decision of this game ("game-<id>@<version>"),
    # before the game ended; no decision twice, never back to an earlier decision
    game = "game-" + game_id
    ended = [e["version"] for e in recs if e["stream"] == game and e["type"] == "GameEnded"][0]
    kinds = ("DiceRolled", "DiceShuffleDrawn")
    drawn = sorted((e for e in recs if e["type"] in kinds), key=lambda e: e["data"]["nonce"])
    assert [e["data"]["nonce"] for e in drawn] == list(range(len(drawn))), "nonces"
    keys, last = set(), 0
    for e in drawn:
        key = e["data"]["key"]
        stream, _, at = key.partition("@")
        version = int(at.split("/")[0])
        where = ("key", e["version"], e["data"]["nonce"])
        assert stream == game and key not in keys and last <= version < ended, where
        keys.add(key)
        last = version
    print(json.dumps({"ok": True, "draws": checked, "events": len(recs)}))
    """
)


async def test_an_export_verifies_with_a_script_written_from_the_docs_alone(games, tmp_path):
    code, out, err = await fallenctl("audit", "export", "g1", "--store", games)
    assert code == 0, err
    lines = out.splitlines()
    assert all(
        {"stream", "version", "type", "visibility", "data", "prev_hash", "hash"}
        <= set(json.loads(x))
        for x in lines
    )
    positions = [json.loads(x)["position"] for x in lines]
    assert positions == sorted(positions)
    (tmp_path / "g1.jsonl").write_text(out)
    (tmp_path / "check.py").write_text(THIRD_PARTY)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-I", str(tmp_path / "check.py"), str(tmp_path / "g1.jsonl"),
        cwd=tmp_path, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    stdout, stderr = await proc.communicate()
    assert proc.returncode == 0, stderr.decode()
    result = json.loads(stdout)
    assert result["ok"] and result["events"] == len(lines) and result["draws"] >= 3
    # and a second draw for one decision (chain recomputed) fails the script, naming its nonce
    records = [json.loads(x) for x in lines]
    i, j = [k for k, r in enumerate(records) if r["type"] == "DiceRolled"][:2]
    forged = [dict(r) for r in records]
    forged[j]["data"] = {**records[j]["data"], "key": records[i]["data"]["key"]}
    (tmp_path / "forged.jsonl").write_text(jsonl(rechain(forged, "dice-g1")))
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-I", str(tmp_path / "check.py"), str(tmp_path / "forged.jsonl"),
        cwd=tmp_path, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _, stderr = await proc.communicate()
    nonce = records[j]["data"]["nonce"]
    assert proc.returncode == 1 and f"('key', {records[j]['version']}, {nonce})" in stderr.decode()


async def exported(games: str, tmp_path: Path) -> list[dict]:
    code, _, err = await fallenctl(
        "audit", "export", "g1", "--store", games, "--out", str(tmp_path / "g1.jsonl")
    )
    assert code == 0, err
    return [json.loads(x) for x in (tmp_path / "g1.jsonl").read_text().splitlines()]


async def replay_log(tmp_path: Path, name: str, text: str) -> tuple[int, str, str]:
    (tmp_path / name).write_text(text)
    return await fallenctl("replay", "g1", "--verify", "--log", str(tmp_path / name))


def jsonl(records: list[dict]) -> str:
    return "".join(json.dumps(r, sort_keys=True, separators=(",", ":")) + "\n" for r in records)


async def test_tampered_exports_fail_replay_naming_the_spot(games, tmp_path):
    records = await exported(games, tmp_path)
    code, out, _ = await replay_log(tmp_path, "clean.jsonl", jsonl(records))
    assert code == 0 and json.loads(out)["verified"]
    # one byte edited: a card name in the deal to seat b
    i = next(i for i, r in enumerate(records) if r["type"] == "CardDealt")
    text = (tmp_path / "g1.jsonl").read_text()
    lines = text.splitlines(keepends=True)
    line = lines[i]
    at = line.index("card.") + len("card.")
    lines[i] = line[:at] + ("X" if line[at] != "X" else "Y") + line[at + 1 :]
    code, out, err = await replay_log(tmp_path, "byte.jsonl", "".join(lines))
    spot = f"{records[i]['stream']} version {records[i]['version']}"
    assert code == 1 and not json.loads(out)["verified"] and spot in err, err
    # one die result flipped, chain recomputed by the forger
    j = next(i for i, r in enumerate(records) if r["type"] == "DiceRolled")
    forged = [dict(r) for r in records]
    d = json.loads(json.dumps(forged[j]["data"]))
    face = d["dice"][0]["face"]
    d["dice"][0]["face"] = d["results"][0] = "1" if face != "1" else "2"
    forged[j]["data"] = d
    code, out, err = await replay_log(tmp_path, "die.jsonl", jsonl(rechain(forged, "dice-g1")))
    report = json.loads(out)
    assert code == 1 and report["chain_ok"] and not report["dice_ok"]
    assert f"dice-g1 version {records[j]['version']}" in err, err
    # two events of the game stream swapped
    k = next(i for i, r in enumerate(records) if r["type"] == "RollAsked")
    m = next(i for i in range(k + 1, len(records)) if records[i]["stream"] == "game-g1")
    swapped = list(records)
    swapped[k], swapped[m] = swapped[m], swapped[k]
    code, out, err = await replay_log(tmp_path, "swap.jsonl", jsonl(swapped))
    assert code == 1 and not json.loads(out)["chain_ok"]
    assert f"game-g1 version {records[m]['version']}" in err, err


async def test_replay_and_export_through_the_grpc_api(games, tmp_path, monkeypatch):
    monkeypatch.setenv("FALLEN_DEV", "1")
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)
    monkeypatch.delenv("FALLEN_VIEWS", raising=False)
    store = SqliteEventStore(tmp_path / "events.db")
    backend = await serve(store, "127.0.0.1:0", extra_games=engines())
    target = f"127.0.0.1:{backend.port}"
    try:
        code, out, err = await fallenctl("replay", "g1", "--verify", "--target", target)
        assert code == 0, err
        assert json.loads(out)["verified"]
        code, out, err = await fallenctl("audit", "export", "g1", "--target", target)
        assert code == 0, err
        code2, out2, _ = await fallenctl("audit", "export", "g1", "--store", games)
        assert code2 == 0 and out == out2
        code, out, err = await fallenctl("audit", "export", "g2", "--target", target)
        assert code == 2 and "has not ended" in err
    finally:
        await backend.stop()
