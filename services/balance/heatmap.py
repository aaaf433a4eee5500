"""The pairing matrix as an SVG heat map (plain SVG text, no plotting library)."""

from __future__ import annotations

from html import escape
from typing import Final

from services.balance.run import Report

CELL: Final = 84
ROW_HEAD: Final = 150
COL_HEAD: Final = 60
TITLE: Final = 40
LEGEND: Final = 50


def colour(rate: float) -> str:
    """Return the fill for a win rate: white at 50%, red towards 0%, blue towards 100%."""
    t = max(-1.0, min(1.0, (rate - 0.5) * 2))
    if t < 0:
        r, g, b = 255, round(255 * (1 + t)), round(255 * (1 + t))
    else:
        r, g, b = round(255 * (1 - t)), round(255 * (1 - t)), 255
    return f"#{r:02x}{g:02x}{b:02x}"


def _text(
    x: float, y: float, body: str, size: int = 12, anchor: str = "middle", **attrs: str
) -> str:
    extra = "".join(f' {k.replace("_", "-")}="{v}"' for k, v in attrs.items())
    return (
        f'<text x="{x:.0f}" y="{y:.0f}" font-size="{size}" text-anchor="{anchor}"{extra}>'
        f"{escape(body)}</text>"
    )


def svg(report: Report) -> str:
    """Return the heat map: one cell per (row, column), the row's win rate against the column,
    its 95% interval and the games behind it; empty where no game was played."""
    rows, cols = report.rows, report.columns
    width = ROW_HEAD + CELL * len(cols) + 20
    height = TITLE + COL_HEAD + CELL * len(rows) + LEGEND
    data = f" card data {report.card_data}" if report.card_data is not None else ""
    title = (
        f"{report.game}: row's win rate against the column, {report.games} games per pairing"
        f"{' and seat order' if report.game == 'worlds' else ''}, seed {report.seed}{data}"
    )
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        _text(10, 24, title, 14, "start", font_weight="bold"),
    ]
    top = TITLE + COL_HEAD
    for j, col in enumerate(cols):
        x = ROW_HEAD + CELL * j + CELL / 2
        out.append(_text(x, top - 10, col, 11, "middle"))
    for i, row in enumerate(rows):
        y = top + CELL * i
        out.append(_text(ROW_HEAD - 8, y + CELL / 2 + 4, row, 12, "end"))
        for j, col in enumerate(cols):
            x = ROW_HEAD + CELL * j
            rate = report.cells.get((row, col))
            if rate is None or rate.games == 0:
                out.append(
                    f'<rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="#dddddd" '
                    'stroke="#999999"/>'
                )
                continue
            low, high = rate.interval
            out.append(
                f'<rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" '
                f'fill="{colour(rate.rate)}" stroke="#999999"><title>{escape(row)} vs '
                f"{escape(col)}: {escape(rate.text())}</title></rect>"
            )
            cx = x + CELL / 2
            out.append(_text(cx, y + 34, f"{100 * rate.rate:.0f}%", 16, font_weight="bold"))
            out.append(_text(cx, y + 52, f"[{100 * low:.0f}, {100 * high:.0f}]", 11))
            out.append(_text(cx, y + 68, f"{rate.wins}/{rate.games}", 11))
    legend_y = top + CELL * len(rows) + 20
    for k, pct in enumerate((0, 25, 50, 75, 100)):
        x = ROW_HEAD + 60 * k
        out.append(
            f'<rect x="{x}" y="{legend_y}" width="20" height="14" fill="{colour(pct / 100)}" '
            'stroke="#999999"/>'
        )
        out.append(_text(x + 24, legend_y + 12, f"{pct}%", 11, "start"))
    out.append("</svg>")
    return "\n".join(out) + "\n"
