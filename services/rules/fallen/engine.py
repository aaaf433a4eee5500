"""The Fallen engine: the kernel's decide/legality plus Fallen's setup, views and outcome."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from services.platform.errors import InvalidArgument
from services.rules.engine.api import Command, Event, Setup, command_list
from services.rules.engine.engine import KernelRules
from services.rules.engine.flow import Args

# Importing the rule modules registers their tasks, answers and option functions.
from services.rules.fallen import (  # noqa: F401
    challenge,
    creatures,
    decks,
    effects,
    equipment,
    explain,
    final_battle,
    resources,
    rewards,
    rolls,
    skills,
    story,
    triggers,
    windows,
    wounds,
)
from services.rules.fallen import setup as setup_mod
from services.rules.fallen.cards import FIRST, LATEST, VERSIONS, catalog, data_version, using
from services.rules.fallen.flow import RECORD_FORMAT, REGISTRY, Ctx
from services.rules.fallen.state import SEATS, State, dumps
from services.rules.fallen.view import build_view

# kind -> {field: type}; a trailing "?" marks an optional field.
SCHEMAS: Final[dict[str, dict[str, type]]] = {
    "choose_hero": {"character": str},
    "choose_dungeon_lord": {"character": str},
    "choose_skill": {"skill": str},
    "choose": {"choice": str},
    "activate": {"slot": int},
    "challenge_roll": {"fortune": int, "ultimate": bool},
    "resolve_symbol": {"die": int, "as": str},
    "pass": {},
    "play": {"card": str},
    "fortune": {"n": int},
    "ultimate": {},
    "use": {"card": str, "ability": int},
    "discard": {"card": str},
    "take_token": {"token": str},
    "take_card": {"card": str},
    "equip": {"replace?": str},
    "decline": {},
    "upgrade": {"slot": int},
    "done": {},
    "buy": {"skill": str},
    "target": {"slot": int},
    "reroll": {"die": int},
    "cancel": {"die": int},
    "lose_equipment": {"card": str},
}


def _refusal(state: State, command: Command, pending: dict[str, Any]) -> str:
    """Return the message refusing a command that is not a legal answer now."""
    generic = (
        f"{command.kind} {dumps(dict(command.args))} is not a legal answer to "
        f"{pending['kind']!r} now; ask legal_commands"
    )
    try:
        reason = explain.why_not(state, command, pending)
    except (KeyError, IndexError, TypeError, ValueError):  # an explainer gap: keep the generic
        reason = None
    if not reason:
        return generic
    return f"{reason} (not a legal answer to {pending['kind']!r} now; ask legal_commands)"


CARD_DATA: Final = "card_data"


def _version_option(options: Mapping[str, Any], key: str, known: tuple[int, ...], what: str) -> int:
    """Return a version a game's options name (absent: 1), refusing one not in known."""
    value = options.get(key, 1)
    if isinstance(value, float) and value.is_integer():  # protobuf Struct numbers
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or value not in known:
        raise InvalidArgument(
            f"options.{key}", f"unknown Fallen {what} {str(value)[:20]!r}; known: {list(known)}"
        )
    return value


def card_data_of(options: Mapping[str, Any]) -> int:
    """Return the card-data version a game's options name (absent: the original, 1)."""
    return _version_option(options, CARD_DATA, VERSIONS, "card-data version")


# the options a Fallen game takes: its data versions and the bots pool's settings
KNOWN_OPTIONS: Final = (
    CARD_DATA,
    RECORD_FORMAT,
    "bots",
    "bot_policy",
    "bot_policies",
    "bot_seed",
)
RECORD_FORMATS: Final = (1, 2)
NEWEST_RECORD: Final = 2


def record_format_of(options: Mapping[str, Any]) -> int:
    """Return the record format a game's options name (absent: 1, the format before it)."""
    return _version_option(options, RECORD_FORMAT, RECORD_FORMATS, "record format")


def version_of(state: State) -> int:
    """Return the card-data version a game was created with (recorded in its vars)."""
    return int(state.vars.get(CARD_DATA, FIRST))


