"""Worker of the 500-game hidden-information scan (imported by spawned processes)."""

from __future__ import annotations

from services.rules.fallen import RULES
from tests.support.hidden_scan import scan_game
from tests.support.pure_log import played_log


def scan_seeds(seeds: list[int]) -> tuple[int, int]:
    """Play and scan the Fallen games of the given seeds; return (games, checks)."""
    checks = 0
    for seed in seeds:
        gid = f"scan{seed}"
        log = played_log(RULES, gid, f"scan-{seed}")
        checks += scan_game("fallen", gid, log, {"fallen": RULES})
    return len(seeds), checks
