"""Game metrics for the operator's dashboard (deploy/grafana/fallen.json)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge

GAMES_CREATED = Counter("fallen_games_created_total", "Games created", ["game"])
GAMES_ENDED = Counter("fallen_games_ended_total", "Games ended", ["game", "conclusion"])
COMMANDS = Counter("fallen_commands_total", "Commands applied (not deduplicated)", ["game"])
STREAMS_OPEN = Gauge("fallen_streams_open", "Open streams", ["kind"])
QUOTA_REFUSED = Counter("fallen_quota_refused_total", "Calls refused for a quota", ["quota"])


def conclusion_of(outcome: object) -> str:
    """Return how an outcome ended a game, as a small label value."""
    if isinstance(outcome, dict):
        if outcome.get("conclusion") in ("abandoned", "forfeit"):
            return str(outcome["conclusion"])
    return "played"
