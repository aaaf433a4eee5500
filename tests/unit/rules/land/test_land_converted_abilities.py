"""The solo Overview's converted Character and Spoils abilities, each as the rulebook's example.

"Character and Spoils Card Special Abilities: Most function normally. Those that do not can
affect another Party or Faction if ALL other conditions on the card are met. Use common
sense. Here are a few examples:" Card data 2 adds a card carrying each example's ability
(Characters ch_61-ch_63, Spoils Signal Scrambler and Wiretap Kit; register 31). Each test
quotes the example and its conversion, and checks the card in a solo game does what the
conversion says, and in a 2-6 player game what the card says.
"""

from __future__ import annotations

from typing import Any

from services.rules.engine.api import Setup
from services.rules.engine.flow import Ctx
from services.rules.land.abilities import targets, use_options
from services.rules.land.data import catalog, factions
from services.rules.land.flow import REGISTRY
from services.rules.land.hexmap import adjacent, game_map, hex_steps
from services.rules.land.state import faction_of, neutral_factions
from tests.unit.rules.land.support import ctx_notes, drive, place_card

RACKETEER, CUTPURSE, RECRUITER = "ch_61", "ch_62", "ch_63"
SCRAMBLER, WIRETAP = "signal_scrambler", "wiretap_kit"
M = game_map()


def _game(options: dict[str, Any], seats: int = 1, step: str = "sell", seed: str = "ca") -> Ctx:
    """Return a card data 2 game at a Town Business sub-phase, its flow cleared."""
    names = {f"p{k}": f"u{k}" for k in range(1, seats + 1)}
    until = lambda s: s.var("step") == ["town_business", step]  # noqa: E731
    ctx = REGISTRY.ctx(drive(Setup(names, {**options, "card_data": 2}), until, seed))
    ctx.tasks, ctx.pending = [], None
    return ctx


def _free(ctx: Ctx, base: str) -> str:
    """Return a copy of a card lying in no zone (else its first copy, moved when placed)."""
    held = {c for cs in ctx.state.zones.values() for c in cs}
    deck = catalog().cards[base]["deck"]
    copies = [c for c in catalog().decks[deck] if c.split("#")[0] == base]
    return next((c for c in copies if c not in held), copies[0])


def _offered(ctx: Ctx, c: str, timings: tuple[str, ...]) -> list[dict[str, Any]]:
    """Return the `use` commands offered for one card's ability at these timings."""
    return [a for _, a in use_options(ctx.state, "p1", timings) if a["card"] == c]


def _crown(ctx: Ctx, c: str, seat: str = "p1", k: int = 1) -> None:
    for old in ctx.state.zone(f"crown.{seat}.{k}"):
        ctx.move(old, f"crown.{seat}.{k}", "discard.characters")
    place_card(ctx, c, f"crown.{seat}.{k}")


def _proceed(ctx: Ctx) -> None:
    while ctx.tasks and ctx.pending is None:
        name, args = ctx.tasks.pop(0)
        REGISTRY.tasks[name](ctx, dict(args))


def _reply(ctx: Ctx, kind: str, **args: Any) -> None:
    """Answer the pending decision (a seat's, or chance's with its result) and run on."""
    assert ctx.pending is not None
    data = ctx.pending["data"]
    ctx.pending = None
    if kind == "chance":
        REGISTRY.tasks[data["resume"]](ctx, {**data, **args})
    else:
        REGISTRY.answers[data["resume"]](ctx, data, kind, args)
    _proceed(ctx)


def _draw_request(ctx: Ctx) -> tuple[str, int, str]:
    """Return the pending face-down draw: (deck, count, zone it goes to)."""
    assert ctx.pending is not None and ctx.pending["kind"] == "deck_draw", ctx.pending
    data = ctx.pending["data"]
    return data["name"], int(data["count"]), data["zone"]


def _town(f: int) -> tuple[int, int]:
    x, y = factions()[f]["at"]
    return (int(x), int(y))


def _next_to(f: int) -> list[int]:
    h = next(n for n in adjacent(_town(f)) if M.passable(n))
    return [h[0], h[1]]


