"""Card data 3 (new games): a Ronin's Action card bonuses wait for its mat; solo set-up
selects a faction (and Solo II its opposing factions) or rolls."""

from __future__ import annotations

import pytest

from services.platform.errors import InvalidArgument
from services.rules.engine.flow import Ctx
from services.rules.land import RULES
from services.rules.land.hexmap import game_map
from services.rules.land.play import play_card
from services.rules.land.ronin import join, settle
from services.rules.land.setup import validate_options
from tests.unit.rules.land.rules3_support import Game, at_deed, new_game, notes
from tests.unit.rules.land.support import place_card, setup, waiting


def _tracks(g: Game, seat: str = "p1") -> tuple[int, int]:
    return g.state.count(f"prestige.{seat}"), g.state.count(f"th.{seat}")


def _play(g: Game, c: str) -> None:
    def fn(ctx: Ctx) -> None:
        place_card(ctx, c, "hand.p1")
        play_card(ctx, "p1", c, "p1")

    g.edit(fn)


def _arrive(g: Game) -> None:
    taken = {g.state.var(f"faction.{s}") for s in g.state.var("players")}
    roll = next(r for r in sorted(game_map().towns) if r not in taken)

    def fn(ctx: Ctx) -> None:
        settle(ctx, "p1")
        join(ctx, "p1", roll)

    g.edit(fn)


def test_a_ronins_action_card_bonus_is_applied_when_it_joins_a_faction() -> None:
    # "They cannot gain and lose Town Health or Prestige until they successfully complete a
    # City/Rad Encounter card. ... Upon arrival, ... All bonus Prestige and Town Health are
    # then applied from Spoils, Action and Characters they possess." Given a new Ronin game
    # whose p1 still wanders
    g = at_deed(2, "ron", ronin=True)
    assert g.state.var("ronin.p1") == "wandering"
    before = _tracks(g)
    held = dict(g.state.var("ronin_bonus.p1") or {})  # Events it received meanwhile
    p0, th0 = held.get("prestige", 0), held.get("town_health", 0)
    # when it plays Good Harvest (+2 Town Health) and Rally the Town (+1 Prestige)
    _play(g, "good_harvest#1")
    _play(g, "rally_the_town#1")
    # then its tracks do not move while it wanders, the bonus waits
    assert _tracks(g) == before
    assert g.state.var("ronin_bonus.p1") == {"prestige": p0 + 1, "town_health": th0 + 2}
    # when it completes its City/Rad Encounter and arrives at a Neutral Faction's town
    _arrive(g)
    # then the held bonus is applied
    assert _tracks(g) == (before[0] + p0 + 1, before[1] + th0 + 2)
    bonus = notes(g.events, "faction_joined")[-1]["bonus"]
    assert bonus == {"prestige": p0 + 1, "town_health": th0 + 2}


def test_older_games_drop_a_wandering_ronins_action_card_bonus() -> None:
    g = at_deed(2, "ron2", ronin=True, card_data=2)
    held = dict(g.state.var("ronin_bonus.p1") or {})
    _play(g, "good_harvest#1")
    assert dict(g.state.var("ronin_bonus.p1") or {}) == held


def test_solo_set_up_selects_a_faction_instead_of_rolling() -> None:
    # Solo I and II set up: "Select a Faction or roll 1d10 and refer to the chart at the
    # bottom of the game map". Given a new Solo I game created with a selected faction
    g = new_game(1, waiting("choose_roster", "p1"), "sel", variant="solo1", faction=6)
    # then the player has it, selected, not rolled
    assert g.state.var("faction.p1") == 6
    assert notes(g.events, "faction_selected") == [{"seat": "p1", "faction": 6}]
    assert notes(g.events, "faction_rolled") == []
    assert g.state.var("pos.p1") == list(game_map().towns[6])


def test_solo_ii_selects_its_opposing_factions() -> None:
    # Solo II: "Then randomly roll or select your Opposing Factions."
    opts = {"variant": "solo2", "challenge": 3, "faction": 2, "opposing_factions": [9, 1, 5]}
    g = new_game(1, waiting("choose_roster", "p1"), "sel2", **opts)
    assert g.state.var("faction.p1") == 2 and g.state.var("opposing") == [9, 1, 5]
    assert notes(g.events, "opposing_faction_rolled") == []
    assert all(g.state.count(f"th.of{f}") == 30 for f in (9, 1, 5))


def test_a_rolled_player_faction_re_rolls_a_selected_opposing_one() -> None:
    opts = {"variant": "solo2", "challenge": 4, "opposing_factions": [1, 2, 3, 4]}
    for seed in ("r1", "r2", "r3"):
        g = new_game(1, waiting("choose_roster", "p1"), seed, **opts)
        assert g.state.var("faction.p1") not in (1, 2, 3, 4)


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"faction": 3}, "options.faction"),  # 2-6 players roll
        ({"variant": "solo1", "faction": 11}, "options.faction"),
        ({"variant": "solo1", "faction": True}, "options.faction"),
        ({"variant": "solo1", "opposing_factions": [1]}, "options.opposing_factions"),
        ({"variant": "solo2", "challenge": 2, "opposing_factions": [1]}, "opposing_factions"),
        ({"variant": "solo2", "challenge": 2, "opposing_factions": [1, 1]}, "opposing_factions"),
        ({"variant": "solo2", "challenge": 1, "opposing_factions": "1"}, "opposing_factions"),
        (
            {"variant": "solo2", "challenge": 1, "faction": 4, "opposing_factions": [4]},
            "opposing_factions",
        ),
    ],
)
def test_bad_selections_are_refused_naming_the_option(options: dict, field: str) -> None:
    with pytest.raises(ValueError, match=field):
        validate_options(options)
    seats = 1 if options.get("variant") else 2
    with pytest.raises(InvalidArgument):
        RULES.initial_events("g", setup(seats, **RULES.new_game_options(options)))
