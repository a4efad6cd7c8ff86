"""A live web site as a page finder's environment: every page, robots.txt and sitemap is fetched through
the project's polite fetcher (sites/http: limits, address guard, redirects, robots.txt, the delay and
Crawl-delay between requests, Retry-After); each of those fetches is a download."""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode, urlsplit

import lxml.etree

from checks.jobs.inflight import wait_until
from sites.crawler.parse import parse_document
from sites.crawler.sitemaps import sitemaps_in_robots
from sites.crawler.urls import normalize_url
from sites.http import FetchSettings, PoliteFetcher, RobotsRules, robots_url
from sites.http.polite import robots_failure_of, robots_text_of
from sites.http.urls import origin

from .doxygenmenu import MENU_SCRIPT as DOXYGEN_MENU
from .doxygenmenu import NotAMenu, parse_doxygen_menu
from .environment import Environment, Link, Node, Page
from .htmlpage import is_page_url, link_terms, read_page
from .mdbookindex import parse_mdbook_index
from .mkdocsindex import is_mkdocs_index, parse_mkdocs_index
from .records import (
    SearchPaused,
    index_from_record,
    index_record,
    page_from_record,
    page_record,
    sitemap_links_from_record,
)
from .siteindex import NotAnIndex, SiteIndex, parse_sphinx_index
from .symbolindex import (
    SymbolSource,
    doxygen_files,
    javadoc_index_names,
    parse_doxygen_index,
    parse_javadoc_index,
    symbol_index,
)
from .termindex import parse_term_index, whole_index_link
from .text import terms, text_digest, url_terms, written_words

log = logging.getLogger(__name__)

MAX_SITEMAP_URLS = 50_000
MAX_RETRY_WAIT = 30.0  # seconds; a longer Retry-After is cut to this
RETRY_WAIT_WITHOUT_RETRY_AFTER = 5.0  # seconds, for a 429/503 that does not say how long
# The search pages the start page names, tried in turn for the site's search index: its <link rel="search">
# may be an OpenSearch description (Python's docs: `_static/opensearch.xml`), not the page, and its search
# form's action the page.
MAX_SEARCH_PAGES = 2
# Terms kept of all the links one page has to another (their texts, their contexts), each: an index page can link
# one target thousands of times.
MAX_LINK_TERMS = 200


# A page's heading names it where its generator gives many pages one <title> ("Eigen: Member List",
# CppUnit's "CppUnit - The Unit Testing Library" on every page) or none (JsonCpp): its words join the
# title's (issue 19, tenth round: held out on six Doxygen sites 66 -> 70 of 120, top-3 four cases fewer).
HEADING_IN_TITLE = True


class StartError(Exception):
    """The start page cannot begin a search: unreachable, not HTML, or redirecting off the site."""


@dataclass(frozen=True)
class LiveSettings:
    # Limits and politeness (the search fetches one page at a time; `delay` runs from the end of the last).
    fetch: FetchSettings = field(default_factory=FetchSettings)
    use_sitemap: bool = True
    use_site_search: bool = True
    # The site's term index page ("Index") read as an index (termindex.py) when there is no search index: off,
    # measured no gain (docs/benchmarks.md, issue 19's fourth round).
    use_term_index: bool = False
    # The symbol search index Javadoc and Doxygen write for their search box (symbolindex.py), read from
    # what the start page names when the site has no search index: a prior on the pages naming the query.
    use_symbol_index: bool = False
    # A search with no answer read gives up, "not found", when reading on looks vain (finder.BLIND_PATIENCE,
    # NOT_FOUND_PATIENCE) instead of spending its budget: each download is a request a person waits for. Off:
    # measured (issue 19, session 11), it halves what a search for a page the site lacks costs (80 -> 40 downloads)
    # and changes no answer on Sphinx, Javadoc and other sites, but loses late hits on Doxygen sites whose pages
    # link through a script menu (SDL2, log4cplus, msgpack: 4 hits and 2 top-3 of 60; with the second sign alone
    # 1 and 2). The generated graphs, which have no settings, never give up (with the rule BESTFIRST fell from
    # 0.81 to 0.40 at N = 100 on the calibrated generator: their links barely say where the target is).
    give_up: bool = False


