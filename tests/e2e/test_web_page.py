"""The web page in a real browser (Debian's chromium, driven by Playwright) against `make run`.

Loads the lobby, follows a live bot game to its end, steps its replay with the fairness
checks computed in the page, and saves screenshots under test-artifacts/web/.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, Response, sync_playwright

from services.platform.auth import issue_token
from tests.support.make_run import Running, make_run, play_bots
from tests.support.web_scan import scan_page_payloads

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "web"


# Python: fair.Draws(bytes.fromhex("11" * 32), "g1", "cs", 3).uniform(6) == 3 (face "4"), and
# fair.shuffle(fair.Draws(seed, "g1", "cs", 4), range(10)) == [9, 3, 2, 7, 6, 1, 5, 8, 0, 4].
FORGED_DIE_CHECK = """async () => {
  const seed = "11".repeat(32);
  const commitment = await Fairness.sha256Hex(Fairness.hexToBytes(seed));
  const faces = ["1", "2", "3", "4", "5", "6"];
  const log = (index, order) => [
    {type: "DiceSeedCommitted", data: {commitment, client_seed: "cs"}},
    {type: "DiceRolled", data: {nonce: 3, client_seed: "cs",
      dice: [{kind: "d6", faces, index, face: faces[index]}]}},
    {type: "DiceShuffleDrawn", data: {nonce: 4, client_seed: "cs", count: 10, order}},
    {type: "DiceSeedRevealed", data: {server_seed: seed, commitment}},
  ];
  const good = await Fairness.verifyGame("g1", log(3, [9, 3, 2, 7, 6, 1, 5, 8, 0, 4]));
  const bad = await Fairness.verifyGame("g1", log(0, [3, 9, 2, 7, 6, 1, 5, 8, 0, 4]));
  return [good.byNonce[3].ok, bad.byNonce[3].ok, good.byNonce[4].ok, bad.byNonce[4].ok];
}"""


def chromium() -> str:
    """Return Debian's chromium (the Makefile installs it; a missing one is an error)."""
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    assert path, "chromium is not installed: `make test` installs it (apt-get install chromium)"
    return path


@pytest.fixture
def served(tmp_path: Path) -> Any:
    with make_run(tmp_path) as running:
        yield running


def shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def hero_of(target: str, game_id: str) -> str:
    """Return the Hero's player id of a game (GetGame with a service token)."""
    import grpc
    from fallen.rules.v1 import rules_pb2, rules_pb2_grpc

    with grpc.insecure_channel(target) as channel:
        game = rules_pb2_grpc.RulesServiceStub(channel).GetGame(
            rules_pb2.GetGameRequest(game_id=game_id),
            metadata=(("authorization", f"Bearer {issue_token('e2e', service=True)}"),),
        )
    return game.seats["hero"]


def test_lobby_live_game_and_replay_in_chromium(served: Running, monkeypatch):
    monkeypatch.setenv("FALLEN_DEV", "1")  # tokens signed like `make run` signs them
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)
    received: list[tuple[str | None, Any]] = []
    reader: list[str | None] = [None]  # who the page asks as: the spectator, then the Hero

    def keep(resp: Response) -> None:
        # the audit log is disclosed in full to a finished game's players (docs/disputes.md)
        if "/api/" in resp.url and not re.search(r"/(watch|audit)\b", resp.url) and resp.ok:
            received.append((reader[0], json.loads(resp.body())))

    bots = play_bots(served.grpc, "web")
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
            # bypass_csp: the test's own probes (wait_for_function) are evaluated strings,
            # which the page's Content-Security-Policy (no eval) would refuse
            page = browser.new_page(viewport={"width": 1280, "height": 900}, bypass_csp=True)
            page.on("response", keep)
            # given the lobby, when a bot game is in progress, then it is listed as such
            page.goto(served.web + "/")
            live_row = page.locator("tr[data-ended=false]").first
            live_row.wait_for(timeout=20_000)
            game_id = live_row.get_attribute("data-game-id")
            # the lobby shows an outsider no player ids (docs/decisions.md): ask as a service
            hero = hero_of(served.grpc, game_id or "")
            shot(page, "1-lobby")
            # when the spectator follows it live, then the board updates until the game ends
            live_row.locator("a.watch").click()
            page.wait_for_selector("body[data-state=live]", timeout=10_000)
            first = int(page.locator("#live-status").get_attribute("data-version") or 0)
            page.locator("[data-game=fallen] #creatures").wait_for()
            page.locator("#dice .die").first.wait_for(timeout=20_000)
            shot(page, "2-live")
            page.wait_for_selector("body[data-state=live-ended]", timeout=120_000)
            last = int(page.locator("#live-status").get_attribute("data-version") or 0)
            assert last > first
            assert "game over" in page.locator("#live-status").inner_text()
            shot(page, "3-live-ended")
            # when the replay is opened and stepped, then each step shows its version
            page.locator("#to-replay").click()
            page.wait_for_selector("body[data-state=replay]", timeout=30_000)
            assert page.locator("#fairness").get_attribute("data-ok") == "true"
            fairness = page.locator("#fairness").inner_text()
            assert "✓ SHA-256(seed) matches the commitment" in fairness
            # and it says how many draws the spectator could not check, and why
            hidden = int(page.locator("#unchecked").get_attribute("data-unchecked") or 0)
            assert hidden > 0 and "hidden from spectators" in fairness, fairness
            page.locator("#next").click()
            page.locator("#next").click()
            assert page.locator("#step-label").get_attribute("data-step") == "2"
            rolled = page.locator("#event-list li[data-type=dice_rolled]", has_text="✓").first
            assert " rolled " in rolled.inner_text()  # the event in words, not its type
            rolled.click()
            assert "✓ verified against the revealed seed" in page.locator("#dice").inner_text()
            shot(page, "4-replay-dice")
            # and the page's own check agrees with the Python scheme and catches a forged die
            assert page.evaluate(FORGED_DIE_CHECK) == [True, False, True, False]
            page.locator("#last").click()
            assert "Winner" in page.locator("#board").inner_text()
            shot(page, "5-replay-end")
            # when the Hero's player pastes a token, the replay is the Hero's, with shuffles
            reader[0] = "hero"
            page.fill("#token", issue_token(hero))
            page.dispatch_event("#token", "change")
            page.goto(f"{served.web}/#/replay/{game_id}?seat=hero")
            page.wait_for_function(
                "document.body.dataset.state === 'replay'"
                " && document.querySelector('h2').textContent.includes('as hero')",
                timeout=60_000,
            )
            fairness = page.locator("#fairness").inner_text()
            assert page.locator("#fairness").get_attribute("data-ok") == "true", fairness
            rolls, shuffles = map(int, re.findall(r"(\d+)/\1 (?:rolls|shuffles)", fairness))
            assert rolls > 0 and shuffles > 0, fairness
            # and the player's audit log leaves no draw unchecked
            assert page.locator("#unchecked").get_attribute("data-unchecked") == "0", fairness
            shot(page, "6-replay-as-hero")
            browser.close()
    finally:
        bots.kill()
        bots.wait()
    # and nothing the page received names a card hidden from the spectator
    assert game_id
    checked = scan_page_payloads(served.db, game_id, received)
    assert checked > 100
