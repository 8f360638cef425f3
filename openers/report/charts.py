"""Charts for the report as inline SVG, drawn here so the page needs no script or CDN.

The report must open offline on a compliance officer's machine, years later;
a few rectangles and text elements do that with nothing to load. Every label
is escaped, and the result is returned as :class:`markupsafe.Markup` so the
template inserts it as markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from html import escape

from markupsafe import Markup

#: Severity colours, worst first (also used by the page's badges).
SEVERITY_COLOURS: dict[str, str] = {
    "critical": "#c62828",
    "major": "#ef6c00",
    "minor": "#f9a825",
}


@dataclass(frozen=True)
class DayCounts:
    """Findings on one day, by severity."""

    day: date
    critical: int = 0
    major: int = 0
    minor: int = 0

    @property
    def total(self) -> int:
        """All findings of the day."""
        return self.critical + self.major + self.minor

    def by_severity(self) -> list[tuple[str, int]]:
        """(severity, count), worst first."""
        return [("critical", self.critical), ("major", self.major), ("minor", self.minor)]


def _nice_ceiling(value: int) -> int:
    """The smallest 1/2/3/5 x 10^k at or above ``value`` (at least 1): a tidy axis top."""
    top = max(1, value)
    magnitude = 1
    while magnitude * 10 <= top:
        magnitude *= 10
    for factor in (1, 2, 3, 5, 10):
        if factor * magnitude >= top:
            return factor * magnitude
    return 10 * magnitude


def _text(x: float, y: float, content: str, anchor: str = "middle", size: int = 11,
          extra: str = "") -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}"{extra}>'
        f"{escape(content)}</text>"
    )


def daily_findings_svg(days: Sequence[DayCounts], title: str) -> Markup:
    """A stacked bar per day (critical at the bottom), with axes and a legend."""
    width, height = 860, 280
    left, right, top, bottom = 48, 16, 34, 46
    plot_w, plot_h = width - left - right, height - top - bottom
    y_max = _nice_ceiling(max((d.total for d in days), default=0))
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" '
        f'viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'font-family="sans-serif">',
        f"<title>{escape(title)}</title>",
        _text(left, 20, title, anchor="start", size=14, extra=' font-weight="bold"'),
    ]
    # Whole-number ticks: y_max is 1, 2, 3 or 5 times a power of ten.
    ticks = next(n for n in (5, 4, 3, 2, 1) if y_max % n == 0)
    for i in range(ticks + 1):
        value = y_max * i / ticks
        y = top + plot_h - plot_h * i / ticks
        parts.append(
            f'<line x1="{left}" x2="{left + plot_w}" y1="{y:.1f}" y2="{y:.1f}" '
            f'stroke="#ddd" stroke-width="1"/>'
        )
        parts.append(_text(left - 6, y + 4, f"{value:.0f}", anchor="end", size=10))
    slot = plot_w / max(1, len(days))
    bar_w = max(2.0, slot * 0.7)
    for i, day in enumerate(days):
        x = left + i * slot + (slot - bar_w) / 2
        y = top + plot_h
        for severity, count in day.by_severity():
            if count == 0:
                continue
            h = plot_h * count / y_max
            y -= h
            parts.append(
                f'<rect class="bar bar-{severity}" x="{x:.1f}" y="{y:.1f}" width="{bar_w:.1f}" '
                f'height="{h:.1f}" fill="{SEVERITY_COLOURS[severity]}">'
                f"<title>{escape(f'{day.day.isoformat()}: {count} {severity}')}</title></rect>"
            )
        # Label every few days so 30 dates do not overlap.
        if i % max(1, len(days) // 10) == 0 or i == len(days) - 1:
            parts.append(_text(x + bar_w / 2, top + plot_h + 16, day.day.strftime("%m-%d"),
                               size=10))
    legend_x = left + plot_w - 240
    for j, severity in enumerate(SEVERITY_COLOURS):
        lx = legend_x + j * 80
        parts.append(
            f'<rect x="{lx}" y="{height - 18}" width="12" height="12" '
            f'fill="{SEVERITY_COLOURS[severity]}"/>'
        )
        parts.append(_text(lx + 16, height - 8, severity, anchor="start", size=11))
    parts.append("</svg>")
    return Markup("".join(parts))


def horizontal_bars_svg(rows: Sequence[tuple[str, int, str]], title: str) -> Markup:
    """One bar per (label, count, severity) row, longest scale first as given."""
    bar_h, gap = 18, 6
    left, right, top = 250, 60, 34
    width = 700
    height = top + len(rows) * (bar_h + gap) + 12
    plot_w = width - left - right
    x_max = max((count for _, count, _ in rows), default=0) or 1
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" '
        f'viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'font-family="sans-serif">',
        f"<title>{escape(title)}</title>",
        _text(8, 20, title, anchor="start", size=14, extra=' font-weight="bold"'),
    ]
    for i, (label, count, severity) in enumerate(rows):
        y = top + i * (bar_h + gap)
        w = plot_w * count / x_max
        colour = SEVERITY_COLOURS.get(severity, "#607d8b")
        parts.append(_text(left - 8, y + bar_h - 5, label, anchor="end", size=11))
        parts.append(
            f'<rect class="bar bar-{escape(severity)}" x="{left}" y="{y}" width="{w:.1f}" '
            f'height="{bar_h}" fill="{colour}"/>'
        )
        parts.append(_text(left + w + 6, y + bar_h - 5, str(count), anchor="start", size=11))
    parts.append("</svg>")
    return Markup("".join(parts))
