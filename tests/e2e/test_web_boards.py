"""Every game's board in a real browser (Debian's chromium via Playwright) against `make run`.

For Fallen, Worlds and Land: watch a live game from the lobby to its end (the test plays
both seats through the API once the page follows it), replay it
(board, events in words, card names, fairness line), and play a seat from the page to the
end of a game while the test plays the other seat through the API. Screenshots land in
test-artifacts/web/ (board-<game>-*.png).
"""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from typing import Any

import grpc
import pytest
from fallen.rules.v1 import rules_pb2 as pb
from fallen.rules.v1 import rules_pb2_grpc as pb_grpc
from google.protobuf.json_format import MessageToDict, ParseDict
from playwright.sync_api import Page, Route, sync_playwright

from services.platform.auth import issue_token
from tests.e2e.test_web_page import chromium
from tests.support.make_run import Running, make_run

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "web"
SEATS = {"fallen": ("hero", "dungeon_lord"), "worlds": ("p1", "p2"), "land": ("p1", "p2")}
OPTIONS = {"fallen": {}, "worlds": {}, "land": {"max_turns": 3}}
ENGINE_WORDS = re.compile(r"^v\d+ (var_set|flow|answered|card_moved|dice_rolled)\b")
MAX_CLICKS = 2500


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Any:
    with make_run(tmp_path_factory.mktemp("web-boards")) as running:
        yield running


@pytest.fixture(autouse=True)
def dev_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FALLEN_DEV", "1")  # tokens signed like `make run` signs them
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)


def shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def card_ids(page: Page, base: str, game: str, version: int) -> set[str]:
    """Return the card ids of a release that contain '_' (names never do)."""
    data = page.request.get(f"{base}/api/cards/{game}/{version}").json()
    return {cid for cid in data["cards"] if "_" in cid}


def assert_no_ids(text: str, ids: set[str]) -> None:
    words = set(re.findall(r"[a-z0-9_#]+", text))
    leaked = {w.split("#")[0] for w in words} & ids
    assert not leaked, f"card ids shown instead of names: {sorted(leaked)[:5]}"


def create(served: Running, game: str, players: dict[str, str]) -> str:
    """Create a game through the API as its first player; return its id."""
    first = next(iter(players.values()))
    with grpc.insecure_channel(served.grpc) as channel:
        created = pb_grpc.RulesServiceStub(channel).CreateGame(
            ParseDict(
                {"game": game, "seats": players, "options": OPTIONS[game]},
                pb.CreateGameRequest(),
            ),
            metadata=(("authorization", f"Bearer {issue_token(first)}"),),
        )
    return str(created.game_id)


