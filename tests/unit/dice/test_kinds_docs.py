"""The dice faces the docs publish are the faces the dice service rolls (kinds.yaml)."""

from __future__ import annotations

import re
from pathlib import Path

from services.dice.kinds import catalog

DOCS = Path(__file__).resolve().parents[3] / "docs"
COLOURS = {
    "white": "fallen_white",
    "black": "fallen_black",
    "red": "fallen_red",
    "blue": "fallen_blue",
}


def table_rows(text: str, heading: str) -> list[list[str]]:
    """Return the cells of the markdown table under a heading (header and rule skipped)."""
    section = text.split(heading, 1)[1]
    block: list[str] = []
    for ln in section.splitlines()[1:]:
        if ln.startswith("|"):
            block.append(ln)
        elif block:
            break
    assert block
    return [[c.strip() for c in ln.strip("|").split("|")] for ln in block[2:]]


def test_fairness_md_lists_every_kind_with_its_faces_in_index_order() -> None:
    # given the kinds table of docs/fairness.md
    rows = table_rows((DOCS / "fairness.md").read_text(), "## Dice kinds")
    cat = catalog()
    simple = {k: tuple(v.split()) for k, v in rows if not v.startswith("composite:")}
    composite = {k: v for k, v in rows if v.startswith("composite:")}
    # then every simple kind is there with exactly the faces rolled, in index order
    assert simple == cat.faces
    # and every composite names its parts in the order they are rolled
    assert set(composite) == set(cat.composites)
    for kind, text in composite.items():
        named = re.findall(r"\b(\w+)\b", text.split(":", 1)[1].split(",")[0])
        assert tuple(w for w in named if w != "then") == cat.composites[kind]


def test_the_fallen_register_table_shows_the_rolled_faces() -> None:
    # given the "Dice faces" table of docs/games/fallen.md
    rows = table_rows((DOCS / "games" / "fallen.md").read_text(), "## Dice faces")
    faces = catalog().faces
    # then each colour's faces are the dice service's, in order
    seen = set()
    for die, listed, _swords in rows:
        kind = COLOURS[die.split()[0]]
        assert tuple(f.strip() for f in listed.split(",")) == faces[kind], die
        seen.add(kind)
    assert seen == set(COLOURS.values())
