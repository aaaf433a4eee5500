"""Fallen Worlds on the engine kernel: setup, view and outcome (the turn is in flow*.py)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from services.platform.errors import InvalidArgument
from services.rules.engine.api import Command, Event, Setup, command_list
from services.rules.engine.engine import KernelRules
from services.rules.engine.flow import Args
from services.rules.engine.state import State, dumps, to_json
from services.rules.worlds import (
    flow_combat,  # noqa: F401  (registers the combat tasks)
    priority,  # noqa: F401  (registers the priority round)
)
from services.rules.worlds import options as game_options
from services.rules.worlds.board import stats
from services.rules.worlds.cards import LATEST_DATA, active_data, using
from services.rules.worlds.facts import fact
from services.rules.worlds.flow import CURRENT, REGISTRY, RULES_VERSION, emit
from services.rules.worlds.state import SEATS, WorldsState
from services.rules.worlds.table import PHASED, Table


class WorldsRules(KernelRules):
    """The Fallen Worlds engine."""

    game = "worlds"
    seats = SEATS
    reads_bot_options = True  # the human of a bot game starts (services/rules/bot_seats.py)
    registry = REGISTRY
    schemas = {
        "done": {},
        "deploy": {"card": str, "on?": str, "target?": str},
        "use": {"uid": str, "ability": int, "target?": str},
        "attack": {"uid": str},
        "block": {"defender": str, "attacker": str},
        "order": {"uid": str, "order": str, "target?": str},
        "discard": {"card": str},
    }

    def seal(self, options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, tuple[str, ...]]]:
        """Split CreateGame options into public ones and the libraries' cards (deck service)."""
        return game_options.seal(options)

    def initial_state(self) -> State:
        """The empty state."""
        return WorldsState()

    def new_game_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """Return a new game's options with the card-data version pinned (newest by default;
        docs/games/worlds.md, "Card-data versions")."""
        return {game_options.CARD_DATA: LATEST_DATA, **options}

    # Each entry point runs with the game's own card data active (cards.using): the version
    # folded from game_started (1 when absent). Most games use the newest: no switch then.
    def evolve(self, state: State, event: Event) -> State:
        """Fold an event with the game's card data."""
        version = _data(state)
        if version == active_data():
            return KernelRules.evolve(self, state, event)
        with using(version):
            return KernelRules.evolve(self, state, event)

    def decide(self, state: State, command: Command) -> list[Event]:
        """Decide with the game's card data."""
        with using(_data(state)):
            return KernelRules.decide(self, state, command)

    def step(self, state: State, command: Command) -> tuple[list[Event], State]:
        """Decide and fold with the game's card data."""
        version = _data(state)
        if version == active_data():
            return KernelRules.step(self, state, command)
        with using(version):
            return KernelRules.step(self, state, command)

    def answers(self, state: State) -> list[tuple[str, Args]]:
        """List legal answers with the game's card data."""
        version = _data(state)
        if version == active_data():
            return KernelRules.answers(self, state)
        with using(version):
            return KernelRules.answers(self, state)

    def initial_events(self, game_id: str, setup: Setup) -> list[Event]:
        """Check the decks, form both libraries in the deck service, deal five, pick who starts."""
        return self._created(game_id, setup, CURRENT)

    def older_setups(self, game_id: str, setup: Setup) -> list[list[Event]]:
        """Return how games of rules versions 3 and 2 were created (the audit replays them so)."""
        return [self._created(game_id, setup, 3), self._created(game_id, setup, 2)]

    def _created(self, game_id: str, setup: Setup, rules_version: int) -> list[Event]:
        if set(setup.seats) != set(SEATS):
            raise InvalidArgument("seats", f"Fallen Worlds has seats {SEATS}")
        opts = game_options.parse(setup.options)
        with using(opts.card_data):
            return self._create(game_id, opts, rules_version)

    def _create(self, game_id: str, opts: game_options.Options, rules_version: int) -> list[Event]:
        ctx = REGISTRY.ctx(WorldsState())
        ctx.emit("game_created", {"game_id": game_id})
        sizes = [opts.size(s) for s in SEATS]
        # the pure rules read the version from game_started (games before PHASED lack it)
        phased: dict[str, Any] = (
            {"rules": rules_version} if opts.sealed and rules_version >= PHASED else {}
        )
        if opts.card_data > 1:  # games of the first card data recorded no version
            phased["card_data"] = opts.card_data
        started = fact(
            "game_started", seats=list(SEATS), library_sizes=sizes, bots=list(opts.bots), **phased
        )
        emit(ctx, [started])
        if opts.sealed:  # the cards wait face down in the deck service: shuffle them there
            ctx.setv(RULES_VERSION, rules_version)
            forms: list[tuple[str, dict[str, Any]]] = [
                ("shuffle_library", {"seat": s}) for s in SEATS
            ]
        else:  # a game recorded before sealing (its GameCreated options name the decks)
            forms = [("form", {"seat": s, "cards": list(opts.libraries[s])}) for s in SEATS]
        deals = [("draw", {"seat": s, "n": 5}) for s in SEATS]
        ctx.push(*forms, *deals, ("first", {"human": opts.human_starts}))
        ctx.run()
        return ctx.finish()

    def view(self, state: State, seat: str | None) -> dict[str, Any]:
        """What a seat sees: public board and counts, its own hand only (and the card-data
        version whose numbers the cards carry)."""
        assert isinstance(state, WorldsState)
        with using(_data(state)):
            return self._view(state, seat)

    def _view(self, state: WorldsState, seat: str | None) -> dict[str, Any]:
        t = state.table
        p = state.pending
        view: dict[str, Any] = {
            "sides": {s.seat: _side(t, s.seat, seat) for s in t.board.sides},
            "play": [_card(t, c.uid) for c in t.board.play],
            "turn": {
                "active": t.turn.active,
                "number": t.turn.number,
                "phase": t.turn.phase,
                "attackers": list(t.turn.attackers),
                "blocks": {d: list(a) for d, a in t.turn.blocks},
            },
            "pending": {"seat": p["seat"], "kind": p["kind"], "prompt": p["prompt"]} if p else None,
            "winner": state.winner,
            "next_uid": t.board.next_uid,
            "card_data": t.card_data,
        }
        if seat is not None:
            view["commands"] = command_list(self.legal_commands(state, seat))
        return view

    def outcome(self, state: State) -> dict[str, Any] | None:
        """The winner once over."""
        return {"winner": state.winner} if state.phase == "over" else None

    def state_hash(self, state: State) -> str:
        """Hash of the kernel state and the table."""
        assert isinstance(state, WorldsState)
        body = dumps(to_json(state)) + repr(state.table)
        return hashlib.sha256(body.encode()).hexdigest()


def _data(state: State) -> int:
    """The card-data version of a game (its table's, folded from game_started)."""
    assert isinstance(state, WorldsState)
    return state.table.card_data


def _side(t: Table, who: str, viewer: str | None) -> dict[str, Any]:
    s = t.board.side(who)
    return {
        "capital": s.capital,
        "pool": s.pool,
        "library": s.library,
        "hand": list(s.hand) if viewer == who else len(s.hand),
        "graveyard": list(s.graveyard),
        "scenario_deployed": s.scenario_deployed,
    }


def _card(t: Table, uid: str) -> dict[str, Any]:
    c = t.board.get(uid)
    st = stats(t.board, uid)
    return {
        "uid": uid,
        "card": c.card,
        "owner": c.owner,
        "damage": c.damage,
        "locked": c.locked,
        "fresh": c.fresh,
        "attached": list(c.attached),
        "used": list(c.used),
        "stats": {"dmg": st.dmg, "atk": st.atk, "def": st.defence, "hp": st.hp},
    }


RULES = WorldsRules()
