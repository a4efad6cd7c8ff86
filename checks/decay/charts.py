"""Server-side SVG charts of decay: distributions of D (several σ) and F (the paper's Figure 1), and D vs F (Figure 2)."""

from __future__ import annotations

from django.utils.html import escape

WIDTH, HEIGHT, MARGIN = 420, 260, 40
# Room on the left for the tick labels ("100%" is ~22 px at font size 10) and, left of them, the rotated y-axis
# title: at 40 px the title's letters touched the middle tick's label.
LEFT = 60
Y_TITLE_X = 14
BINS = 10
# Colour-blind-safe (Okabe–Ito); F is drawn dashed in grey.
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9")


def histogram(values: list[float], bins: int = BINS) -> list[float]:
    """Fraction of values in each of `bins` equal bins of [0, 1] (1.0 in the last)."""
    counts = [0] * bins
    for value in values:
        counts[min(int(value * bins), bins - 1)] += 1
    total = len(values) or 1
    return [count / total for count in counts]


def _x(value: float) -> float:
    return LEFT + value * (WIDTH - LEFT - MARGIN)


def _y(value: float, top: float) -> float:
    return HEIGHT - MARGIN - (value / top) * (HEIGHT - 2 * MARGIN)


QUARTERS = (0.0, 0.25, 0.5, 0.75, 1.0)


def _y_ticks(top: float, percent: bool) -> list[tuple[float, str]]:
    """(value, label) of the y axis. A percentage axis's top is a whole tenth, so its halves are whole
    percentages (quarters of 50% would read 12% and 38%)."""
    if percent:
        return [(share * top, f"{share * top * 100:.0f}%") for share in (0.0, 0.5, 1.0)]
    return [(share * top, f"{share * top:g}") for share in QUARTERS]


def _axes(x_label: str, y_label: str, top: float, y_ticks_percent: bool) -> list[str]:
    parts = [
        f'<line x1="{LEFT}" y1="{HEIGHT - MARGIN}" x2="{WIDTH - MARGIN}" y2="{HEIGHT - MARGIN}" stroke="#5c6675"/>',
        f'<line x1="{LEFT}" y1="{MARGIN}" x2="{LEFT}" y2="{HEIGHT - MARGIN}" stroke="#5c6675"/>',
    ]
    for tick in QUARTERS:
        parts.append(
            f'<text class="x-tick" x="{_x(tick):.1f}" y="{HEIGHT - MARGIN + 14}" font-size="10" '
            f'text-anchor="middle">{tick:g}</text>'
        )
    for value, label in _y_ticks(top, y_ticks_percent):
        parts.append(
            f'<text class="y-tick" x="{LEFT - 4}" y="{_y(value, top) + 3:.1f}" font-size="10" '
            f'text-anchor="end">{label}</text>'
        )
    middle = (LEFT + WIDTH - MARGIN) / 2
    parts.append(
        f'<text class="x-title" x="{middle:.1f}" y="{HEIGHT - 6}" font-size="11" '
        f'text-anchor="middle">{escape(x_label)}</text>'
    )
    parts.append(
        f'<text class="y-title" x="{Y_TITLE_X}" y="{HEIGHT / 2}" font-size="11" text-anchor="middle" '
        f'transform="rotate(-90 {Y_TITLE_X} {HEIGHT / 2})">{escape(y_label)}</text>'
    )
    return parts


def distributions_svg(decay_by_sigma: dict[float, list[float]], fractions: list[float], title: str) -> str:
    """Lines of the fraction of pages per score bin: D for each σ, and F dashed."""
    series = [
        (f"D, σ={sigma:g}", histogram(values), COLOURS[i % len(COLOURS)], "")
        for i, (sigma, values) in enumerate(decay_by_sigma.items())
    ]
    series.append(("F (dead links)", histogram(fractions), "#454e5c", ' stroke-dasharray="5 4"'))
    top = max([max(values) for _, values, _, _ in series] + [0.05])
    top = min(1.0, round(top + 0.05, 1))
    parts = _axes("score (decay D or fraction of dead links F)", "share of pages", top, True)
    centres = [(b + 0.5) / BINS for b in range(BINS)]
    for index, (label, values, colour, dash) in enumerate(series):
        points = " ".join(f"{_x(c):.1f},{_y(v, top):.1f}" for c, v in zip(centres, values, strict=True))
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2"{dash} points="{points}"/>')
        y = MARGIN + 12 * index
        parts.append(
            f'<line x1="{WIDTH - 150}" y1="{y}" x2="{WIDTH - 130}" y2="{y}" stroke="{colour}" stroke-width="2"{dash}/>'
        )
        parts.append(f'<text x="{WIDTH - 126}" y="{y + 3}" font-size="10">{escape(label)}</text>')
    return _svg(title, parts)


def scatter_svg(points: list[tuple[float, float]], title: str) -> str:
    """Decay (y) against the fraction of dead links (x), one dot a page, with the diagonal D = F."""
    parts = _axes("fraction of dead links F", "decay D", 1.0, False)
    parts.append(
        f'<line x1="{_x(0)}" y1="{_y(0, 1)}" x2="{_x(1)}" y2="{_y(1, 1)}" stroke="#dde1e7" stroke-dasharray="4 4"/>'
    )
    for fraction, decay in points:
        parts.append(
            f'<circle cx="{_x(fraction):.1f}" cy="{_y(decay, 1):.1f}" r="2.5" fill="#0072B2" fill-opacity="0.5"/>'
        )
    return _svg(title, parts)


def _svg(title: str, parts: list[str]) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" class="chart" '
        f'aria-label="{escape(title)}"><title>{escape(title)}</title>' + "".join(parts) + "</svg>"
    )
