"""The card vocabulary: types, sub-types, factions, keywords, effect primitives and targets."""

from __future__ import annotations

FACTIONS = ("daemons", "felidites", "night_stalkers", "reptilians", "draga", "keebo", "uea")
TYPES = ("creature", "event", "scenario", "attachment")
SUBTYPES = ("spell", "psionic", "skill", "armour", "weapon", "artefact")
STATS = ("dmg", "atk", "def", "hp")

# Keywords and what they expand to (see docs/games/worlds.md, "Keywords").
FLAG_KEYWORDS = ("frenzy", "swift", "beast", "regenerate")
VALUE_KEYWORDS = ("guard", "heal")
KEYWORDS = FLAG_KEYWORDS + VALUE_KEYWORDS

# Attachment sub-types a Beast cannot carry.
BEAST_FORBIDS = ("weapon", "armour", "artefact")

# Effect primitives and the arguments each one takes.
PRIMITIVES: dict[str, tuple[str, ...]] = {
    "deal_damage": ("n", "target"),
    "heal": ("n", "target"),
    "modify": ("target", "dmg", "atk", "def", "hp", "until"),
    "draw": ("n",),
    "gain_resources": ("n",),
    "capital": ("n", "seat"),
    "destroy": ("target",),
    "lock": ("target",),
}

# Targets: single targets are chosen by the player who plays the card; "all_*" need no choice.
SINGLE_TARGETS = ("enemy_creature", "own_creature", "any_creature", "enemy_scenario", "bearer")
GROUP_TARGETS = ("all_enemy_creatures", "all_own_creatures", "all_creatures")
TARGETS = SINGLE_TARGETS + GROUP_TARGETS
SEATS = ("self", "opponent")
DURATIONS = ("turn", "permanent")

# Phases, in order (the rulebook's Order of Play).
PHASES = ("resources", "healing", "draw", "deploy", "combat", "resolution")