def _far_from_every_town() -> list[int]:
    for h in sorted(M.terrain):
        if M.passable(h) and all(hex_steps(h, _town(f), 2) is None for f in factions()):
            return [h[0], h[1]]
    raise AssertionError("no hex far from the towns")


# --- "steal 2 Salvage Coins from another player": the Bank pays -------------------------


def test_a_steal_of_salvage_from_another_player_is_paid_by_the_bank_in_solo() -> None:
    # "Once per Turn, during the Resource Production Sub-Phase, steal 2 Salvage Coins from
    # another player." In this example, the Bank pays the player.
    # given a Solo I player with the Racketeer crowned
    ctx = _game({"variant": "solo1"})
    _crown(ctx, _free(ctx, RACKETEER))
    coins = ctx.state.count("salvage.p1")
    # when Resource Production runs for the player
    REGISTRY.tasks["production_abilities"](ctx, {"seat": "p1"})
    _proceed(ctx)
    # then the Bank pays 2 Salvage Coins, and no one is asked
    assert ctx.state.count("salvage.p1") == coins + 2 and ctx.pending is None
    assert [n["target"] for n in ctx_notes(ctx, "ability_used")] == ["bank"]
    # and "Once per Turn": a second Resource Production this turn pays nothing
    REGISTRY.tasks["production_abilities"](ctx, {"seat": "p1"})
    assert ctx.state.count("salvage.p1") == coins + 2


def test_a_steal_of_salvage_takes_from_the_player_chosen_in_a_multiplayer_game() -> None:
    # the card as printed: "steal 2 Salvage Coins from another player"
    ctx = _game({}, seats=3)
    _crown(ctx, _free(ctx, RACKETEER))
    before = {s: ctx.state.count(f"salvage.{s}") for s in ("p1", "p2", "p3")}
    REGISTRY.tasks["production_abilities"](ctx, {"seat": "p1"})
    # then the player chooses whom, among the other players
    assert ctx.pending is not None and ctx.pending["kind"] == "ability_target"
    assert {a["target"] for _, a in ctx.pending["data"]["options"]} == {"p2", "p3"}
    _reply(ctx, "use", card=ctx.pending["data"]["options"][1][1]["card"], target="p3")
    taken = min(2, before["p3"])
    assert ctx.state.count("salvage.p3") == before["p3"] - taken
    assert ctx.state.count("salvage.p1") == before["p1"] + taken
    assert ctx.state.count("salvage.p2") == before["p2"]


# --- Almiah: "steal 1 Spoils card" from a Neutral or Opposing Faction's town, or a Party -


def test_the_spoils_steal_targets_a_neutral_factions_town_and_draws_a_spoils_card() -> None:
    # "Once per Turn if within 2 hexes of a Party or player's Starting Town, Almiah may steal
    # 1 Spoils card." Here, the player can target any Neutral Faction ...'s town
    ctx = _game({"variant": "solo1"})
    cutpurse = _free(ctx, CUTPURSE)
    _crown(ctx, cutpurse)
    f = next(f for f in neutral_factions(ctx.state) if f != faction_of(ctx.state, "p1"))
    ctx.setv("pos.p1", _next_to(f))
    # then it may target that Neutral Faction's town (and no Opposing Faction: Solo I)
    names = targets(ctx.state, "p1", cutpurse)
    assert f"town.nf{f}" in names and not [t for t in names if "of" in t]
    # when the player uses it, then 1 Spoils card is drawn into the player's Auction House
    REGISTRY.answers["financed"](
        ctx, {"who": "p1", "sub": "sell"}, "use", {"card": cutpurse, "target": f"town.nf{f}"}
    )
    _proceed(ctx)
    assert _draw_request(ctx) == ("spoils", 1, "auction.p1")
    # and "Once per Turn": it is not offered again this turn
    assert not _offered(ctx, cutpurse, ("any",))


def test_the_spoils_steal_needs_the_town_within_two_hexes() -> None:
    # "if ALL other conditions on the card are met": "within 2 hexes"
    ctx = _game({"variant": "solo1"})
    cutpurse = _free(ctx, CUTPURSE)
    _crown(ctx, cutpurse)
    ctx.setv("pos.p1", _far_from_every_town())
    assert not _offered(ctx, cutpurse, ("any",))


