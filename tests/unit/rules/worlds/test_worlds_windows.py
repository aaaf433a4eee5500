"""Priority windows in every phase (rules version 4), on the path new games take.

Rulebook, "Card Effects": "These effects can be played during any phase of either players
turn". New games (libraries sealed into the dealer as the service deals them) are played with
random legal commands; every decision is recorded as its seat saw it (its view).
"""

from __future__ import annotations

import hashlib
import itertools
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import pytest

from services.bots.policies import Turn
from services.rules.engine.api import Command, Event, Setup
from services.rules.playout import play
from services.rules.worlds.effects import run
from services.rules.worlds.engine import RULES, WorldsRules
from services.rules.worlds.facts import fact
from services.rules.worlds.flow import REGISTRY, RULES_VERSION
from services.rules.worlds.state import WorldsState
from services.rules.worlds.table import PHASED, Table

# creatures whose abilities work in any phase (damage, stat changes), and plain fighters
DECK = {
    "rep_venom_spitter": 5,
    "dae_flame_herald": 5,
    "uea_psi_officer": 5,
    "rep_fang_duelist": 5,
    "dae_pit_brute": 5,
    "uea_rifleman": 5,
    "uea_k9_unit": 5,
}
GAMES = 10


@dataclass(frozen=True)
class Decision:
    """One decision as its seat saw it, and the command it chose."""

    seat: str
    kind: str
    active: str
    turn: int
    phase: str
    attackers: int
    blocks: int
    dying: bool  # a card in play at 0 Hp or less
    chose: str


def _decisions(n: int) -> list[Decision]:
    """Every decision of one new game played with random legal commands."""
    seen: list[Decision] = []

    def policy(turn: Turn) -> int:
        # random legal commands, but a player saves Resources in its own turn (every other
        # own decision is "done") and answers in the opponent's turn in one window of three
        digest = hashlib.sha256(f"w{n}:{turn.version}:{turn.seat}".encode()).digest()
        roll = int.from_bytes(digest[:8], "big")
        kinds = [c.kind for c in turn.legal]
        own = turn.view["turn"]["active"] == turn.seat
        act = turn.view["pending"]["kind"] == "act"
        if act and not own and "use" in kinds and roll % 3 == 0:
            uses = [i for i, k in enumerate(kinds) if k == "use"]
            pick = uses[roll % len(uses)]
        elif act and (not own or roll % 2):
            pick = kinds.index("done")
        else:
            pick = roll % len(turn.legal)
        view: dict[str, Any] = turn.view
        t = view["turn"]
        on = {c["uid"] for c in view["play"]}
        seen.append(
            Decision(
                turn.seat,
                view["pending"]["kind"],
                t["active"],
                int(t["number"]),
                t["phase"],
                sum(1 for a in t["attackers"] if a in on),
                len(t["blocks"]),
                any(c["damage"] >= c["stats"]["hp"] for c in view["play"]),
                turn.legal[pick].kind,
            )
        )
        return pick

    decks = {"p1": DECK, "p2": DECK}
    result = play(
        RULES,
        Setup({"p1": "a", "p2": "b"}, {"decks": decks}),
        f"win-{n}",
        f"win{n}",
        {"p1": policy, "p2": policy},
    )
    assert RULES.outcome(result.state) is not None
    return seen


@pytest.fixture(scope="module")
def games() -> list[list[Decision]]:
    """The decisions of GAMES new games."""
    return [_decisions(n) for n in range(GAMES)]


def test_both_players_may_act_in_the_draw_phase(games: list[list[Decision]]) -> None:
    # when new games are played, then a window opens in Phase 3 (Draw) for either player
    draw = [d for g in games for d in g if d.kind == "act" and d.phase == "draw"]
    assert {d.seat == d.active for d in draw} == {True, False}


def test_a_window_opens_after_attackers_are_declared_and_before_defenders_line_up(
    games: list[list[Decision]],
) -> None:
    found = 0
    for game in games:
        for now, nxt in itertools.pairwise(game):
            # when attackers are declared and no defender is lined up yet, a player may act,
            # and the defenders are lined up after that window
            if (
                now.kind == "act"
                and now.phase == "combat"
                and now.attackers
                and not now.blocks
                and now.seat != now.active
                and nxt.kind == "block"
                and nxt.turn == now.turn
            ):
                found += 1
    assert found >= 3


