"""A live web site as a page finder's environment: every page, robots.txt and sitemap is fetched through
the project's polite fetcher (sites/http: limits, address guard, redirects, robots.txt, the delay and
Crawl-delay between requests, Retry-After); each of those fetches is a download."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlencode, urlsplit

import lxml.etree

from sites.crawler.parse import parse_document
from sites.crawler.urls import normalize_url
from sites.http import FetchSettings, PoliteFetcher, RobotsRules, robots_url
from sites.http.urls import origin

from .environment import Environment, Link, Node, Page
from .htmlpage import is_page_url, link_terms, read_page
from .text import terms, url_terms

MAX_SITEMAP_URLS = 50_000
MAX_RETRY_WAIT = 30.0  # seconds; a longer Retry-After is cut to this
RETRY_WAIT_WITHOUT_RETRY_AFTER = 5.0  # seconds, for a 429/503 that does not say how long


class StartError(Exception):
    """The start page cannot begin a search: unreachable, not HTML, or redirecting off the site."""


@dataclass(frozen=True)
class LiveSettings:
    # Limits and politeness (the search fetches one page at a time; `delay` runs from the end of the last).
    fetch: FetchSettings = field(default_factory=FetchSettings)
    use_sitemap: bool = True
    use_site_search: bool = True


def site_key(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme.lower(), (parts.netloc or "").lower()


class LiveSite(Environment):
    def __init__(self, start_url: str, settings: LiveSettings, *, max_downloads: int | None = None) -> None:
        start = normalize_url(start_url)
        if start is None:
            raise StartError(f"{start_url!r} is not an http(s) URL")
        super().__init__(start, max_downloads=max_downloads)
        self.settings = settings
        self.site = site_key(start)
        # One request at a time, spaced from the end of the previous one, as a sequential search expects.
        self.polite = PoliteFetcher(settings.fetch, space_from_end=True)
        self.robots: RobotsRules | None = None
        self.final_urls: dict[Node, str] = {}
        self.search_forms: list[tuple[str, str]] = []

    def close(self) -> None:
        self.polite.close()

    def label(self, node: Node) -> str:
        return str(node)

    def on_site(self, url: str) -> bool:
        return site_key(url) == self.site

    def open(self) -> Page:
        """Read robots.txt and the start page; raise StartError when the search cannot start there."""
        if self.settings.fetch.obey_robots:
            result = self.polite.fetch_robots(origin(str(self.start)))
            self.count_fetch(robots_url(self.start), ok=result.ok, note="robots.txt")
            if result.status is None and result.error_kind != "too_large":
                raise StartError(f"the site of {self.start} could not be reached: {result.error}")
            self.robots = self.polite.robots_for(str(self.start))
        if self.robots is not None and not self.robots.allowed(str(self.start)):
            raise StartError(f"robots.txt forbids fetching {self.start}")
        page = self.download(self.start)
        final = self.final_urls.get(self.start, str(self.start))
        if not self.on_site(final):
            raise StartError(f"the start page {self.start} redirects off the site, to {final}")
        if page is None:
            raise StartError(f"the start page {self.start} could not be read: {self.log[-1].note}")
        return page

    def _fetch(self, node: Node) -> tuple[Page | None, str]:
        url = str(node)
        if self.robots is not None and not self.robots.allowed(url):
            return None, "disallowed by robots.txt"
        result = self.polite.fetch(url)
        asked = self.polite.retry_wait(
            url, result, longest=MAX_RETRY_WAIT, without_retry_after=RETRY_WAIT_WITHOUT_RETRY_AFTER
        )
        if asked is not None:
            # Asked to slow down: the host is paused as told (capped), then asked once more; the refused fetch
            # counts too.
            self.count_fetch(url, ok=False, note=f"HTTP {result.status}, retried")
            result = self.polite.fetch(url)
        self.final_urls[node] = result.final_url
        if not result.ok:
            return None, result.error or "no answer"
        if result.status is None or result.status >= 400:
            return None, f"HTTP {result.status}"
        if not self.on_site(result.final_url):
            return None, f"redirects off the site, to {result.final_url}"
        if not result.is_html:
            return None, f"not HTML ({result.content_type or 'no type'})"
        root, error = parse_document(result.body, result.charset)
        if root is None:
            return None, error
        read = read_page(root, url=result.final_url)
        if node == self.start:
            self.search_forms = [form for form in read.search_forms if self.on_site(form[0])]
        links: dict[str, Link] = {}
        for link in read.links:
            if not self.on_site(link.url) or link.url == url or link.url in links:
                continue
            if self.robots is not None and not self.robots.allowed(link.url):
                continue  # never a candidate: reading it would be a download we may not make
            label, context, words = link_terms(link)
            links[link.url] = Link(
                target=link.url, label=label, text=link.text, context=context, url_terms=words
            )
        title_terms = terms(read.title)
        page = Page(
            node=node,
            terms=terms(read.text),
            links=list(links.values()),
            title=read.title,
            title_terms=title_terms,
        )
        return page, f"HTTP {result.status}"

    def sitemap_links(self) -> list[Link]:
        """Page URLs the site's sitemaps list (those robots.txt names, else /sitemap.xml): one download each."""
        scheme, netloc = self.site
        named = []
        if self.robots is not None and self.robots.text:
            named = [
                line.split(":", 1)[1].strip()
                for line in self.robots.text.splitlines()
                if line.lower().startswith("sitemap:")
            ]
        sitemaps = [url for url in named if self.on_site(url)][:3] or [f"{scheme}://{netloc}/sitemap.xml"]
        found: list[Link] = []
        for sitemap in sitemaps:
            result = self.polite.fetch(sitemap)
            self.count_fetch(sitemap, ok=result.ok and result.status == 200, note="sitemap")
            if result.ok and result.status == 200:
                found.extend(self._sitemap_locations(result.body))
        return found[:MAX_SITEMAP_URLS]

    def _sitemap_locations(self, body: bytes) -> list[Link]:
        # Hostile XML: no entities, no network, no DTD, no huge trees.
        parser = lxml.etree.XMLParser(
            resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False, recover=True
        )
        try:
            root = lxml.etree.fromstring(body, parser)
        except (lxml.etree.XMLSyntaxError, ValueError):
            return []
        if root is None:
            return []
        links = []
        for element in root.iter("{*}loc"):
            url = normalize_url((element.text or "").strip())
            if (
                url
                and self.on_site(url)
                and is_page_url(url)
                and (self.robots is None or self.robots.allowed(url))
            ):
                links.append(Link(target=url, label=(), text="", url_terms=url_terms(url)))
        return links

    def search_url(self, query_text: str) -> str | None:
        """The start page's own search form filled with the query (a GET form with a text field)."""
        if not self.search_forms:
            return None
        action, field_name = self.search_forms[0]
        separator = "&" if "?" in action else "?"
        return normalize_url(action + separator + urlencode({field_name: query_text}))
