"""A GameRules built on the kernel: command shapes, legality as a set lookup, chance answers.

A game subclasses KernelRules, gives its registry, seats and command schemas, and
implements initial_events, view and outcome; decide/pending/legal_commands/evolve
and state_hash come from here.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any, ClassVar, Final

from mypy_extensions import mypyc_attr

from services.platform.errors import InvalidArgument, RuleViolation
from services.rules.engine.api import CHANCE, ChanceRequest, Command, Event, Pending
from services.rules.engine.chance import CHANCE_SCHEMAS, check_chance, example_answer, request_of
from services.rules.engine.flow import Args, Ctx, Registry, is_answer
from services.rules.engine.state import State, dumps, to_json

Schema = Mapping[str, type]


_WELL_FORMED: Final[dict[tuple[Any, ...], bool]] = {}  # command shapes already checked
_MAX_SHAPES: Final = 4096


def _shape(cmd: Command, schemas: Mapping[str, Schema]) -> tuple[Any, ...] | None:
    """Return a hashable key of a command's shape (seat, kind, field names and types)."""
    if not isinstance(cmd.args, dict) or not isinstance(cmd.seat, str):
        return None
    try:
        args = cmd.args
        return (id(schemas), cmd.seat, cmd.kind, tuple(args), tuple(map(type, args.values())))
    except TypeError:
        return None


_new = object.__new__

_DECISIONS: Final[dict[tuple[Any, ...], Pending]] = {}  # what a Pending is made of -> Pending
_MAX_DECISIONS: Final = 4096


def _dice_key(pending: Mapping[str, Any], seats: tuple[str, ...]) -> tuple[Any, ...] | None:
    """Return what a chance decision's Pending is made of when it is a dice roll or a
    shuffle (a deck request names cards: None)."""
    kind = pending["kind"]
    if kind != "roll" and kind != "shuffle":
        return None
    data = pending["data"]
    dice = tuple(data.get("dice", ()))
    return kind, pending["prompt"], data["purpose"], dice, data.get("count", 0), seats


def _pending(seat: str, kind: str, prompt: str, chance: ChanceRequest | None) -> Pending:
    """Return Pending(seat, kind, prompt, chance), built without the frozen __init__."""
    found = _new(Pending)
    found.__dict__.update(seat=seat, kind=kind, prompt=prompt, chance=chance)
    return found


def check_shape(cmd: Command, seats: tuple[str, ...], schemas: Mapping[str, Schema]) -> None:
    """Raise InvalidArgument (naming the field) unless the command is well-formed."""
    seat, kind, args = cmd.seat, cmd.kind, cmd.args  # each read once (plain-class reads)
    if type(args) is dict and type(seat) is str:  # _shape(cmd, schemas), inlined
        key: tuple[Any, ...] | None = (
            (id(schemas), seat, kind, tuple(args), tuple(map(type, args.values())))
            if args
            else (id(schemas), seat, kind)  # no fields (a pass): nothing to type
        )
        if key in _WELL_FORMED:
            return
    else:
        key = _shape(cmd, schemas)
    _check_shape(cmd, seats, schemas)
    if key is not None and len(_WELL_FORMED) < _MAX_SHAPES:
        _WELL_FORMED[key] = True


def _check_shape(cmd: Command, seats: tuple[str, ...], schemas: Mapping[str, Schema]) -> None:
    if cmd.seat != CHANCE and cmd.seat not in seats:
        raise InvalidArgument("seat", f"unknown seat {cmd.seat!r}; seats are {', '.join(seats)}")
    table = CHANCE_SCHEMAS if cmd.seat == CHANCE else schemas
    schema = table.get(cmd.kind)
    if schema is None:
        raise InvalidArgument(
            "kind",
            f"unknown command kind {cmd.kind!r} for {cmd.seat}; known: {', '.join(sorted(table))}",
        )
    if not isinstance(cmd.args, Mapping):
        raise InvalidArgument("args", "args must be a mapping")
    allowed = {k.rstrip("?") for k in schema}
    for key in cmd.args:
        if key not in allowed:
            raise InvalidArgument(f"args.{key}", f"unexpected field for {cmd.kind!r}")
    for key, typ in schema.items():
        name = key.rstrip("?")
        if name not in cmd.args:
            if key.endswith("?"):
                continue
            raise InvalidArgument(f"args.{name}", f"required for {cmd.kind!r}")
        value = cmd.args[name]
        if not isinstance(value, typ) or (typ is int and isinstance(value, bool)):
            raise InvalidArgument(f"args.{name}", f"must be {typ.__name__}")


