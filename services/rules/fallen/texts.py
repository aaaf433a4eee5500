"""Card texts served in a seat's view: the cards it may see, as much of each as it may read.

Clients resolve card ids through the view's ``cards`` map, never by reading the card data
files (which list every Story branch and every Quest choice's effects). A Story card only
ever appears for the Dungeon Lord (its zones are his alone). The Quest is printed on the
back of the Dungeon Lord's Character card: "The Hero selects one of the two choices
without looking at the Quest card", so anyone but the Dungeon Lord gets its title,
introduction and choice names, which are read aloud (Quest Stage 2-3); the chosen
choice's text is told in the public ``quest_choice`` event.

A card's text depends only on the card-data version, the card and whether the reader is
the Dungeon Lord, so each is built (and encoded to canonical JSON) once per process and
shared by every view that shows it: read-only dicts (``ReadOnlyDict``), so no caller can
change what the next view serves. A view's ``cards`` map is a ``CardTexts``, which knows its
own canonical JSON (the encoded texts joined), so the projections do not encode (or even
walk) the texts again for every view they write (docs/performance.md, fourth pass).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache, lru_cache
from typing import Any, NoReturn

from services.platform.canonical import canonical_json
from services.rules.fallen.cards import catalog, catalog_of, data_version
from services.rules.fallen.state import DL


class ReadOnlyDict(dict[str, Any]):
    """A dict whose methods that change it raise TypeError; copies and pickles are dicts."""

    __slots__ = ()

    def _read_only(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError("served card texts are shared between views: copy before changing")

    __setitem__ = __delitem__ = __ior__ = _read_only
    clear = pop = popitem = setdefault = update = _read_only

    def __reduce__(self) -> tuple[Any, ...]:
        return (dict, (dict(self),))


class SharedPart(ReadOnlyDict):
    """A view part every seat's view of one state shows alike (counters, vars, ...): built
    once per state, read-only, and encoded once (``canonical_text``) however many seats'
    views carry it."""

    __slots__ = ("_text",)

    def __init__(self, items: Any = ()) -> None:
        super().__init__(items)
        self._text: str | None = None

    def canonical_text(self) -> str:
        """Return canonical_json(self), encoded on the first call (the part cannot change)."""
        if self._text is None:
            self._text = canonical_json(dict(self))
        return self._text


class CardTexts(ReadOnlyDict):
    """A view's card texts (card id -> text) that knows its canonical JSON."""

    __slots__ = ("_dl", "_keys", "_text", "_version")

    def __init__(self, version: int, dl: bool, ids: list[str]) -> None:
        super().__init__((cid, _served(version, cid, dl)[0]) for cid in ids)
        self._version, self._dl, self._keys = version, dl, ids
        self._text: str | None = None

    def canonical_text(self) -> str:
        """Return canonical_json(self) from the texts' encodings (ids are sorted; the map
        cannot change, so the text is joined once)."""
        if self._text is None:
            parts = (_served(self._version, c, self._dl)[1] for c in self._keys)
            self._text = "{" + ",".join(parts) + "}"
        return self._text


@lru_cache(maxsize=256)
def _texts(version: int, dl: bool, ids: frozenset[str]) -> CardTexts:
    """Return the (shared, read-only) texts of a set of cards: consecutive views of a game
    mostly show the same cards, so most views reuse the map and its JSON."""
    return CardTexts(version, dl, sorted(ids))


def _quest_read_aloud(quest: dict[str, Any]) -> dict[str, Any]:
    return {
        "title": quest["title"],
        "intro": quest["intro"],
        "choices": [{"name": c["name"]} for c in quest["choices"]],
    }


def card_text(cid: str, seat: str | None) -> dict[str, Any]:
    """Return what a seat may read of one card it can see (shared: read-only)."""
    return _served(data_version(), cid, seat == DL)[0]


@cache
def _served(version: int, cid: str, dl: bool) -> tuple[ReadOnlyDict, str]:
    """Return a card's text for the Dungeon Lord (dl) or anyone else, and its JSON member
    ``"<id>":<text>`` (canonical)."""
    data = dict(catalog_of(version)[cid])
    if data["type"] == "dungeon_lord" and not dl and "quest" in data:
        data["quest"] = _quest_read_aloud(data["quest"])
    text = ReadOnlyDict(data)
    return text, f"{canonical_json(cid)}:{canonical_json(text)}"


def _ids(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from _ids(v)


def _in_game(zone: str, hero: str | None) -> bool:
    """Return False for the box (other characters' cards, cards put away)."""
    if zone == "box" or zone.startswith("box."):
        return False
    return not zone.startswith("skills.") or zone == f"skills.{hero}"


def served_cards(view: dict[str, Any], seat: str | None) -> CardTexts:
    """Return the texts of every card the view shows the seat in play (zones, characters)."""
    known = catalog().cards
    hero = view["characters"].get("hero")
    ids: set[str] = set()
    for zone, cards in view["zones"].items():
        if isinstance(cards, list) and _in_game(zone, hero):
            ids.update(cards)
    ids.update(c for c in view["characters"].values() if c)
    return _texts(data_version(), seat == DL, frozenset(c for c in ids if c in known))
