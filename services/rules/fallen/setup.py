"""Setup: every card in its box zone, character and starting Skill choices, decks shuffled."""

from __future__ import annotations

from functools import cache
from typing import Final

from services.rules.engine.api import NOBODY
from services.rules.fallen import decks
from services.rules.fallen import derived as dv
from services.rules.fallen.abilities import REREAD_IN
from services.rules.fallen.cards import card, catalog, catalog_of, data_version, since
from services.rules.fallen.flow import Args, Ctx, answer, record_format, task
from services.rules.fallen.skills import learn
from services.rules.fallen.state import DL, HERO, zone_public

STANDARD_KEPT: Final = 10


def initial_zones() -> dict[str, list[str]]:
    """Return where every card starts (in the box, or in its unshuffled deck)."""
    return {k: list(v) for k, v in _initial_zones(data_version()).items()}


@cache
def _initial_zones(version: int) -> dict[str, tuple[str, ...]]:
    cat = catalog_of(version)
    zones: dict[str, list[str]] = {
        "treasure.deck": cat.ids("treasure"),
        "omen.deck": cat.ids("omen"),
        "critical.deck": cat.ids("critical"),
        "story.deck": cat.ids("story"),
        "reward.cup": cat.ids("token"),
        "basic": cat.ids("basic"),
        "shadow_track": cat.ids("shadow"),
        "hero.std.deck": cat.ids("power", side=HERO, character=None),
        "dungeon_lord.std.deck": cat.ids("power", side=DL, character=None),
    }
    for level in (1, 2, 3):
        zones[f"creature.{level}.deck"] = cat.ids("creature", level=level)
    for h in cat.heroes:
        zones[f"skills.{h}"] = cat.ids("skill", hero=h)
        zones[f"box.power.{h}"] = cat.ids("power", character=h)
    for d in cat.dungeon_lords:
        zones[f"box.power.{d}"] = cat.ids("power", character=d)
        zones[f"box.fb.{d}"] = cat.ids("final_battle", dl=d)
    return {k: tuple(v) for k, v in zones.items() if v}


def box_of(deck: str) -> str:
    """Return the public box zone holding a face-down deck's cards before it is formed."""
    return "box." + deck.removesuffix(".deck")


def place_initial(ctx: Ctx) -> None:
    """Emit the starting zones: public ones as they are, and each face-down deck formed and
    shuffled by the deck service (the engine keeps its count)."""
    ctx.setv(decks.MODE_VAR, decks.SERVICE)
    forms: list[tuple[str, Args]] = []
    placed: dict[str, list[str]] = {}
    for zone, cards in initial_zones().items():
        if zone_public(zone):
            placed[zone] = cards
        else:  # the box's cards are public; the deck service shuffles them face down
            placed[box_of(zone)] = cards
            forms.append(decks.form(zone, cards, box_of(zone)))
    if record_format(ctx.state) >= 2:  # one fact: the components set out
        ctx.emit("zones_set", {"zones": placed})
    else:
        for zone, cards in placed.items():
            ctx.emit("zone_set", {"zone": zone, "cards": cards})
    ctx.push(*forms, ("setup", {}))


def place_initial_v1(ctx: Ctx) -> None:
    """Emit the starting zones as games before the deck service did (the hidden decks
    recorded for nobody, with a public count): replays games recorded then."""
    for zone, cards in initial_zones().items():
        if zone_public(zone):
            ctx.emit("zone_set", {"zone": zone, "cards": cards})
        else:
            ctx.emit("zone_set", {"zone": zone, "cards": cards}, NOBODY)
            ctx.note("zone_filled", zone=zone, count=len(cards))
    ctx.push(("setup", {}))


@task("setup")
def _setup(ctx: Ctx, a: Args) -> None:
    ctx.setv("between_stages", True)
    ctx.ask(
        HERO,
        "choose_hero",
        "choose_hero",
        "choose your Hero",
        [("choose_hero", {"character": h}) for h in catalog().heroes],
    )


