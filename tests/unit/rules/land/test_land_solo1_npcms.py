"""Solo Variant I keeps the nine NPCMs, hired against a Neutral Faction (card data 2).

Register 30 (docs/games/land.md): the Solo I order of play keeps "E. Financial period. 1st.
Sell. 2nd. Purchase. 3rd. Hire NPCMs." and "III. Party Exploits Phase A. NPCMs (move +
assignment)" without the red asterisk of a change, and Solo II's Red Dot deck takes "all Red
Dot cards from the Action deck and the nine Non-player Mercenary cards (NPCMs)", naming the
NPCMs beside the Red Dot cards: so Solo I's "Remove all cards with the Red Dot" leaves them.
Games created before card data 2 keep the deck they were dealt (no NPCMs).
"""

from __future__ import annotations

import pytest

from services.platform.errors import InvalidArgument
from services.rules.engine.api import Setup
from services.rules.engine.flow import Ctx
from services.rules.land import RULES, finance
from services.rules.land.data import card, catalog
from services.rules.land.flow import REGISTRY
from services.rules.land.hexmap import game_map
from services.rules.land.solo_decks import solo_deck
from services.rules.land.state import DECK_NAMES, faction_of, neutral_factions
from services.rules.playout import play
from tests.unit.rules.land.support import ctx_notes, drive, place_card, run_tasks

NEW_SOLO1 = {"variant": "solo1", "card_data": 2}
OLD_SOLO1 = {"variant": "solo1"}  # a game created before card data 2
NPCMS = [c for c in catalog().decks["action"] if "npcm" in card(c)]


def _solo1_game(seed: str = "n") -> Ctx:
    """Return a new Solo I game at its first Financial period, its task queue cleared."""
    state = drive(
        Setup({"p1": "u1"}, NEW_SOLO1), lambda s: s.var("step") == ["town_business", "sell"], seed
    )
    ctx = REGISTRY.ctx(state)
    ctx.tasks = []
    return ctx


def _free(ctx: Ctx, cls: str) -> str:
    held = {c for cs in ctx.state.zones.values() for c in cs}
    return next(c for c in NPCMS if card(c)["npcm"]["class"] == cls and c not in held)


def test_new_games_pin_card_data_2_and_old_options_read_as_1() -> None:
    # given the options a new game is created with, then the newest card data is pinned
    assert RULES.new_game_options({"variant": "solo1"})["card_data"] >= 2
    assert RULES.new_game_options({"card_data": 1})["card_data"] == 1
    # and an unknown version is refused naming the field
    with pytest.raises(InvalidArgument, match="card_data"):
        RULES.initial_events("g", Setup({"p1": "u1"}, {"variant": "solo1", "card_data": 7}))


def test_solo1_removes_the_red_dot_cards_but_keeps_the_nine_npcms() -> None:
    # "Remove all cards with the Red Dot next to their titles from the Action, Encounter and
    # Mission decks." / Solo II: "all Red Dot cards from the Action deck and the nine
    # Non-player Mercenary cards (NPCMs)": the NPCMs are not among the Red Dot cards
    action = solo_deck("action", NEW_SOLO1)
    assert len(NPCMS) == 9 and set(NPCMS) <= set(action)
    assert not [c for c in action if card(c).get("red_dot") and "npcm" not in card(c)]
    # and a game created before card data 2 keeps the deck it was dealt: no NPCMs
    assert not set(NPCMS) & set(solo_deck("action", OLD_SOLO1))
    # and Solo II still moves them to its Red Dot Action deck
    assert not set(NPCMS) & set(solo_deck("action", {"variant": "solo2", "card_data": 2}))


def test_the_hire_npcms_step_offers_each_npcm_against_each_neutral_faction() -> None:
    # "E. Financial period. 1st. Sell. 2nd. Purchase. 3rd. Hire NPCMs." / "All other Factions
    # are Neutral Factions."
    # given a Solo I player holding a Raider and the coins to hire it
    ctx = _solo1_game()
    raider = _free(ctx, "raider")
    place_card(ctx, raider, "hand.p1")
    ctx.add("salvage.p1", 50, "test")
    # when the Hire NPCMs step asks
    opts = finance._finance_options(ctx, "p1", "hire")
    # then the Raider may be hired against any of the nine Neutral Factions, never the player
    targets = sorted(a["target"] for k, a in opts if k == "hire" and a["card"] == raider)
    mine = faction_of(ctx.state, "p1")
    assert targets == sorted(f"nf{f}" for f in range(1, 11) if f != mine)
    assert neutral_factions(ctx.state) == [f for f in range(1, 11) if f != mine]


