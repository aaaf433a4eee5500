"""The decision machinery: per-engine registries, a builder that emits events, a task queue.

decide() builds a Ctx over the state, answers the pending decision, then runs queued
tasks until one asks a seat (or chance) for the next decision; every change goes
through an emitted event, so folding the events reproduces the state exactly.
The final "flow" event records the task queue and the new pending decision.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final

from services.platform.errors import RuleViolation
from services.rules.engine.api import CHANCE, PUBLIC, ChanceRequest, Event
from services.rules.engine.state import (
    COUNTERS,
    FLOW,
    FOLDS,
    Args,
    FrozenMap,
    State,
    Task,
    add_counter,
    copy_with,
    evolve,
    put,
    same,
)
from services.rules.engine.zones import ZoneRules

TaskFn = Callable[["Ctx", Args], None]
AnswerFn = Callable[["Ctx", Args, str, Args], None]
OptionsFn = Callable[[Any, Args], list[tuple[str, Args]]]
Evolve = Callable[[Any, Event], Any]


class Registry:
    """One engine's named tasks, answer handlers and option functions (never shared)."""

    def __init__(
        self,
        game: str,
        zones: ZoneRules,
        evolve_fn: Evolve = evolve,
        compact: Callable[[Any], bool] | None = None,
        facts: Callable[[Any], bool] | None = None,
    ) -> None:
        self.game = game
        # compact(state): for games it holds, the setv of one decide share one `vars_set`
        # event and the task queue and pending decision ride in the decide's last public
        # fact (`_flow`) instead of a `flow` event (older games keep their vocabulary)
        self.compact = compact
        # facts(state), for compact games it holds: a counter change rides on the public fact
        # just before it (`_counters`) and a decide with no public fact records the answer
        # itself (`answered`) instead of a `flow` event (docs: services/rules/engine/README.md)
        self.facts = facts
        self.zones = zones
        self.evolve = evolve_fn
        self.tasks: dict[str, TaskFn] = {}
        self.answers: dict[str, AnswerFn] = {}
        self.options_of: dict[str, OptionsFn] = {}

    def task(self, name: str) -> Callable[[TaskFn], TaskFn]:
        """Register a task handler under a name."""

        def deco(fn: TaskFn) -> TaskFn:
            if name in self.tasks:
                raise ValueError(f"{self.game}: task {name!r} registered twice")
            self.tasks[name] = fn
            return fn

        return deco

    def answer(self, name: str) -> Callable[[AnswerFn], AnswerFn]:
        """Register the handler that receives a seat's answer to a decision."""

        def deco(fn: AnswerFn) -> AnswerFn:
            if name in self.answers:
                raise ValueError(f"{self.game}: answer {name!r} registered twice")
            self.answers[name] = fn
            return fn

        return deco

    def options(self, kind: str) -> Callable[[OptionsFn], OptionsFn]:
        """Register a function computing a decision's legal answers from the state."""

        def deco(fn: OptionsFn) -> OptionsFn:
            self.options_of[kind] = fn
            return fn

        return deco

    def ctx(self, state: State) -> Ctx:
        """Return a decision builder over a state."""
        return Ctx(self, state)

    def answers_to(self, state: State, pending: Mapping[str, Any]) -> list[tuple[str, Args]]:
        """Return a pending decision's legal answers as (kind, args) pairs."""
        data = pending["data"]
        if "options" in data:
            return [(k, a) for k, a in data["options"]]
        fn = self.options_of.get(pending["kind"])
        if fn is None:
            raise RuleViolation(f"no answers defined for {pending['kind']}")
        return fn(state, data)