def test_in_solo_ii_the_spoils_steal_targets_an_opposing_town_or_a_pvp_party() -> None:
    # "Here, the player can target any Neutral Faction or Opposing Faction's town or a Party,
    # in PVP (but only in Solo Variant II)."
    ctx = _game({"variant": "solo2", "challenge": 2, "pvp_option": 2})
    cutpurse = _free(ctx, CUTPURSE)
    _crown(ctx, cutpurse)
    of = int(ctx.state.var("opposing")[0])
    ctx.setv("pos.p1", _next_to(of))
    assert f"town.of{of}" in targets(ctx.state, "p1", cutpurse)
    # given that faction's PVP Party in play on the player's hex, carrying a Shotgun
    shotgun = _free(ctx, "shotgun")
    place_card(ctx, _free(ctx, "ch_12"), f"crown.of{of}.1")
    place_card(ctx, shotgun, f"gear.of{of}.1")
    ctx.setv(f"pos.of{of}", list(ctx.state.var("pos.p1")))
    ctx.setv("pvp_parties", [of])
    assert f"of{of}" in targets(ctx.state, "p1", cutpurse)
    # when the player steals from the party, then chance picks one of its Spoils cards
    REGISTRY.answers["financed"](
        ctx, {"who": "p1", "sub": "purchase"}, "use", {"card": cutpurse, "target": f"of{of}"}
    )
    _proceed(ctx)
    assert ctx.pending is not None and ctx.pending["kind"] == "shuffle"
    _reply(ctx, "chance", order=[0])
    assert shotgun in ctx.state.zone("auction.p1")


def test_the_spoils_steal_in_a_multiplayer_game_takes_from_a_near_party_or_town() -> None:
    # the card as printed: "within 2 hexes of a Party or player's Starting Town"
    ctx = _game({}, seats=2)
    cutpurse = _free(ctx, CUTPURSE)
    _crown(ctx, cutpurse)
    ctx.setv("pos.p2", list(ctx.state.var("pos.p1")))
    place_card(ctx, _free(ctx, "machete"), "gear.p2.1")
    place_card(ctx, _free(ctx, "whiskey"), "auction.p2")
    ctx.setv("pos.p1", _next_to(int(faction_of(ctx.state, "p2"))))
    ctx.setv("pos.p2", list(ctx.state.var("pos.p1")))
    assert set(targets(ctx.state, "p1", cutpurse)) == {"p2", "town.p2"}
    # when it steals from p2's town, then a random card of p2's Auction House moves to p1's
    auction = sorted(ctx.state.zone("auction.p2"))
    REGISTRY.answers["financed"](
        ctx, {"who": "p1", "sub": "sell"}, "use", {"card": cutpurse, "target": "town.p2"}
    )
    _proceed(ctx)
    assert ctx.pending is not None and ctx.pending["data"]["count"] == len(auction)
    _reply(ctx, "chance", order=list(range(len(auction))))
    assert auction[0] in ctx.state.zone("auction.p1")


# --- "ignore an Action card played on you, including NPCMs" ------------------------------


def _scrambled(ctx: Ctx, seat: str = "p1") -> str:
    scrambler = _free(ctx, SCRAMBLER)
    place_card(ctx, scrambler, f"gear.{seat}.1")
    return scrambler


def test_a_red_dot_card_ignored_in_solo_ii_is_discarded_for_a_new_action_card() -> None:
    # "Once per game, ignore an Action card played on you, including NPCMs. Place that card
    # into your hand." Here the player would receive a new Action card drawn from the Action
    # deck, but discard the Red Dot Action card.
    ctx = _game({"variant": "solo2", "challenge": 2})
    scrambler = _scrambled(ctx)
    of = f"of{ctx.state.var('opposing')[0]}"
    raid, smear = _free(ctx, "raid_supplies"), _free(ctx, "smear_campaign")
    for c in (raid, smear):
        place_card(ctx, c, f"play.{of}")
    coins, prestige = ctx.state.count("salvage.p1"), ctx.state.count("prestige.p1")
    # when the opposing faction plays them, then the player is asked about the first
    REGISTRY.tasks["red_dot_play"](ctx, {"faction": int(of[2:])})
    _proceed(ctx)
    assert ctx.pending is not None and ctx.pending["kind"] == "ignore_action"
    assert ctx.pending["data"]["options"] == [["pass", {}], ["use", {"card": scrambler}]]
    _reply(ctx, "use", card=scrambler)
    # then the Red Dot card is discarded, a new Action card is drawn from the Action deck
    assert raid in ctx.state.zone("discard.red_dot") and raid not in ctx.state.zone("hand.p1")
    assert _draw_request(ctx) == ("action", 1, "hand.p1")
    assert ctx.state.count("salvage.p1") == coins  # the Raid Supplies took nothing
    # and "Once per game": the second card acts without asking
    ctx.pending = None
    _proceed(ctx)
    assert ctx.pending is None and smear in ctx.state.zone("discard.red_dot")
    assert ctx.state.count("prestige.p1") == max(0, prestige - 1)