def test_a_hired_npcm_is_paid_and_starts_in_the_players_town() -> None:
    # "3rd. Hire NPCMs." (the core rule: the hirer pays the card's cost; the NPCM starts in the
    # hirer's starting town)
    ctx = _solo1_game()
    hunter = _free(ctx, "bounty_hunter")
    place_card(ctx, hunter, "hand.p1")
    ctx.add("salvage.p1", 50, "test")
    coins = ctx.state.count("salvage.p1")
    target = f"nf{neutral_factions(ctx.state)[0]}"
    REGISTRY.answers["financed"](
        ctx, {"who": "p1", "sub": "hire"}, "hire", {"card": hunter, "target": target}
    )
    assert ctx.state.count("salvage.p1") == coins - int(card(hunter)["npcm"]["hire"])
    assert ctx.state.zone("npcm.p1") == (hunter,)
    (entry,) = ctx.state.var("npcms")
    assert entry["target"] == target and entry["at"] == ctx.state.var("home.p1")


def test_raiders_sent_against_a_neutral_faction_claim_the_nearest_unowned_resource() -> None:
    # "III. Party Exploits Phase A. NPCMs (move + assignment)": Raiders on a "1-3" go for the
    # target's nearest Resource and claim it; a Neutral Faction's land is the Resources no one
    # holds, so the hirer claims one (register 30)
    ctx = _solo1_game()
    raider = _free(ctx, "raider")
    place_card(ctx, raider, "npcm.p1")
    res = sorted(game_map().resources.values(), key=lambda r: r.id)[0]
    ctx.setv("resources", {})
    target = f"nf{neutral_factions(ctx.state)[0]}"
    entry = {
        "card": raider,
        "hirer": "p1",
        "target": target,
        "at": list(res.at),
        "assignment": "resource",
    }
    ctx.setv("npcms", [entry])
    # when the NPCM step runs with the Raider already on that Resource
    run_tasks(ctx, ("npcms_act", {}))
    # then the player owns it, and the Raider leaves for the Action discard
    assert ctx.state.var("resources") == {res.id: "p1"}
    assert ctx_notes(ctx, "resource_claimed") == [{"seat": "p1", "resource": res.id}]
    assert raider in ctx.state.zone("discard.action") and not ctx.state.var("npcms")


def test_an_npcm_striking_a_neutral_factions_party_or_town_changes_nothing() -> None:
    # a Neutral Faction has no party and no Town Health track: Assassins and Hitmen "Attack a
    # random Party Character" and Raiders on a "4-6" "deal the listed damage" to nothing
    ctx = _solo1_game()
    viper = _free(ctx, "assassin")
    place_card(ctx, viper, "npcm.p1")
    target = f"nf{neutral_factions(ctx.state)[0]}"
    ctx.setv(
        "npcms", [{"card": viper, "hirer": "p1", "target": target, "at": ctx.state.var("home.p1")}]
    )
    before = (dict(ctx.state.counters), ctx.state.var("resources"))
    kinds = run_tasks(ctx, ("npcms_act", {}))
    # then no die is rolled, no track changes, and the Assassin is discarded
    assert ctx.pending is None and "damage_taken" not in kinds
    assert (dict(ctx.state.counters), ctx.state.var("resources")) == before
    assert viper in ctx.state.zone("discard.action")


@pytest.mark.parametrize("seed", range(6))
def test_new_solo1_playouts_hold_the_npcms_and_replay(seed: int) -> None:
    # given random Solo I games of card data 2
    p = play(
        RULES, Setup({"p1": "u1"}, {**NEW_SOLO1, "max_turns": 3}), f"s1n-{seed}", f"s1n-{seed}"
    )
    held = [c for cs in p.state.zones.values() for c in cs]
    # then every card of the game's decks is in one place: the NPCMs among them
    total = sum(len(solo_deck(d, NEW_SOLO1)) for d in DECK_NAMES)
    assert len(held) == len(set(held))
    assert len(held) + sum(p.state.count(f"deck.{d}") for d in DECK_NAMES) == total
    assert not [c for c in held if card(c).get("red_dot") and "npcm" not in card(c)]
    state = RULES.initial_state()
    for ev in p.events:
        state = RULES.evolve(state, ev)
    assert RULES.state_hash(state) == RULES.state_hash(p.state)