@pytest.mark.parametrize("game", ["fallen", "worlds", "land"])
def test_watch_a_live_game_then_replay_it_with_names_and_words(served: Running, game: str):
    seats = SEATS[game]
    game_id = create(served, game, {s: f"web-watch-{game}-{s}" for s in seats})
    players = [Opponent(served.grpc, game_id, s, f"web-watch-{game}-{s}") for s in seats]
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
            # bypass_csp: the probes (wait_for_function) are evaluated strings, which the
            # page's CSP forbids; test_the_pages_keep_their_csp loads them with it enforced
            page = browser.new_page(viewport={"width": 1280, "height": 900}, bypass_csp=True)
            # given the lobby filtered to this game, when a game is in progress
            page.goto(served.web + "/")
            page.select_option("#filter-game", game)
            page.select_option("#filter-state", "live")
            row = page.locator(f"tr[data-game-id={game_id}][data-ended=false]")
            row.wait_for(timeout=30_000)
            assert row.locator("td.started").inner_text().startswith("20")
            listed = row.locator("td.seats").inner_text()
            assert listed.index(f"{seats[0]}:") < listed.index(f"{seats[1]}:")  # sorted seats
            # then following it live shows the game's own board, never a JSON dump
            row.locator("a.watch").click()
            page.wait_for_selector("body[data-state=live]", timeout=20_000)
            page.locator(f"#board [data-game={game}]").wait_for(timeout=20_000)
            page.locator("#live-events li").first.wait_for(timeout=20_000)
            first = int(page.locator("#live-status").get_attribute("data-version") or 0)
            assert page.locator("#board pre").count() == 0
            shot(page, f"board-{game}-1-live")
            for player in players:  # the players move while the page follows
                player.start()
            page.locator(f"#board [data-game={game}]").wait_for(timeout=20_000)
            page.wait_for_function(
                f"Number(document.querySelector('#live-status').dataset.version) > {first}"
                " || document.body.dataset.state === 'live-ended'",
                timeout=60_000,
            )
            shot(page, f"board-{game}-1b-live-moving")
            page.wait_for_selector("body[data-state=live-ended]", timeout=240_000)
            shot(page, f"board-{game}-2-live-ended")
            # when the replay is opened, the board, names and events in words are shown
            page.locator("#to-replay").click()
            page.wait_for_selector("body[data-state=replay]", timeout=60_000)
            assert page.locator("#fairness").get_attribute("data-ok") == "true"
            info = page.request.get(f"{served.web}/api/games/{game_id}/info").json()
            ids = card_ids(page, served.web, game, info["card_data"])
            items = page.locator("#event-list li").all_inner_texts()
            assert len(items) > 20 and not [t for t in items if ENGINE_WORDS.match(t)]
            page.locator("#last").click()
            board = page.locator("#board").inner_text()
            assert_no_ids(board, ids)
            assert page.locator("#winner").count() == 1 and page.locator("#board pre").count() == 0
            if game == "land":
                assert page.locator("svg.hexmap polygon").count() > 500  # the hexes
                assert page.locator("svg.hexmap .party").count() == 2
                assert page.locator("svg.hexmap .town").count() == 10
                assert "Town Health" in board and "Coins" in board
            if game == "worlds":
                assert "Capital" in board and "Library" in board
            if game == "fallen":
                assert "Shadow Track" in board and page.locator("#creatures .slot").count() == 4
                chip = page.locator("#board .card").first
                assert chip.get_attribute("title")  # the card's text on hover (and focus)
            # keyboard: the arrow keys step through the replay
            page.locator("#first").focus()
            page.keyboard.press("Enter")
            page.keyboard.press("ArrowRight")
            assert page.locator("#step-label").get_attribute("data-step") == "1"
            shot(page, f"board-{game}-3-replay")
            page.set_viewport_size({"width": 390, "height": 844})
            page.locator("#last").click()
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 400, f"the page is {width} px wide at 390"
            shot(page, f"board-{game}-4-replay-390")
            # and the lobby shows it finished, with its result and links
            page.set_viewport_size({"width": 1280, "height": 900})
            page.goto(served.web + "/")
            page.select_option("#filter-game", game)
            page.select_option("#filter-state", "ended")
            done = page.locator(f"tr[data-game-id={game_id}]")
            done.locator("a.dispute").wait_for(timeout=20_000)
            page.wait_for_function(
                f"document.querySelector('tr[data-game-id={game_id}] td.status')"
                ".textContent.includes('won by') || document.querySelector("
                f"'tr[data-game-id={game_id}] td.status').textContent.includes('no winner')",
                timeout=20_000,
            )
            assert done.locator("button.audit").count() == 1
            assert page.request.get(f"{served.web}/guide/disputes").ok
            shot(page, f"board-{game}-5-lobby")
            browser.close()
    finally:
        for player in players:
            player.stop.set()
            if player.is_alive():
                player.join(10)


class Opponent(threading.Thread):
    """Plays one seat through the API: each legal command in turn, a spread-out choice."""

    def __init__(self, target: str, game_id: str, seat: str, player: str) -> None:
        super().__init__(daemon=True)
        self.target, self.game_id, self.seat = target, game_id, seat
        self.md = (("authorization", f"Bearer {issue_token(player)}"),)
        self.stop = threading.Event()
        self.moves = 0

    def run(self) -> None:
        with grpc.insecure_channel(self.target) as channel:
            stub = pb_grpc.RulesServiceStub(channel)
            while not self.stop.is_set():
                legal = stub.ListLegalCommands(
                    pb.ListLegalCommandsRequest(game_id=self.game_id, seat=self.seat),
                    metadata=self.md,
                )
                if not legal.waiting_for:
                    return
                if not legal.commands:
                    self.stop.wait(0.05)
                    continue
                cmd = legal.commands[(self.moves * 7919) % len(legal.commands)]
                req = pb.SubmitCommandRequest(
                    game_id=self.game_id,
                    seat=self.seat,
                    kind=cmd.kind,
                    expected_version=legal.version,
                    command_id=f"opp-{self.moves}",
                )
                ParseDict(MessageToDict(cmd.args), req.args)
                try:
                    stub.SubmitCommand(req, metadata=self.md)
                    self.moves += 1
                except grpc.RpcError as err:
                    if err.code() != grpc.StatusCode.ABORTED:  # the page moved first
                        raise


