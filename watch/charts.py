"""Server-side SVG line charts of a site's crawls over time, drawn as decay's charts are (checks/decay/charts.py)."""

from __future__ import annotations

from django.utils.html import escape

from checks.decay.charts import COLOURS, HEIGHT, MARGIN, WIDTH, _svg

# Crawl labels written under the x axis at most this many times, evenly spaced.
X_LABELS = 6


def _nice_top(values: list[float]) -> float:
    top = max(values, default=0.0)
    if top <= 1.0:
        return 1.0 if top > 0.5 or top == 0 else 0.5
    magnitude = 10 ** (len(str(int(top))) - 1)
    return float(-(-top // magnitude) * magnitude)


def trend_svg(labels: list[str], values: list[float | None], title: str) -> str:
    """One line through the crawls' values (a gap where a crawl has none), labelled crawls under the x axis."""
    known = [value for value in values if value is not None]
    top = _nice_top(known)
    count = len(values)

    def x(index: int) -> float:
        return MARGIN + (index / max(1, count - 1)) * (WIDTH - 2 * MARGIN)

    def y(value: float) -> float:
        return HEIGHT - MARGIN - (value / top) * (HEIGHT - 2 * MARGIN)

    parts = [
        f'<line x1="{MARGIN}" y1="{HEIGHT - MARGIN}" x2="{WIDTH - MARGIN}" y2="{HEIGHT - MARGIN}" stroke="#5c6675"/>',
        f'<line x1="{MARGIN}" y1="{MARGIN}" x2="{MARGIN}" y2="{HEIGHT - MARGIN}" stroke="#5c6675"/>',
    ]
    for tick in (0.0, 0.5, 1.0):
        parts.append(
            f'<text x="{MARGIN - 4}" y="{y(tick * top) + 3:.1f}" font-size="10" text-anchor="end">{tick * top:g}</text>'
        )
    step = max(1, -(-count // X_LABELS))
    for index in range(0, count, step):
        parts.append(
            f'<text x="{x(index):.1f}" y="{HEIGHT - MARGIN + 14}" font-size="10" text-anchor="middle">'
            f"{escape(labels[index])}</text>"
        )
    parts.append(f'<text x="{WIDTH / 2}" y="{HEIGHT - 6}" font-size="11" text-anchor="middle">crawl</text>')
    segment: list[str] = []
    for index, value in enumerate([*values, None]):
        if value is None:
            if len(segment) > 1:
                parts.append(
                    f'<polyline fill="none" stroke="{COLOURS[0]}" stroke-width="2" points="{" ".join(segment)}"/>'
                )
            segment = []
            continue
        point = f"{x(index):.1f},{y(value):.1f}"
        segment.append(point)
        parts.append(
            f'<circle cx="{x(index):.1f}" cy="{y(value):.1f}" r="3" fill="{COLOURS[0]}">'
            f"<title>{escape(labels[index])}: {value:g}</title></circle>"
        )
    if not known:
        parts.append(
            f'<text x="{WIDTH / 2}" y="{HEIGHT / 2}" font-size="11" text-anchor="middle">no data yet</text>'
        )
    return _svg(title, parts)
