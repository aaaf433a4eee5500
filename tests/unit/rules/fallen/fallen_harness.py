"""Test harness for the Fallen engine: a game driver with given-state helpers."""

from __future__ import annotations

import json
from typing import Any

from services.rules.engine.api import CHANCE, DECK_KINDS, Command, Event, Setup
from services.rules.engine.dealer import Dealer
from services.rules.fallen import RULES
from services.rules.fallen.state import DL, HERO, State

# The card data the scripted examples are written for: version 5 (the newest) changes only
# the Heroes' dice and Fortune limits (balance, docs/balance.md), which these scripted rolls
# and Fortune counts fix; its rules are version 4's.
EXAMPLE_DATA = 4

END = ("window_open", {"name": "test_end", "who": HERO})


class Game:
    """A game under test: folds every event, exposes helpers to answer decisions."""

    dealer: Dealer | None = None  # the deck service's part (dealt games only)

    def __init__(
        self,
        hero: str = "merace",
        dl: str = "archivist",
        skill: str | None = None,
        quest: int = 0,
        stories: list[str] | None = None,
        card_data: int = EXAMPLE_DATA,
        dealt: bool = False,
    ) -> None:
        # dealt (the path every new game takes): the face-down decks are in the deck
        # service, here the kernel's Dealer, which the harness answers at once; a test puts
        # a given card on top of a deck by ordering the Dealer's deck (put, order_story).
        # dealt=False: the engine-held decks of games created before the deck service dealt
        # (still replayed).
        setup = Setup({HERO: "h", DL: "d"}, {"card_data": card_data})
        self.dealer = Dealer(b"t" * 32, "t") if dealt else None
        self.events: list[Event] = []
        self.state: State = RULES.initial_state()
        if dealt:
            self.fold(RULES.initial_events("t", setup))
            self.deal()
        else:
            self.fold(RULES.older_setups("t", setup)[0])
        self.do(HERO, "choose_hero", character=hero)
        # the starting Skill comes before the Dungeon Lord (card data 4+) or after him
        for _ in range(2):
            if self.pending_kind == "choose_dungeon_lord":
                self.do(DL, "choose_dungeon_lord", character=dl)
            else:
                first = [c.args["skill"] for c in RULES.legal_commands(self.state, HERO)]
                self.do(HERO, "choose_skill", skill=skill or first[0])
        if dealt and stories:
            self.order_story(stories)
        while self.pending_kind == "shuffle":
            if self.pending_data.get("zone") == "story.deck" and stories:
                self.order_story(stories)
            self.shuffle()
        quest_choices = [c.args["choice"] for c in RULES.legal_commands(self.state, HERO)]
        self.quest_choice = quest_choices[quest]

    # --- driving ------------------------------------------------------------------
    def send(self, cmd: Command) -> list[Event]:
        """Decide and fold one command; return its events."""
        evs = RULES.decide(self.state, cmd)
        self.fold(evs)
        return evs + self.deal()

    def deal(self) -> list[Event]:
        """Answer every pending deck request from the Dealer (the deck service's part)."""
        out: list[Event] = []
        while self.dealer is not None:
            p = RULES.pending(self.state)
            if p is None or p.chance is None or p.chance.kind not in DECK_KINDS:
                break
            evs = RULES.decide(self.state, self.dealer.answer(p.chance))
            self.fold(evs)
            out += evs
        return out

    def fold(self, evs: list[Event]) -> None:
        """Fold events into the state and record them."""
        for e in evs:
            self.state = RULES.evolve(self.state, e)
        self.events.extend(evs)

    def do(self, seat: str, kind: str, **args: Any) -> list[Event]:
        """Send a seat's command."""
        return self.send(Command(seat, kind, args))

    def roll(self, *faces: str) -> list[Event]:
        """Answer a pending roll with the given faces."""
        return self.send(Command(CHANCE, "roll", {"faces": list(faces), "nonce": len(self.events)}))

    def shuffle(self, order: list[int] | None = None) -> list[Event]:
        """Answer a pending shuffle (identity order by default)."""
        n = int(self.pending_data["count"])
        return self.send(
            Command(
                CHANCE, "shuffle", {"order": order or list(range(n)), "nonce": len(self.events)}
            )
        )

    def passes(self, limit: int = 50) -> None:
        """Pass every open priority window until another kind of decision is pending."""
        for _ in range(limit):
            if self.pending_kind != "window" or self.pending_data.get("name") == "test_end":
                return
            self.do(self.pending_seat, "pass")

    # --- reading -----------------------------------------------------------------
    @property
    def pending(self) -> dict[str, Any]:
        """The pending decision as a dict."""
        p = self.state.pending_dict()
        assert p is not None, "game over"
        return p

    @property
    def pending_kind(self) -> str:
        return str(self.pending["kind"])

    @property
    def pending_seat(self) -> str:
        return str(self.pending["seat"])

    @property
    def pending_data(self) -> dict[str, Any]:
        return dict(self.pending["data"])

    def legal(self, seat: str | None = None) -> list[tuple[str, dict[str, Any]]]:
        """Return the legal answers (kind, args) of the pending seat."""
        return [
            (c.kind, dict(c.args))
            for c in RULES.legal_commands(self.state, seat or self.pending_seat)
        ]

    def count(self, key: str) -> int:
        return self.state.count(key)

    def zone(self, name: str) -> tuple[str, ...]:
        return self.state.zone(name)

    # --- givens ------------------------------------------------------------------
    def patch(self, type_: str, **data: Any) -> None:
        """Fold a synthetic event (to set up a given state)."""
        self.fold([Event(type_, data, "nobody")])

    def put(self, card: str, zone: str, bottom: bool = False) -> None:
        """Move a card from wherever it is to a zone (top by default); on the dealt path a
        card in a face-down deck is the Dealer's, and a deck's top is the Dealer's top."""
        held = self._held(card)
        if held is not None:
            assert self.dealer is not None
            self.dealer.decks[held].remove(card)
            if zone in self.dealer.decks:
                self._into_dealer(card, zone, bottom)
                self.patch("deck_changed", deck=held, count=len(self.dealer.decks[held]))
                self.patch("deck_changed", deck=zone, count=len(self.dealer.decks[zone]))
                return
            self.patch("deck_dealt", deck=held, to=zone, cards=[card], bottom=bottom)
            return
        src = self.state.where(card)
        assert src is not None, card
        if self.dealer is not None and zone in self.dealer.decks:
            self._into_dealer(card, zone, bottom)
            count = len(self.dealer.decks[zone])
            self.patch("deck_changed", deck=zone, count=count, cards=[card], **{"from": src})
            return
        self.patch("card_moved", card=card, **{"from": src, "to": zone, "bottom": bottom})

    def _held(self, card: str) -> str | None:
        """Return the Dealer's deck holding a card (None: not in the deck service)."""
        decks = self.dealer.decks if self.dealer is not None else {}
        return next((d for d, cards in decks.items() if card in cards), None)

    def _into_dealer(self, card: str, deck: str, bottom: bool) -> None:
        assert self.dealer is not None
        cards = self.dealer.decks[deck]
        cards[len(cards) if bottom else 0 : 0] = [card]

    def deck(self, name: str) -> tuple[str, ...]:
        """Return a face-down deck's cards, top first (the Dealer's, then those put under)."""
        held = tuple(self.dealer.decks.get(name, ())) if self.dealer is not None else ()
        return held + self.state.zone(name)

    def set(self, key: str, value: int) -> None:
        """Set a counter."""
        self.patch("counter_changed", key=key, delta=value - self.state.count(key))

    def setv(self, key: str, value: Any) -> None:
        """Set a var."""
        self.patch("var_set", key=key, value=value)

    def order_story(self, first: list[str]) -> None:
        """Put the given Story cards on top of the story deck, in order."""
        for sid in reversed(first):
            self.put(sid, "story.deck")

    def run_tasks(self, *tasks: tuple[str, dict[str, Any]]) -> None:
        """Replace the task queue with tasks (plus a final test window) and start them."""
        queue = [[n, a] for n, a in (*tasks, END)]
        pending = {
            "seat": HERO,
            "kind": "window",
            "prompt": "test",
            "data": {"resume": "window", "name": "test_start", "passes": 1, "who": HERO},
        }
        self.patch("flow", tasks=queue, pending=pending)
        self.do(HERO, "pass")

    def challenge(self, attribute: str = "strength", **extra: Any) -> None:
        """Start a lone story challenge (no purchases afterwards) and stop at the first decision."""
        self.run_tasks(
            ("challenge", {"kind": "story", "attribute": attribute, "last": True, **extra})
        )

    def notes(self, type_: str) -> list[dict[str, Any]]:
        """Return the data of recorded events of a type (without the bookkeeping that rides
        on facts of dealt games: `_flow`, `_counters`)."""
        return [
            {k: v for k, v in e.data.items() if not k.startswith("_")}
            for e in self.events
            if e.type == type_
        ]


