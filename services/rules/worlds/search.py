"""The search bot: determinized Monte Carlo over its information set, within a budget.

At each Deploy-phase decision (deploy a card, use an ability, or stop) it samples what it
cannot see — the order of its own library, the opponent's hand and library (drawn from the
opponent's likely starter deck, minus the cards already seen) — plays each candidate, then
rolls out the rest of its turn and the opponent's next turn with a cheap policy on both
sides (the heuristic's combat, deploys by cost), and keeps the candidate with the best mean
board value. Other decisions (attacks, blocks, orders, discards) follow the heuristic.
Everything is seeded, so a bot game replays: the arena uses a fixed rollout budget; a
served bot seat (`ServiceSearch`) has a time budget per decision and records how many
rollouts it made (its accounting), and the same seed with that many rollouts picks the
same option again.
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from services.dice import fair
from services.rules.worlds import bot, tactics
from services.rules.worlds.board import with_side
from services.rules.worlds.cards import FIRST_DATA, catalog, using
from services.rules.worlds.simulate import Game, Option, act, finish_turn, play_turn
from services.rules.worlds.table import Table

VERSION = "worlds-search-2"
DETERMINIZATIONS = 3
MAX_CANDIDATES = 5
MAX_ROLLOUTS = 40  # a served decision's cap: 8 samples of each of 5 candidates
SAFETY = 2.0  # start a rollout only if twice the slowest one so far still fits the budget


@dataclass(frozen=True)
class Budget:
    """A search budget: thinking time per decision (ms) and a cap on rollouts.

    The clock is the CPU time of the deciding thread: what the bot spends thinking, which a
    loaded machine or another coroutine holding the interpreter does not inflate (the
    answer's latency adds the wait for a core, which no bot controls).
    """

    ms: float
    max_rollouts: int = MAX_ROLLOUTS
    clock: Callable[[], float] = time.thread_time


@dataclass(frozen=True)
class Accounting:
    """What one decision cost, by the bot's own clock."""

    budget_ms: float
    spent_ms: float
    rollouts: int
    searched: bool  # False: a decision the heuristic answers without rollouts

    @property
    def within(self) -> bool:
        """Whether the decision took no more than its budget."""
        return self.spent_ms <= self.budget_ms


def heuristic(game: Game, seat: str, options: list[Option]) -> int:
    """The greedy heuristic on the seat's information set."""
    return bot.choose(bot.mask(game.table, seat), seat, options)


def quick(game: Game, seat: str, options: list[Option]) -> int:
    """The rollout policy: the heuristic's combat sense, but deploys by cost without look-ahead."""
    if any(k in ("deploy", "use") for k, _ in options):
        deploys = [i for i, (k, _) in enumerate(options) if k == "deploy"]
        if not deploys:
            return 0
        return max(deploys, key=lambda i: catalog()[options[i][1]["card"]].res)
    return heuristic(game, seat, options)


def _seen(table: Table, seat: str) -> Counter[str]:
    board = table.board
    seen = Counter(board.side(seat).graveyard)
    for p in board.play:
        if p.owner == seat:
            seen.update([p.card, *p.attached])
    return seen


def _opponent_pool(table: Table, foe: str, extra: Counter[str] | None = None) -> list[str]:
    """A seat's likely unseen cards: its most seen faction's starter, minus the seen."""
    seen = _seen(table, foe)
    known = seen + (extra or Counter())
    factions = Counter(catalog()[c].faction for c in known.elements())
    faction = factions.most_common(1)[0][0] if factions else "uea"
    pool = Counter(catalog().starters[faction]) - seen
    return sorted(pool.elements()) or sorted(catalog().starters[faction])


def determinize(game: Game, seat: str, salt: str) -> Game:
    """A copy of the game where every hidden card is sampled (the bot never reads them).

    Its own library comes from its deck list when it knows it (the arena), else, like the
    opponent's, from the starter deck of its most seen faction minus the seen cards.
    """
    draws = fair.Draws(
        hashlib.sha256(f"{game.seed}:{salt}".encode()).digest(), "det", seat, game.step
    )
    foe = game.table.board.other(seat)
    in_hand = Counter(game.table.board.side(seat).hand)
    if seat in game.decks:
        own = Counter(game.decks[seat]) - _seen(game.table, seat) - in_hand
        own_library = fair.shuffle(draws, sorted(own.elements()))
    else:
        pool_own = Counter(_opponent_pool(game.table, seat, in_hand)) - in_hand
        need = game.table.board.side(seat).library
        own_cards = sorted(pool_own.elements()) or sorted(in_hand.elements()) or ["uea_marine"]
        own_library = fair.shuffle(draws, (own_cards * (need // len(own_cards) + 1))[:need])
    pool = fair.shuffle(draws, _opponent_pool(game.table, foe))
    side = game.table.board.side(foe)
    need = len(side.hand) + side.library
    pool = (pool * (need // max(1, len(pool)) + 1))[:need]
    hand, library = pool[: len(side.hand)], pool[len(side.hand) :]
    board = with_side(game.table.board, replace(side, hand=tuple(hand)))
    sample = Game(
        seed=f"{game.seed}:{salt}",
        table=replace(game.table, board=board),
        libraries={seat: own_library, foe: library},
        decks=dict(game.decks),
        record=False,
    )
    sample.policies = {seat: quick, foe: quick}
    return sample


def _rollout(sample: Game, seat: str, option: Option) -> float:
    if option[0] != "done":
        act(sample, seat, option)
    if not sample.over:
        finish_turn(sample, seat)
    foe = sample.table.board.other(seat)
    if not sample.over:
        play_turn(sample, foe)
    return tactics.score(sample.table.board, seat)


def _searches(game: Game, seat: str, options: list[Option]) -> bool:
    """Whether a decision is one the search rolls out (a Deploy-phase choice of its own)."""
    in_deploy = game.table.turn.phase == "deploy" and game.table.turn.active == seat
    return (
        in_deploy and all(k in ("done", "use", "deploy") for k, _ in options) and len(options) >= 2
    )


def _candidates(game: Game, seat: str, options: list[Option]) -> list[int]:
    masked = bot.mask(game.table, seat)
    ranked = sorted(range(len(options)), key=lambda i: -_greedy(masked, seat, options[i]))
    return ranked[:MAX_CANDIDATES]


def search(game: Game, seat: str, options: list[Option]) -> int:
    """Pick a Deploy-phase option by determinized rollouts (a fixed budget of rollouts: five
    candidates, three samples each); the heuristic elsewhere."""
    if not _searches(game, seat, options):
        return heuristic(game, seat, options)
    candidates = _candidates(game, seat, options)
    best, best_value = candidates[0], float("-inf")
    for i in candidates:
        total = 0.0
        for k in range(DETERMINIZATIONS):
            total += _rollout(determinize(game, seat, f"{game.step}:{k}"), seat, options[i])
        if total > best_value:
            best, best_value = i, total
    return best


def search_within(
    game: Game, seat: str, options: list[Option], budget: Budget
) -> tuple[int, Accounting]:
    """Pick an option by rollouts until the time budget (or the rollout cap) is used up.

    Rollouts go round-robin over the candidates (sample k of every candidate before sample
    k + 1), so the first n rollouts are the same for any budget, and a new one starts only
    while twice the slowest so far still fits: the answer comes within the budget.
    """
    clock, start = budget.clock, budget.clock()

    def spent() -> float:
        return round((clock() - start) * 1000.0, 3)

    if not _searches(game, seat, options):
        pick = heuristic(game, seat, options)
        return pick, Accounting(budget.ms, spent(), 0, False)
    candidates = _candidates(game, seat, options)
    totals = dict.fromkeys(candidates, 0.0)
    counts = dict.fromkeys(candidates, 0)
    slowest, n = 0.0, 0
    while n < budget.max_rollouts:
        before = spent()
        if before + SAFETY * max(slowest, before if n == 0 else 0.0) > budget.ms:
            break
        i, k = candidates[n % len(candidates)], n // len(candidates)
        totals[i] += _rollout(determinize(game, seat, f"{game.step}:{k}"), seat, options[i])
        counts[i] += 1
        n += 1
        slowest = max(slowest, spent() - before)
    tried = [i for i in candidates if counts[i]]
    pick = max(tried, key=lambda i: totals[i] / counts[i]) if tried else candidates[0]
    return pick, Accounting(budget.ms, spent(), n, True)


class ServiceSearch:
    """The search bot for a bot seat served through the API (a Turn of services.bots).

    It rebuilds its information set from the seat's view (the opponent's hand is a count,
    libraries are sizes); `decide` also returns the decision's accounting.
    """

    def __init__(self, budget: Budget) -> None:
        self.budget = budget

    def decide(self, turn: Any) -> tuple[int, Accounting]:
        """Return the index of the chosen legal command and what the decision cost."""
        options = [(c.kind, dict(c.args)) for c in turn.legal]
        game = Game(seed=f"{turn.seed}:{turn.game_id}:{turn.seat}", table=bot.table_of(turn.view))
        game.step = int(turn.version)
        return search_within(game, turn.seat, options, self.budget)

    def __call__(self, turn: Any) -> int:
        """Return the index of the chosen legal command."""
        return self.decide(turn)[0]


def _greedy(table: Table, seat: str, option: Option) -> float:
    if option[0] == "done":
        return tactics.score(table.board, seat)
    return bot.value_after(table, seat, option)


class SearchSeat:
    """The search bot as a served policy, with a time budget per decision."""

    def __init__(self, budget_ms: float = 200.0) -> None:
        self.budget_ms = budget_ms

    def with_budget(self, budget_ms: float) -> SearchSeat:
        """The same policy with another time budget (the bot pool's config)."""
        return SearchSeat(budget_ms)

    def decide(self, turn: Any) -> tuple[int, Any]:
        """Return the chosen index and the decision's accounting (search.Accounting)."""
        return ServiceSearch(Budget(self.budget_ms)).decide(turn)

    def __call__(self, turn: Any) -> int:
        """Return the index of the chosen legal command (with the game's card data)."""
        with using(int(turn.view.get("card_data", FIRST_DATA))):
            return self.decide(turn)[0]
