"""Dice kinds loaded from kinds.yaml, and how composite kinds are read."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml

from services.platform.errors import InvalidArgument, quote

KINDS_FILE = Path(__file__).with_name("kinds.yaml")


@dataclass(frozen=True)
class Catalog:
    """Every simple kind's faces and every composite kind's parts."""

    faces: dict[str, tuple[str, ...]]
    composites: dict[str, tuple[str, ...]]

    def names(self) -> list[str]:
        """Return every kind a roll request may name."""
        return sorted([*self.faces, *self.composites])

    def expand(self, kind: str) -> tuple[str, ...]:
        """Return the simple kinds rolled for a requested kind."""
        if kind in self.faces:
            return (kind,)
        if kind in self.composites:
            return self.composites[kind]
        raise InvalidArgument(
            "dice", f"unknown dice kind {quote(kind)}; known: {', '.join(self.names())}"
        )


@cache
def catalog() -> Catalog:
    """Return the catalog of kinds.yaml."""
    raw = yaml.safe_load(KINDS_FILE.read_text())
    faces = {k: tuple(str(f) for f in v) for k, v in raw["kinds"].items()}
    comps = {k: tuple(v["parts"]) for k, v in raw.get("composites", {}).items()}
    return Catalog(faces=faces, composites=comps)


def read_composite(kind: str, part_faces: list[str]) -> str:
    """Return the reading of a composite roll (2d10: tens + units, 00 + 0 = 100)."""
    if kind == "2d10":
        value = int(part_faces[0]) + int(part_faces[1])
        return str(value or 100)
    raise InvalidArgument("dice", f"no reading rule for {quote(kind)}")
