"""Hidden-information scan for Fallen Worlds libraries: an opponent never learns a library's
composition (rulebook: "the deck is shuffled and laid face down in view of all players.
During the game new cards are drawn from the top of the library, but not disclosed to your
opponents").

In the style of test_projections_hidden_info.py, but per copy of knowledge rather than per
event: a card of p2's library counts as hidden from p1 and from a spectator until it has
been on the table (in play or in a graveyard, as the spectator's view shows). The decks of
the two seats share no card, so any p2 card id that p1 or a spectator can read before that
is a leak: in GameCreated's options, in the engine's flow, in the deck stream, in a view.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import grpc
import pytest
from fallen.projections.v1 import projections_pb2 as ppb
from fallen.projections.v1 import projections_pb2_grpc as ppb_grpc
from fallen.rules.v1 import rules_pb2, rules_pb2_grpc

from services.app import serve
from services.platform.auth import issue_token
from services.platform.grpcx.structs import struct_to_py, to_struct
from services.platform.store.sqlite import SqliteEventStore
from services.projections.records import GAME_FAMILIES
from services.rules.worlds.cards import catalog
from tests.support.hidden_scan import TOKEN

SEATS = {"p1": "alice", "p2": "bob"}
STEPS = 60


def md(player: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {issue_token(player)}"),)


@pytest.fixture
async def stubs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("FALLEN_DEV", "1")
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)
    monkeypatch.delenv("FALLEN_VIEWS", raising=False)
    store = SqliteEventStore(tmp_path / "hidden.db")
    backend = await serve(store, "127.0.0.1:0")
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{backend.port}")
    yield rules_pb2_grpc.RulesServiceStub(channel), ppb_grpc.ProjectionServiceStub(channel)
    await channel.close()
    await backend.stop()


def table_cards(view: dict[str, Any]) -> set[str]:
    """The cards a view shows on the table: in play (with attachments) and in graveyards."""
    cards = {c for side in view["sides"].values() for c in side["graveyard"]}
    return cards | {c for p in view["play"] for c in (p["card"], *p["attached"])}


async def readable(
    projections: ppb_grpc.ProjectionServiceStub, gid: str, seat: str, version: int
) -> tuple[str, dict[str, Any]]:
    """Everything a reader may ask for now (every feed family, the view) as text, and the view."""
    who = md(SEATS[seat] if seat else "spectator")
    view = await projections.GetView(
        ppb.GetViewRequest(game_id=gid, seat=seat, min_version=version, wait_ms=10_000),
        metadata=who,
    )
    texts = [str(view)]
    for family in GAME_FAMILIES:
        feed = await projections.ReadEvents(
            ppb.ReadEventsRequest(game_id=gid, seat=seat, stream=family), metadata=who
        )
        texts.append(str(feed))
    return "\n".join(texts), struct_to_py(view.view)


async def test_no_reader_learns_the_opponents_library_before_its_cards_are_shown(stubs):
    rules, projections = stubs
    # given p2 brings its library as an explicit list of cards p1's deck never holds
    p1_deck = list(catalog().starters["uea"])
    p2_deck = list(catalog().starters["daemons"])
    secret = set(p2_deck) - set(p1_deck)
    assert len(secret) >= 10
    created = await rules.CreateGame(
        rules_pb2.CreateGameRequest(
            game="worlds",
            game_id="whid",
            seats=SEATS,
            options=to_struct({"decks": {"p1": p1_deck, "p2": p2_deck}}),
        ),
        metadata=md("alice"),
    )
    shown: set[str] = set()
    rng = random.Random(7)
    checks = 0
    for _ in range(STEPS):
        game = await rules.GetGame(
            rules_pb2.GetGameRequest(game_id=created.game_id), metadata=md("alice")
        )
        # when p1 and a spectator read every feed and their views at this version
        spectator_text, spectator_view = await readable(projections, "whid", "", game.version)
        shown |= table_cards(spectator_view)
        p1_text, _ = await readable(projections, "whid", "p1", game.version)
        # then neither names a card of p2's library that has not been on the table
        for reader, text in (("p1", p1_text), ("spectator", spectator_text)):
            leaked = sorted(set(TOKEN.findall(text)) & (secret - shown))
            if leaked:
                i = text.find(leaked[0])
                print(text[max(0, i - 1500) : i + 300])
            assert not leaked, f"v{game.version}: {reader} reads p2's unseen cards {leaked[:5]}"
            checks += 1
        if game.ended:
            break
        seat = game.waiting_for
        legal = await rules.ListLegalCommands(
            rules_pb2.ListLegalCommandsRequest(game_id="whid", seat=seat), metadata=md(SEATS[seat])
        )
        pick = rng.choice(list(legal.commands))
        await rules.SubmitCommand(
            rules_pb2.SubmitCommandRequest(
                game_id="whid",
                seat=seat,
                kind=pick.kind,
                args=pick.args,
                expected_version=legal.version,
            ),
            metadata=md(SEATS[seat]),
        )
    # and p2's own feed does name the cards it drew (the scan reads real cards)
    p2_text, p2_view = await readable(projections, "whid", "p2", game.version)
    hand = p2_view["sides"]["p2"]["hand"]
    assert hand and set(hand) <= set(p2_deck) and all(c in p2_text for c in hand)
    assert checks >= 2 * 20
    print(json.dumps({"checks": checks, "shown": len(shown & secret)}))