def freeze(value: Any) -> Any:
    """Return a hashable form of a JSON value (dicts sorted, lists as tuples, bools tagged)."""
    if isinstance(value, dict):
        return tuple(sorted((k, freeze(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return ("[", *(freeze(v) for v in value))
    if isinstance(value, bool):
        return ("bool", value)
    return value


_SCALARS: Final = frozenset((str, int, float, bool, type(None)))


def answer_key(kind: str, args: Mapping[str, Any]) -> tuple[str, Any]:
    """Return the legality key of an answer: equal keys mean equal canonical JSON.

    Flat scalar args (nearly every answer) key on their sorted items; bool and int compare
    equal there, which is safe because command shapes are type-checked before the lookup.
    """
    for value in args.values():
        if type(value) not in _SCALARS:
            return kind, freeze(dict(args))
    if len(args) < 2:
        return kind, tuple(args.items())
    return kind, tuple(sorted(args.items()))


def legal_keys(answers: Iterable[tuple[str, Args]]) -> set[tuple[str, Any]]:
    """Return the set of legality keys of some answers."""
    return {answer_key(k, a) for k, a in answers}


def is_answer(answers: list[tuple[str, Args]], kind: str, args: Mapping[str, Any]) -> bool:
    """Return True when (kind, args) has the legality key of one of the answers.

    Flat scalar args in a plain dict (nearly every answer) are compared as dicts, which is
    the same equality as their keys (sorted items) without building a key per answer."""
    if type(args) is dict:
        for value in args.values():
            if type(value) not in _SCALARS:
                break
        else:
            for k, a in answers:  # a loop, not any() over a generator
                if k == kind and a == args:
                    return True
            return False
    return answer_key(kind, args) in legal_keys(answers)


class Ctx:
    """A builder for one decide(): the working state, the events, tasks and pending."""

    def __init__(self, registry: Registry, state: State) -> None:
        self.registry = registry
        self._state = state
        # True while no one but this Ctx holds self._state (a copy it made): changes then go
        # into it in place instead of into one more copy; reading `state` hands it out
        self._private = False
        self._kernel_fold = registry.evolve is evolve  # else the game's own evolve folds
        self.events: list[Event] = []
        self.tasks: list[Task] = list(state.tasks)
        # how many tasks at the end of the queue came from the state: their args are shared
        # with its record, so run hands their handler a copy (pushed args are copied already)
        self._inherited = len(self.tasks)
        self.pending: Args | None = None
        self._vars: Args = {}  # the vars a compact engine's decide changed, in order
        self.compact = registry.compact is not None and registry.compact(state)
        self.facts = self.compact and registry.facts is not None and registry.facts(state)
        self.answered: Args | None = None  # the seat's answer this decide handles (facts)
        self._held: list[list[Any]] = []  # counter changes (folded) awaiting a public fact

    @property
    def state(self) -> State:
        """Return the working state: every event of this decide so far folded in. A state
        handed out is never changed afterwards (the next change works on a copy)."""
        self._private = False
        return self._state

    @state.setter
    def state(self, state: State) -> None:
        self._state = state
        self._private = False

    # --- reads that keep the working state private --------------------------
    # A zone (a tuple), a counter or a var's value never changes once read (a change puts
    # new ones in new maps), so these read the working state without handing it out: the
    # next change can still go into it in place instead of into a copy.
    @property
    def zones(self) -> Mapping[str, tuple[str, ...]]:
        """Return the zones of the working state (a map never edited)."""
        return self._state.zones

    @property
    def vars(self) -> Mapping[str, Any]:
        """Return the vars of the working state (a map never edited)."""
        return self._state.vars

    def zone(self, name: str) -> tuple[str, ...]:
        """Return the cards of a zone of the working state (top first)."""
        found: tuple[str, ...] = self._state.zones.get(name, ())
        return found

    def count(self, key: str) -> int:
        """Return a counter of the working state (0 when unset)."""
        found: int = self._state.counters.get(key, 0)
        return found

    def peek(self, key: str, default: Any = None) -> Any:
        """Return a var's JSON value in the working state, shared: read it, never edit it."""
        raw = self._state.vars.get(key)
        return default if raw is None else raw

    def _change(self, changes: Args) -> None:
        """Set fields of the working state: in place while it is private, else on a copy."""
        if self._private:
            self._state.__dict__.update(changes)
        else:
            self._state = copy_with(self._state, changes)
            self._private = True

    # --- events ---------------------------------------------------------
    def emit(
        self, type_: str, data: Mapping[str, Any], vis: str | tuple[str, ...] = PUBLIC
    ) -> None:
        """Record an event and fold it into the working state."""
        if type_ == "vars_cleared" and self.compact:  # bookkeeping: recorded with the vars
            self._clear_vars(str(data["prefix"]))
            return
        self._record(type_, dict(data), vis)

    def _record(self, type_: str, data: Args, vis: str | tuple[str, ...]) -> None:
        """Record an event whose payload dict is its own (emit's copy, or note's keywords)
        and fold it into the working state."""
        event = object.__new__(Event)  # a frozen dataclass built without its slow __init__
        event.__dict__.update(type=type_, data=data, visibility=vis, schema_version=1)
        if self._kernel_fold and COUNTERS not in data and FLOW not in data:
            state = self._state  # the kernel's evolve without its copy of the state
            fold = FOLDS.get(type_)
            changes = fold(state, data) if fold is not None else {}
            changes["events"] = state.events + 1
            if self._private:
                state.__dict__.update(changes)
            else:
                self._state = copy_with(state, changes)
                self._private = True
        else:
            self._state = self.registry.evolve(self._state, event)
            self._private = False  # a game's own evolve: its result is not known to be fresh
        self.events.append(event)
        if self._held and vis == PUBLIC:  # counter changes waiting for a fact (already folded)
            _own(event)[COUNTERS] = [*self._held, *event.data.get(COUNTERS, ())]
            self._held = []

    def move(self, card: str, src: str, dst: str, bottom: bool = False) -> None:
        """Move a card between zones, with a public count-only note when it is hidden."""
        vis = self.registry.zones.move_visibility(src, dst)
        self._record("card_moved", {"card": card, "from": src, "to": dst, "bottom": bottom}, vis)
        if vis != PUBLIC:
            self._record("hidden_card_moved", {"from": src, "to": dst, "count": 1}, PUBLIC)

    def add(self, key: str, delta: int, reason: str = "") -> None:
        """Change a counter by delta (no event for zero). In a facts engine the change rides
        on a public fact of this decide (`_counters`): the one just emitted, else the next."""
        if not delta:
            return
        if not self.facts or key.startswith("deck."):  # deck counts are set by deck facts
            self.emit("counter_changed", {"key": key, "delta": delta, "reason": reason})
            return
        self._change({"counters": add_counter(self._state.counters, key, delta)})
        change = [key, delta, reason]
        last = self.events[-1] if self.events else None
        if last is not None and last.visibility == PUBLIC and not self._held:
            _own(last).setdefault(COUNTERS, []).append(change)
        else:
            self._held.append(change)

    def set_to(self, key: str, value: int, reason: str = "") -> None:
        """Set a counter to a value."""
        self.add(key, value - self.count(key), reason)

    def setv(self, key: str, value: Any) -> None:
        """Set a public var (None removes it); a compact engine records the vars a decide
        changed once, in its last public fact (`_flow`), instead of a `var_set` each."""
        state = self._state
        old = state.vars.get(key)
        if old is value or (old is not None and same(old, value)):  # same(None, x): x is None
            return
        if not self.compact:
            self.emit("var_set", {"key": key, "value": value})
            return
        changed = self._vars
        changed.pop(key, None)
        changed[key] = value
        vars_ = put(state.vars, key, value)
        if self._private:
            state.__dict__["vars"] = vars_
        else:
            self._state = copy_with(state, {"vars": vars_})
            self._private = True

    def _clear_vars(self, prefix: str) -> None:
        """setv(key, None) for every var whose key starts with prefix, in order: one new
        vars map for all of them instead of one per var."""
        state = self._state
        kept: Args = {}
        changed = self._vars
        for key, value in state.vars.items():
            if key.startswith(prefix):
                changed.pop(key, None)
                changed[key] = None
            else:
                kept[key] = value
        if len(kept) == len(state.vars):
            return
        vars_ = FrozenMap(kept)
        if self._private:
            state.__dict__["vars"] = vars_
        else:
            self._state = copy_with(state, {"vars": vars_})
            self._private = True

    def exhaust(self, card: str, exhausted: bool = True) -> None:
        """Exhaust (or refresh) a card."""
        if (card in self._state.exhausted) != exhausted:
            self.emit("card_exhausted", {"card": card, "exhausted": exhausted})

    def note(self, type_: str, **data: Any) -> None:
        """Record an informational public event (changes no state)."""
        if type_ == "vars_cleared" and self.compact:
            self._clear_vars(str(data["prefix"]))
            return
        self._record(type_, data, PUBLIC)  # the keywords are a fresh dict: no copy

    # --- flow -----------------------------------------------------------
    def push(self, *tasks: tuple[str, Args]) -> None:
        """Queue tasks to run next, in the given order (each with a private copy of its args)."""
        if len(tasks) == 1:
            name, args = tasks[0]
            self.tasks.insert(0, (name, dict(args)))
        else:
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

    def deal(self, request: ChanceRequest, resume: str, **data: Any) -> None:
        """Ask the deck service for a deck operation, then run the resume task with its answer."""
        self.pending = {
            "seat": CHANCE,
            "kind": request.kind,
            "prompt": f"{request.kind.replace('_', ' ')} {request.deck}",
            "data": dict(data, resume=resume, **deck_fields(request)),
        }

    def run(self) -> None:
        """Run queued tasks until a decision is pending or the game is over."""
        tasks = self.registry.tasks
        while self.pending is None and self._state.phase != "over":
            queue = self.tasks
            if not queue:
                raise RuntimeError(f"{self.registry.game}: no pending decision and no task queued")
            name, args = queue.pop(0)
            if len(queue) < self._inherited:  # it came from the state: copy the shared args
                self._inherited = len(queue)
                args = dict(args)
            tasks[name](self, args)

    def finish(self) -> list[Event]:
        """Record the flow (task queue and pending decision) and return all events.

        A compact engine puts it, with the vars this decide changed, into the decide's last
        public fact (`_flow`: tasks, pending, vars); no fold reads vars, so applying them
        there gives the same state. Only a decide without a public fact emits `flow`."""
        if self._held:
            self._place_held()
        over = self._state.phase == "over"
        flow: Args = {} if over else {"tasks": list(self.tasks), "pending": self.pending}
        if not self.compact:
            if not over:
                self.emit("flow", flow)
            return self.events
        if self._vars:
            flow["vars"] = self._vars
        if not flow:
            return self.events
        for event in reversed(self.events):
            if event.visibility == PUBLIC and FLOW not in event.data:
                _own(event)[FLOW] = flow  # its own payload: no copy (FLOW is its last key)
                if not over:
                    self._change({"tasks": tuple(flow["tasks"]), "pending": self.pending})
                return self.events
        vars_ = flow.pop("vars", None)
        if self.facts and self.answered is not None:  # the answer is the fact: "hero passed"
            if self._kernel_fold:
                self._answered(flow, vars_, over)
                return self.events
            self.emit("answered", {**self.answered, FLOW: flow})
            if vars_:
                _own(self.events[-1])[FLOW] = dict(flow, vars=vars_)
            return self.events
        self.emit("flow", flow)
        if vars_:  # the vars are in the state already: only the record carries them
            self.events[-1].__dict__["data"] = dict(flow, vars=vars_)
        return self.events

    def _answered(self, flow: Args, vars_: Args | None, over: bool) -> None:
        """Record the answer as the decide's fact carrying the flow: what emit and the
        kernel's evolve do for it (no fold; the flow's tasks and pending, the vars already
        in the working state), without building the folded event twice."""
        assert self.answered is not None
        rider = dict(flow, vars=vars_) if vars_ else flow
        event = object.__new__(Event)
        event.__dict__.update(
            type="answered",
            data={**self.answered, FLOW: rider},
            visibility=PUBLIC,
            schema_version=1,
        )
        self.events.append(event)
        changes: Args = {"events": self._state.events + 1}
        if not over:
            changes["tasks"] = tuple(flow["tasks"])
            changes["pending"] = flow.get("pending")
        self._change(changes)

    def _place_held(self) -> None:
        """Put counter changes no later fact took on the last public fact, or record them
        as `counter_changed` events (already folded: counters add, so the order is free)."""
        if not self._held:
            return
        held, self._held = self._held, []
        for event in reversed(self.events):
            if event.visibility == PUBLIC:
                _own(event)[COUNTERS] = [*event.data.get(COUNTERS, ()), *held]
                return
        for key, delta, reason in held:
            event = object.__new__(Event)
            data = {"key": key, "delta": delta, "reason": reason}
            event.__dict__.update(type="counter_changed", data=data, visibility=PUBLIC)
            event.__dict__["schema_version"] = 1
            self.events.append(event)
            self._change({"events": self._state.events + 1})


def _own(event: Event) -> Args:
    """Return the payload dict of an event this decide emitted (emit made its own copy)."""
    data = event.data
    assert isinstance(data, dict)
    return data


def deck_fields(request: ChanceRequest) -> Args:
    """Return the JSON-ready fields of a deck request (kept in the pending decision)."""
    return {
        "purpose": request.purpose,
        "deck": request.deck,
        "count": request.count,
        "cards": list(request.cards),
        "match": list(request.match),
        "position": request.position,
        "shuffled": request.shuffled,
        "visible_to": list(request.visible_to),
        **({"to": request.to} if request.to else {}),  # only deck_move: older payloads unchanged
    }
