"""The decision machinery: a builder that emits events, a task queue and pending answers.

decide() builds a Ctx over the state, answers the pending decision, then runs queued
tasks until one asks a seat (or chance) for the next decision; every change goes
through an emitted event, so folding the events reproduces the state exactly.
The final "flow" event records the task queue and the new pending decision.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from services.kernel.errors import RuleViolation
from services.rules.common.api import CHANCE, PUBLIC, Event
from services.rules.fallen.state import State, dumps, evolve, move_visibility

Args = dict[str, Any]
TaskFn = Callable[["Ctx", Args], None]
AnswerFn = Callable[["Ctx", Args, str, Args], None]
OptionsFn = Callable[[State, Args], list[tuple[str, Args]]]

TASKS: dict[str, TaskFn] = {}
ANSWERS: dict[str, AnswerFn] = {}
OPTIONS: dict[str, OptionsFn] = {}


def task(name: str) -> Callable[[TaskFn], TaskFn]:
    """Register a task handler under a name."""

    def deco(fn: TaskFn) -> TaskFn:
        TASKS[name] = fn
        return fn

    return deco


def answer(name: str) -> Callable[[AnswerFn], AnswerFn]:
    """Register the handler that receives a seat's answer to a decision."""

    def deco(fn: AnswerFn) -> AnswerFn:
        ANSWERS[name] = fn
        return fn

    return deco


def options(kind: str) -> Callable[[OptionsFn], OptionsFn]:
    """Register a function computing a decision's legal answers from the state."""

    def deco(fn: OptionsFn) -> OptionsFn:
        OPTIONS[kind] = fn
        return fn

    return deco


class Ctx:
    """A builder for one decide(): the working state, the events, tasks and pending."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.events: list[Event] = []
        self.tasks: list[tuple[str, Args]] = [(t[0], t[1]) for t in json.loads(state.tasks)]
        self.pending: Args | None = None

    # --- events ---------------------------------------------------------
    def emit(
        self, type_: str, data: Mapping[str, Any], vis: str | tuple[str, ...] = PUBLIC
    ) -> None:
        """Record an event and fold it into the working state."""
        event = Event(type_, dict(data), vis)
        self.state = evolve(self.state, event)
        self.events.append(event)

    def move(self, card: str, src: str, dst: str, bottom: bool = False) -> None:
        """Move a card between zones, with a public count-only note when it is hidden."""
        vis = move_visibility(src, dst)
        self.emit("card_moved", {"card": card, "from": src, "to": dst, "bottom": bottom}, vis)
        if vis != PUBLIC:
            self.emit("hidden_card_moved", {"from": src, "to": dst, "count": 1})

    def add(self, key: str, delta: int, reason: str = "") -> None:
        """Change a counter by delta (no event for zero)."""
        if delta:
            self.emit("counter_changed", {"key": key, "delta": delta, "reason": reason})

    def set_to(self, key: str, value: int, reason: str = "") -> None:
        """Set a counter to a value."""
        self.add(key, value - self.state.count(key), reason)

    def setv(self, key: str, value: Any) -> None:
        """Set a public var (None removes it)."""
        if self.state.vars.get(key) != (None if value is None else dumps(value)):
            self.emit("var_set", {"key": key, "value": value})

    def exhaust(self, card: str, exhausted: bool = True) -> None:
        """Exhaust (or refresh) a card."""
        if (card in self.state.exhausted) != exhausted:
            self.emit("card_exhausted", {"card": card, "exhausted": exhausted})

    def note(self, type_: str, **data: Any) -> None:
        """Record an informational public event (changes no state)."""
        self.emit(type_, data)

    # --- flow -----------------------------------------------------------
    def push(self, *tasks: tuple[str, Args]) -> None:
        """Queue tasks to run next, in the given order."""
        self.tasks[0:0] = [(n, dict(a)) for n, a in tasks]

    def ask(
        self,
        seat: str,
        kind: str,
        resume: str,
        prompt: str,
        opts: list[tuple[str, Args]] | None = None,
        **data: Any,
    ) -> None:
        """Make a seat's decision pending; opts are static public options, else dynamic."""
        payload: Args = dict(data, resume=resume)
        if opts is not None:
            payload["options"] = [[k, a] for k, a in opts]
        self.pending = {"seat": seat, "kind": kind, "prompt": prompt, "data": payload}

    def roll(self, dice: list[str], purpose: str, resume: str, **data: Any) -> None:
        """Ask chance to roll dice, then run the resume task with faces."""
        self.pending = {
            "seat": CHANCE,
            "kind": "roll",
            "prompt": f"roll {', '.join(dice)}",
            "data": dict(data, resume=resume, dice=list(dice), purpose=purpose),
        }

    def shuffle(self, count: int, purpose: str, resume: str, **data: Any) -> None:
        """Ask chance for a permutation of count items, then run the resume task."""
        self.pending = {
            "seat": CHANCE,
            "kind": "shuffle",
            "prompt": f"shuffle {count}",
            "data": dict(data, resume=resume, count=count, purpose=purpose),
        }

    def run(self) -> None:
        """Run queued tasks until a decision is pending or the game is over."""
        while self.pending is None and self.state.phase != "over":
            if not self.tasks:
                raise RuntimeError("fallen engine: no pending decision and no task queued")
            name, args = self.tasks.pop(0)
            TASKS[name](self, args)

    def finish(self) -> list[Event]:
        """Record the flow (task queue and pending decision) and return all events."""
        if self.state.phase != "over":
            self.emit("flow", {"tasks": [[n, a] for n, a in self.tasks], "pending": self.pending})
        return self.events


def static_or_dynamic(state: State, pending: Args) -> list[tuple[str, Args]]:
    """Return a pending decision's legal answers as (kind, args) pairs."""
    data = pending["data"]
    if "options" in data:
        return [(k, a) for k, a in data["options"]]
    fn = OPTIONS.get(pending["kind"])
    if fn is None:
        raise RuleViolation(f"no answers defined for {pending['kind']}")
    return fn(state, data)
