"""The inline SVG charts: bars proportional to counts, labels escaped."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import date, timedelta

from openers.report.charts import DayCounts, daily_findings_svg, horizontal_bars_svg

SVG = "{http://www.w3.org/2000/svg}"


def _attr(el: ET.Element, name: str) -> str:
    value = el.get(name)
    assert value is not None
    return value


def _bars(svg: str) -> list[ET.Element]:
    root = ET.fromstring(svg)
    return [el for el in root.iter(f"{SVG}rect") if "bar" in el.get("class", "")]


def test_daily_chart_stacks_severities_in_proportion():
    first = date(2026, 11, 1)
    days = [DayCounts(first + timedelta(days=i)) for i in range(30)]
    days[3] = DayCounts(days[3].day, critical=2, major=1, minor=1)
    days[10] = DayCounts(days[10].day, minor=8)
    svg = str(daily_findings_svg(days, "per day <test>"))
    bars = _bars(svg)
    assert sorted(_attr(b, "class") for b in bars) == [
        "bar bar-critical", "bar bar-major", "bar bar-minor", "bar bar-minor"]
    heights = {(_attr(b, "class"), round(float(_attr(b, "height")))) for b in bars}
    # Axis top is 10: 8 minor findings fill 80% of the plot height.
    tallest = max(float(_attr(b, "height")) for b in bars)
    critical = next(
        float(_attr(b, "height")) for b in bars if _attr(b, "class") == "bar bar-critical"
    )
    assert abs(tallest / critical - 4) < 0.01, heights
    assert "per day &lt;test&gt;" in svg


def test_bars_escape_labels_and_scale_to_the_largest():
    svg = str(horizontal_bars_svg([("<script>", 4, "critical"), ("B101", 2, "major")], "t"))
    assert "<script>" not in svg and "&lt;script&gt;" in svg
    widths = [float(_attr(b, "width")) for b in _bars(svg)]
    assert widths[0] == 2 * widths[1]
    assert re.search(r">4</text>", svg)