def test_a_window_opens_in_resolution_before_cards_at_0_hp_are_removed(
    games: list[list[Decision]],
) -> None:
    resolution = [d for g in games for d in g if d.kind == "act" and d.phase == "resolution"]
    # when combat damage has brought a card to 0 Hp, a player may act before it leaves play
    assert any(d.dying for d in resolution)
    # and the non-active player may act in Resolution too
    assert any(d.seat != d.active for d in resolution)


def _draw_window() -> WorldsState:
    """A new game's state (rules version 4) as p1's Draw window opens: p1 has a Venom Spitter
    in play and 2 Resources, p2 a Flame Herald and 5 Resources (each: 1 damage, 1 Resource)."""
    table = run(
        Table(),
        [
            fact("game_started", seats=["p1", "p2"], library_sizes=[20, 20], rules=PHASED),
            fact("card_drawn", ("p1",), seat="p1", card="rep_venom_spitter"),
            fact("card_drawn", ("p2",), seat="p2", card="dae_flame_herald"),
            fact("turn_started", seat="p1", turn=1),
            fact("resources_changed", seat="p1", delta=2, reason="t"),
            fact("resources_changed", seat="p2", delta=5, reason="t"),
            fact("card_deployed", seat="p1", uid="p1.1", card="rep_venom_spitter", paid=0, on=""),
            fact("card_deployed", seat="p2", uid="p2.2", card="dae_flame_herald", paid=0, on=""),
            fact("phase_started", seat="p1", phase="draw"),
        ],
    )
    vars_ = MappingProxyType({RULES_VERSION: PHASED})
    ctx = REGISTRY.ctx(WorldsState(phase="play", vars=vars_, table=table))
    ctx.push(("drawn_window", {"seat": "p1"}))
    ctx.run()
    ctx.finish()
    assert isinstance(ctx.state, WorldsState)
    return ctx.state


def _asked(state: WorldsState) -> str:
    pending = RULES.pending(state)
    assert pending is not None and pending.kind == "act"
    return pending.seat


def test_after_the_non_active_player_responds_the_active_player_gets_priority_again() -> None:
    # given p1's Draw window (rules version 4), p1 asked first
    state = _draw_window()
    assert _asked(state) == "p1" and state.table.turn.phase == "draw"
    # when p1 passes, then p2 may answer in p1's Draw phase
    _, state = RULES.step(state, Command("p1", "done", {}))
    assert _asked(state) == "p2"
    # when p2 answers (1 damage to p1's Spitter), then the window reopens for p1
    _, state = RULES.step(
        state, Command("p2", "use", {"uid": "p2.2", "ability": 0, "target": "p1.1"})
    )
    assert _asked(state) == "p1" and state.table.turn.phase == "draw"
    assert Command("p1", "use", {"uid": "p1.1", "ability": 0, "target": "p2.2"}) in (
        RULES.legal_commands(state, "p1")
    )
    # when p1 passes again (p2's Herald is spent): both passed in turn, Deploy begins
    events, state = RULES.step(state, Command("p1", "done", {}))
    assert any(e.type == "phase_started" and e.data["phase"] == "deploy" for e in events)


class _Version3(WorldsRules):
    """The engine creating games as rules version 3 did (its older setup)."""

    def initial_events(self, game_id: str, setup: Setup) -> list[Event]:
        return self.older_setups(game_id, setup)[0]


def test_a_game_of_rules_version_3_keeps_its_windows() -> None:
    # given games set up as rules version 3 (the audit replays recorded ones so)
    asked: set[str] = set()
    for n in range(3):

        def policy(turn: Turn) -> int:
            if turn.view["pending"]["kind"] == "act":
                asked.add(turn.view["turn"]["phase"])
            return turn.version % len(turn.legal)

        decks = {"p1": DECK, "p2": DECK}
        setup = Setup({"p1": "a", "p2": "b"}, {"decks": decks})
        result = play(_Version3(), setup, f"v3-{n}", f"v3{n}", {"p1": policy, "p2": policy})
        # when they are played, then they keep version 3's rounds and nothing else
        assert result.state.vars["rules_version"] == 3 and not result.state.table.phased
        assert asked and asked <= {"healing", "deploy", "combat"}, asked
