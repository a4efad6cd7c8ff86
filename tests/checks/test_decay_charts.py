"""The decay charts say what their axes measure, in round numbers."""

import re

from checks.decay.charts import distributions_svg, scatter_svg


def _texts(svg: str, kind: str) -> list[str]:
    return re.findall(rf'<text class="{kind}"[^>]*>([^<]*)</text>', svg)


def test_the_distribution_is_a_share_of_pages_in_whole_percentages():
    halves = [0.05] * 3 + [0.95] * 3
    svg = distributions_svg({0.1: halves}, halves, "t")
    assert _texts(svg, "y-title") == ["share of pages"]
    labels = _texts(svg, "y-tick")
    assert labels == ["0%", "30%", "60%"]  # the top is the biggest bin, 50%, plus a margin, in whole tenths


def test_a_distribution_that_fills_one_bin_tops_at_100_percent():
    assert _texts(distributions_svg({0.1: [1.0] * 4}, [1.0] * 4, "t"), "y-tick")[-1] == "100%"


def test_the_scatter_is_titled_by_its_two_scores():
    svg = scatter_svg([(0.2, 0.4)], "t")
    assert _texts(svg, "y-title") == ["decay D"] and _texts(svg, "x-title") == ["fraction of dead links F"]
    assert _texts(svg, "y-tick") == ["0", "0.25", "0.5", "0.75", "1"]
