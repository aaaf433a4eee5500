"""Why a command is refused: actionable reasons for commands that are not legal now.

decide() accepts exactly the answers legal_commands lists; when it refuses one, these
pure functions say why, in words a client developer can act on ("card X is not in your
hand", "X costs 2 Fortune (Light) and you have 1", "not in the 'Hero's roll' window").

A reason never reveals hidden information: it speaks only of what the acting seat may
see (its own hand, public zones and counters, the public card catalog, the pending
decision's public options). A card id that is not in the seat's hand gets the same
answer wherever it is (the opponent's hand, a deck, a face-down stake) or if it does
not exist at all.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from services.rules.engine.api import CHANCE, Command
from services.rules.fallen import derived as dv
from services.rules.fallen.cards import Card, catalog
from services.rules.fallen.effects import holds
from services.rules.fallen.equipment import LIMITS
from services.rules.fallen.flow import static_or_dynamic
from services.rules.fallen.skills import next_skills
from services.rules.fallen.state import DL, HERO, State
from services.rules.fallen.windows import ROLL_WINDOWS, timing_fits, ultimate_ready

Args = dict[str, Any]

SEAT_NAMES: Final = {HERO: "the Hero", DL: "the Dungeon Lord", CHANCE: "chance"}
WINDOW_NAMES: Final = {
    "before_activation": "before a Creature is activated",
    "creature_exhausted": "after a Creature is exhausted",
    "dl_roll": "Dungeon Lord's roll",
    "hero_roll": "Hero's roll",
    "after_result": "after the challenge result",
    "rewards_claimed": "after rewards are claimed",
    "when_wounded": "when wounded",
}
TIMING_NAMES: Final = {
    "before_activation": "before a Creature is activated",
    "creature_exhausted": "when a Creature is exhausted",
    "dl_roll": "during the Dungeon Lord's roll",
    "hero_roll": "during the Hero's roll",
    "any_roll": "during either roll",
    "after_win": "after winning a challenge",
    "after_lose": "after losing a challenge",
    "rewards_claimed": "after rewards are claimed",
    "when_wounded": "when you are being wounded",
}
CONDITION_NAMES: Final = {
    "light": "the Shadow Track is in the Light",
    "dark": "the Shadow Track is in the Dark",
    "won": "you won the challenge",
    "lost": "you lost the challenge",
    "final_battle": "in the Final Battle",
    "active_wounded": "the active Creature is wounded",
}
# pending decision kind -> the command kinds that may ever answer it
ANSWER_KINDS: Final[dict[str, tuple[str, ...]]] = {
    "choose_hero": ("choose_hero",),
    "choose_dungeon_lord": ("choose_dungeon_lord",),
    "choose_skill": ("choose_skill",),
    "choose": ("choose",),
    "activate": ("activate",),
    "challenge_roll": ("challenge_roll",),
    "resolve_symbol": ("resolve_symbol",),
    "window": ("pass", "play", "fortune", "ultimate", "use"),
    "discard": ("discard",),
    "take_token": ("take_token",),
    "take_card": ("take_card",),
    "equip": ("equip", "decline"),
    "upgrade": ("upgrade", "done"),
    "buy": ("buy", "done"),
    "target": ("target",),
    "pick_die": ("reroll", "cancel", "done"),
    "lose_equipment": ("lose_equipment",),
}

Explainer = Callable[[State, str, Args, Args, str], "str | None"]


# --- public entry points ------------------------------------------------------------------
def not_your_turn(pending: Mapping[str, Any]) -> str:
    """Return the reason for a command from a seat the game is not waiting for."""
    seat, kind = pending["seat"], pending["kind"]
    who = SEAT_NAMES.get(seat, seat)
    where = _window_suffix(pending)
    if seat == CHANCE:
        return (
            f"not your turn: the game waits for chance (waiting for {seat}) while the server "
            f"rolls dice or shuffles; retry shortly"
        )
    return f"not your turn: the game waits for {who} to answer {kind!r}{where} (waiting for {seat})"


def why_not(state: State, command: Command, pending: Mapping[str, Any]) -> str | None:
    """Return why a seat's well-formed command is not a legal answer now (None: unknown)."""
    kind, pkind = command.kind, pending["kind"]
    data: Args = dict(pending["data"])
    args: Args = dict(command.args)
    answers = ANSWER_KINDS.get(pkind)
    if answers is None:
        return None
    if kind not in answers:
        legal = sorted({k for k, _ in static_or_dynamic(state, dict(pending))})
        return (
            f"{kind!r} does not answer the pending {pkind!r} decision"
            f"{_window_suffix(pending)}; answer with {' or '.join(legal)}"
        )
    explainer = EXPLAINERS.get(pkind)
    return explainer(state, command.seat, data, args, kind) if explainer else None


