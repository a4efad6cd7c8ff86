"""The dashboard's charts as a browser draws them: an axis title stands clear of the tick labels and every other
text, by a gap the eye sees (the decay chart's y title once sat a few pixels from its middle tick's label)."""

from __future__ import annotations

import pytest

from checks.decay.charts import distributions_svg, scatter_svg
from checks.structure.plot import distribution_svg

pytestmark = pytest.mark.browser

GAP_PX = 6

CHARTS = {
    "decay distribution": lambda: distributions_svg(
        {0.1: [1.0] * 50 + [0.5] * 50, 0.2: [0.3] * 100}, [1.0] * 100, "decay"
    ),
    "decay scatter": lambda: scatter_svg([(0.5, 0.5)], "scatter"),
    "similarity histogram": lambda: distribution_svg([3, 120, 1000, 40], threshold=0.5, chance=0.3),
}


@pytest.mark.parametrize("name", CHARTS)
def test_axis_titles_stand_clear_of_every_other_text(page, artifacts, name):
    page.set_content(f'<div style="width: 640px">{CHARTS[name]()}</div>')
    page.screenshot(path=str(artifacts / "chart.png"))
    clashes = page.evaluate(
        """gap => {
             const boxes = [...document.querySelectorAll('svg text')].map(text => [text, text.getBoundingClientRect()]);
             const meet = (a, b) => a.left - gap < b.right && b.left < a.right + gap && a.top - gap < b.bottom && b.top < a.bottom + gap;
             return boxes.filter(([text]) => /-title/.test(text.getAttribute('class') || ''))
               .flatMap(([title, a]) => boxes.filter(([other, b]) => other !== title && meet(a, b))
                 .map(([other]) => title.textContent + ' / ' + other.textContent));
           }""",
        GAP_PX,
    )
    assert clashes == []
    titles = page.evaluate("[...document.querySelectorAll('svg text.x-title, svg text.y-title')].length")
    assert titles == 2


@pytest.mark.parametrize(("threshold", "chance"), [(1.0, 0.95), (0.0, 0.02), (0.55, 0.45)])
def test_the_similarity_chart_s_threshold_and_chance_labels_stay_inside_it(
    page, artifacts, threshold, chance
):
    page.set_content(
        f'<div style="width: 640px">{distribution_svg([3, 120], threshold=threshold, chance=chance)}</div>'
    )
    page.screenshot(path=str(artifacts / "chart.png"))
    outside = page.evaluate(
        """() => {
             const chart = document.querySelector('svg').getBoundingClientRect();
             return [...document.querySelectorAll('svg text')].map(text => [text, text.getBoundingClientRect()])
               .filter(([, box]) => box.left < chart.left || box.right > chart.right || box.top < chart.top)
               .map(([text]) => text.textContent);
           }"""
    )
    assert outside == []
