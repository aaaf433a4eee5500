"""The hidden-information scanner shared by the projection scans.

A card id counts as hidden from a reader (a seat, or None = spectator) at a version when no
event visible to that reader (up to that version) carries it. Card ids are the engine's
catalog (Fallen, Land, Worlds) plus every string under a "card"/"cards" key in the events.
An id is known once any copy is public: a later copy of the same id in a hand is not caught
here, so the Worlds test adds a per-copy check of hands (tests/unit/rules/worlds).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from services.platform.envelope import Envelope
from services.projections import core
from services.projections.records import may_see, seat_event
from services.rules.engine.api import GameRules
from tests.support.toy_game import CARDS


def strings(value: Any, under_card: bool = False) -> Iterator[tuple[str, bool]]:
    """Yield (string, whether it sits under a card/cards key) for every string in value."""
    if isinstance(value, str):
        yield value, under_card
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from strings(v, under_card or k in ("card", "cards"))
    elif isinstance(value, list | tuple):  # tuples too: events folded in process carry them
        for v in value:
            yield from strings(v, under_card)


def vocabulary(game: str, envs: list[Envelope]) -> set[str]:
    """Return the card ids of a game: the catalog plus strings under card keys."""
    vocab = set(CARDS) if game == "toy" else set()
    if game == "fallen":
        from services.rules.fallen.cards import VERSIONS, catalog_of

        for version in VERSIONS:  # every released card-data set
            vocab |= set(catalog_of(version).cards)
    if game == "worlds":
        from services.rules.worlds.cards import catalog as worlds_catalog

        vocab |= set(worlds_catalog().cards)
    if game == "land":
        from services.rules.land.data import catalog as land_catalog

        vocab |= {c for ids in land_catalog().decks.values() for c in ids}
    for env in envs:
        vocab |= {s for s, card in strings(env.data) if card and s}
    return vocab


# a token: word characters, possibly joined by single dots (ids like "card.ace", "hp_x")
TOKEN = re.compile(r"\w+(?:\.\w+)*")


ID = re.compile(r"\w+(?:\.\w+)*")


def all_strings(value: Any) -> Iterator[str]:
    """Yield every string in a JSON-ready value, dict keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            if isinstance(k, str):
                yield k
            yield from all_strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from all_strings(v)


def tokens(obj: Any) -> set[str]:
    """Return every name a JSON-ready object could give a card: its whole-id strings (keys
    included) and the id-like tokens of its other strings (sentences)."""
    found: set[str] = set()
    for text in all_strings(obj):
        if ID.fullmatch(text):
            found.add(text)
        else:
            found.update(TOKEN.findall(text))
    return found


def named(text: str, forbidden: set[str]) -> list[str]:
    """Return the forbidden ids that text names (as whole tokens)."""
    return sorted(set(TOKEN.findall(text)) & forbidden)


class Knowledge:
    """What each reader (seat, or None = spectator) has legitimately seen so far."""

    def __init__(self, vocab: set[str], readers: list[str | None]) -> None:
        self.vocab = vocab
        self.known: dict[str | None, set[str]] = {r: set() for r in readers}
        self._hidden: dict[str | None, set[str]] = {r: set(vocab) for r in readers}

    def see(self, env: Envelope) -> None:
        new: set[str] | None = None  # the event's card ids, found once for every reader
        for reader, known in self.known.items():
            if may_see(env, reader):
                if new is None:
                    new = {s for s, _ in strings(env.data)} & self.vocab
                known |= new
                self._hidden[reader] -= new

    def hidden(self, reader: str | None) -> set[str]:
        return self._hidden[reader]

    def check_obj(self, reader: str | None, obj: Any, what: str) -> None:
        """Assert no string (key or value) of a JSON-ready object names a hidden card."""
        self.check_tokens(reader, tokens(obj), what)

    def check_tokens(self, reader: str | None, names: set[str], what: str) -> None:
        """Assert none of an object's names (tokens(obj)) is a card hidden from the reader."""
        leaked = names & self._hidden[reader]
        assert not leaked, f"{what} for {reader or 'spectator'} names hidden cards {sorted(leaked)}"

    def check_changed(
        self, reader: str | None, obj: dict[str, Any], prev: dict[str, Any] | None, what: str
    ) -> None:
        """Assert no part of obj that differs from prev names a hidden card.

        Exact, because the hidden set only shrinks: a part already checked and unchanged
        cannot name a card that is hidden now but was not then.
        """
        if prev is None:
            self.check_obj(reader, obj, what)
            return
        for key, value in obj.items():
            old = prev.get(key)
            if value == old:
                continue
            if isinstance(value, dict) and isinstance(old, dict):
                changed = {k: v for k, v in value.items() if old.get(k) != v or k not in old}
                self.check_obj(reader, changed, f"{what} [{key}]")
            else:
                self.check_obj(reader, {key: value}, what)

    def check(self, reader: str | None, text: str, what: str) -> None:
        leaked = named(text, self.hidden(reader))
        assert not leaked, f"{what} for {reader or 'spectator'} names hidden cards {leaked}"


def scan_game(
    game: str,
    game_id: str,
    envs: list[Envelope],
    engines: dict[str, GameRules],
) -> int:
    """Scan one finished game's views and feeds at every append boundary; return checks."""
    stream = f"game-{game_id}"
    game_envs = [e for e in envs if e.stream == stream]
    # the seats of this game (a game may use fewer than its engine's seats, e.g. land)
    seated = list(game_envs[0].data.get("seats", {})) if game_envs else []
    readers: list[str | None] = [*(seated or engines[game].seats), None]
    knowledge = Knowledge(vocabulary(game, envs), readers)
    boundary = {
        e.version
        for i, e in enumerate(game_envs)
        if i + 1 == len(game_envs) or game_envs[i + 1].occurred_at != e.occurred_at
    }
    proj = core.GameProjection(game_id)
    checks = 0
    last_view: dict[str | None, dict[str, Any]] = {}
    for env in envs:
        proj = core.apply(proj, env, engines.get)
        knowledge.see(env)
        names: set[str] | None = None  # the event's names, found once for every reader
        for reader in readers:
            if may_see(env, reader):
                if names is None:
                    names = tokens(seat_event(env))
                knowledge.check_tokens(reader, names, f"{env.stream} v{env.version}")
                checks += 1
        if env.stream == stream and env.version in boundary and proj.game:
            views = core.views(proj, engines.get)
            assert views, f"{game_id}: no views at version {env.version}"
            for reader in readers:
                view = views[reader or ""]
                knowledge.check_changed(reader, view, last_view.get(reader), f"view v{env.version}")
                last_view[reader] = view
                checks += 1
    assert proj.ended
    return checks