# --- helpers -------------------------------------------------------------------------------
def _window_suffix(pending: Mapping[str, Any]) -> str:
    if pending["kind"] != "window":
        return ""
    name = pending["data"].get("name", "")
    return f" in the {WINDOW_NAMES.get(name, name)!r} window ({name})"


def _cards() -> Mapping[str, Card]:
    return catalog().cards


def _label(cid: str) -> str:
    c = _cards().get(cid)
    return f"{cid} ({c['name']})" if c and c.get("name") else cid


def _one_of(values: list[str]) -> str:
    return ", ".join(values) if values else "(nothing)"


def _options(data: Args, kind: str, key: str) -> list[Any]:
    return [a[key] for k, a in data.get("options", ()) if k == kind]


def _slot_problem(state: State, slot: int) -> str | None:
    if slot not in dv.SLOTS:
        return f"there is no Creature slot {slot}; slots are 0 to {dv.SLOTS[-1]}"
    if dv.creature_in(state, slot) is None:
        return f"slot {slot} has no live Creature"
    return None


def _fortune_problem(state: State, seat: str, n: int) -> str | None:
    limit = dv.fortune_limit(state, seat)
    have = state.count(f"fortune.{seat}")
    if n < 0:
        return f"Fortune dice can't be negative ({n})"
    if n > limit:
        return f"you may spend at most {limit} Fortune on dice, not {n}"
    if n > have:
        return f"you have {have} Fortune, not {n}"
    return None


def _ultimate_problem(state: State, seat: str) -> str | None:
    if state.var(f"ch.ult_used.{seat}"):
        return "you already used your Ultimate in this challenge"
    need, have = dv.charge_slots(state, seat), state.count(f"charges.{seat}")
    if have < need:
        return f"your Ultimate is not charged: it needs {need} Charges and you have {have}"
    return None


def _own_roll_window(seat: str) -> str:
    name = next(n for n, s in ROLL_WINDOWS.items() if s == seat)
    return f"{WINDOW_NAMES[name]!r} window ({name})"


# --- per decision kind ------------------------------------------------------------------------
def _choose_character(state: State, seat: str, data: Args, args: Args, kind: str) -> str:
    want = args["character"]
    options = [str(x) for x in _options(data, kind, "character")]
    side = "Hero" if kind == "choose_hero" else "Dungeon Lord"
    c = _cards().get(want)
    if c and c["type"] in ("hero", "dungeon_lord"):
        is_side = "Hero" if c["type"] == "hero" else "Dungeon Lord"
        return f"{want!r} is a {is_side}, not a {side}; choose one of {_one_of(options)}"
    return f"unknown character {want!r}; choose one of {_one_of(options)}"


def _choose_skill(state: State, seat: str, data: Args, args: Args, kind: str) -> str:
    want = args["skill"]
    options = [str(x) for x in _options(data, kind, "skill")]
    c = _cards().get(want)
    if not c or c["type"] != "skill":
        return f"no such skill {want!r}; choose one of {_one_of(options)}"
    return f"{want} is not a starting level I Skill of your Hero; choose one of {_one_of(options)}"


def _choose_path(state: State, seat: str, data: Args, args: Args, kind: str) -> str:
    options = [str(x) for x in _options(data, kind, "choice")]
    return f"{args['choice']!r} is not one of the paths offered now: {_one_of(options)}"


def _activate(state: State, seat: str, data: Args, args: Args, kind: str) -> str | None:
    slot = int(args["slot"])
    problem = _slot_problem(state, slot)
    if problem:
        return problem
    ready = [str(x) for x in _options(data, kind, "slot")]
    cid = dv.creature_in(state, slot)
    if cid in state.exhausted:
        return (
            f"the Creature in slot {slot} ({_label(str(cid))}) is exhausted; "
            f"activate one in slot {' or '.join(ready)}"
        )
    return None


def _challenge_roll(state: State, seat: str, data: Args, args: Args, kind: str) -> str | None:
    problem = _fortune_problem(state, seat, int(args["fortune"]))
    if problem:
        return problem
    if args["ultimate"] and not ultimate_ready(state, seat):
        return _ultimate_problem(state, seat)
    return None


def _resolve_symbol(state: State, seat: str, data: Args, args: Args, kind: str) -> str | None:
    i, as_ = int(args["die"]), args["as"]
    if as_ not in ("charge", "wound"):
        return f"'as' must be 'charge' or 'wound', not {as_!r}"
    dice = dv.dice_of(state, seat)
    if not 0 <= i < len(dice):
        return f"you have no die {i}; your dice are 0 to {len(dice) - 1}"
    colour, face, cancelled, resolved = dice[i]
    sym = dv.face_symbol(colour, face)
    if cancelled:
        return f"your die {i} is cancelled"
    if sym is None:
        return f"your die {i} ({colour}, {face}) shows no symbol"
    if resolved:
        return f"the symbol of your die {i} is already gained"
    if sym != "charge_or_wound" and sym != as_:
        return f"your die {i} shows a {sym.capitalize()}, so it can only be gained as {sym!r}"
    return None


