"""The Fallen Land engine: the kernel's decide/legality plus setup, views and the outcome."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from services.platform.errors import InvalidArgument
from services.rules.engine.api import Command, Event, Setup, command_list
from services.rules.engine.engine import KernelRules
from services.rules.engine.state import State

# Importing the rule modules registers their tasks, answers and option functions.
from services.rules.land import (  # noqa: F401
    abilities_flow,
    checks_flow,
    exploits,
    finance,
    npcm_flow,
    play,
    pvp_flow,
    pvp_party_flow,
    red_dot_flow,
    setup_flow,
    solo,
    solo2_flow,
    turn,
)
from services.rules.land.data import CARD_DATA, LATEST_CARD_DATA, catalog, economy
from services.rules.land.flow import REGISTRY
from services.rules.land.setup import (
    NEWEST_RECORD,
    is_epic,
    is_solo,
    seat_range,
    setup_numbers,
    validate_options,
)
from services.rules.land.state import SEATS, ZONES, players

SCHEMAS: dict[str, dict[str, type]] = {
    "roster": {"cards": list},
    "assign": {"card": str, "to": str},
    "discard": {"card": str},
    "pass": {},
    "buy": {"card": str, "from": str, "crown?": int},
    "take": {"deck": str},
    "lose": {"resource": str},
    "done": {},
    "sell": {"card": str},
    "sell_tech": {"tech": str},
    "sell_defense": {},
    "buy_tech": {"tech": str},
    "upgrade_tech": {"tech": str},
    "buy_defense": {},
    "convert_defense": {},
    "place_defense": {"resource": str},
    "crown": {"card": str},
    "load": {"card": str},
    "perk_draw": {},
    "unload": {"card": str},
    "equip": {"card": str, "crown": int},
    "hire": {"card": str, "target": str},
    "play": {"card": str, "target?": str},
    "end": {},
    "deed": {"deed": str, "deck?": str, "target?": str},
    "move": {"x": int, "y": int},
    "use": {"card": str, "target?": str},
    "keep": {"card": str},
    "share": {"target": str},
}


class LandRules(KernelRules):
    """Fallen Land (2-5 players) and the Epic game (6) as a pure engine on the kernel."""

    game = "land"
    seats = SEATS
    registry = REGISTRY
    schemas = SCHEMAS

    def new_game_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """Return a new game's options with the newest record format and card data pinned."""
        return {"record_format": NEWEST_RECORD, CARD_DATA: LATEST_CARD_DATA, **options}

    def initial_events(self, game_id: str, setup: Setup) -> list[Event]:
        """Return the events creating a game: counters, options, then setup until a decision."""
        n = len(setup.seats)
        try:
            opts = validate_options(dict(setup.options))
        except ValueError as exc:
            field, _, msg = str(exc).partition(": ")
            raise InvalidArgument(field, msg) from exc
        low, high = seat_range(opts)
        if set(setup.seats) != set(SEATS[:n]) or not low <= n <= high:
            raise InvalidArgument("seats", f"this land game is played by {low}-{high} seats p1..pN")
        catalog()
        nums = setup_numbers(n, opts)
        ctx = REGISTRY.ctx(State())
        ctx.emit("game_created", {"game_id": game_id, "seats": dict(setup.seats), "options": opts})
        ctx.setv("players", list(SEATS[:n]))
        ctx.setv("options", opts)
        ctx.setv("epic", is_epic(n) and not is_solo(opts))
        ctx.setv(
            "numbers",
            {
                "roster": nums.roster,
                "characters": nums.characters,
                "spoils": nums.spoils,
                "action": nums.action,
                "hand_limit": nums.hand_limit,
            },
        )
        if nums.tech_stock is not None:
            for t in economy()["techs"]:
                ctx.add(f"bank.tech.{t}", nums.tech_stock, "Epic Bank")
        if nums.defense_supply is not None:
            ctx.add("bank.defense", nums.defense_supply, "Epic Bank")
        for seat in SEATS[:n]:
            ctx.add(f"salvage.{seat}", nums.salvage, "setup")
            ctx.add(f"th.{seat}", nums.town_health, "setup")
            ctx.add(f"prestige.{seat}", nums.prestige, "setup")
        ctx.push(("setup", {}))
        ctx.run()
        return ctx.finish()

    def view(self, state: State, seat: str | None) -> dict[str, Any]:
        """Return what a seat (None: a spectator) may see: cards it may see, counts otherwise."""
        zones: dict[str, Any] = {}
        for name, cards in sorted(state.zones.items()):
            seen = ZONES.seen_by(name)
            if ZONES.public(name) or (seat is not None and seat in seen):
                zones[name] = list(cards)
            else:
                zones[name] = {"count": len(cards)}
        p = state.pending
        pending = (
            None if p is None else {"seat": p["seat"], "kind": p["kind"], "prompt": p["prompt"]}
        )
        view: dict[str, Any] = {
            "players": players(state),
            "phase": state.phase,
            "zones": zones,
            "counters": dict(state.counters),
            "vars": {k: state.var(k) for k in state.vars},
            "pending": pending,
        }
        if seat is not None:
            legal = self.legal_commands(state, seat)
            view["commands"] = command_list(legal)
            view["legal"] = [[c.kind, dict(c.args)] for c in legal]  # deprecated: commands
        return view

    def outcome(self, state: State) -> dict[str, Any] | None:
        """Return the winners and the victory kind once the game is over."""
        if state.phase != "over":
            return None
        result = state.var("result") or {}
        winners = result.get("winners", [])
        out = {
            "winner": winners[0] if len(winners) == 1 else "",
            "winners": winners,
            "kind": result.get("kind", ""),
            "scores": result.get("scores", {}),
        }
        if "opposing_winners" in result:  # Solo II (card data 3 on): who beat the player
            out["opposing_winners"] = result["opposing_winners"]
        # solo variants record the turns taken in game_won; every game reports its turns
        out["turns"] = int(result.get("turns", state.count("turn")))
        return out

    def solo_key(self, state: State) -> tuple[str, int] | None:
        """Return (variant, challenge) of a full solo game (challenge 0 for solo1), else None."""
        opts = dict(state.var("options", {}) or {})
        if not is_solo(opts) or opts.get("short_game"):
            return None  # the record is of the rulebook's 20 Prestige / 80 Town Health game
        return str(opts["variant"]), int(opts.get("challenge") or 0)


RULES = LandRules()


def command(seat: str, kind: str, **args: Any) -> Command:
    """Return a command (a helper for tests and bots)."""
    return Command(seat, kind, args)
