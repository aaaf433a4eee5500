"""The search bot: determinized Monte Carlo over its information set, with a rollout budget.

At each Deploy-phase decision (deploy a card, use an ability, or stop) it samples what it
cannot see — the order of its own library, the opponent's hand and library (drawn from the
opponent's likely starter deck, minus the cards already seen) — plays each candidate, then
rolls out the rest of its turn and the opponent's next turn with a cheap policy on both
sides (the heuristic's combat, deploys by cost), and keeps the candidate with the best mean
board value. Other decisions (attacks, blocks, orders, discards) follow the heuristic.
Everything is seeded, so a bot game replays.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import replace

from services.dice import fair
from services.rules.worlds import bot, tactics
from services.rules.worlds.board import with_side
from services.rules.worlds.cards import catalog
from services.rules.worlds.simulate import Game, Option, act, finish_turn, play_turn
from services.rules.worlds.table import Table

VERSION = "worlds-search-1"
DETERMINIZATIONS = 3
MAX_CANDIDATES = 5


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


def _opponent_pool(table: Table, foe: str) -> list[str]:
    """The opponent's likely unseen cards: its most seen faction's starter, minus the seen."""
    seen = _seen(table, foe)
    factions = Counter(catalog()[c].faction for c in seen.elements())
    faction = factions.most_common(1)[0][0] if factions else "uea"
    pool = Counter(catalog().starters[faction]) - seen
    return sorted(pool.elements()) or sorted(catalog().starters[faction])


def determinize(game: Game, seat: str, salt: str) -> Game:
    """A copy of the game where every hidden card is sampled (the bot never reads them)."""
    draws = fair.Draws(
        hashlib.sha256(f"{game.seed}:{salt}".encode()).digest(), "det", seat, game.step
    )
    foe = game.table.board.other(seat)
    own = (
        Counter(game.decks[seat])
        - _seen(game.table, seat)
        - Counter(game.table.board.side(seat).hand)
    )
    own_library = fair.shuffle(draws, sorted(own.elements()))
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


def search(game: Game, seat: str, options: list[Option]) -> int:
    """Pick a Deploy-phase option by determinized rollouts; the heuristic elsewhere."""
    in_deploy = game.table.turn.phase == "deploy" and game.table.turn.active == seat
    if (
        not in_deploy
        or any(k not in ("done", "use", "deploy") for k, _ in options)
        or len(options) < 2
    ):
        return heuristic(game, seat, options)
    masked = bot.mask(game.table, seat)
    ranked = sorted(range(len(options)), key=lambda i: -_greedy(masked, seat, options[i]))
    candidates = ranked[:MAX_CANDIDATES]
    best, best_value = candidates[0], float("-inf")
    for i in candidates:
        total = 0.0
        for k in range(DETERMINIZATIONS):
            total += _rollout(determinize(game, seat, f"{game.step}:{k}"), seat, options[i])
        if total > best_value:
            best, best_value = i, total
    return best


def _greedy(table: Table, seat: str, option: Option) -> float:
    if option[0] == "done":
        return tactics.score(table.board, seat)
    return bot.value_after(table, seat, option)