@answer("choose_hero")
def _hero_chosen(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    ctx.setv("char.hero", args["character"])
    ctx.note("character_chosen", seat=HERO, character=args["character"])
    if since(REREAD_IN):  # Hero Setup (steps 8-13) before Dungeon Lord Setup (14-19)
        for cid in card(args["character"])["equipment"]:
            ctx.move(cid, "basic", "hero.equipment")
        _ask_skill(ctx)
        return
    ctx.push(("choose_dl", {}))


@task("choose_dl")
def _choose_dl(ctx: Ctx, a: Args) -> None:
    ctx.ask(
        DL,
        "choose_dungeon_lord",
        "choose_dungeon_lord",
        "choose your Dungeon Lord",
        [("choose_dungeon_lord", {"character": d}) for d in catalog().dungeon_lords],
    )


@answer("choose_dungeon_lord")
def _dl_chosen(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    ctx.setv("char.dungeon_lord", args["character"])
    ctx.note("character_chosen", seat=DL, character=args["character"])
    if since(REREAD_IN):  # the Hero's starting Skill was chosen in Hero Setup
        _decks(ctx, ctx.state.var("char.hero"), args["character"])
        return
    _ask_skill(ctx)


def _ask_skill(ctx: Ctx) -> None:
    """Ask the Hero for his starting level I Skill (Hero Setup step 11)."""
    hero = ctx.state.var("char.hero")
    firsts = [c for c in dv.skills_of(hero) if int(card(c)["rank"]) == 1]
    ctx.ask(
        HERO,
        "choose_skill",
        "choose_skill",
        "choose your starting level I Skill",
        [("choose_skill", {"skill": c}) for c in firsts],
    )


@answer("choose_skill")
def _skill_chosen(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    if since(REREAD_IN):  # then the Dungeon Lord Setup
        ctx.push(("choose_dl", {}))
        learn(ctx, args["skill"])
        return
    hero, dl = ctx.state.var("char.hero"), ctx.state.var("char.dungeon_lord")
    for cid in card(hero)["equipment"]:
        ctx.move(cid, "basic", "hero.equipment")
    _decks(ctx, hero, dl)
    learn(ctx, args["skill"])


def _decks(ctx: Ctx, hero: str, dl: str) -> None:
    """Queue the Power, Creature and Final Battle decks' set-up, the first Creatures and the
    Quest (the engine-held decks also shuffle the box's decks here, as games then did)."""
    if decks.dealt(ctx):
        ctx.push(*_dealt_decks(ctx, hero, dl))
        return
    steps: list[tuple[str, Args]] = []
    for seat, char in ((HERO, hero), (DL, dl)):
        steps += [
            ("shuffle_zone", {"zone": f"{seat}.std.deck"}),
            ("build_power_deck", {"seat": seat, "char": char}),
            ("shuffle_zone", {"zone": f"{seat}.deck"}),
        ]
    steps += [("shuffle_zone", {"zone": f"creature.{lv}.deck"}) for lv in (1, 2, 3)]
    steps += [
        ("build_fb_deck", {"dl": dl}),
        ("shuffle_zone", {"zone": "fb.deck"}),
        ("fb_begins_on_top", {"dl": dl}),
    ]
    steps += [
        ("shuffle_zone", {"zone": z})
        for z in ("treasure.deck", "omen.deck", "critical.deck", "story.deck")
    ]
    steps += [("deal_creatures", {}), ("quest", {})]
    ctx.push(*steps)


def _dealt_decks(ctx: Ctx, hero: str, dl: str) -> list[tuple[str, Args]]:
    """Return the setup steps building the Power and Final Battle decks in the deck service:
    10 random standard Power cards (the rest stay in the box unseen) plus the character's 10,
    shuffled; the Final Battle cards shuffled with the Begins card on top."""
    steps: list[tuple[str, Args]] = []
    for seat, char in ((HERO, hero), (DL, dl)):
        own = list(ctx.zone(f"box.power.{char}"))
        steps += [
            decks.move(f"{seat}.std.deck", f"{seat}.deck", STANDARD_KEPT),
            decks.form(f"{seat}.deck", own, f"box.power.{char}"),
        ]
    fb = list(ctx.zone(f"box.fb.{dl}"))
    begins = [c for c in fb if card(c).get("begins")]
    steps += [
        decks.form("fb.deck", [c for c in fb if not card(c).get("begins")], f"box.fb.{dl}"),
        decks.put_top("fb.deck", begins, f"box.fb.{dl}"),
        ("deal_creatures", {}),
        ("quest", {}),
    ]
    return steps


@task("build_power_deck")
def _build_power_deck(ctx: Ctx, a: Args) -> None:
    """Keep 10 random standard Power cards (the rest go back to the box unseen), add the 10 own."""
    seat = a["seat"]
    std = ctx.zone(f"{seat}.std.deck")
    for i, cid in enumerate(std):
        ctx.move(cid, f"{seat}.std.deck", "power_box" if i >= STANDARD_KEPT else f"{seat}.deck")
    for cid in ctx.zone(f"box.power.{a['char']}"):
        ctx.move(cid, f"box.power.{a['char']}", f"{seat}.deck")


@task("build_fb_deck")
def _build_fb_deck(ctx: Ctx, a: Args) -> None:
    for cid in ctx.zone(f"box.fb.{a['dl']}"):
        if not card(cid).get("begins"):
            ctx.move(cid, f"box.fb.{a['dl']}", "fb.deck")


@task("fb_begins_on_top")
def _fb_begins_on_top(ctx: Ctx, a: Args) -> None:
    for cid in ctx.zone(f"box.fb.{a['dl']}"):
        ctx.move(cid, f"box.fb.{a['dl']}", "fb.deck")


@task("deal_creatures")
def _deal_creatures(ctx: Ctx, a: Args) -> None:
    if decks.dealt(ctx):
        ctx.push(
            *(
                decks.draw("creature.1.deck", f"slot.{slot}", 1, ("creature_dealt", {"slot": slot}))
                for slot in dv.SLOTS
            )
        )
        return
    for slot in dv.SLOTS:
        top = ctx.zone("creature.1.deck")[0]
        ctx.move(top, "creature.1.deck", f"slot.{slot}")
        ctx.note("creature_enters", slot=slot, creature=top, exhausted=False)


@task("creature_dealt")
def _creature_dealt(ctx: Ctx, a: Args) -> None:
    for cid in a["cards"]:
        ctx.note("creature_enters", slot=a["slot"], creature=cid, exhausted=False)
