"""The paper's baseline filters (Deng & He 2018, §4.2, Table 2) that need no knowledge of the site: MFPLR.

MFPLR, the Method for Filtering Pages by Link Ratio: a page is a detail page when the share of its elements
that are links is below 0.25 ("the existing research work mostly set link ratio to 0.25"). It needs the whole
tree's element count, which the `dom` extract does not keep, so it runs over a parsed page in the benchmark
(benchmarks/structure.py), never in the crawl; it is no job, so it lives here, outside the production package. MFPCS and MFPCTA need strings and tags
chosen for one site by hand (Table 2), so they are not offered.
"""

from __future__ import annotations

import lxml.etree

MFPLR_THRESHOLD = 0.25


def link_ratio(root) -> float:
    """Links (`a` elements) over all elements of the tree: two C-level iterations, no per-element XPath."""
    elements = sum(1 for _ in root.iter(lxml.etree.Element))
    links = sum(1 for _ in root.iter("a"))
    return links / elements if elements else 0.0


def mfplr_selects(ratio: float, threshold: float = MFPLR_THRESHOLD) -> bool:
    """Table 2's `page.linkRatioOut(0.25)`: selected (a detail page) when the link ratio is below it."""
    return ratio < threshold
