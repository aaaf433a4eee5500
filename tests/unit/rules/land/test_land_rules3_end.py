"""Card data 3 (new games): a wiped party gets new Characters, and every game ends."""

from __future__ import annotations

from services.rules.engine.flow import Ctx
from services.rules.land import RULES
from services.rules.land.data import economy
from services.rules.land.finance import _finance_options
from services.rules.land.flow import REGISTRY
from services.rules.land.party import CROWNS
from services.rules.land.turn import victory
from tests.unit.rules.land.rules3_support import Game, at_deed


def _dying(ctx: Ctx, seat: str = "p1") -> None:
    for k in CROWNS:
        if ctx.state.zone(f"crown.{seat}.{k}"):
            ctx.add(f"dmg.{seat}.{k}.physical", 99)


def _wipe(g: Game, seat: str = "p1") -> None:
    """Empty the seat's roster and leave every crowned Character dying."""

    def fn(ctx: Ctx) -> None:
        for c in list(ctx.state.zone(f"roster.{seat}")):
            ctx.move(c, f"roster.{seat}", "discard.characters")
        _dying(ctx, seat)

    g.edit(fn)


def test_a_wiped_party_with_an_empty_roster_draws_two_characters_to_crown() -> None:
    # docs 6.4: "with an empty Roster they draw 2 Characters from the deck", crowned in the
    # next Financial period. Given a new game whose party dies with nobody in the roster
    g = at_deed()
    _wipe(g)
    deck = g.state.count("deck.characters")
    # when the dead are buried (the deck service deals the draw)
    g.run_then_roll(("bury", {"seat": "p1"}))
    state = g.state
    # then the party is lost and 2 Characters wait in the roster, offered to be crowned
    assert not any(state.zone(f"crown.p1.{k}") for k in CROWNS)
    roster = state.zone("roster.p1")
    assert len(roster) == int(economy()["wiped_party_draw"]) == 2
    assert state.count("deck.characters") == deck - 2
    opts = _finance_options(REGISTRY.ctx(state), "p1", "purchase")
    assert sorted(a["card"] for k, a in opts if k == "crown") == sorted(roster)


def test_a_wiped_party_with_a_roster_draws_nothing() -> None:
    # given a new game whose party dies while a Character waits in the roster
    g = at_deed(seed="r3b")
    kept = list(g.state.zone("roster.p1"))
    assert kept
    g.edit(_dying)
    # when buried, then the roster is what it was: it is crowned next
    g.run_then_roll(("bury", {"seat": "p1"}))
    assert list(g.state.zone("roster.p1")) == kept
    assert not any(g.state.zone(f"crown.p1.{k}") for k in CROWNS)


def test_a_game_without_max_turns_ends_at_the_turn_limit_by_the_tie_break() -> None:
    # given a new 2-player game created without max_turns, at the end of turn 100
    state = at_deed(seed="r3c").state
    assert state.var("options")["max_turns"] is None
    limit = int(economy()["turn_limit"])
    ctx = REGISTRY.ctx(state)
    ctx.add("turn", limit - ctx.state.count("turn"))
    ctx.add("prestige.p2", 3)
    # when victory is checked at the end of the turn
    assert victory(ctx, last_phase=True)
    # then the game is over: the tie-break names the winner, kind turn_limit
    result = ctx.state.var("result")
    assert result["kind"] == "turn_limit" and result["winners"] == ["p2"]
    assert ctx.state.phase == "over"


def test_the_turn_limit_waits_for_the_end_of_the_last_turn() -> None:
    state = at_deed(seed="r3c").state
    ctx = REGISTRY.ctx(state)
    ctx.add("turn", int(economy()["turn_limit"]) - 1 - ctx.state.count("turn"))
    assert not victory(ctx, last_phase=True)
    assert RULES.outcome(ctx.state) is None