@mypyc_attr(allow_interpreted_subclasses=True)  # games and test engines subclass it
class KernelRules:
    """The shared half of an engine; subclasses set the class attributes and the hooks."""

    game: ClassVar[str] = ""
    seats: ClassVar[tuple[str, ...]] = ()
    registry: ClassVar[Registry]
    schemas: ClassVar[Mapping[str, Schema]] = {}

    def __init__(self) -> None:
        self._memo: tuple[Any, list[tuple[str, Args]]] | None = None
        self._pending_memo: tuple[Any, Pending | None] = (None, None)
        self._legal_memo: tuple[Any, list[Command]] = (None, [])

    # --- hooks a game may override ------------------------------------------
    def refusal(self, state: State, command: Command, pending: dict[str, Any]) -> str:
        """Return the message refusing a command that is not a legal answer now."""
        return (
            f"{command.kind} {dumps(dict(command.args))[:80]} is not a legal answer to "
            f"{pending['kind']!r} now; ask legal_commands"
        )

    def not_your_turn(self, pending: Mapping[str, Any]) -> str:
        """Return the message refusing a command from a seat that is not to act."""
        return f"it is {pending['seat']}'s decision ({pending['kind']}), not yours"

    def new_game_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """Return a new game's options as recorded in GameCreated (a game may pin defaults,
        e.g. its card-data version, so that replay rebuilds the same setup)."""
        return dict(options)

    # --- the GameRules protocol ----------------------------------------------
    def initial_state(self) -> State:
        """Return the empty state."""
        return State()

    def evolve(self, state: State, event: Event) -> State:
        """Return the state after one event."""
        result: State = self.registry.evolve(state, event)
        return result

    def answers(self, state: State) -> list[tuple[str, Args]]:
        """Return the pending seat's legal answers (memoised for one state)."""
        memo = self._memo
        if memo is not None and memo[0] is state:
            return memo[1]
        assert state.pending is not None
        answers = self.registry.answers_to(state, state.pending)
        self._memo = (state, answers)
        return answers

    def decide(self, state: State, command: Command) -> list[Event]:
        """Return the events a command causes; raise RuleViolation when it is not legal now."""
        return self.step(state, command)[0]

    def step(self, state: State, command: Command) -> tuple[list[Event], State]:
        """Return decide's events and the state they fold to (computed while deciding)."""
        check_shape(command, self.seats, self.schemas)
        pending = state.pending
        if pending is None:
            raise RuleViolation("the game is over" if state.phase == "over" else "no game yet")
        seat, kind, given = command.seat, command.kind, command.args  # each read once
        if seat != pending["seat"]:
            raise RuleViolation(self.not_your_turn(pending))
        registry = self.registry
        ctx = Ctx(registry, state)  # registry.ctx(state), without its call
        if seat == CHANCE:
            args = check_chance(pending, command)
            if pending["kind"] == "roll":  # dice are public: a roll is a fact (never a deal)
                ctx.answered = {
                    "seat": CHANCE,
                    "decision": "roll",
                    "kind": kind,
                    "args": dict(given),
                }
            registry.tasks[args["resume"]](ctx, args)
        else:
            if not is_answer(self.answers(state), kind, given):
                raise RuleViolation(self.refusal(state, command, dict(pending)))
            data = dict(pending["data"])
            ctx.answered = {
                "seat": seat,
                "decision": pending["kind"],
                "kind": kind,
                "args": dict(given),
            }
            registry.answers[data["resume"]](ctx, data, kind, dict(given))
        ctx.run()
        return ctx.finish(), ctx.state

    def pending(self, state: State) -> Pending | None:
        """Return the pending decision (None when over; memoised for the last state)."""
        memo = self._pending_memo
        if memo[0] is state:
            return memo[1]
        p = state.pending
        found: Pending | None = None
        if p is not None:
            seat, kind, prompt = p["seat"], p["kind"], p["prompt"]
            # one shared frozen Pending for each seat decision and each dice request
            key = (seat, kind, prompt) if seat != CHANCE else _dice_key(p, self.seats)
            if key is not None:
                found = _DECISIONS.get(key)
            if found is None:
                request = request_of(p, self.seats) if seat == CHANCE else None
                found = _pending(seat, kind, prompt, request)
                if key is not None and len(_DECISIONS) < _MAX_DECISIONS:
                    _DECISIONS[key] = found
        self._pending_memo = (state, found)
        return found

    def legal_commands(self, state: State, seat: str) -> list[Command]:
        """Return every legal answer for a seat (for chance: one example answer)."""
        p = state.pending
        if p is None or p["seat"] != seat:
            return []
        if seat == CHANCE:
            return [example_answer(p)]
        memo = self._legal_memo
        if memo[0] is state:
            return list(memo[1])
        legal: list[Command] = []
        for kind, args in self.answers(state):  # command(seat, kind, args), inlined
            cmd = _new(Command)
            cmd.__dict__.update(seat=seat, kind=kind, args=args)
            legal.append(cmd)
        self._legal_memo = (state, legal)
        return list(legal)

    def state_hash(self, state: State) -> str:
        """Return the SHA-256 of the canonical JSON of the state."""
        return hashlib.sha256(dumps(to_json(state)).encode()).hexdigest()