@dataclass
class RequestInFlight:
    """A search's request its step stopped waiting for at the deadline, still running in the search's thread,
    with the fetcher it runs on (checks/jobs/inflight.py parks it for the job's next step)."""

    polite: PoliteFetcher
    thread: ThreadPoolExecutor
    kind: str
    url: str
    future: Future[dict[str, Any]]

    def close(self) -> None:
        self.thread.shutdown(wait=False, cancel_futures=True)
        self.polite.close()


def site_key(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme.lower(), (parts.netloc or "").lower()


class LiveSite(Environment):
    pages_titled = True

    def __init__(
        self,
        start_url: str,
        settings: LiveSettings,
        *,
        max_downloads: int | None = None,
        in_flight: RequestInFlight | None = None,
    ) -> None:
        start = normalize_url(start_url)
        if start is None:
            if in_flight is not None:
                in_flight.close()
            raise StartError(f"{start_url!r} is not an http(s) URL")
        super().__init__(start, max_downloads=max_downloads)
        self.settings = settings
        self.site = site_key(start)
        # One request at a time, spaced from the end of the previous one, as a sequential search expects. A request
        # the last step left running goes on with its fetcher (and its politeness), which this search takes over.
        self.polite = (
            in_flight.polite if in_flight is not None else PoliteFetcher(settings.fetch, space_from_end=True)
        )
        self.thread: ThreadPoolExecutor | None = None if in_flight is None else in_flight.thread
        self.carried = in_flight
        # With a deadline (a job's step), each request runs in `thread` and is waited for until the deadline: one
        # not finished by then pauses the search (SearchPaused.in_flight), and the next step waits for it.
        # `wait_first`: wait for the first new request to its end (it was running in a step of another process,
        # and is asked again: else a host slower than the budget would be asked again every step).
        self.deadline: float | None = None
        self.wait_first = False
        self.robots: RobotsRules | None = None
        self.final_urls: dict[Node, str] = {}
        self.search_forms: list[tuple[str, str]] = []
        self.search_pages: list[str] = []  # the start page's <link rel="search"> and search form actions
        # The words of the search page as read without a query (text_digest): a results page that says the same
        # shows no results (a script fills them in a browser).
        self.search_page_digest = ""
        self.symbol_source: SymbolSource | None = None  # the start page's symbol index, when it names one
        # Every request's outcome as a record (records.py), in order: those given are replayed without a
        # request; past them, each new one is handed to `on_record` (which saves it) before the search reads it.
        self.records: list[dict[str, Any]] = []
        self.replayed = 0
        self.on_record: Callable[[int, dict[str, Any]], None] | None = None
        self.on_diverge: Callable[[int], None] | None = None
        # Asked before each request that is not recorded: True stops the search there (SearchPaused).
        self.pause: Callable[[], bool] | None = None

    def replay(self, records: list[dict[str, Any]]) -> None:
        self.records, self.replayed = list(records), 0

    @property
    def replaying(self) -> bool:
        return self.replayed < len(self.records)

    def next_recorded_page(self) -> str | None:
        """The page the records fetch next, while the replay lasts (a finder may skip ranking to find it)."""
        if self.replaying and self.records[self.replayed]["kind"] == "page":
            return self.records[self.replayed]["url"]
        return None

    def _recorded(self, kind: str, url: str, request: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """The outcome of request `kind` of `url`: the next record while the replay lasts, else made now."""
        if self.replaying:
            record = self.records[self.replayed]
            if record["kind"] == kind and record["url"] == url:
                self.replayed += 1
                return record
            # Only a search that is not deterministic gets here: go on live from this request.
            log.warning("page search replay diverged at request %s (%s %s)", self.replayed, kind, url)
            del self.records[self.replayed :]
            if self.on_diverge is not None:
                self.on_diverge(self.replayed)
        record = {"kind": kind, "url": url, **self._request(kind, url, request)}
        self.records.append(record)
        self.replayed = len(self.records)
        if self.on_record is not None:
            self.on_record(len(self.records) - 1, record)
        return record

    def _request(self, kind: str, url: str, request: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """The outcome of a new request: the one the last step left running if it is this one, else made now
        (none once the step's time is up); waited for until the deadline, or SearchPaused with it running."""
        carried, self.carried = self.carried, None
        if carried is not None and (carried.kind, carried.url) == (kind, url):
            future = carried.future  # made by the last step: waited for, not asked again
        else:
            if self.pause is not None and self.pause():
                raise SearchPaused()
            if self.deadline is None:
                return request()
            if self.thread is None:
                self.thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="findpage")
            future = self.thread.submit(request)
        deadline, self.wait_first = (None if self.wait_first else self.deadline), False
        done, _ = wait_until({url: future}, deadline)
        if url not in done:
            assert self.thread is not None
            raise SearchPaused(RequestInFlight(self.polite, self.thread, kind, url, future))
        return done[url]

    def close(self) -> None:
        if self.thread is not None:
            self.thread.shutdown(wait=False, cancel_futures=True)
        self.polite.close()

    def label(self, node: Node) -> str:
        return str(node)

    def on_site(self, url: str) -> bool:
        return site_key(url) == self.site

    def open(self) -> Page:
        """Read robots.txt and the start page; raise StartError when the search cannot start there."""
        if self.settings.fetch.obey_robots:
            site_origin = origin(str(self.start))
            record = self._recorded(
                "robots", robots_url(self.start), lambda: self._robots_request(site_origin)
            )
            failure = record["failure"]
            self.polite.learn_robots(site_origin, record["text"], tuple(failure) if failure else None)
            self.count_fetch(robots_url(self.start), ok=record["ok"], note="robots.txt")
            if record["status"] is None and record["error_kind"] != "too_large":
                raise StartError(f"the site of {self.start} could not be reached: {record['error']}")
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

    def _robots_request(self, site_origin: str) -> dict[str, Any]:
        result = self.polite.fetch_robots(site_origin)
        return {
            "ok": result.ok,
            "status": result.status,
            "error": result.error,
            "error_kind": result.error_kind,
            "text": robots_text_of(result),
            "failure": robots_failure_of(result),
        }

    def _fetch(self, node: Node) -> tuple[Page | None, str]:
        url = str(node)
        if self.robots is not None and not self.robots.allowed(url):
            return None, "disallowed by robots.txt"
        record = self._recorded("page", url, lambda: self._page_request(url, node == self.start))
        if record["retried"]:
            # Asked to slow down: the refused fetch counts too (and may end the budget before the retry).
            self.count_fetch(url, ok=False, note=record["retried"])
        self.final_urls[node] = record["final_url"]
        if "search_forms" in record:
            self.search_forms = [tuple(form) for form in record["search_forms"]]
            self.search_pages = record["search_pages"]
            named = record.get("symbol_source")  # records saved before it have none
            self.symbol_source = SymbolSource(*named) if named else None
        return page_from_record(url, record["page"]), record["note"]

    def _page_request(self, url: str, is_start: bool) -> dict[str, Any]:
        """Fetch and read a page: its record (the page's terms and links, or why it is none)."""
        result = self.polite.fetch(url)
        record: dict[str, Any] = {"retried": "", "page": None}
        asked = self.polite.retry_wait(
            url, result, longest=MAX_RETRY_WAIT, without_retry_after=RETRY_WAIT_WITHOUT_RETRY_AFTER
        )
        if asked is not None:
            # Asked to slow down: the host is paused as told (capped), then asked once more.
            record["retried"] = f"HTTP {result.status}, retried"
            result = self.polite.fetch(url)
        record["final_url"] = result.final_url
        page, note = self._read(url, result, is_start, record)
        return {**record, "page": page_record(page), "note": note}

    def _read(self, url: str, result, is_start: bool, record: dict[str, Any]) -> tuple[Page | None, str]:
        if not result.ok:
            return None, result.error or "no answer"
        if result.status is None or result.status >= 400:
            return None, f"HTTP {result.status}"
        if not self.on_site(result.final_url):
            return None, f"redirects off the site, to {result.final_url}"
        if not result.is_html and urlsplit(url).path.endswith("/" + DOXYGEN_MENU):
            return self._read_menu(url, result)
        if not result.is_html:
            return None, f"not HTML ({result.content_type or 'no type'})"
        root, error = parse_document(result.body, result.charset)
        if root is None:
            return None, error
        read = read_page(root, url=result.final_url)
        if is_start:
            search_forms = [form for form in read.search_forms if self.on_site(form[0])]
            named = read.search_pages + [action for action, _ in search_forms]
            record["search_forms"] = [list(form) for form in search_forms]
            record["search_pages"] = [url for url in dict.fromkeys(named) if self.on_site(url)]
            source = read.symbol_source
            on_site = source is not None and self.on_site(source.script) and self.on_site(source.root)
            record["symbol_source"] = [source.kind, source.script, source.root] if on_site else None
        links: dict[str, Link] = {}
        for link in read.links:
            if not self.on_site(link.url) or link.url == url:
                continue
            known = links.get(link.url)
            if known is None and self.robots is not None and not self.robots.allowed(link.url):
                continue  # never a candidate: reading it would be a download we may not make
            label, context, words = link_terms(link)
            if known is not None:
                # Several links to one page (an index lists it under several entries, a contents page names it
                # and its sections): one document about it, as the finder scores them (docs/pagefinding.md).
                label = (known.label + label)[:MAX_LINK_TERMS]
                context = (known.context + context)[:MAX_LINK_TERMS]
            links[link.url] = Link(
                target=link.url,
                label=label,
                text=known.text if known is not None else link.text,
                context=context,
                url_terms=words,
            )
        title_terms = terms(read.title)
        if HEADING_IN_TITLE:
            title_terms += tuple(dict.fromkeys(t for t in terms(read.heading) if t not in title_terms))
        page = Page(
            node=url,
            terms=terms(read.text),
            links=list(links.values()),
            title=read.title,
            title_terms=title_terms,
            own_terms=frozenset(terms(read.own_text)) | frozenset(title_terms),
            search_index=read.search_index if self.on_site(read.search_index) else "",
            words=written_words(read.text),
        )
        return page, f"HTTP {result.status}"

    def _read_menu(self, url: str, result) -> tuple[Page | None, str]:
        """Doxygen's menu (doxygenmenu.py), which a page links as "Contents": a page of links, no text."""
        try:
            entries = parse_doxygen_menu(result.body, menu_url=result.final_url)
        except NotAMenu as exc:
            return None, f"Doxygen menu refused: {exc}"
        links = [
            Link(
                target=entry.url,
                label=terms(entry.text),
                text=entry.text,
                context=terms(entry.context),
                url_terms=url_terms(entry.url),
            )
            for entry in entries
            if self.on_site(entry.url)
            and entry.url != url
            and (self.robots is None or self.robots.allowed(entry.url))
        ]
        return Page(node=url, terms=(), links=links, title="", title_terms=()), "Doxygen menu"

    def sitemap_links(self) -> list[Link]:
        """Page URLs the site's sitemaps list (those robots.txt names, else /sitemap.xml): one download each."""
        scheme, netloc = self.site
        named = sitemaps_in_robots(self.robots.text) if self.robots is not None else []
        sitemaps = [url for url in named if self.on_site(url)][:3] or [f"{scheme}://{netloc}/sitemap.xml"]
        found: list[Link] = []
        for sitemap in sitemaps:
            record = self._recorded("sitemap", sitemap, lambda url=sitemap: self._sitemap_request(url))
            self.count_fetch(sitemap, ok=record["ok"], note="sitemap")
            found.extend(sitemap_links_from_record(record["urls"]))
        return found[:MAX_SITEMAP_URLS]

    def _sitemap_request(self, url: str) -> dict[str, Any]:
        result = self.polite.fetch(url)
        ok = result.ok and result.status == 200
        return {
            "ok": ok,
            "urls": [link.target for link in self._sitemap_locations(result.body)] if ok else [],
        }

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

    def search_index(self) -> SiteIndex | None:
        """The site's own search index (`_search_index_request`), recorded with the requests it took."""
        if not self.search_pages:
            return None
        record = self._recorded("search index", self.search_pages[0], self._search_index_request)
        for url, ok, note in record["requests"]:
            self.count_fetch(url, ok=ok, note=note)
        self.search_page_digest = record.get("search_page_digest", "")
        return index_from_record(record["index"])

    def _search_index_request(self) -> dict[str, Any]:
        requests: list[list] = []

        def fetch_other(url: str, note: str):
            """A request that is not a page of the search (counted as a download once recorded), or None when
            robots.txt forbids it or it fails."""
            if self.robots is not None and not self.robots.allowed(url):
                return None
            result = self.polite.fetch(url)
            ok = result.ok and result.status == 200 and self.on_site(result.final_url)
            requests.append([url, ok, note])
            return result if ok else None

        digest: list[str] = []
        index = self._find_search_index(fetch_other, digest)
        return {"requests": requests, "index": index_record(index), "search_page_digest": "".join(digest)}

    def _find_search_index(self, fetch_other, digest: list[str]) -> SiteIndex | None:
        """The site's own search index, found as its search page finds it: the search page the start page
        names (<link rel="search">, then its search form's action, while the one read is not an HTML page that
        loads an index) is read, and the `searchindex.js` it loads (Sphinx's) is read. Two downloads (three
        when the first named is not the search page); None (after what it tried) when the site has none."""
        for search_page in self.search_pages[:MAX_SEARCH_PAGES]:
            result = fetch_other(search_page, "search page")
            if result is None or not result.is_html:
                continue
            root, _ = parse_document(result.body, result.charset)
            if root is None:
                continue
            read = read_page(root, url=result.final_url)
            digest[:] = [text_digest(terms(read.text))]  # the search page read last
            scripts = read.scripts
            index_url = next((src for src in scripts if src.rsplit("/", 1)[-1] == "searchindex.js"), None)
            if index_url is None or not self.on_site(index_url):
                continue
            fetched = fetch_other(index_url, "site search index")
            if fetched is None:
                continue
            # The directory builder serves every page as a directory, the search page too.
            suffix = "/" if urlsplit(result.final_url).path.endswith("/") else ".html"
            try:
                index = parse_sphinx_index(fetched.body, index_url=fetched.final_url, page_suffix=suffix)
            except NotAnIndex:
                continue
            index.urls = [normalize_url(url) or url for url in index.urls]
            return index
        return None

    def named_search_index(self, url: str) -> SiteIndex | None:
        """The search index a page names for its own search box (mdBook's, `mdbookindex.py`; MkDocs',
        `mkdocsindex.py`, told by its name): one download, recorded; None when robots.txt forbids it, it fails,
        or it is not an index these readers know."""
        if not self.on_site(url) or (self.robots is not None and not self.robots.allowed(url)):
            return None
        self._check_budget()  # before the request: a search with no download left makes none
        record = self._recorded("search index", url, lambda: self._named_index_request(url))
        for fetched, ok, note in record["requests"]:
            self.count_fetch(fetched, ok=ok, note=note)
        return index_from_record(record["index"])

    def _named_index_request(self, url: str) -> dict[str, Any]:
        result = self.polite.fetch(url)
        ok = result.ok and result.status == 200 and self.on_site(result.final_url)
        index = None
        note = "site search index"
        if ok:
            try:
                read = parse_mkdocs_index if is_mkdocs_index(url) else parse_mdbook_index
                index = read(result.body, index_url=result.final_url)
                index.urls = [normalize_url(page) or page for page in index.urls]
            except NotAnIndex as exc:
                note = f"site search index refused: {exc}"
        elif result.error:
            note = f"site search index: {result.error}"
        return {"requests": [[url, ok, note]], "index": index_record(index)}

    def term_index(self, url: str) -> SiteIndex | None:
        """The site's term index page (termindex.py) at `url`, read as an index: one download (two for a
        Sphinx index split by letter, whose one-page form it links), recorded; None when robots.txt forbids
        it, it fails, or it is not an index."""
        if not self.on_site(url) or (self.robots is not None and not self.robots.allowed(url)):
            return None
        self._check_budget()
        record = self._recorded("term index", url, lambda: self._term_index_request(url))
        for fetched, ok, note in record["requests"]:
            self.count_fetch(fetched, ok=ok, note=note)
        return index_from_record(record["index"])

    def _term_index_request(self, url: str) -> dict[str, Any]:
        requests: list[list] = []
        index = None
        for _ in range(2):
            result = self.polite.fetch(url)
            ok = result.ok and result.status == 200 and self.on_site(result.final_url) and result.is_html
            root = parse_document(result.body, result.charset)[0] if ok else None
            if root is None:
                requests.append([url, False, f"term index: {result.error or 'not an HTML page'}"])
                break
            try:
                index = parse_term_index(root, url=result.final_url)
                requests.append([url, True, "term index"])
                break
            except NotAnIndex as exc:
                requests.append([url, True, f"term index refused: {exc}"])
                whole = whole_index_link(root, result.final_url)
                if whole is None or whole == url or not self.on_site(whole):
                    break
                if self.robots is not None and not self.robots.allowed(whole):
                    break
                url = whole
        return {"requests": requests, "index": index_record(index)}

    def symbol_index(self, query_text: str) -> SiteIndex | None:
        """The symbol search index the start page names (symbolindex.py): the script that names its files,
        then those files (Javadoc's type, member and package indexes; Doxygen's files of the query words'
        first characters), each a download, recorded; None when the page names none or none could be read."""
        source = self.symbol_source
        if source is None or (self.robots is not None and not self.robots.allowed(source.script)):
            return None
        self._check_budget()
        record = self._recorded(
            "symbol index", source.script, lambda: self._symbol_index_request(source, query_text)
        )
        for fetched, ok, note in record["requests"]:
            self.count_fetch(fetched, ok=ok, note=note)
        return index_from_record(record["index"])

    def _symbol_index_request(self, source: SymbolSource, query_text: str) -> dict[str, Any]:
        requests: list[list] = []

        def fetch(url: str, note: str) -> bytes | None:
            if not self.on_site(url) or (self.robots is not None and not self.robots.allowed(url)):
                return None
            result = self.polite.fetch(url)
            ok = result.ok and result.status == 200 and self.on_site(result.final_url)
            requests.append([url, ok, note if ok else f"{note}: {result.error or f'HTTP {result.status}'}"])
            return result.body if ok else None

        entries: list[tuple[str, str]] = []
        script = fetch(source.script, "symbol index script")
        try:
            if script is None:
                files = []
            elif source.kind == "javadoc":
                files = [normalize_url(name, source.root) for name in javadoc_index_names(script)]
            else:
                files = doxygen_files(script, query_text.split(), root=source.root)
        except NotAnIndex as exc:
            requests[-1][2] = f"symbol index script refused: {exc}"
            files = []
        for url in files:
            body = fetch(url, "symbol index") if url else None
            if body is None:
                continue
            try:
                if source.kind == "javadoc":
                    entries += parse_javadoc_index(body, root=source.root)
                else:
                    entries += parse_doxygen_index(body, index_url=url)
            except NotAnIndex as exc:
                requests[-1][2] = f"symbol index refused: {exc}"
        index = symbol_index(entries, site=source.root) if entries else None
        if index is not None:
            index.urls = [normalize_url(page) or page for page in index.urls]
        return {"requests": requests, "index": index_record(index)}

    def search_url(self, query_text: str) -> str | None:
        """The start page's own search form filled with the query (a GET form with a text field)."""
        if not self.search_forms:
            return None
        action, field_name = self.search_forms[0]
        separator = "&" if "?" in action else "?"
        return normalize_url(action + separator + urlencode({field_name: query_text}))
