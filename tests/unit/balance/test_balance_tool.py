"""`fallenctl balance`: the pairings it plays, the output shape of a tiny run, reproducibility."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from services.balance.contests import Task, play_task, tasks
from services.balance.run import measure
from services.cli.main import app

runner = CliRunner()
SVG = "{http://www.w3.org/2000/svg}"


def test_given_worlds_when_tasks_listed_then_every_ordered_faction_pair_n_times() -> None:
    todo = tasks("worlds", 2, "s")
    pairs = {(t.first, t.second) for t in todo}
    assert len(pairs) == 42 and len(todo) == 84  # 7 x 6 seat orders, 2 games each
    assert all(a != b and (b, a) in pairs for a, b in pairs)
    assert len({t.seed for t in todo}) == 84


def test_given_land_when_tasks_listed_then_epic_solo1_and_four_solo2_levels() -> None:
    kinds = [(t.kind, t.first) for t in tasks("land", 1, "s")]
    assert kinds == [("epic", ""), ("solo1", ""), *[("solo2", str(n)) for n in (1, 2, 3, 4)]]


def test_given_bad_arguments_when_tasks_listed_then_refused() -> None:
    with pytest.raises(ValueError, match="unknown game"):
        tasks("chess", 1, "s")
    with pytest.raises(ValueError, match="at least 1"):
        tasks("worlds", 0, "s")


def test_given_a_worlds_task_when_played_twice_then_same_game_and_both_sides_counted() -> None:
    task = Task("worlds", "factions", "draga", "uea", "balance-test-0")
    first, again = play_task(task), play_task(task)
    assert first == again
    (a, b, a_won), (b2, a2, b_won) = first.cells
    assert (a, b, b2, a2) == ("draga", "uea", "uea", "draga")
    assert a_won != b_won  # a Worlds game ends with one winner
    groups = [(g, label) for g, label, _ in first.contestants]
    assert groups == [("faction", "draga"), ("faction", "uea"), ("seat", "p1"), ("seat", "p2")]


def test_given_a_solo2_task_when_played_then_counted_under_its_level() -> None:
    played = play_task(Task("land", "solo2", "4", "", "balance-test-0"))
    assert [(r, c) for r, c, _ in played.cells] == [("player", "Solo II level 4")]
    assert [(g, label) for g, label, _ in played.contestants] == [("solo", "Solo II level 4")]


def test_given_a_tiny_fallen_run_when_measured_then_every_pairing_and_contestant_counted() -> None:
    report = measure("fallen", 1, "tiny", workers=1)
    assert report.rows == ["seroth", "merace", "ranek"]
    assert report.columns == ["archivist", "forge_master", "krogarn"]
    assert all(rate.games == 1 for rate in report.cells.values()) and len(report.cells) == 9
    games = {key: rate.games for key, rate in report.contestants.items()}
    assert games == {
        **{("hero", h): 3 for h in report.rows},
        **{("dungeon lord", d): 3 for d in report.columns},
        ("side", "hero"): 9,
        ("side", "dungeon_lord"): 9,
    }
    hero, lord = report.contestants["side", "hero"], report.contestants["side", "dungeon_lord"]
    assert hero.wins + lord.wins == 9  # every Fallen game has a winner
    assert hero.wins == sum(rate.wins for rate in report.cells.values())


def test_given_the_cli_when_run_with_json_then_report_and_heat_map_written(tmp_path: Path) -> None:
    args = ["balance", "fallen", "--games", "1", "--seed", "tiny", "--workers", "1"]
    result = runner.invoke(app, [*args, "--out", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["game"] == "fallen" and report["games_per_pairing"] == 1
    assert len(report["matrix"]) == 9
    cell = report["matrix"][0]
    assert set(cell) == {"row", "column", "wins", "games", "rate", "low", "high"}
    assert cell["low"] <= cell["rate"] <= cell["high"]
    assert {c["group"] for c in report["contestants"]} == {"hero", "dungeon lord", "side"}
    svg = ET.parse(report["heatmap"]).getroot()
    assert svg.tag == f"{SVG}svg"
    titles = [t.text or "" for t in svg.iter(f"{SVG}title")]
    assert len(titles) == 9 and all(" vs " in t for t in titles)


def test_given_the_cli_when_run_as_tables_then_contestants_and_matrix_printed(
    tmp_path: Path,
) -> None:
    args = ["balance", "fallen", "--games", "1", "--seed", "tiny", "--workers", "1"]
    result = runner.invoke(app, [*args, "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "win rate [95% interval] wins/games" in result.stdout
    assert "row vs column" in result.stdout and "seroth" in result.stdout
    assert (tmp_path / "balance-fallen.svg").exists()


def test_given_an_unknown_game_when_run_then_usage_error() -> None:
    result = runner.invoke(app, ["balance", "chess"])
    assert result.exit_code == 2
    assert "unknown game" in result.output
