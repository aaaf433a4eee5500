"""Games and modes as data (modes.yaml): seats, pools, sizes, timers."""

from __future__ import annotations

import importlib.resources
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from services.platform.errors import InvalidArgument

TICKET_TTL_S = 600.0
OPTION_VALUE = (str, int, float, bool)  # CreateGame options are a Struct: plain values only


@dataclass(frozen=True)
class Mode:
    """One queue: where its games run, how many seats, and how quiet seats are handled."""

    game: str
    name: str
    pool: str
    seats: tuple[str, ...]
    min_players: int
    max_players: int
    bots: int = 0
    instant: bool = False
    roles: bool = False
    challenge_option: str = ""  # the CreateGame option the player's challenge level sets
    challenge_levels: tuple[int, ...] = ()  # the levels a player may choose (none: no choice)
    seat_counts: bool = False
    max_party: int = 1
    options: Mapping[str, Any] = field(default_factory=dict)
    turn_timer_s: float = 180.0
    grace_s: float = 60.0
    quiet: str = "forfeit"
    ticket_ttl_s: float = TICKET_TTL_S

    def key(self) -> str:
        """Return the queue key 'game/mode'."""
        return f"{self.game}/{self.name}"

    @property
    def challenge(self) -> bool:
        """Whether a player chooses a challenge level in this mode."""
        return bool(self.challenge_levels)

    def sizes(self) -> list[int]:
        """Return the human player counts a game may have, largest first."""
        return list(range(self.max_players, self.min_players - 1, -1))


def _options(key: str, spec: Mapping[str, Any]) -> tuple[dict[str, Any], str, tuple[int, ...]]:
    """Return a mode's fixed CreateGame options and its challenge option and levels."""
    options = dict(spec.get("options") or {})
    for k, v in options.items():
        if not isinstance(k, str) or not isinstance(v, OPTION_VALUE):
            raise ValueError(f"{key}: options must map names to plain values, not {k!r}: {v!r}")
    challenge = spec.get("challenge") or {}
    if not isinstance(challenge, Mapping):
        raise ValueError(f"{key}: challenge must read {{option: NAME, levels: [..]}}")
    option = str(challenge.get("option", ""))
    levels = tuple(int(n) for n in challenge.get("levels", ()))
    if challenge and (not option or not levels or option in options):
        raise ValueError(f"{key}: challenge needs an option (not a fixed one) and its levels")
    return options, option, levels


def _mode(game: str, name: str, seats: list[str], spec: Mapping[str, Any]) -> Mode:
    lo, hi = spec["players"]
    options, challenge_option, challenge_levels = _options(f"{game}/{name}", spec)
    return Mode(
        game=game,
        name=name,
        pool=str(spec["pool"]),
        seats=tuple(seats),
        min_players=int(lo),
        max_players=int(hi),
        bots=int(spec.get("bots", 0)),
        instant=bool(spec.get("instant", False)),
        roles=bool(spec.get("roles", False)),
        challenge_option=challenge_option,
        challenge_levels=challenge_levels,
        seat_counts=bool(spec.get("seat_counts", False)),
        max_party=int(spec.get("max_party", 1)),
        options=options,
        turn_timer_s=float(spec.get("turn_timer_s", 180)),
        grace_s=float(spec.get("grace_s", 60)),
        quiet=str(spec.get("quiet", "forfeit")),
        ticket_ttl_s=float(spec.get("ticket_ttl_s", TICKET_TTL_S)),
    )


def parse_modes(doc: Mapping[str, Any]) -> dict[str, Mode]:
    """Return modes by 'game/mode' key from a modes.yaml document."""
    out: dict[str, Mode] = {}
    for game, gspec in doc.items():
        for name, spec in gspec["modes"].items():
            m = _mode(game, name, list(gspec["seats"]), spec)
            if m.max_players + m.bots > len(m.seats) or m.min_players < 1:
                raise ValueError(f"{m.key()}: players and bots must fit the {len(m.seats)} seats")
            if m.quiet not in ("forfeit", "takeover"):
                raise ValueError(f"{m.key()}: quiet must be forfeit or takeover")
            out[m.key()] = m
    return out


def load_modes(text: str | None = None) -> dict[str, Mode]:
    """Return the modes of text (YAML), or of the packaged modes.yaml."""
    if text is None:
        text = (importlib.resources.files("services.matchmaking") / "modes.yaml").read_text()
    return parse_modes(yaml.safe_load(text))


def find_mode(modes: Mapping[str, Mode], game: str, mode: str) -> Mode:
    """Return the mode of game, or raise InvalidArgument naming the bad field."""
    games = sorted({m.game for m in modes.values()})
    if not game:
        raise InvalidArgument("game", f"is required; one of {games}")
    if game not in games:
        raise InvalidArgument("game", f"unknown game {game[:32]!r}; one of {games}")
    names = sorted(m.name for m in modes.values() if m.game == game)
    if not mode:
        raise InvalidArgument("mode", f"is required; {game} has {names}")
    found = modes.get(f"{game}/{mode}")
    if found is None:
        raise InvalidArgument("mode", f"unknown mode {mode[:32]!r} of {game}; one of {names}")
    return found
