"""`fallenctl serve bots-*`: a bot pool reads views from the projections read API.

A rules pool serves no ProjectionService: a worker asking it for a view gets UNIMPLEMENTED
and never moves (the compose stack's bot games stalled that way), so the pool is given the
projections address (FALLEN_PROJECTIONS_ADDR) next to its rules address.
"""

from __future__ import annotations

import asyncio
from typing import Any

from typer.testing import CliRunner

from services.cli import main as cli


def test_given_the_projections_address_then_every_bot_worker_reads_views_there(
    monkeypatch,  # type: ignore[no-untyped-def]
) -> None:
    # given `serve bots-land` configured the way compose and the ConfigMap do it
    monkeypatch.setenv("FALLEN_JWT_SECRET", "x" * 32)
    monkeypatch.setenv("FALLEN_RULES_ADDR", "rules-land:50051")
    monkeypatch.setenv("FALLEN_PROJECTIONS_ADDR", "projections:50051")
    monkeypatch.setenv("FALLEN_BOT_WORKERS", "2")
    served: dict[str, Any] = {}

    async def fake_serve(service: str, *args: Any, **kwargs: Any) -> None:
        served["service"], served["bots"] = service, args[8]

    monkeypatch.setattr(cli, "_serve", fake_serve)
    result = CliRunner().invoke(
        cli.app, ["serve", "bots-land", "--metrics-port", "0", "--store", "redis://redis:6379/0"]
    )
    assert result.exit_code == 0, result.output
    assert served == {"service": "bots-land", "bots": ("rules-land:50051", 2, "projections:50051")}
    # when its bot workers are built
    made: list[dict[str, Any]] = []

    class Worker:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            made.append({"rules": args[1], **kwargs})

        async def run(self, stop: asyncio.Event) -> None:
            return None

    monkeypatch.setattr("services.bots.worker.BotWorker", Worker)
    jobs = cli._bot_jobs("bots-land", "redis://redis:6379/0", served["bots"], asyncio.Event())
    # then each plays through rules-land and reads its views from projections
    assert len(jobs) == 2
    assert [(w["rules"], w["views_target"], w["group"]) for w in made] == [
        ("rules-land:50051", "projections:50051", "bots-land")
    ] * 2