def refuse_first(route: Route) -> None:
    """Send the page's first command with a stale version, so the server refuses it."""
    body = json.loads(route.request.post_data or "{}")
    route.continue_(post_data=json.dumps({**body, "expected_version": 1}))


@pytest.mark.parametrize("game", ["fallen", "worlds", "land"])
def test_play_a_seat_from_the_page_to_the_end(served: Running, game: str):
    me, them = f"web-alice-{game}", f"web-bob-{game}"
    mine, theirs = SEATS[game]
    game_id = create(served, game, {mine: me, theirs: them})
    opponent = Opponent(served.grpc, game_id, theirs, them)
    opponent.start()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
            # bypass_csp: the probes (wait_for_function) are evaluated strings, which the
            # page's CSP forbids; test_the_pages_keep_their_csp loads them with it enforced
            page = browser.new_page(viewport={"width": 1280, "height": 900}, bypass_csp=True)
            # given a player who signs in with the development login of `make run`
            page.goto(served.web + "/")
            page.fill("#dev-player", me)
            page.locator("#dev-login").click()
            page.wait_for_function(
                "document.querySelector('#start-note').textContent.includes('signed in')"
            )
            page.goto(f"{served.web}/#/live/{game_id}?seat={mine}")
            # when the first command is sent at a stale version, the refusal is shown
            page.route("**/commands", refuse_first)
            page.locator("#commands button.command").first.click()
            page.locator("#refusal", has_text="Refused").wait_for(timeout=20_000)
            assert "expected 1" in page.locator("#refusal").inner_text()
            page.unroute("**/commands")
            shot(page, f"board-{game}-6-play-refused")
            # then the seat's legal commands, in words, play the game to its end
            clicks = 0
            ready = (
                "document.querySelector('#play-over') ||"
                " document.querySelector('#commands button.command:not([disabled])')"
            )
            while clicks < MAX_CLICKS:
                page.wait_for_function(ready, timeout=60_000)
                if page.locator("#play-over").count():
                    break
                buttons = page.locator("#commands button.command:not([disabled])")
                n = buttons.count()
                if not n:
                    continue
                text = buttons.nth(clicks % n).inner_text()
                assert not re.search(r"\{|\"", text), f"a command shown as data: {text}"
                try:
                    buttons.nth(clicks % n).click(timeout=2_000)
                except Exception:  # the list was redrawn under the pointer: ask again
                    continue
                clicks += 1
                if clicks == 3:
                    shot(page, f"board-{game}-7-play")
            assert page.locator("#play-over").count() == 1, f"no end after {clicks} commands"
            assert clicks > 0 and opponent.moves > 0
            shot(page, f"board-{game}-8-play-end")
            browser.close()
    finally:
        opponent.stop.set()
        opponent.join(10)


def test_the_pages_keep_their_csp(served: Running) -> None:
    # given a game of each kind
    ids = {g: create(served, g, {s: f"web-csp-{g}-{s}" for s in SEATS[g]}) for g in SEATS}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 390, "height": 800})  # CSP enforced
        refused: list[str] = []
        page.on(
            "console",
            lambda msg: refused.append(msg.text) if "Content Security Policy" in msg.text else None,
        )
        # when the lobby and each game's live page load with the CSP enforced
        page.goto(served.web + "/")
        page.wait_for_selector("#filter-game", timeout=20_000)
        for game_id in ids.values():
            page.goto(f"{served.web}/#/live/{game_id}")
            page.wait_for_selector("body[data-state]", timeout=20_000)
            page.wait_for_timeout(500)
        browser.close()
    # then nothing the pages do was refused by their own policy
    assert refused == []