def test_an_npcm_ignored_in_solo_ii_never_enters_play() -> None:
    # "... including NPCMs" / "discard the Red Dot Action card"
    ctx = _game({"variant": "solo2", "challenge": 2})
    scrambler = _scrambled(ctx)
    f = int(ctx.state.var("opposing")[0])
    hunter = _free(ctx, "bh_red_hand")
    place_card(ctx, hunter, f"play.of{f}")
    REGISTRY.tasks["red_dot_play"](ctx, {"faction": f})
    _proceed(ctx)
    _reply(ctx, "use", card=scrambler)
    assert hunter in ctx.state.zone("discard.red_dot")
    assert hunter not in [n["card"] for n in ctx.state.var("npcms", [])]
    assert _draw_request(ctx) == ("action", 1, "hand.p1")


def test_a_red_dot_skill_check_card_can_be_ignored_on_the_players_check() -> None:
    # "ignore an Action card played on you": the opposing faction's waiting Sabotage (-2
    # successes) is played on the player's next skill check
    ctx = _game({"variant": "solo2", "challenge": 2})
    scrambler = _scrambled(ctx)
    of = f"of{ctx.state.var('opposing')[0]}"
    sabotage = _free(ctx, "sabotage")
    place_card(ctx, sabotage, f"play.{of}")
    then = ["captured", {"seat": "p1", "resource": "x", "owner": "p2"}]
    REGISTRY.tasks["check"](
        ctx, {"seat": "p1", "skill": "combat", "required": 1, "context": [], "then": then}
    )
    assert ctx.pending is not None
    _reply(ctx, "chance", faces=[5] * len(ctx.pending["data"]["dice"]))
    assert ctx.pending is not None and ctx.pending["kind"] == "ignore_action"
    bonus = ctx.state.var("check")["bonus"]
    _reply(ctx, "use", card=scrambler)
    # then the Sabotage is discarded unplayed, and the check goes on to its window
    assert sabotage in ctx.state.zone("discard.red_dot")
    assert ctx.state.var("check")["bonus"] == bonus
    assert _draw_request(ctx) == ("action", 1, "hand.p1")


def test_passing_lets_the_card_act_and_keeps_the_ability() -> None:
    ctx = _game({"variant": "solo2", "challenge": 2})
    scrambler = _scrambled(ctx)
    f = int(ctx.state.var("opposing")[0])
    hunter = _free(ctx, "bh_jackals")
    place_card(ctx, hunter, f"play.of{f}")
    REGISTRY.tasks["red_dot_play"](ctx, {"faction": f})
    _proceed(ctx)
    _reply(ctx, "pass")
    assert hunter in [n["card"] for n in ctx.state.var("npcms")]
    assert _offered(ctx, scrambler, ("played_on",)) == [{"card": scrambler}]


def test_a_card_played_on_you_in_a_multiplayer_game_goes_to_your_hand() -> None:
    # the card as printed: "Place that card into your hand."
    ctx = _game({}, seats=2, step="purchase")
    scrambler = _scrambled(ctx, "p1")
    smear = _free(ctx, "smear_campaign")
    place_card(ctx, smear, "hand.p2")
    prestige = ctx.state.count("prestige.p1")
    # when p2 plays Smear Campaign on p1, then p1 may ignore it
    REGISTRY.answers["financed"](
        ctx, {"who": "p2", "sub": "purchase"}, "play", {"card": smear, "target": "p1"}
    )
    _proceed(ctx)
    assert ctx.pending is not None and ctx.pending["seat"] == "p1"
    _reply(ctx, "use", card=scrambler)
    assert smear in ctx.state.zone("hand.p1") and ctx.state.count("prestige.p1") == prestige
    assert ctx_notes(ctx, "action_ignored")[0]["by"] == "p2"


