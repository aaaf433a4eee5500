"""``fallenctl balance <game>``: seeded heuristic-bot games per pairing, win-rate tables and
a heat map (docs/balance.md)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from services.balance import heatmap, table
from services.balance.contests import GAMES
from services.balance.run import measure


def balance(
    game: Annotated[str, typer.Argument(help=f"one of {', '.join(GAMES)}")],
    games: Annotated[
        int, typer.Option(min=1, help="games per pairing (Worlds: per pairing and seat order)")
    ] = 10,
    seed: Annotated[str, typer.Option(help="seed of the run; each game's seed derives from it")] = (
        "balance"
    ),
    out: Annotated[Path, typer.Option(help="directory for the heat map balance-<game>.svg")] = Path(
        "."
    ),
    as_json: Annotated[
        bool, typer.Option("--json", help="print the report as JSON instead of tables")
    ] = False,
    card_data: Annotated[
        int | None, typer.Option(help="card-data version to measure (default: the newest)")
    ] = None,
    workers: Annotated[
        int | None, typer.Option(min=1, help="worker processes (default: every core)")
    ] = None,
) -> None:
    """Play seeded bot games per pairing and print win rates with 95% Wilson intervals."""
    if game not in GAMES:
        raise typer.BadParameter(f"unknown game {game!r}; one of {', '.join(GAMES)}")

    def progress(done: int, total: int) -> None:
        if done == total or done % 20 == 0:
            print(f"\r{done}/{total} games", end="\n" if done == total else "", file=sys.stderr)

    try:
        report = measure(game, games, seed, card_data, workers, progress)
    except ValueError as exc:  # e.g. an unknown card-data version
        raise typer.BadParameter(str(exc)) from None
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"balance-{game}.svg"
    path.write_text(heatmap.svg(report))
    if as_json:
        print(json.dumps({**report.as_dict(), "heatmap": str(path)}))
    else:
        print(table.render(report) + f"\nheat map: {path}")
