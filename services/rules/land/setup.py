"""Setup numbers per player count (core and Epic) and the setup rolls."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from services.rules.land.data import CARD_DATA_VERSIONS, economy

OPTION_KEYS = (
    "short_game",
    "max_turns",
    "variant",
    "harsh_reality",
    "harsh_modifier_1",
    "harsh_modifier_2",
    "gods_hammer",
    "ronin",
    "challenge",
    "pvp_option",
    "record_format",
    "card_data",
    "faction",
    "opposing_factions",
)
RECORD_FORMATS = (1, 2)  # 2: facts only (kernel README, "compact engines"); absent: 1
NEWEST_RECORD = 2
HARSH_KEYS = ("harsh_reality", "harsh_modifier_1", "harsh_modifier_2")
VARIANTS = ("standard", "solo1", "solo2")
SOLO_VARIANTS = ("solo1", "solo2")
CHALLENGES = (1, 2, 3, 4)  # Solo Variant II: 1-4 opposing factions
PVP_OPTIONS = (1, 2)  # Solo Variant II PVP Options


@dataclass(frozen=True)
class SetupNumbers:
    """What each player is dealt and what the Bank holds, for one player count."""

    players: int
    characters: int
    crowned: int
    roster: int
    spoils: int
    action: int
    salvage: int
    hand_limit: int
    tech_stock: int | None  # per Town Technology type for sale; None = unlimited
    defense_supply: int | None  # Town Defense chips in the Bank; None = unlimited
    town_health: int
    prestige: int


def is_epic(players: int) -> bool:
    """Return whether a game of this many players is the Epic game."""
    return players == 6


def is_solo(options: Mapping[str, Any] | None) -> bool:
    """Return whether the options choose a solo variant (one player)."""
    return bool(options) and (options or {}).get("variant") in SOLO_VARIANTS


def seat_range(options: Mapping[str, Any] | None) -> tuple[int, int]:
    """Return the (least, most) players the options allow: 1 for solo, else 2-6."""
    return (1, 1) if is_solo(options) else (2, 6)


def setup_numbers(players: int, options: Mapping[str, Any] | None = None) -> SetupNumbers:
    """Return the setup numbers: 2-5 players per the core game, 6 Epic, 1 per a solo variant."""
    low, high = seat_range(options)
    if not low <= players <= high:
        raise ValueError(f"Fallen Land is played by {low}-{high} players here, not {players}")
    eco = economy()
    epic = is_epic(players)
    key = (options or {}).get("variant") if is_solo(options) else "epic" if epic else "standard"
    row = dict(eco["setup"][key])
    harsh = bool((options or {}).get("harsh_reality"))
    if harsh and (options or {}).get("harsh_modifier_2"):
        row.update(eco["harsh_modifier_2"])
    return SetupNumbers(
        players=players,
        characters=int(row["characters"]),
        crowned=int(row["crowned"]),
        roster=int(row["roster"]),
        spoils=int(row["spoils"]),
        action=int(row["action"]),
        salvage=int(row["salvage"]),
        hand_limit=int(row["hand_limit"]),
        tech_stock=players - 1 if epic or harsh else None,
        defense_supply=int(eco["epic_defense_supply"]) if epic else None,
        town_health=int(eco["start_town_health"]),
        prestige=int(eco["start_prestige"]),
    )


def validate_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """Return the options with defaults, raising ValueError naming a bad key."""
    for key in options:
        if key not in OPTION_KEYS:
            raise ValueError(f"options.{key[:32]}: unknown option")
    out = {"short_game": False, "max_turns": None, "variant": "standard"}
    out.update(options)
    if not isinstance(out["short_game"], bool):
        raise ValueError("options.short_game: must be true or false")
    mt = out["max_turns"]
    if mt is not None and (not isinstance(mt, int) or isinstance(mt, bool) or mt < 1):
        raise ValueError("options.max_turns: must be a positive integer or null")
    if out["variant"] not in VARIANTS:
        raise ValueError(f"options.variant: must be one of {', '.join(VARIANTS)}")
    for key in HARSH_KEYS:
        if not isinstance(out.get(key, False), bool):
            raise ValueError(f"options.{key}: must be true or false")
    for key in HARSH_KEYS[1:]:
        if out.get(key) and not out.get("harsh_reality"):
            raise ValueError(f"options.{key}: needs harsh_reality")
    if out.get("harsh_reality") and is_solo(out):
        raise ValueError("options.harsh_reality: an optional rule for 2-6 players, not solo")
    if not isinstance(out.get("gods_hammer", False), bool):
        raise ValueError("options.gods_hammer: must be true or false")
    if out.get("gods_hammer") and is_solo(out):
        raise ValueError("options.gods_hammer: an optional rule for 2-6 players, not solo")
    _validate_solo2(out)
    fmt = out.get("record_format", 1)
    if isinstance(fmt, bool) or fmt not in RECORD_FORMATS:
        raise ValueError(f"options.record_format: must be one of {list(RECORD_FORMATS)}")
    data = out.get("card_data", 1)  # absent: the original card data (games made before it)
    if isinstance(data, bool) or data not in CARD_DATA_VERSIONS:
        raise ValueError(f"options.card_data: must be one of {list(CARD_DATA_VERSIONS)}")
    _validate_selection(out)
    if not isinstance(out.get("ronin", False), bool):
        raise ValueError("options.ronin: must be true or false")
    if out.get("ronin") and is_solo(out):
        raise ValueError("options.ronin: an optional rule for 2-6 players, not solo")
    return out


def is_solo2(options: Mapping[str, Any] | None) -> bool:
    """Return whether the options choose Solo Variant II."""
    return bool(options) and (options or {}).get("variant") == "solo2"


def _validate_solo2(out: dict[str, Any]) -> None:
    """Check challenge / pvp_option: Solo Variant II only, challenge required, both bounded."""
    if out["variant"] != "solo2":
        for key in ("challenge", "pvp_option"):
            if out.get(key) is not None:
                raise ValueError(f"options.{key}: only with variant solo2")
        return
    level = out.get("challenge")
    if isinstance(level, bool) or level not in CHALLENGES:
        raise ValueError("options.challenge: solo2 needs a challenge level 1, 2, 3 or 4")
    pvp = out.setdefault("pvp_option", 1)
    if isinstance(pvp, bool) or pvp not in PVP_OPTIONS:
        raise ValueError("options.pvp_option: must be 1 or 2")


def _validate_selection(out: dict[str, Any]) -> None:
    """Check `faction` (solo: "Select a Faction or roll 1d10") and `opposing_factions` (Solo
    II: "Then randomly roll or select your Opposing Factions"); absent, they are rolled."""
    rolls = range(1, 11)
    chosen = out.get("faction")
    if chosen is not None:
        if not is_solo(out):
            raise ValueError("options.faction: only with variant solo1 or solo2 (others roll)")
        if isinstance(chosen, bool) or chosen not in rolls:
            raise ValueError("options.faction: a faction number 1-10 (the map's chart)")
    opp = out.get("opposing_factions")
    if opp is None:
        return
    if out["variant"] != "solo2":
        raise ValueError("options.opposing_factions: only with variant solo2")
    if not isinstance(opp, list) or len(opp) != out["challenge"]:
        raise ValueError(
            f"options.opposing_factions: a list of {out['challenge']} faction numbers"
            " (one per opposing faction of the challenge)"
        )
    if any(isinstance(f, bool) or f not in rolls for f in opp) or len(set(opp)) != len(opp):
        raise ValueError("options.opposing_factions: distinct faction numbers 1-10")
    if chosen is not None and chosen in opp:
        raise ValueError("options.opposing_factions: must not include the player's faction")


def accept_unique(taken: Sequence[int], roll: int) -> bool:
    """Return whether a roll is kept (a duplicate of an earlier one is re-rolled)."""
    return roll not in taken


def first_player(rolls: Mapping[str, int]) -> str | None:
    """Return the seat with the lowest d10, or None when the lowest is tied (they re-roll)."""
    low = min(rolls.values())
    tied = [s for s, r in rolls.items() if r == low]
    return tied[0] if len(tied) == 1 else None


def reroll_seats(rolls: Mapping[str, int]) -> list[str]:
    """Return the seats that re-roll for first player: those tied on the lowest roll."""
    low = min(rolls.values())
    tied = [s for s, r in rolls.items() if r == low]
    return tied if len(tied) > 1 else []
