"""A fast forward model: whole turns played with the pure rule steps (no engine, no services).

Used by the search bot for its rollouts and by rule-level property tests. Chance comes
from the fair scheme (services/dice/fair.py) under the game's seed; choices come from the
seats' policies (random legal choices by a hash picker unless a policy is given).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from services.dice import fair
from services.rules.engine.api import Event
from services.rules.worlds import choices, steps
from services.rules.worlds.cards import catalog
from services.rules.worlds.decks import build_library
from services.rules.worlds.effects import run
from services.rules.worlds.facts import fact
from services.rules.worlds.table import LATEST, Table
from services.rules.worlds.turn import RESOURCE_FACES, START_HAND

SEATS = ("p1", "p2")
Option = tuple[str, dict[str, Any]]
Policy = Callable[["Game", str, list[Option]], int]


@dataclass
class Game:
    """A game in progress: the table, its log and the dealer's face-down libraries."""

    seed: str
    table: Table = field(default_factory=Table)
    log: list[Event] = field(default_factory=list)
    libraries: dict[str, list[str]] = field(default_factory=dict)
    decks: dict[str, tuple[str, ...]] = field(default_factory=dict)
    policies: dict[str, Policy] = field(default_factory=dict)
    nonce: int = 0
    step: int = 0
    record: bool = True

    def emit(self, events: list[Event]) -> None:
        """Fold events into the table (and keep them when recording)."""
        self.table = run(self.table, events)
        if self.record:
            self.log += events

    def uniform(self, k: int) -> int:
        """A fair draw in 0..k-1 from the game's seed."""
        self.nonce += 1
        seed = hashlib.sha256(self.seed.encode()).digest()
        return fair.Draws(seed, "sim", "", self.nonce).uniform(k)

    def pick(self, options: list[Any]) -> Any:
        """A reproducible choice among options (the random legal policy)."""
        self.step += 1
        digest = hashlib.sha256(f"{self.seed}:{self.step}".encode()).digest()
        return options[int.from_bytes(digest[:8], "big") % len(options)]

    def choose(self, seat: str, options: list[Option]) -> Option:
        """The seat's policy picks one option."""
        policy = self.policies.get(seat)
        return options[policy(self, seat, options)] if policy else self.pick(options)

    def draw(self, seat: str, n: int = 1) -> None:
        """The dealer hands over the top n cards (as far as the library goes)."""
        for _ in range(n):
            if not self.libraries[seat]:
                return
            card = self.libraries[seat].pop(0)
            self.emit(steps.drawn(seat, card, len(self.libraries[seat])))

    @property
    def over(self) -> bool:
        """Has someone won?"""
        return bool(self.table.winner)

    def check_end(self) -> None:
        """Add game_ended when a Capital reached zero."""
        self.emit(steps.ending(self.table))


def start(seed: str, decks: Mapping[str, Any]) -> Game:
    """Form and shuffle both libraries (deck options as in CreateGame), deal five each."""
    game = Game(seed)
    for seat in SEATS:
        library = list(build_library(decks[seat], catalog()))
        game.decks[seat] = tuple(library)
        draws = fair.Draws(hashlib.sha256(seed.encode()).digest(), "deck", seat, 0)
        game.libraries[seat] = fair.shuffle(draws, library)
    sizes = [len(game.libraries[s]) for s in SEATS]
    game.emit([fact("game_started", seats=list(SEATS), library_sizes=sizes, rules=LATEST)])
    for seat in SEATS:
        game.draw(seat, START_HAND)
    return game


def act(game: Game, seat: str, option: Option) -> None:
    """Apply one deploy or ability option."""
    kind, args = option
    handler = choices.deploy_events if kind == "deploy" else choices.ability_events
    events, draws = handler(game.table, seat, args)
    game.emit(events)
    game.draw(seat, draws)
    game.check_end()


def action_options(game: Game, seat: str, deploy: bool) -> list[Option]:
    """Abilities (and deploys in the seat's Deploy phase), with "done" first."""
    options: list[Option] = [("done", {})]
    options += [("use", a) for a in choices.ability_options(game.table, seat)]
    if deploy:
        options += [("deploy", a) for a in choices.deploy_options(game.table, seat)]
    return options


def use_and_deploy(game: Game, seat: str, deploy: bool) -> None:
    """The seat acts until it chooses "done" (or the game ends)."""
    while not game.over:
        option = game.choose(seat, action_options(game, seat, deploy))
        if option[0] == "done":
            return
        act(game, seat, option)


def _declare(
    game: Game, seat: str, kind: str, event: str, opts_of: Callable[[], list[Any]]
) -> None:
    while opts := opts_of():
        picked, args = game.choose(seat, [("done", {}), *((kind, o) for o in opts)])
        if picked == "done":
            return
        game.emit([fact(event, seat=seat, **args)])


def combat(game: Game, seat: str) -> None:
    """Phase 5: attackers, defenders, orders, the defender's window, then every roll."""
    foe = game.table.board.other(seat)
    game.emit([fact("phase_started", seat=seat, phase="combat")])
    _declare(game, seat, "attack", "attacker_declared", lambda: choices.attack_options(game.table))
    _declare(
        game, foe, "block", "defender_lined_up", lambda: choices.block_options(game.table, foe)
    )
    while opts := choices.order_options(game.table):
        _, args = game.choose(seat, [("order", o) for o in opts])
        game.emit([fact("order_given", seat=seat, **args)])
    use_and_deploy(game, foe, deploy=False)
    for strike in steps.strike_list(game.table):
        if game.table.board.has(strike.striker) and game.table.board.has(strike.target):
            game.emit([steps.strike_fact(game.table, strike, 1 + game.uniform(6))])
    game.emit(steps.raid_facts(game.table))


def finish_turn(game: Game, seat: str) -> None:
    """From the seat's Deploy phase to the end of its turn."""
    use_and_deploy(game, seat, deploy=True)
    use_and_deploy(game, game.table.board.other(seat), deploy=False)
    if game.over:
        return
    combat(game, seat)
    game.emit(steps.resolution_phase(game.table))
    game.check_end()
    for _ in range(steps.discards_owed(game.table)):
        hand = choices.discard_options(game.table, seat)
        _, args = game.choose(seat, [("discard", o) for o in hand])
        game.emit([fact("card_discarded", seat=seat, card=args["card"])])
    game.emit(steps.end_turn(game.table))


def play_turn(game: Game, seat: str) -> None:
    """One whole turn for a seat (stops early when the game ends)."""
    game.emit(steps.begin_turn(game.table, seat))
    faces = [RESOURCE_FACES[game.uniform(6)] for _ in range(2)]
    game.emit(steps.resources_phase(game.table, faces))
    game.emit(steps.healing_phase(game.table))
    use_and_deploy(game, seat, deploy=game.table.phased)  # healing Events (version 4 on)
    if game.libraries[seat]:
        game.draw(seat)
    else:
        game.emit(steps.empty_library_cost(game.table))
    game.check_end()
    if game.over:
        return
    game.emit([fact("phase_started", seat=seat, phase="deploy")])
    finish_turn(game, seat)


def play(
    seed: str,
    decks: Mapping[str, Any],
    policies: Mapping[str, Policy] | None = None,
    max_turns: int = 400,
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
