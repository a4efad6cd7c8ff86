"""Small hand-built sites whose answers and download counts are known."""

from __future__ import annotations

from benchmarks.pagefinding_graphs import GeneratedSite, Graph


def site(
    links: dict[int, list[tuple[int, str]]], texts: dict[int, str], n: int | None = None
) -> GeneratedSite:
    """A site of nodes 0 … n-1: `links[node]` lists (target, label), `texts[node]` its words (without its
    link texts, so that each test says exactly what a page holds)."""
    size = n or 1 + max([*links, *texts, *(t for targets in links.values() for t, _ in targets)])
    out = [[target for target, _ in links.get(node, [])] for node in range(size)]
    labels = [[tuple(label.split()) for _, label in links.get(node, [])] for node in range(size)]
    page_texts = [tuple(texts.get(node, f"filler{node}").split()) for node in range(size)]
    graph = Graph(
        texts=page_texts, out=out, labels=labels, topics=[0] * size, vocabulary=[], link_text_in_page=False
    )
    return GeneratedSite(graph)


def star() -> GeneratedSite:
    """The start links to the tax form page (node 1) and two unrelated pages; node 1 links nowhere."""
    return site(
        {0: [(1, "tax form"), (2, "red blue"), (3, "green sea")]},
        {0: "welcome town hall", 1: "tax form income", 2: "red blue paint", 3: "green sea fish"},
    )


def deep() -> GeneratedSite:
    """0 → 1 (services) → 4 (tax form); 0 → 2 → 3; the label "services" names nothing of the query, the
    page "services" holds "tax"."""
    return site(
        {
            0: [(1, "services"), (2, "news")],
            1: [(4, "tax form"), (5, "parking")],
            2: [(3, "weather")],
        },
        {
            0: "welcome town hall",
            1: "tax services parking",
            2: "news today",
            3: "weather rain",
            4: "tax form income",
            5: "parking permit",
        },
    )
