"""Views as canonical JSON, re-encoding only the parts that changed since the last view.

A Fallen view is about 17 KB, most of it the texts of the cards the seat can see, and
those rarely change from one event to the next; encoding the whole view for every seat
after every batch was the largest single cost of the in-process projections. The text of
each large top-level value is remembered by its marshal bytes: equal bytes mean the same
types and values (marshal tells True from 1, 1.0 from 1 and a tuple from a list), so the
remembered text is exactly what canonical_json would write. Different bytes for an equal
value (another key order, other object sharing) only cost a fresh encode.

A part that knows its own canonical JSON (a ``canonical_text()`` method, e.g. Fallen's card
texts, services/rules/fallen/texts.py) is asked for it instead: no walk, no encode.
"""

from __future__ import annotations

import marshal
from collections import OrderedDict
from typing import Any

from services.platform.canonical import canonical_json

MIN_BYTES = 1024  # smaller values are encoded directly (cheaper than a lookup)
MAX_ENTRIES = 512


class ViewText:
    """canonical_json for views, with a bounded memory of large parts' texts."""

    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self.max_entries = max_entries
        self._texts: OrderedDict[bytes, str] = OrderedDict()
        self._keys: dict[str, str] = {}  # a view's top-level key -> its JSON and the colon
        self.hits = 0

    def _part(self, value: Any) -> str:
        """Return canonical_json(value), from memory when a value of the same bytes was seen."""
        if not isinstance(value, dict | list) or not value:
            return canonical_json(value)
        own = getattr(value, "canonical_text", None)
        if own is not None:
            return str(own())
        try:
            raw = marshal.dumps(value)
        except ValueError:  # not plain data (marshal refuses it): nothing to remember
            return canonical_json(value)
        if len(raw) < MIN_BYTES:
            return canonical_json(value)
        text = self._texts.get(raw)
        if text is not None:
            self._texts.move_to_end(raw)
            self.hits += 1
            return text
        text = canonical_json(value)
        self._texts[raw] = text
        if len(self._texts) > self.max_entries:
            self._texts.popitem(last=False)
        return text

    def encode(self, view: Any) -> str:
        """Return canonical_json(view), byte for byte."""
        if not isinstance(view, dict) or not all(isinstance(k, str) for k in view):
            return canonical_json(view)
        keys = self._keys
        parts = [(keys.get(k) or self._key(k)) + self._part(view[k]) for k in sorted(view)]
        return "{" + ",".join(parts) + "}"

    def _key(self, key: str) -> str:
        """Return a top-level key's JSON and colon (remembered: views share a few keys)."""
        text = canonical_json(key) + ":"
        if len(self._keys) < MAX_ENTRIES:
            self._keys[key] = text
        return text
