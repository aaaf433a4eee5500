"""Decision keys: the name of the game decision a chance draw answers (docs/fairness.md).

A key is ``game-<id>@<version>``: the game stream and the version at which the engine
asked for chance. One decision that needs several draws names them ``...@<version>/<part>``.
The dice and deck services answer a repeated key with the draw recorded for it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from services.platform.errors import InvalidArgument

KEY_RE = re.compile(r"^game-([A-Za-z0-9_.:-]{1,64})@(\d{1,12})(?:/([A-Za-z0-9_.:-]{1,64}))?$")
MAX_KEY = 160


@dataclass(frozen=True)
class DecisionKey:
    """A parsed key: the game, the version at which chance was asked, and the part."""

    game_id: str
    version: int
    part: str = ""

    def __str__(self) -> str:
        base = f"game-{self.game_id}@{self.version}"
        return f"{base}/{self.part}" if self.part else base


def decision_key(game_id: str, version: int, part: str = "") -> str:
    """Return the key of the decision pending in a game's stream at version."""
    return str(DecisionKey(game_id, version, part))


def parse_key(key: str) -> DecisionKey | None:
    """Return the parsed key, or None when it is not a decision key."""
    m = KEY_RE.match(key) if len(key) <= MAX_KEY else None
    if m is None:
        return None
    return DecisionKey(m.group(1), int(m.group(2)), m.group(3) or "")


def check_key(key: str, game_id: str, field: str = "key") -> str:
    """Return key if empty or a decision key of game_id, else raise InvalidArgument."""
    if not key:
        return key
    parsed = parse_key(key)
    if parsed is None:
        raise InvalidArgument(field, "must look like 'game-<id>@<version>[/<part>]'")
    if parsed.game_id != game_id:
        raise InvalidArgument(field, f"names another game than {game_id!r}")
    return key
