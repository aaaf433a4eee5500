"""Character and Spoils special abilities (card data 2): which act now, and on whom.

docs/games/land.md 9.1. An ability acts while its card is in the party: a crowned Character
or a Spoils card equipped on one. `per: turn` or `per: game` is counted per physical card
(var `abilities_used`: card -> the turn it was used). In a solo variant an ability that needs
another player is converted as the Solo Variant Overview's examples show (register 31): the
targets it may name here are the solo ones (`bank`, a Neutral or Opposing Faction's town).
"""

from __future__ import annotations

from typing import Any

from services.rules.engine.state import State
from services.rules.land.data import card, card_data_of, factions
from services.rules.land.flow import Args
from services.rules.land.hexmap import Hex, hex_steps
from services.rules.land.party import CROWNS
from services.rules.land.setup import is_solo
from services.rules.land.state import (
    NO_TOWN,
    game_options,
    neutral_factions,
    neutral_id,
    opposing_factions,
    own_town,
    party,
    players,
    pos,
)

ABILITY_SINCE = 2  # card data 2: the special abilities printed on the cards act
USED = "abilities_used"
BANK = "bank"  # the solo target of a steal of Salvage Coins: "the Bank pays the player"
PVP_PARTIES = "pvp_parties"  # Solo II option 2 (pvp_party_flow.PARTIES)


def live(state: State) -> bool:
    """Return whether the game's card data lets special abilities act (version 2 on)."""
    return card_data_of(game_options(state)) >= ABILITY_SINCE


def ability_of(c: str) -> dict[str, Any] | None:
    """Return a card's special ability, if it has one."""
    ability = card(c).get("ability")
    return dict(ability) if ability else None


def holders(state: State, seat: str) -> list[str]:
    """Return the seat's cards in the party: each crowned Character, then its equipment."""
    out: list[str] = []
    for k in CROWNS:
        out += state.zone(f"crown.{seat}.{k}")
        if state.zone(f"crown.{seat}.{k}"):
            out += state.zone(f"gear.{seat}.{k}")
    return out


def spent(state: State, c: str) -> bool:
    """Return whether a card's ability was used this turn (per turn) or ever (per game)."""
    used = dict(state.var(USED, {}) or {})
    if c not in used:
        return False
    ability = ability_of(c) or {}
    return ability.get("per") == "game" or int(used[c]) == state.count("turn")


def usable(state: State, seat: str, timings: tuple[str, ...]) -> list[str]:
    """Return the seat's cards whose ability of one of these timings may act now."""
    if not live(state) or seat not in players(state):
        return []  # a Solo II PVP Party (`of<N>`) uses none: its policy is to attack
    out = []
    for c in holders(state, seat):
        ability = ability_of(c)
        if ability and ability["timing"] in timings and not spent(state, c):
            out.append(c)
    return out


def use_options(state: State, seat: str, timings: tuple[str, ...]) -> list[tuple[str, Args]]:
    """Return the `use` commands for the seat's abilities of these timings, with targets."""
    opts: list[tuple[str, Args]] = []
    for c in usable(state, seat, timings):
        for t in targets(state, seat, c):
            opts.append(("use", {"card": c, "target": t} if t else {"card": c}))
    return opts


def ignorer(state: State, seat: str) -> str | None:
    """Return the seat's card that may ignore an Action card played on it, if any."""
    found = usable(state, seat, ("played_on",))
    return found[0] if found else None


def _solo(state: State) -> bool:
    return is_solo(game_options(state))


def _close(state: State, seat: str, at: Hex, within: int | None) -> bool:
    if at == NO_TOWN:
        return False
    return within is None or hex_steps(pos(state, seat), at, within) is not None


def targets(state: State, seat: str, c: str) -> list[str]:
    """Return whom the ability may name now ("" when it names no one; [] when it cannot act)."""
    ability = ability_of(c) or {}
    effects = list(ability.get("effects", []))
    others = [o for o in players(state) if o != seat]
    if any("look_at_hands" in e for e in effects):
        if _solo(state):  # "1 Action card per Opposing Faction": none in Solo I
            return [""] if opposing_factions(state) else []
        return [""] if any(state.zone(f"hand.{o}") for o in others) else []
    steal = next((e["steal"] for e in effects if "steal" in e), None)
    if steal is None:
        return [""]
    near = ability.get("near")
    if steal["what"] == "salvage" and near is None:
        return [BANK] if _solo(state) else others  # "In this example, the Bank pays the player."
    within = int(near["within"]) if near else None
    kinds = tuple(near["of"]) if near else ("party", "town")
    out: list[str] = []
    if "party" in kinds and steal["what"] != "character":
        out += [p for p in _parties(state, seat) if _close(state, seat, pos(state, p), within)]
    if "town" in kinds:
        out += [
            t for t, at in _towns(state, seat, steal["what"]) if _close(state, seat, at, within)
        ]
    return out


def _parties(state: State, seat: str) -> list[str]:
    """Return the other parties with Spoils to lose: other seats', and Solo II PVP Parties."""
    keys = [o for o in players(state) if o != seat]
    keys += [f"of{int(f)}" for f in state.var(PVP_PARTIES, []) or []]
    out = []
    for k in keys:
        p = party(state, k)
        if any(m.gear for m in p.crowns.values()) or state.zone(f"load.{k}"):
            out.append(k)
    return out


def _towns(state: State, seat: str, what: str) -> list[tuple[str, Hex]]:
    """Return the towns the seat may steal from, each as (target key, hex).

    Another seat's town needs the card to take (its Auction House or Town Roster); in a solo
    variant a Neutral Faction's or an Opposing Faction's town gives a card of the deck."""
    if _solo(state):
        factions_there = [(neutral_id(f), f) for f in neutral_factions(state)]
        factions_there += [(f"of{f}", f) for f in opposing_factions(state)]
        return [(f"town.{k}", _hex(factions()[f]["at"])) for k, f in sorted(factions_there)]
    zone = "roster" if what == "character" else "auction"
    return [
        (f"town.{o}", own_town(state, o))
        for o in players(state)
        if o != seat and state.zone(f"{zone}.{o}")
    ]


def _hex(xy: list[int]) -> Hex:
    return (int(xy[0]), int(xy[1]))
