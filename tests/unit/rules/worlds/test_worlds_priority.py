"""Priority rounds (rules version 2).

Rulebook, "Card Effects": "These effects can be played during any phase of either players
turn but can only be used once per turn, unless otherwise explained on the card." So a
window opens for the active player; after one player acts, the other gets priority again,
and the window closes only when both have passed in turn.
"""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType
from typing import Any

from services.rules.engine.api import Command
from services.rules.registry import load
from services.rules.worlds import moves
from services.rules.worlds.effects import run
from services.rules.worlds.facts import fact
from services.rules.worlds.flow import REGISTRY, RULES_VERSION
from services.rules.worlds.state import WorldsState
from services.rules.worlds.table import Table

RULES = load("worlds")


def _deploy_window(rules_version: int | None) -> WorldsState:
    """p1 in its Deploy step: a Marine in play, a Rifleman and a Marine in hand, 9 Resources;
    p2 has a Flame Herald in play (1 Resource: 1 damage to an enemy creature), 5 Resources."""
    table = run(Table(), [fact("game_started", seats=["p1", "p2"], library_sizes=[20, 20])])
    table = run(
        table,
        [
            fact("card_drawn", ("p1",), seat="p1", card="uea_marine"),
            fact("card_drawn", ("p1",), seat="p1", card="uea_rifleman"),
            fact("card_drawn", ("p1",), seat="p1", card="uea_marine"),
            fact("card_drawn", ("p2",), seat="p2", card="dae_flame_herald"),
            fact("turn_started", seat="p1", turn=1),
            fact("resources_changed", seat="p1", delta=9, reason="t"),
            fact("resources_changed", seat="p2", delta=5, reason="t"),
            fact("phase_started", seat="p1", phase="deploy"),
        ],
    )
    board, _ = moves.deploy(table.board, "p1", "uea_marine")
    board, _ = moves.deploy(board, "p2", "dae_flame_herald")
    table = replace(table, board=board)
    vars_: dict[str, Any] = {} if rules_version is None else {RULES_VERSION: rules_version}
    state = WorldsState(phase="play", vars=MappingProxyType(vars_), table=table)
    ctx = REGISTRY.ctx(state)
    ctx.push(("deploy", {"seat": "p1"}))
    ctx.run()
    ctx.finish()
    assert isinstance(ctx.state, WorldsState)
    return ctx.state


STEPS: list[list[Any]] = []


def _step(state: WorldsState, seat: str, kind: str, **args: Any) -> WorldsState:
    events, new = RULES.step(state, Command(seat, kind, args))
    STEPS.append(events)
    assert isinstance(new, WorldsState)
    return new


def _combat_began() -> bool:
    """Whether the last step closed the window and started p1's Combat."""
    return any(e.type == "phase_started" and e.data["phase"] == "combat" for e in STEPS[-1])


def _waiting(state: WorldsState) -> str:
    pending = RULES.pending(state)
    assert pending is not None
    return pending.seat


def test_after_the_active_player_deploys_the_other_player_gets_priority() -> None:
    # given p1's Deploy window, with p2 able to use its Herald
    state = _deploy_window(2)
    assert _waiting(state) == "p1"
    herald = next(p.uid for p in state.table.board.play if p.owner == "p2")
    marine = next(p.uid for p in state.table.board.play if p.owner == "p1")
    # when p1 deploys its Rifleman
    state = _step(state, "p1", "deploy", card="uea_rifleman")
    # then p2 gets priority, and may use its Herald during p1's turn
    assert _waiting(state) == "p2"
    use = Command("p2", "use", {"uid": herald, "ability": 0, "target": marine})
    assert use in RULES.legal_commands(state, "p2")
    # when p2 uses it, then priority goes back to p1 (its window reopens)
    state = _step(state, "p2", "use", uid=herald, ability=0, target=marine)
    assert _waiting(state) == "p1" and state.table.turn.phase == "deploy"
    assert Command("p1", "deploy", {"card": "uea_marine"}) in RULES.legal_commands(state, "p1")
    # when p1 passes (deploying no more), p2 (its ability spent this turn) passes without a
    # decision: both passed in turn, the window closes and Combat begins
    state = _step(state, "p1", "done")
    assert _combat_began()


def test_the_window_stays_open_while_one_player_has_not_passed_since_the_last_play() -> None:
    # given p1's Deploy window
    state = _deploy_window(2)
    herald = next(p.uid for p in state.table.board.play if p.owner == "p2")
    marine = next(p.uid for p in state.table.board.play if p.owner == "p1")
    # when p1 passes at once, then p2 is asked (one pass does not close the window)
    state = _step(state, "p1", "done")
    assert _waiting(state) == "p2" and not _combat_began()
    # when p2 plays its ability, then p1 gets priority again and may still deploy
    state = _step(state, "p2", "use", uid=herald, ability=0, target=marine)
    assert _waiting(state) == "p1"
    assert Command("p1", "deploy", {"card": "uea_rifleman"}) in RULES.legal_commands(state, "p1")
    # when p1 passes again, p2 has nothing left: two passes in turn close the window
    state = _step(state, "p1", "done")
    assert _combat_began()


def test_a_game_recorded_before_version_2_keeps_its_windows() -> None:
    # given a game without the rules_version var (recorded before priority rounds)
    state = _deploy_window(None)
    # when p1 deploys, then p1 keeps the decision, as such games were played
    state = _step(state, "p1", "deploy", card="uea_rifleman")
    assert _waiting(state) == "p1"
