"""`fallenctl serve --stream`: every service accepts the one compose/k8s value, kafka://."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from services.cli.main import app, valid_stream


@pytest.mark.parametrize("stream", ["memory", "redis", "kafka://kafka:9092", "kafka://[::1]:1"])
def test_given_a_known_stream_then_it_is_valid(stream: str) -> None:
    assert valid_stream(stream)


@pytest.mark.parametrize(
    "stream",
    ["", "kafka", "kafka://", "kafka://host", "kafka://:9092", "kafka://h:p", "nats://h:1"],
)
def test_given_an_unknown_stream_then_it_is_invalid(stream: str) -> None:
    assert not valid_stream(stream)


def test_given_a_bad_stream_then_serve_names_the_option(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("FALLEN_JWT_SECRET", "x" * 32)
    result = CliRunner().invoke(
        app,
        [
            "serve",
            "dice",
            "--stream",
            "bogus",
            "--metrics-port",
            "0",
            "--store",
            "sqlite:///:memory:",
        ],
    )
    assert result.exit_code != 0
    assert "--stream must be memory, redis or kafka://HOST:PORT" in result.output
