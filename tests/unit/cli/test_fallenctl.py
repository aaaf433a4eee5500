"""fallenctl commands that need no server."""

from __future__ import annotations

import re

from typer.testing import CliRunner

from services.cli.main import app
from services.platform.auth import verify_token

runner = CliRunner()


def test_token_for_a_player_verifies_with_the_same_secret(monkeypatch):
    # given a configured secret
    secret = "s" * 40
    monkeypatch.setenv("FALLEN_JWT_SECRET", secret)
    # when a player token is printed
    result = runner.invoke(app, ["token", "--player", "alice"])
    # then it verifies as alice, a player
    assert result.exit_code == 0, result.output
    principal = verify_token(result.output.strip(), secret)
    assert principal.subject == "alice" and not principal.is_service


def test_token_needs_exactly_one_subject(monkeypatch):
    monkeypatch.setenv("FALLEN_DEV", "1")
    result = runner.invoke(app, ["token"])
    assert result.exit_code != 0
    assert "exactly one" in result.output


def test_serve_refuses_to_start_without_a_secret_outside_dev(monkeypatch):
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)
    monkeypatch.delenv("FALLEN_DEV", raising=False)
    result = runner.invoke(app, ["serve", "--metrics-port", "0"])
    assert result.exit_code != 0
    assert "FALLEN_JWT_SECRET" in result.output


def test_serve_refuses_a_short_secret(monkeypatch):
    monkeypatch.setenv("FALLEN_JWT_SECRET", "short")
    result = runner.invoke(app, ["serve", "--metrics-port", "0"])
    assert result.exit_code != 0
    assert "32 bytes" in result.output


def test_relay_needs_a_kafka_stream(monkeypatch, tmp_path):
    monkeypatch.setenv("FALLEN_DEV", "1")
    result = runner.invoke(
        app,
        ["serve", "relay", "--metrics-port", "0", "--store", f"sqlite:///{tmp_path}/x.db"],
    )
    assert result.exit_code != 0
    assert "kafka://" in result.output


def test_serve_help_names_every_single_service():
    # given the services `fallenctl serve` can run alone
    from services.app import SINGLE_SERVICES

    # when its help is printed (wide, so no name is wrapped)
    result = runner.invoke(app, ["serve", "--help"], terminal_width=400, env={"COLUMNS": "400"})
    # then it names each of them
    assert result.exit_code == 0, result.output
    flat = " ".join(result.output.split())
    listed = set(re.findall(r"[a-z][a-z-]*[a-z]", flat))
    missing = [name for name in SINGLE_SERVICES if name not in listed]
    assert not missing, missing
