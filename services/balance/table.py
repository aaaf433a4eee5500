"""The text tables a balance run prints: contestants' win rates, then the pairing matrix."""

from __future__ import annotations

from services.balance.run import Report


def contestants(report: Report) -> list[str]:
    """One line per contestant, grouped: win rate, 95% Wilson interval, wins/games."""
    lines = [f"{'group':<14}{'contestant':<22}{'win rate [95% interval] wins/games'}"]
    for (group, label), rate in report.contestants.items():
        lines.append(f"{group:<14}{label:<22}{rate.text()}")
    return lines


def matrix(report: Report) -> list[str]:
    """The pairing matrix: the row's win rate (percent) against each column, '-' unplayed."""
    cols = report.columns
    width = max(8, *(len(c) + 1 for c in cols))
    head = max(10, *(len(r) + 1 for r in report.rows))
    lines = ["row vs column".ljust(head) + "".join(c.rjust(width) for c in cols)]
    for row in report.rows:
        cells = []
        for col in cols:
            rate = report.cells.get((row, col))
            cells.append(("-" if rate is None else f"{100 * rate.rate:.0f}%").rjust(width))
        lines.append(row.ljust(head) + "".join(cells))
    return lines


def render(report: Report) -> str:
    """The whole printed report."""
    data = "newest" if report.card_data is None else str(report.card_data)
    title = (
        f"{report.game}: {report.games} games per pairing, seed {report.seed!r}, card data "
        f"{data}, heuristic bots on every seat; {report.workers} worker(s), "
        f"{report.seconds:.0f} s"
    )
    return "\n".join([title, "", *contestants(report), "", *matrix(report)]) + "\n"
