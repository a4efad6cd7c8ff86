"""The score distribution as an SVG (the paper's Figure 4, as a histogram), with the threshold and chance level."""

from __future__ import annotations

from collections.abc import Sequence

WIDTH, HEIGHT, MARGIN = 640, 240, 32
# Room on the left for the page counts and the y-axis title, below for the ticks and the x-axis title.
LEFT, BOTTOM = 56, 44


def distribution_svg(
    histogram: Sequence[int],
    *,
    threshold: float,
    chance: float,
    targets: Sequence[int] | None = None,
) -> str:
    """Bars of the page counts per similarity bin (targets stacked in their own colour when labelled), a line
    at the threshold and a dashed one at the chance level. Only numbers go into the markup."""
    bins = len(histogram) or 1
    top = max(max(histogram, default=0), 1)
    plot_w, plot_h = WIDTH - LEFT - MARGIN, HEIGHT - MARGIN - BOTTOM
    bar = plot_w / bins
    base = HEIGHT - BOTTOM
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" class="structure-plot"'
        f' aria-label="Similarity distribution: threshold {threshold:.2f}, chance level {chance:.2f}">',
        f'<line class="x-axis" x1="{LEFT}" y1="{base}" x2="{WIDTH - MARGIN}" y2="{base}" stroke="#888"/>',
        f'<line class="y-axis" x1="{LEFT}" y1="{MARGIN}" x2="{LEFT}" y2="{base}" stroke="#888"/>',
    ]
    for count in sorted({0, top // 2, top}):
        y = base - plot_h * count / top
        parts.append(
            f'<line x1="{LEFT - 4}" y1="{y:.1f}" x2="{LEFT}" y2="{y:.1f}" stroke="#888"/>'
            f'<text x="{LEFT - 6}" y="{y + 3:.1f}" font-size="10" text-anchor="end">{count}</text>'
        )
    parts.append(
        f'<text class="y-title" x="12" y="{MARGIN + plot_h / 2:.1f}" font-size="11" text-anchor="middle"'
        f' transform="rotate(-90 12 {MARGIN + plot_h / 2:.1f})">pages</text>'
    )
    parts.append(
        f'<text class="x-title" x="{LEFT + plot_w / 2:.1f}" y="{HEIGHT - 6}" font-size="11" text-anchor="middle">'
        "similarity to the template page(s): 0 nothing alike, 1 the same structure</text>"
    )
    for i, count in enumerate(histogram):
        if not count:
            continue
        height = plot_h * count / top
        x = LEFT + i * bar
        parts.append(
            f'<rect class="bar" x="{x:.1f}" y="{base - height:.1f}" width="{bar - 1:.1f}"'
            f' height="{height:.1f}" fill="#9aa5b1"><title>{i / bins:.2f}-{(i + 1) / bins:.2f}: {count}</title></rect>'
        )
        if targets is not None and targets[i]:
            target_h = plot_h * targets[i] / top
            parts.append(
                f'<rect class="bar-target" x="{x:.1f}" y="{base - target_h:.1f}" width="{bar - 1:.1f}"'
                f' height="{target_h:.1f}" fill="#2f7d4f"/>'
            )
    for value, label, style in ((threshold, "threshold", ""), (chance, "chance", ' stroke-dasharray="4 3"')):
        share = min(max(value, 0.0), 1.0)
        x = LEFT + plot_w * share
        # A line in the right half is labelled on its left: written rightwards, "threshold 1.00" ran out of the
        # chart and was cut.
        anchor = f' x="{x - 3:.1f}" text-anchor="end"' if share > 0.5 else f' x="{x + 3:.1f}"'
        parts.append(
            f'<line class="{label}" x1="{x:.1f}" y1="{MARGIN / 2}" x2="{x:.1f}" y2="{base}"'
            f' stroke="{"#b3261e" if label == "threshold" else "#555"}"{style}/>'
            f'<text class="{label}-label"{anchor} y="{MARGIN / 2 + (0 if label == "threshold" else 12)}"'
            f' font-size="11">{label} {value:.2f}</text>'
        )
    for tick in range(0, 11, 2):
        x = LEFT + plot_w * tick / 10
        parts.append(
            f'<text x="{x:.1f}" y="{base + 14}" font-size="10" text-anchor="middle">{tick / 10:.1f}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)