def test_an_npcm_hired_on_you_in_a_multiplayer_game_goes_to_your_hand() -> None:
    ctx = _game({}, seats=2, step="hire")
    scrambler = _scrambled(ctx, "p1")
    raider = _free(ctx, "raid_dust")
    place_card(ctx, raider, "hand.p2")
    ctx.add("salvage.p2", 20, "test")
    coins = ctx.state.count("salvage.p2")
    REGISTRY.answers["financed"](
        ctx, {"who": "p2", "sub": "hire"}, "hire", {"card": raider, "target": "p1"}
    )
    _proceed(ctx)
    _reply(ctx, "use", card=scrambler)
    # then the hirer has paid, and the NPCM is in p1's hand, not in play
    assert ctx.state.count("salvage.p2") == coins - 7
    assert raider in ctx.state.zone("hand.p1")
    assert raider not in [n["card"] for n in ctx.state.var("npcms", [])]


# --- "look at each players' hand of Action cards. Keep 1" --------------------------------


def test_looking_at_hands_in_solo_ii_draws_one_action_card_per_opposing_faction() -> None:
    # "Once per game during the Town Business Phase, look at each players' hand of Action
    # cards. Keep 1 and return the rest." Here, the player would receive 1 Action card per
    # Opposing Faction from the Action deck, not the Red Dot Action deck.
    ctx = _game({"variant": "solo2", "challenge": 3})
    wiretap = _free(ctx, WIRETAP)
    place_card(ctx, wiretap, "gear.p1.1")
    assert _offered(ctx, wiretap, ("town_business",)) == [{"card": wiretap}]
    REGISTRY.answers["financed"](ctx, {"who": "p1", "sub": "sell"}, "use", {"card": wiretap})
    _proceed(ctx)
    assert _draw_request(ctx) == ("action", 3, "hand.p1")
    # and "Once per game": never offered again
    assert not _offered(ctx, wiretap, ("town_business",))


def test_looking_at_hands_has_nothing_to_give_in_solo_i() -> None:
    # Solo I has no Opposing Faction: "1 Action card per Opposing Faction" is none
    ctx = _game({"variant": "solo1"})
    wiretap = _free(ctx, WIRETAP)
    place_card(ctx, wiretap, "gear.p1.1")
    assert not _offered(ctx, wiretap, ("town_business",))


def test_looking_at_hands_in_a_multiplayer_game_shows_them_to_the_user_alone() -> None:
    ctx = _game({}, seats=3)
    wiretap = _free(ctx, WIRETAP)
    place_card(ctx, wiretap, "gear.p1.1")
    REGISTRY.answers["financed"](ctx, {"who": "p1", "sub": "sell"}, "use", {"card": wiretap})
    _proceed(ctx)
    seen = next(e for e in ctx.events if e.type == "hands_seen")
    assert seen.visibility == ("p1",)
    assert seen.data["hands"] == {s: list(ctx.state.zone(f"hand.{s}")) for s in ("p2", "p3")}
    # when p1 keeps one card of p2's hand, then it moves to p1's hand; the rest stay
    kept = sorted(ctx.state.zone("hand.p2"))[0]
    _reply(ctx, "keep", card=kept)
    assert kept in ctx.state.zone("hand.p1") and kept not in ctx.state.zone("hand.p2")


# --- "select a Character from their Town Roster": draw 1 Character -----------------------