def _play(state: State, seat: str, name: str, cid: str) -> str | None:
    if cid not in state.zone(f"{seat}.hand"):
        return f"card {cid} is not in your hand"
    c = _cards()[cid]
    timing = str(c.get("timing", ""))
    label = _label(cid)
    if not timing_fits(state, seat, timing, name):
        when = TIMING_NAMES.get(timing, timing)
        if name == "after_result" and timing in ("after_win", "after_lose"):
            result = "won" if state.var("ch.winner") == seat else "lost"
            return f"{label} is played {when!r}, and you {result} this challenge"
        return (
            f"{label} is played {when!r}, not in the "
            f"{WINDOW_NAMES.get(name, name)!r} window ({name})"
        )
    cost, have = dv.power_cost(state, seat, cid), state.count(f"fortune.{seat}")
    if cost > have:
        side = "Light" if dv.is_light(state) else "Dark"
        return f"{label} costs {cost} Fortune ({side}) and you have {have}"
    need = c.get("requires")
    if need is not None and not holds(state, seat, need):
        return f"{label} can be played only when {CONDITION_NAMES.get(need, need)}"
    return None


def _use(state: State, seat: str, name: str, cid: str, i: int) -> str | None:
    if seat != HERO:
        return "the Dungeon Lord has no Equipment or Skill abilities; play cards with 'play'"
    in_gear, in_skills = cid in state.zone("hero.equipment"), cid in state.zone("hero.skills")
    if not (in_gear or in_skills):
        return f"{cid} is not an Equipment or Skill card you have in play"
    c = _cards()[cid]
    label = _label(cid)
    abilities = list(c.get("abilities", ()))
    if not 0 <= i < len(abilities):
        return f"{label} has no ability {i} ({len(abilities)} abilities)"
    ab = abilities[i]
    timing = str(ab["timing"])
    if not timing_fits(state, seat, timing, name):
        return (
            f"ability {i} of {label} is used {TIMING_NAMES.get(timing, timing)!r}, not in the "
            f"{WINDOW_NAMES.get(name, name)!r} window ({name})"
        )
    if in_gear and cid in state.exhausted:
        return f"{label} is exhausted"
    if in_skills:
        if f"{cid}#{i}" in state.var("ch.used", []):
            return f"ability {i} of {label} was already used in this challenge"
        need, have = int(ab.get("tokens", 0)), state.count(f"skill_tokens.{c['group']}")
        if have < need:
            return f"ability {i} of {label} needs {need} Skill tokens and you have {have}"
    return None


def _window(state: State, seat: str, data: Args, args: Args, kind: str) -> str | None:
    name = str(data["name"])
    if kind == "play":
        return _play(state, seat, name, args["card"])
    if kind == "use":
        return _use(state, seat, name, args["card"], int(args["ability"]))
    own = ROLL_WINDOWS.get(name) == seat
    here = f"{WINDOW_NAMES.get(name, name)!r} window ({name})"
    if kind == "fortune":
        if not own:
            return (
                f"Fortune dice can be bought only in your own {_own_roll_window(seat)}, "
                f"not in the {here}"
            )
        if state.var(f"ch.fortune_spent.{seat}"):
            return "you already spent Fortune on dice in this challenge (it is spent all at once)"
        n = int(args["n"])
        if n < 1:
            return f"'n' must be at least 1, not {n}"
        return _fortune_problem(state, seat, n)
    if kind == "ultimate":
        if not own:
            return (
                f"your Ultimate can be used only in your own {_own_roll_window(seat)}, "
                f"not in the {here}"
            )
        return _ultimate_problem(state, seat)
    return None


def _hand_card(state: State, seat: str, data: Args, args: Args, kind: str) -> str | None:
    cid = args["card"]
    if cid not in state.zone(f"{seat}.hand"):
        return f"card {cid} is not in your hand"
    return None


def _take_token(state: State, seat: str, data: Args, args: Args, kind: str) -> str:
    drawn = list(state.zone("reward.tokens"))
    return f"Reward token {args['token']} is not among the drawn tokens: {_one_of(drawn)}"


def _take_card(state: State, seat: str, data: Args, args: Args, kind: str) -> str | None:
    if args["card"] in state.zone(str(data.get("zone", ""))):
        return None
    return f"card {args['card']} is not one of the {data.get('reward', '')} cards you may claim"


