"""Synthetic parked-domain pages: no real ones are available offline, so these are written to mimic them.

Every page here is marked synthetic in the manifest, and evaluation never scores them; they only teach the
shipped model what a parking page looks like, which the paper found in 47% of its soft-404 pages: a domain
name, maybe an offer to sell it, lists of advertising links (to an ad server, often rel="nofollow" or
"sponsored", or to the parked host's own search URLs), little text of its own, and "keyword stuffing":
Prieto et al. (Figure 5a) see the soft-404 probability peak at 90% between 30 and 45 keywords and above 55.

The pages vary on purpose, so that no layout, language or size gives them away: six layouts (advertising
feed, on-site search links, an old table layout, a script-rendered lander, a marketplace sale page, a registrar
placeholder), ten languages, titles, descriptions and inline code that take a page from 0.8 to 20 KB,
disclaimers and sales pitches that take its text from 2 to about 110 words, 0 or 20 to 60 keywords, links with
and without rel, offers worded inside and outside data/parked_phrases.json (every page uses that wording at
least once, as real landers do; pages without it taught the parked detector to flag any page whose links are
mostly nofollow, such as Apache's "It works" page). Each of the 12 profiles of data/parked_pages.json is drawn
in three layouts, 36 pages, by a generator seeded per page.
"""

from __future__ import annotations

import hashlib
import html as html_lib
import json
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from urllib.parse import quote_plus

from checks.soft404.corpus.manifest import PARKED_SOURCE, SOFT404, CorpusPage

DATA_FILE = Path(__file__).parent / "data" / "parked_pages.json"
LAYOUTS_PER_PROFILE = 3
# Parking landers link to an ad server (off-site) or to the parked host's own search URLs (on-site).
_AD_CLICK = "https://ads.parking.invalid/click?q={q}&d={domain}"
_ON_SITE = "/search?q={q}&type=related"
_RELS = ("nofollow", "sponsored", "nofollow sponsored", "nofollow noopener", "")
_SENTENCE_END = re.compile(r"(?<=[.!?。])\s*")


@dataclass(frozen=True)
class Wording:
    offers: tuple[str, ...]  # the last one avoids the wording of data/parked_phrases.json
    related: tuple[str, ...]  # headings of the advertising links
    privacy: str
    search: str
    buy: str  # the button of a sale page
    sale_points: tuple[str, ...]  # a marketplace's selling points
    registered: str  # a registrar's placeholder sentence; {domain} is replaced
    disclaimer: str  # an advertising feed's disclaimer
    sale_text: str  # a marketplace's pitch; {domain} is replaced
    promo: str  # a registrar's advertising for its own products


@lru_cache(maxsize=1)
def _data() -> tuple[dict[str, Wording], list[tuple[str, str, tuple[str, ...]]]]:
    document = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    wording = {
        lang: Wording(**{k: tuple(v) if isinstance(v, list) else v for k, v in fields.items()})
        for lang, fields in document["languages"].items()
    }
    profiles = [(p["lang"], p["domain"], tuple(p["topics"])) for p in document["profiles"]]
    return wording, profiles