def test_taking_a_roster_character_near_a_neutral_town_draws_a_character_in_solo() -> None:
    # "Once per Turn, if within 1 hex of an opponent's town, you may select a Character from
    # their Town Roster and place it into yours." Here, the player would instead draw 1 card
    # from the Character deck.
    ctx = _game({"variant": "solo1"})
    recruiter = _free(ctx, RECRUITER)
    _crown(ctx, recruiter)
    f = next(f for f in neutral_factions(ctx.state))
    ctx.setv("pos.p1", _next_to(f))
    assert f"town.nf{f}" in targets(ctx.state, "p1", recruiter)
    REGISTRY.answers["deed_chosen"](
        ctx, {"who": "p1"}, "use", {"card": recruiter, "target": f"town.nf{f}"}
    )
    _proceed(ctx)
    assert _draw_request(ctx) == ("characters", 1, "roster.p1")


def test_taking_a_roster_character_in_a_multiplayer_game_keeps_it_face_down() -> None:
    # the card as printed; the roster is face down, so chance picks the Character and only
    # the two rosters' owners see which
    ctx = _game({}, seats=2)
    recruiter = _free(ctx, RECRUITER)
    _crown(ctx, recruiter)
    ctx.setv("pos.p1", _next_to(int(faction_of(ctx.state, "p2"))))
    roster = sorted(ctx.state.zone("roster.p2"))
    assert roster and targets(ctx.state, "p1", recruiter) == ["town.p2"]
    REGISTRY.answers["deed_chosen"](
        ctx, {"who": "p1"}, "use", {"card": recruiter, "target": "town.p2"}
    )
    _proceed(ctx)
    assert ctx.pending is not None and ctx.pending["kind"] == "shuffle"
    assert not set(roster) & {str(v) for v in ctx.pending["data"].values()}
    _reply(ctx, "chance", order=list(range(len(roster))))
    assert roster[0] in ctx.state.zone("roster.p1")
    moved = next(e for e in ctx.events if e.type == "card_moved" and e.data["card"] == roster[0])
    assert set(moved.visibility) == {"p1", "p2"}


# --- games created before card data 2 ----------------------------------------------------


def test_abilities_do_not_act_in_games_created_before_card_data_2() -> None:
    names = {"p1": "u1"}
    until = lambda s: s.var("step") == ["town_business", "sell"]  # noqa: E731
    ctx = REGISTRY.ctx(drive(Setup(names, {"variant": "solo1"}), until, "old"))
    ctx.tasks, ctx.pending = [], None
    _crown(ctx, _free(ctx, "ch_04"))  # an original Character with a Town Business ability
    assert not use_options(ctx.state, "p1", ("town_business", "any", "skill_check"))


# --- "Most function normally": the abilities printed on the original Characters ---------


def test_a_town_business_ability_pays_once_per_turn() -> None:
    # "Character and Spoils Card Special Abilities: Most function normally."
    ctx = _game({}, seats=2)
    engineer = _free(ctx, "ch_04")  # Town Business, once per turn: +2 Salvage Coins
    _crown(ctx, engineer)
    assert _offered(ctx, engineer, ("town_business",)) == [{"card": engineer}]
    coins = ctx.state.count("salvage.p1")
    REGISTRY.answers["financed"](ctx, {"who": "p1", "sub": "sell"}, "use", {"card": engineer})
    assert ctx.state.count("salvage.p1") == coins + 2
    assert not _offered(ctx, engineer, ("town_business",))


def test_a_skill_check_ability_rerolls_a_failed_die_of_its_party() -> None:
    ctx = _game({}, seats=2)
    mechanic = _free(ctx, "ch_03")  # a skill check, once per turn: re-roll 1 die
    _crown(ctx, mechanic)
    then = ["captured", {"seat": "p1", "resource": "x", "owner": "p2"}]
    check = {"seat": "p1", "skill": "combat", "required": 99, "context": [], "then": then}
    REGISTRY.tasks["check"](ctx, check)
    n = len(ctx.pending["data"]["dice"]) if ctx.pending else 0
    _reply(ctx, "chance", faces=[10] * n)  # every die fails
    # then the checking party's window offers the ability, and using it re-rolls one die
    assert ctx.pending is not None and ctx.pending["kind"] == "check_window"
    opts = REGISTRY.answers_to(ctx.state, ctx.pending)
    assert ("use", {"card": mechanic}) in opts
    _reply(ctx, "use", card=mechanic)
    assert ctx.pending is not None and ctx.pending["data"]["dice"] == ["d10"]
    assert ctx.pending["data"]["idx"] == [0]
