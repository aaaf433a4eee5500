"""A test driver that plays whole turns with the pure rule steps (no engine, no services).

Chance comes from the fair scheme with a fixed seed; choices come from a hash picker. It
checks the rule functions end to end until the engine on the kernel runs real playouts.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from services.dice import fair
from services.rules.common.api import Event
from services.rules.worlds import bot, choices, steps
from services.rules.worlds.cards import catalog
from services.rules.worlds.decks import build_library
from services.rules.worlds.effects import run
from services.rules.worlds.facts import fact
from services.rules.worlds.table import Table
from services.rules.worlds.turn import RESOURCE_FACES, START_HAND

SEATS = ("p1", "p2")
Option = tuple[str, dict[str, Any]]


@dataclass
class Game:
    """A game in progress: the table, its log and the dealer's face-down libraries."""

    seed: str
    table: Table = field(default_factory=Table)
    log: list[Event] = field(default_factory=list)
    libraries: dict[str, list[str]] = field(default_factory=dict)
    decks: dict[str, tuple[str, ...]] = field(default_factory=dict)
    nonce: int = 0
    step: int = 0
    policies: dict[str, str] = field(default_factory=dict)

    def emit(self, events: list[Event]) -> None:
        """Fold events into the table and keep them."""
        self.table = run(self.table, events)
        self.log += events

    def uniform(self, k: int) -> int:
        """A fair draw in 0..k-1."""
        self.nonce += 1
        draws = fair.Draws(hashlib.sha256(self.seed.encode()).digest(), "t", "", self.nonce)
        return draws.uniform(k)

    def pick(self, options: list[Any]) -> Any:
        """A reproducible choice among options."""
        self.step += 1
        digest = hashlib.sha256(f"{self.seed}:{self.step}".encode()).digest()
        return options[int.from_bytes(digest[:8], "big") % len(options)]

    def draw(self, seat: str, n: int = 1) -> None:
        """The dealer hands over the top n cards (as far as the library goes)."""
        for _ in range(n):
            if not self.libraries[seat]:
                return
            card = self.libraries[seat].pop(0)
            self.emit(steps.drawn(seat, card, len(self.libraries[seat])))

    def choose(self, seat: str, options: list[Option]) -> Option:
        """The seat's policy picks one option ("heuristic" sees only its information set)."""
        if self.policies.get(seat) == "heuristic":
            return options[bot.choose(bot.mask(self.table, seat), seat, options)]
        return self.pick(options)

    @property
    def over(self) -> bool:
        """Has someone won?"""
        return bool(self.table.winner)

    def check_end(self) -> None:
        """Add game_ended when a Capital reached zero."""
        self.emit(steps.ending(self.table))


def start(seed: str, decks: dict[str, str]) -> Game:
    """Form and shuffle both libraries, deal five each."""
    game = Game(seed)
    for seat in SEATS:
        library = list(build_library(decks[seat], catalog()))
        game.decks[seat] = tuple(library)
        nonce = game.uniform(1_000_000)
        draws = fair.Draws(hashlib.sha256(seed.encode()).digest(), "deck", seat, nonce)
        game.libraries[seat] = fair.shuffle(draws, library)
    sizes = [len(game.libraries[s]) for s in SEATS]
    game.emit([fact("game_started", seats=list(SEATS), library_sizes=sizes)])
    for seat in SEATS:
        game.draw(seat, START_HAND)
    return game


def _act(game: Game, seat: str, options: list[Option]) -> bool:
    """Pick one option (or stop); apply it. Return False when the seat chose to stop."""
    kind, args = game.choose(seat, [("done", {}), *options])
    if kind == "done":
        return False
    handler = choices.deploy_events if kind == "deploy" else choices.ability_events
    events, draws = handler(game.table, seat, args)
    game.emit(events)
    game.draw(seat, draws)
    game.check_end()
    return True


def _use_and_deploy(game: Game, seat: str, deploy: bool) -> None:
    while not game.over:
        options = [("use", a) for a in choices.ability_options(game.table, seat)]
        if deploy:
            options += [("deploy", a) for a in choices.deploy_options(game.table, seat)]
        if not _act(game, seat, options):
            return


def _combat(game: Game, seat: str) -> None:
    foe = game.table.board.other(seat)
    game.emit([fact("phase_started", seat=seat, phase="combat")])
    while opts := choices.attack_options(game.table):
        kind, args = game.choose(seat, [("done", {}), *(("attack", o) for o in opts)])
        if kind == "done":
            break
        game.emit([fact("attacker_declared", seat=seat, **args)])
    while opts := choices.block_options(game.table, foe):
        kind, args = game.choose(foe, [("done", {}), *(("block", o) for o in opts)])
        if kind == "done":
            break
        game.emit([fact("defender_lined_up", seat=foe, **args)])
    while opts := choices.order_options(game.table):
        _, args = game.choose(seat, [("order", o) for o in opts])
        game.emit([fact("order_given", seat=seat, **args)])
    _use_and_deploy(game, foe, deploy=False)  # the defender's priority window
    for strike in steps.strike_list(game.table):
        game.emit([steps.strike_fact(game.table, strike, 1 + game.uniform(6))])
    game.emit(steps.raid_facts(game.table))


def play_turn(game: Game, seat: str) -> None:
    """One whole turn for a seat (stops early when the game ends)."""
    game.emit(steps.begin_turn(game.table, seat))
    faces = [RESOURCE_FACES[game.uniform(6)] for _ in range(2)]
    game.emit(steps.resources_phase(game.table, faces))
    game.emit(steps.healing_phase(game.table))
    _use_and_deploy(game, seat, deploy=False)
    if game.libraries[seat]:
        game.draw(seat)
    else:
        game.emit(steps.empty_library_cost(game.table))
    game.check_end()
    if game.over:
        return
    game.emit([fact("phase_started", seat=seat, phase="deploy")])
    _use_and_deploy(game, seat, deploy=True)
    _use_and_deploy(game, game.table.board.other(seat), deploy=False)
    if game.over:
        return
    _combat(game, seat)
    game.emit(steps.resolution_phase(game.table))
    game.check_end()
    for _ in range(steps.discards_owed(game.table)):
        _, args = game.choose(
            seat, [("discard", o) for o in choices.discard_options(game.table, seat)]
        )
        card = args["card"]
        game.emit([fact("card_discarded", seat=seat, card=card)])
    game.emit(steps.end_turn(game.table))


def play(
    seed: str, decks: dict[str, str], policies: dict[str, str] | None = None, max_turns: int = 400
) -> Game:
    """Play a whole game; the first player comes from a fair draw."""
    game = start(seed, decks)
    game.policies = dict(policies or {})
    seat = SEATS[game.uniform(2)]
    for _ in range(max_turns):
        play_turn(game, seat)
        if game.over:
            return game
        seat = game.table.board.other(seat)
    raise AssertionError(f"no winner after {max_turns} turns")
