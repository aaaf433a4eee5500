"""The policies a Worlds bot seat can be served with (services.bots.policies.policy_for)."""

from __future__ import annotations

from services.rules.worlds.bot import service_policy
from services.rules.worlds.search import SearchSeat

POLICIES = {"heuristic": service_policy, "search": SearchSeat()}