def dealt_start(game_id: str = "t", options: dict[str, Any] | None = None) -> State:
    """Return a new game's state once the deck service (the kernel's Dealer) has formed its
    face-down decks: waiting for the Hero to choose a character (no options: card data 1)."""
    state = RULES.initial_state()
    for e in RULES.initial_events(game_id, Setup({HERO: "h", DL: "d"}, options or {})):
        state = RULES.evolve(state, e)
    dealer = Dealer(b"t" * 32, game_id)
    while (p := RULES.pending(state)) is not None and p.chance is not None:
        for e in RULES.decide(state, dealer.answer(p.chance)):
            state = RULES.evolve(state, e)
    return state


def dumps(obj: Any) -> str:
    """Canonical JSON (for comparisons in tests)."""
    return json.dumps(obj, sort_keys=True)


def finish_challenge(g: Game, limit: int = 200) -> None:
    """Answer every decision with a neutral choice until the test's end window."""
    for _ in range(limit):
        kind, data = g.pending_kind, g.pending_data
        if kind == "window" and data.get("name") == "test_end":
            return
        if kind == "shuffle":
            g.shuffle()
        elif kind == "roll":
            g.roll(*["blank"] * len(data["dice"]))
        elif kind in ("window", "upgrade", "buy"):
            g.do(g.pending_seat, "pass" if kind == "window" else "done")
        else:
            k, a = g.legal()[0]
            g.do(g.pending_seat, k, **a)
    raise AssertionError("challenge did not finish")