@dataclass(frozen=True)
class _Page:
    lang: str
    domain: str
    words: Wording
    topics: tuple[str, ...]
    rng: random.Random

    @staticmethod
    def e(text: str) -> str:
        return html_lib.escape(text)

    def offer(self, *, parking_wording: bool = False) -> str:
        return self.rng.choice(self.words.offers[:-1] if parking_wording else self.words.offers)

    def some(self, text: str, probability: float = 1.0) -> str:
        """Return the first 1 to all sentences of `text`, or "" with 1 - `probability`."""
        if self.rng.random() >= probability:
            return ""
        sentences = [s for s in _SENTENCE_END.split(text.format(domain=self.domain)) if s]
        return " ".join(sentences[: self.rng.randint(1, len(sentences))])

    def anchors(self, link: str, *, rel: str | None = None, limit: int | None = None) -> list[str]:
        rel = self.rng.choice(_RELS) if rel is None else rel
        rel_attr = f' rel="{rel}"' if rel else ""
        topics = self.topics[: limit or self.rng.randint(6, len(self.topics))]
        return [
            f'<a href="{self.e(link.format(q=quote_plus(t), domain=self.domain))}"{rel_attr}>{self.e(t)}</a>'
            for t in topics
        ]

    def head(self, extra: str = "") -> str:
        """Return the doctype and <head>: a title, description, keywords and inline code that vary per page."""
        keywords, description = self.keywords(), self.description()
        meta = f'<meta name="keywords" content="{self.e(keywords)}">' if keywords else ""
        if description:
            meta += f'<meta name="description" content="{self.e(description)}">'
        return (
            f'<!DOCTYPE html><html lang="{self.lang}"><head><meta charset="utf-8"><title>{self.e(self.title())}'
            f'</title><meta name="viewport" content="width=device-width, initial-scale=1">{meta}{extra}'
            f"{self.bulk()}</head>"
        )

    def title(self) -> str:
        return self.rng.choice(
            (
                self.domain,
                f"{self.domain} - {self.rng.choice(self.words.related)}",
                f"{self.domain} - {self.offer()}",
                f"{self.domain}: {', '.join(self.topics[:3])}",
            )
        )

    def description(self) -> str:
        """Return no description (40%), the domain, or the domain and 3 to 8 of its topics."""
        chance = self.rng.random()
        if chance < 0.4:
            return ""
        if chance < 0.6:
            return self.domain
        return f"{self.domain}: {', '.join(self.rng.sample(self.topics, self.rng.randint(3, 8)))}"

    def bulk(self) -> str:
        """Return inline CSS and script of 0 to 25 KB: landers carry their code, which makes them 2 to 60 KB."""
        rules = self.rng.choice((0, 0, 20, 80, 200, 500))
        css = "".join(
            f".l{i}{{margin:{i % 7}px {i % 5}px;color:#{(i * 2654435761) % 0xFFFFFF:06x}}}"
            for i in range(rules)
        )
        slots = self.rng.choice((0, 10, 100, 300))
        ads = ",".join(
            f'{{"slot":"ad-{i}","w":{300 + i % 3 * 28},"h":{250 - i % 2 * 160}}}' for i in range(slots)
        )
        return (f"<style>{css}</style>" if css else "") + (
            f"<script>var slots=[{ads}];</script>" if ads else ""
        )

    def keywords(self) -> str:
        """Return no keywords (a third of the pages) or 20 to 60 comma-separated ones made of the topics."""
        if self.rng.random() < 1 / 3:
            return ""
        stem = self.domain.split(".")[0]
        topics = self.topics
        pool = [
            *topics,
            *(t.lower() for t in topics),
            *(f"{t} {stem}" for t in topics),
            *(f"{stem} {t}" for t in topics),
        ]
        pool = list(dict.fromkeys(pool))
        return ", ".join(
            [stem, self.domain, *self.rng.sample(pool, min(len(pool), self.rng.randint(18, 58)))]
        )


def _feed(p: _Page) -> str:
    links = "".join(f"<li>{a}</li>" for a in p.anchors(_AD_CLICK))
    return (
        p.head() + f'<body><div class="header"><h1>{p.e(p.domain)}</h1><a class="offer" '
        f'href="https://market.parking.invalid/buy?domain={p.domain}">{p.e(p.offer())}</a></div>'
        f'<div class="links"><h2>{p.e(p.rng.choice(p.words.related))}</h2><ul>{links}</ul></div>'
        f'<div class="footer"><p>{p.e(p.some(p.words.disclaimer, 0.7))}</p>&copy; 2025 {p.e(p.domain)} | '
        f'<a href="https://parking.invalid/privacy">{p.e(p.words.privacy)}</a></div>'
        '<script src="https://parking.invalid/lander.js"></script></body></html>'
    )


def _search(p: _Page) -> str:
    links = "".join(f"<li>{a}</li>" for a in p.anchors(_ON_SITE))
    related = p.rng.choice(p.words.related)
    style = (
        "<style>body{margin:0;font-family:Arial,sans-serif;background:#f4f4f4}.box{background:#fff;"
        "padding:16px 24px;border-radius:6px}.box ul{columns:2;list-style:none}.domain{font-size:42px;"
        "text-align:center}.sale{text-align:center}footer{font-size:11px;color:#999}</style>"
    )
    sale = (
        f'<div class="sale"><a href="/buy-this-domain">{p.e(p.offer())}</a></div>'
        if p.rng.random() < 0.7
        else ""
    )
    return (
        p.head(style) + f'<body><div class="container"><div class="domain">{p.e(p.domain)}</div>{sale}'
        f'<div class="box"><h2>{p.e(related)}</h2><ul>{links}</ul></div>'
        f'<form class="search" action="/search"><input type="text" name="q">'
        f'<button type="submit">{p.e(p.words.search)}</button></form>'
        f"<footer><p>{p.e(p.some(p.words.disclaimer, 0.5))}</p>2025 {p.e(p.domain)} | "
        f'<a href="/privacy">{p.e(p.words.privacy)}</a></footer></div></body></html>'
    )


def _table(p: _Page) -> str:
    cells = "".join(f"<p>&raquo; {a}</p>" for a in p.anchors(p.rng.choice((_AD_CLICK, _ON_SITE)), rel=""))
    return (
        p.head()
        + f'<body style="margin:0"><table width="100%"><tr><td align="center"><font size="5">{p.e(p.domain)}'
        f'</font><br><font size="2"><a href="/?action=sell">{p.e(p.offer())}</a></font></td></tr>'
        f"<tr><td><b>{p.e(p.words.related[0])}</b>{cells}</td></tr></table>"
        f'<div style="font-size:10px">{p.e(p.some(p.words.disclaimer, 0.4))} '
        f'<a href="/privacy.html">{p.e(p.words.privacy)}</a></div></body></html>'
    )


