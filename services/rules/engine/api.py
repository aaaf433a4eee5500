"""The pure engine contract: decide / evolve / legal_commands / view / outcome.

An engine never does I/O, never reads a clock and never draws randomness. When
the rules need chance (dice, a shuffle, or a face-down deck), the pending decision
belongs to the CHANCE seat with a ChanceRequest; the rules runner answers it through
the dice service (DicePort) or the deck service (DeckPort) and
submits the answer as chance's command, so the result is recorded in the events
and a replay needs no dice at all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

CHANCE: Final = "chance"
PUBLIC: Final = "public"
NOBODY: Final = "nobody"


@dataclass(frozen=True)
class Event:
    """A rules event: type, JSON-ready payload and who may see it.

    visibility is "public", "nobody" (audit only) or a tuple of seats. schema_version
    is the payload's version for this type; bump it (and add an upcaster) on a breaking
    change, so old logs still replay.
    """

    type: str
    data: Mapping[str, Any]
    visibility: str | tuple[str, ...] = PUBLIC
    schema_version: int = 1


@dataclass(frozen=True)
class Command:
    """A seat's answer to the pending decision: kind plus JSON-ready arguments."""

    seat: str
    kind: str
    args: Mapping[str, Any] = field(default_factory=dict)


def command(seat: str, kind: str, args: Mapping[str, Any]) -> Command:
    """Return Command(seat, kind, args), built without the frozen dataclass's slow __init__
    (the same value: equal, hashed and printed alike)."""
    cmd = object.__new__(Command)
    cmd.__dict__.update(seat=seat, kind=kind, args=args)
    return cmd


def command_list(commands: Sequence[Command]) -> list[dict[str, Any]]:
    """Return commands as a view lists them: ``[{"kind": ..., "args": {...}}, ...]``, the
    one shape of a legal command everywhere (ListLegalCommands, next_turn, views)."""
    return [{"kind": c.kind, "args": dict(c.args)} for c in commands]


# Deck request kinds and the kind of chance's answer to each (docs/deck.md).
DECK_ANSWERS: Final[Mapping[str, str]] = {
    "deck_form": "deck_formed",
    "deck_draw": "deck_drawn",
    "deck_put": "deck_put",
    "deck_search": "deck_searched",
    "deck_shuffle": "deck_shuffled",
    "deck_move": "deck_moved",
}
DECK_KINDS: Final = frozenset(DECK_ANSWERS)


@dataclass(frozen=True)
class ChanceRequest:
    """What chance must produce: dice, a permutation, or a deck operation.

    kind "roll": dice = kinds to roll (names from services/dice/kinds.yaml);
    chance answers Command(CHANCE, "roll", {"faces": [...], "nonce": n}).
    kind "shuffle": count = n items; chance answers
    Command(CHANCE, "shuffle", {"order": [...], "nonce": n}).

    Deck kinds are answered by the deck service (DeckPort); the engine never holds a
    face-down order, only counts and the cards a seat has seen:
    - "deck_form": deck = zone, cards = ids put face down into it (shuffled if `shuffled`);
      answer "deck_formed" {"deck", "count"}.
    - "deck_draw": take `count` cards from the top; visible_to = seats that see them;
      answer "deck_drawn" {"deck", "cards": [...]}.
    - "deck_put": put `cards` back on the "top" or "bottom" (position); answer
      "deck_put" {"deck", "count"}.
    - "deck_search": take up to `count` cards whose id is in `match`; answer
      "deck_searched" {"deck", "cards": [...]}.
    - "deck_shuffle": reshuffle the zone; answer "deck_shuffled" {"deck", "count"}.
    - "deck_move": move the top `count` cards of `deck` face down onto the "top" or
      "bottom" (position) of the deck `to`, unseen; answer "deck_moved" {"deck", "count"}
      (the count left in `deck`).
    """

    kind: str
    purpose: str
    dice: tuple[str, ...] = ()
    count: int = 0
    visible_to: tuple[str, ...] = ()
    deck: str = ""
    cards: tuple[str, ...] = ()
    match: tuple[str, ...] = ()
    position: str = "top"
    shuffled: bool = True
    to: str = ""

    @property
    def answer_kind(self) -> str:
        """Return the kind of chance's answering command."""
        return DECK_ANSWERS.get(self.kind, self.kind)


@dataclass(frozen=True)
class Pending:
    """The decision the game waits for: who acts, what kind, and the chance request."""

    seat: str
    kind: str
    prompt: str = ""
    chance: ChanceRequest | None = None


@dataclass(frozen=True)
class Setup:
    """How a game is created: the seats (seat -> player id) and game options."""

    seats: Mapping[str, str]
    options: Mapping[str, Any] = field(default_factory=dict)


class GameRules(Protocol):
    """One game's pure rules."""

    game: str
    seats: Sequence[str]

    def initial_events(self, game_id: str, setup: Setup) -> list[Event]:
        """Return the events that create a game (raise RuleViolation for bad setup)."""
        ...

    def initial_state(self) -> Any:
        """Return the empty state that the first event is folded into."""
        ...

    def evolve(self, state: Any, event: Event) -> Any:
        """Return the state after one event."""
        ...

    def decide(self, state: Any, command: Command) -> list[Event]:
        """Return the events a command causes; raise RuleViolation if it is illegal."""
        ...

    def pending(self, state: Any) -> Pending | None:
        """Return the decision the game waits for, or None when the game is over."""
        ...

    def legal_commands(self, state: Any, seat: str) -> list[Command]:
        """Return every command the seat may submit now (empty if not its turn)."""
        ...

    def view(self, state: Any, seat: str | None) -> dict[str, Any]:
        """Return what a seat (None = spectator) may see, as JSON-ready data."""
        ...

    def outcome(self, state: Any) -> dict[str, Any] | None:
        """Return the result (winner, scores) once the game is over, else None."""
        ...

    def state_hash(self, state: Any) -> str:
        """Return a SHA-256 hex digest identifying the state (for replay checks)."""
        ...


def seal_options(
    rules: Any, options: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, tuple[str, ...]]]:
    """Return a game's public options and the face-down decks to place in the deck service
    before it starts ({deck: cards}); an engine without a `seal` hook keeps all options."""
    seal = getattr(rules, "seal", None)
    if seal is None:
        return dict(options), {}
    public, decks = seal(dict(options))
    return dict(public), {d: tuple(c) for d, c in decks.items()}