class FallenRules(KernelRules):
    """Fallen: Hero vs Dungeon Lord, as a pure engine on the shared kernel."""

    game = "fallen"
    seats = SEATS
    registry = REGISTRY
    schemas = SCHEMAS

    def refusal(self, state: State, command: Command, pending: dict[str, Any]) -> str:
        """Return why a command is not a legal answer now (explain.py, else generic)."""
        return _refusal(state, command, pending)

    def new_game_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """Return a new game's options with the card-data version pinned (newest by default);
        an option Fallen does not know is INVALID_ARGUMENT naming it."""
        unknown = sorted(str(k) for k in options if k not in KNOWN_OPTIONS)
        if unknown:
            raise InvalidArgument(
                f"options.{unknown[0][:40]}", f"unknown option; known: {KNOWN_OPTIONS}"
            )
        pinned = dict(options)
        pinned[CARD_DATA] = card_data_of({CARD_DATA: LATEST, **options})
        pinned[RECORD_FORMAT] = record_format_of({RECORD_FORMAT: NEWEST_RECORD, **options})
        return pinned

    def step(self, state: State, command: Command) -> tuple[list[Event], State]:
        """Decide with the game's own card-data version."""
        # the game's version already active (most games use the newest data): version_of's
        # check without its int(), which only the other branch needs
        if state.vars.get(CARD_DATA, FIRST) == data_version():
            return KernelRules.step(self, state, command)  # super().step, without its proxy
        with using(version_of(state)):
            return KernelRules.step(self, state, command)

    def answers(self, state: State) -> list[tuple[str, Args]]:
        """List legal answers with the game's own card-data version."""
        memo = self._memo
        if memo is not None and memo[0] is state:
            return memo[1]
        if state.vars.get(CARD_DATA, FIRST) == data_version():  # as in step
            return KernelRules.answers(self, state)  # super().answers, without its proxy
        with using(version_of(state)):
            return KernelRules.answers(self, state)

    def not_your_turn(self, pending: Mapping[str, Any]) -> str:
        """Return the message refusing a seat that is not to act."""
        return explain.not_your_turn(dict(pending))

    def initial_events(self, game_id: str, setup: Setup) -> list[Event]:
        """Return the events creating a game: zones filled, the deck service forming the
        face-down decks, then the first decision."""
        return self._created(game_id, setup, setup_mod.place_initial)

    def older_setups(self, game_id: str, setup: Setup) -> list[list[Event]]:
        """Return the events that created games before the deck service dealt Fallen's
        decks (the engine held their order): the audit replays such games with them."""
        return [self._created(game_id, setup, setup_mod.place_initial_v1)]

    def _created(self, game_id: str, setup: Setup, place: Callable[[Ctx], None]) -> list[Event]:
        if set(setup.seats) != set(SEATS):
            raise InvalidArgument("seats", f"fallen needs exactly the seats {', '.join(SEATS)}")
        version = card_data_of(setup.options)
        record = record_format_of(setup.options)
        with using(version):
            catalog()
            ctx = REGISTRY.ctx(State())
            ctx.emit(
                "game_created",
                {"game_id": game_id, "seats": dict(setup.seats), "options": dict(setup.options)},
            )
            if version != FIRST:  # games of the original data record nothing (old logs)
                ctx.setv(CARD_DATA, version)
            if record != 1:
                ctx.setv(RECORD_FORMAT, record)
            place(ctx)
            ctx.run()
            return ctx.finish()

    def view(self, state: State, seat: str | None) -> dict[str, Any]:
        """Return what a seat (None: a spectator) may see."""
        with using(version_of(state)):
            view = build_view(state, seat)
            if seat is not None:
                legal = self.legal_commands(state, seat)
                view["commands"] = command_list(legal)
                view["legal"] = [[c.kind, dict(c.args)] for c in legal]  # deprecated: commands
            return view

    def outcome(self, state: State) -> dict[str, Any] | None:
        """Return the winner once the game is over."""
        if state.phase != "over":
            return None
        return {
            "winner": state.winner,
            "final_battle": {s: len(state.zone(f"fb.won.{s}")) for s in SEATS},
            "conclusion": state.var("conclusion"),
        }


RULES: Final = FallenRules()