def _script(p: _Page) -> str:
    """A lander whose links an ad script fetches: nothing in the page but the domain and a fallback offer."""
    config = f'{{"domain": "{p.domain}", "lang": "{p.lang}", "channel": "exp-{p.rng.randint(1000, 9999)}"}}'
    return (
        p.head(f"<script>window.lander = {config};</script>")
        + f'<body><div id="lander"><h1>{p.e(p.domain)}</h1><div id="ads"></div></div>'
        f"<noscript><p>{p.e(p.offer())}</p></noscript>"
        f'<p class="sale"><a href="https://market.parking.invalid/{p.domain}" rel="nofollow">'
        f"{p.e(p.offer(parking_wording=True))}</a></p>"
        '<script src="https://parking.invalid/caf.js"></script></body></html>'
    )


def _sale(p: _Page) -> str:
    """A marketplace's sale page: the domain, a price, a buy button, a pitch and the marketplace's points."""
    price = f"{p.rng.choice((490, 1250, 2999, 4800, 12000)):,} USD"
    points = "".join(f"<li>{p.e(s)}</li>" for s in p.words.sale_points)
    more = "".join(f"<li>{a}</li>" for a in p.anchors(_AD_CLICK, limit=4))
    return (
        p.head()
        + '<body><header><a href="https://market.parking.invalid/">market.parking.invalid</a></header>'
        f"<main><h1>{p.e(p.domain)}</h1><p>{p.e(p.offer())}</p><p class='price'>{price}</p>"
        f'<a class="button" href="https://market.parking.invalid/checkout?d={p.domain}" rel="nofollow">'
        f"{p.e(p.words.buy)}</a><p>{p.e(p.some(p.words.sale_text))}</p><ul>{points}</ul>"
        f"<ul class='related'>{more}</ul></main>"
        f'<footer><a href="https://market.parking.invalid/privacy">{p.e(p.words.privacy)}</a></footer></body></html>'
    )


def _registrar(p: _Page) -> str:
    """A registrar's placeholder for a domain that nobody has set up, with the registrar's own offers."""
    promos = "".join(
        f'<li><a href="https://registrar.invalid/{path}" rel="{p.rng.choice(_RELS[:3])}">{p.e(t)}</a></li>'
        for path, t in zip(("hosting", "email", "ssl", "builder"), p.topics[:4], strict=False)
    )
    related = "".join(f"<li>{a}</li>" for a in p.anchors(_AD_CLICK, limit=p.rng.randint(3, 8)))
    return (
        p.head() + f'<body><div class="card"><h2>{p.e(p.words.registered.format(domain=p.domain))}</h2>'
        f"<p>{p.e(p.offer(parking_wording=True))}</p><p>{p.e(p.some(p.words.promo))}</p><ul>{promos}</ul>"
        f"<h3>{p.e(p.rng.choice(p.words.related))}</h3><ul>{related}</ul>"
        f"<p>{p.e(p.some(p.words.disclaimer, 0.5))}</p></div></body></html>"
    )


_RENDERERS: tuple[tuple[str, Callable[[_Page], str]], ...] = (
    ("feed", _feed),
    ("search", _search),
    ("table", _table),
    ("script", _script),
    ("sale", _sale),
    ("registrar", _registrar),
)


LAYOUTS = tuple(name for name, _ in _RENDERERS)


def parked_pages() -> Iterator[CorpusPage]:
    """Yield 36 parked pages: each profile in three of the six layouts, each layout in six profiles."""
    wording, profiles = _data()
    for index, (lang, domain, topics) in enumerate(profiles):
        for step in range(LAYOUTS_PER_PROFILE):
            # Steps of two from the profile's index, shifted by one for the second half of the profiles, so that
            # every layout is drawn in profiles of both halves' languages.
            layout, render = _RENDERERS[(index + 2 * step + index // 6) % len(_RENDERERS)]
            seed = int.from_bytes(hashlib.sha256(f"{domain}/{layout}".encode()).digest()[:8], "big")
            page = _Page(lang, domain, wording[lang], topics, random.Random(seed))
            yield CorpusPage(
                source=PARKED_SOURCE,
                name=f"{index:02d}-{layout}",
                label=SOFT404,
                lang=lang,
                url=f"http://{domain}/",
                package="webaudit (written for this corpus)",
                license="same as webaudit",
                origin=f"checks/soft404/corpus/parked_pages.py, layout {layout}",
                html=render(page).encode("utf-8"),
                synthetic=True,
            )


def layout_of(page_id: str) -> str:
    """Return the layout of a synthetic parked page from its corpus id ("parked-synthetic/03-sale": "sale")."""
    return page_id.rsplit("-", 1)[-1]