def _equip(state: State, seat: str, data: Args, args: Args, kind: str) -> str | None:
    new = state.zone("hero.new_treasure")
    if not new:
        return None
    slot = str(_cards()[new[0]]["slot"])
    same = [c for c in state.zone("hero.equipment") if _cards()[c]["slot"] == slot]
    if kind == "decline":
        return "you have no Armor, so the new Armor can't be declined; equip it"
    old = args.get("replace")
    if old is None:
        return (
            f"your {slot} slots are full ({len(same)} of {LIMITS[slot]}); "
            f"equip with 'replace' set to one of {_one_of(same)}, or decline"
        )
    if old not in state.zone("hero.equipment"):
        return f"{old} is not Equipment you have in play"
    return f"{_label(old)} is not a {slot}; the new Treasure replaces one of {_one_of(same)}"


def _upgrade(state: State, seat: str, data: Args, args: Args, kind: str) -> str | None:
    slot = int(args["slot"])
    problem = _slot_problem(state, slot)
    if problem:
        return problem
    cid = str(dv.creature_in(state, slot))
    level = int(_cards()[cid]["level"])
    if level >= 3:
        return f"the Creature in slot {slot} ({_label(cid)}) is already level 3"
    cost, have = level + 1, state.count(f"xp.{DL}")
    if have < cost:
        return (
            f"not enough Experience: upgrading slot {slot} to level {level + 1} "
            f"costs {cost} and you have {have}"
        )
    if not state.zone(f"creature.{level + 1}.deck") and not state.count(
        f"deck.creature.{level + 1}.deck"
    ):
        return f"the level {level + 1} Creature deck is empty"
    return None


def _buy(state: State, seat: str, data: Args, args: Args, kind: str) -> str | None:
    want = args["skill"]
    c = _cards().get(want)
    if not c or c["type"] != "skill":
        return f"no such skill {want!r}"
    hero = state.var("char.hero")
    if c.get("hero") != hero:
        return f"{want} is a Skill of {c.get('hero')}, not of your Hero {hero}"
    owned = {_cards()[s]["group"]: int(_cards()[s]["rank"]) for s in state.zone("hero.skills")}
    rank, group = int(c["rank"]), c["group"]
    if want in state.zone("hero.skills") or rank <= owned.get(group, 0):
        return f"skill already owned: you have the {group} Skill at rank {owned.get(group, 0)}"
    if want not in next_skills(state):
        first = [s for s in next_skills(state) if _cards()[s]["group"] == group]
        return f"Skills are learned in order; buy {_one_of(first)} first"
    cost, have = int(c["cost"]), state.count(f"xp.{HERO}")
    if cost > have:
        return f"not enough Experience: {want} needs {cost}, you have {have}"
    return None


def _target(state: State, seat: str, data: Args, args: Args, kind: str) -> str | None:
    slot = int(args["slot"])
    if data["resume"] == "pick_slot":
        return f"there is no Creature slot {slot}; slots are 0 to {dv.SLOTS[-1]}"
    problem = _slot_problem(state, slot)
    if problem:
        return problem
    cid = dv.creature_in(state, slot)
    then = data.get("then")
    if then == "refresh" and cid not in state.exhausted:
        return f"the Creature in slot {slot} is not exhausted, so it can't be refreshed"
    if then == "exhaust" and cid in state.exhausted:
        return f"the Creature in slot {slot} is already exhausted"
    return None


def _pick_die(state: State, seat: str, data: Args, args: Args, kind: str) -> str | None:
    do, whose = str(data["do"]), str(data["whose"])
    if kind != do:
        return f"this decision is to {do} a die, not to {kind} one; answer {do!r} or 'done'"
    i = int(args["die"])
    dice = dv.dice_of(state, whose)
    owner = "your" if whose == seat else f"{SEAT_NAMES.get(whose, whose)}'s"
    if not 0 <= i < len(dice):
        return f"there is no die {i} among {owner} dice (0 to {len(dice) - 1})"
    if dice[i][2]:
        return f"die {i} of {owner} dice is cancelled"
    return None


def _lose_equipment(state: State, seat: str, data: Args, args: Args, kind: str) -> str | None:
    cid = args["card"]
    if cid not in state.zone("hero.equipment"):
        return f"{cid} is not Equipment you have in play"
    if _cards()[cid]["slot"] == "armor":
        return "Armor can't be lost this way; choose a Weapon or Item"
    return None


EXPLAINERS: Final[dict[str, Explainer]] = {
    "choose_hero": _choose_character,
    "choose_dungeon_lord": _choose_character,
    "choose_skill": _choose_skill,
    "choose": _choose_path,
    "activate": _activate,
    "challenge_roll": _challenge_roll,
    "resolve_symbol": _resolve_symbol,
    "window": _window,
    "discard": _hand_card,
    "take_token": _take_token,
    "take_card": _take_card,
    "equip": _equip,
    "upgrade": _upgrade,
    "buy": _buy,
    "target": _target,
    "pick_die": _pick_die,
    "lose_equipment": _lose_equipment,
}
