"""The dead / soft-404 verdicts on the dashboard: the verdict column and filter, the soft-404 list with its
evidence, broken links to soft-404 and failing pages, and the site's summary of its latest finished crawl."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from sites.models import Crawl, Page, Verdict
from tests.sites.factories import body, make_crawl, make_link, make_page, make_site

pytestmark = pytest.mark.django_db

FAILING_SINCE = datetime(2026, 11, 3, 9, 15, tzinfo=UTC)
PROBE_REASON = "same final URL and number of redirects as the probe"


def soft404_probe(directory: str, **fields) -> dict:
    """A probe record as the crawl stores it: a random name in the page's directory, and what it answered."""
    probe = {
        "url": f"{directory}qhzvtkwmbplrnxdyfjcasgueo",
        "final_url": "https://example.com/",
        "redirects": 1,
        "status": 200,
        "resemblance": None,
        "verdict": "soft404",
        "reason": PROBE_REASON,
    }
    return {**probe, **fields}


@pytest.fixture
def verdict_crawl(owner):
    """One crawl with a page of every verdict, keyed by what it is."""
    crawl = make_crawl(make_site(owner=owner, url="https://example.com/"))
    pages = {
        "ok": make_page(
            crawl, "https://example.com/", title="Home", verdict=Verdict.OK, verdict_reason="alive"
        ),
        "dead": make_page(
            crawl, "https://example.com/gone", 404, depth=1, verdict=Verdict.DEAD, verdict_reason="HTTP 404"
        ),
        "soft_probe": make_page(
            crawl,
            "https://example.com/docs/old-manual",
            depth=1,
            final_url="https://example.com/",
            title="Welcome",
            verdict=Verdict.SOFT404,
            verdict_reason=f"probe: {PROBE_REASON}",
            soft404_probability=0.31,
            probe=soft404_probe("https://example.com/docs/"),
        ),
        "soft_classifier": make_page(
            crawl,
            "https://example.com/blog/missing-post",
            depth=2,
            title="Oups, page introuvable",
            verdict=Verdict.SOFT404,
            verdict_reason="classifier: soft-404 probability 0.93",
            soft404_probability=0.93,
            probe=soft404_probe(
                "https://example.com/blog/",
                final_url="https://example.com/blog/qhzvtkwmbplrnxdyfjcasgueo",
                redirects=0,
                status=404,
                resemblance=0.42,
                verdict="alive",
                reason="different content",
            ),
        ),
        "failing": make_page(
            crawl,
            "https://example.com/slow",
            None,
            depth=1,
            error_kind="timeout",
            fetch_error="No answer within 10 s.",
            verdict=Verdict.FAILING,
            verdict_reason="timeout",
            strikes=2,
            failing_since=FAILING_SINCE,
        ),
        "external_failing": make_page(
            crawl,
            "https://partner.example/api",
            503,
            depth=1,
            is_internal=False,
            verdict=Verdict.FAILING,
            verdict_reason="HTTP 503",
            strikes=1,
            failing_since=FAILING_SINCE,
        ),
        "robots": make_page(crawl, "https://example.com/private/", None, depth=1, error_kind="robots"),
        "pending": make_page(crawl, "https://example.com/later", None, depth=2, state=Page.State.QUEUED),
    }
    return crawl, pages


def section(html: str, section_id: str) -> str:
    """The HTML of one <section> of the page, by its id."""
    return html.split(f'<section id="{section_id}"')[1].split("</section>")[0]


def row_of(html: str, url: str) -> str:
    """The table row that starts with a link to `url`."""
    return html.split(f'<a href="{url}"')[1].split("</tr>")[0]


# The pages table


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ({"verdict": "ok"}, {"ok"}),
        ({"verdict": "dead"}, {"dead"}),
        ({"verdict": "soft404"}, {"soft_probe", "soft_classifier"}),
        ({"verdict": "failing"}, {"failing", "external_failing"}),
        ({"verdict": "failing", "scope": "external"}, {"external_failing"}),
        ({"verdict": "soft404", "q": "/blog/"}, {"soft_classifier"}),
        ({"verdict": "dead", "status": "2xx"}, set()),
        ({"broken": "on"}, {"dead", "soft_probe", "soft_classifier", "failing", "external_failing"}),
        (
            {"verdict": "not-a-verdict"},
            {
                "ok",
                "dead",
                "soft_probe",
                "soft_classifier",
                "failing",
                "external_failing",
                "robots",
                "pending",
            },
        ),
    ],
)
def test_the_verdict_filter_returns_exactly_the_pages_with_that_verdict(
    signed_in, verdict_crawl, query, expected
):
    crawl, pages = verdict_crawl

    response = signed_in.get(reverse("sites:crawl", args=[crawl.pk]), query)

    assert {page.pk for page in response.context["pages"]} == {pages[name].pk for name in expected}


def test_the_verdict_filter_is_offered_next_to_the_other_filters(signed_in, verdict_crawl):
    crawl, _ = verdict_crawl

    html = body(signed_in.get(reverse("sites:crawl", args=[crawl.pk]), {"verdict": "soft404"}))

    form = html.split('aria-label="Filter pages"')[1].split("</form>")[0]
    assert form.index('name="scope"') < form.index('name="verdict"') < form.index('name="q"')
    assert '<option value="soft404" selected>Soft-404</option>' in form


def test_the_chips_count_each_verdict_and_broken_includes_soft404_pages(signed_in, verdict_crawl):
    crawl, _ = verdict_crawl

    response = signed_in.get(reverse("sites:crawl", args=[crawl.pk]))

    counts = response.context["counts"]
    assert (counts["ok"], counts["dead"], counts["soft404"], counts["failing"]) == (1, 1, 2, 2)
    assert counts["broken"] == 5
    chips = body(response).split('aria-label="Pages by verdict"')[1].split("</ul>")[0]
    shown = dict(re.findall(r'href="\?verdict=(\w+)#pages"[^>]*>[^<]+<strong>(\d+)</strong>', chips))
    assert shown == {"dead": "1", "soft404": "2", "failing": "2"}


def test_the_page_table_shows_each_verdict_with_its_reason(signed_in, verdict_crawl):
    crawl, _ = verdict_crawl

    table = section(body(signed_in.get(reverse("sites:crawl", args=[crawl.pk]))), "pages")

    dead = row_of(table, "https://example.com/gone")
    soft = row_of(table, "https://example.com/blog/missing-post")
    robots = row_of(table, "https://example.com/private/")
    assert 'class="badge v-dead">dead</span> <span class="verdict-reason">HTTP 404</span>' in dead
    assert 'class="badge v-soft404">soft-404</span>' in soft
    assert "classifier: soft-404 probability 0.93" in soft
    assert "v-ok" not in robots and "v-dead" not in robots  # blocked by robots.txt: no verdict


def test_a_failing_page_shows_since_when_and_how_many_strikes(signed_in, verdict_crawl):
    crawl, _ = verdict_crawl

    table = section(body(signed_in.get(reverse("sites:crawl", args=[crawl.pk]))), "pages")

    internal = row_of(table, "https://example.com/slow")
    external = row_of(table, "https://partner.example/api")
    assert 'class="badge v-failing">failing</span> <span class="verdict-reason">timeout</span>' in internal
    assert re.search(
        r"failing since <time datetime=\"2026-11-03T09:15:00\+00:00\">3 Nov 2026 09:15</time>, 2 strikes",
        internal,
    )
    assert "HTTP 503" in external and ", 1 strike<" in external


# The soft-404 list


def test_the_soft404_section_lists_every_soft404_page_with_its_evidence(signed_in, verdict_crawl):
    crawl, pages = verdict_crawl

    response = signed_in.get(reverse("sites:crawl", args=[crawl.pk]))

    listed = list(response.context["soft404_pages"])
    assert [page.pk for page in listed] == [pages["soft_probe"].pk, pages["soft_classifier"].pk]
    html = section(body(response), "soft404")
    by_probe = row_of(html, "https://example.com/docs/old-manual")
    assert f"probe: {PROBE_REASON}" in by_probe
    assert "https://example.com/docs/qhzvtkwmbplrnxdyfjcasgueo" in by_probe
    assert '<dt>Probe final URL</dt><dd class="url">https://example.com/</dd>' in by_probe
    assert "<dt>Redirects</dt><dd>1</dd>" in by_probe
    assert "Probe says" not in by_probe  # the reason already says what the probe found
    assert ">0.31<" in by_probe
    by_classifier = row_of(html, "https://example.com/blog/missing-post")
    assert "classifier: soft-404 probability 0.93" in by_classifier and ">0.93<" in by_classifier
    assert "<dt>Resemblance</dt><dd>0.42</dd>" in by_classifier
    assert "https://example.com/blog/qhzvtkwmbplrnxdyfjcasgueo" in by_classifier
    assert "<dt>Probe says</dt><dd>different content</dd>" in by_classifier
    assert '<dt>Probe status</dt><dd><span class="badge s4xx">404</span>' in by_classifier
    assert "https://example.com/gone" not in html and "https://example.com/slow" not in html


def test_the_soft404_section_counts_the_links_that_point_to_each_page(signed_in, verdict_crawl):
    crawl, pages = verdict_crawl
    for source in ("ok", "dead", "failing"):
        make_link(pages[source], pages["soft_probe"])

    response = signed_in.get(reverse("sites:crawl", args=[crawl.pk]))

    counts = {page.pk: page.inlink_count for page in response.context["soft404_pages"]}
    assert counts == {pages["soft_probe"].pk: 3, pages["soft_classifier"].pk: 0}
    assert "3 links point here" in row_of(section(body(response), "soft404"), pages["soft_probe"].url)


def test_a_soft404_page_without_a_probe_says_it_was_not_probed(signed_in, verdict_crawl):
    crawl, pages = verdict_crawl
    Page.objects.filter(pk=pages["soft_classifier"].pk).update(probe=None)

    html = section(body(signed_in.get(reverse("sites:crawl", args=[crawl.pk]))), "soft404")

    assert "Not probed" in row_of(html, pages["soft_classifier"].url)


def test_the_soft404_section_is_paginated_twenty_rows_a_page_keeping_the_other_tables(signed_in, owner):
    crawl = make_crawl(make_site(owner=owner, url="https://example.com/"))
    for number in range(45):
        make_page(
            crawl,
            f"https://example.com/s{number:02d}",
            depth=number,
            verdict=Verdict.SOFT404,
            verdict_reason=f"probe: {PROBE_REASON}",
            probe=soft404_probe("https://example.com/"),
        )
    url = reverse("sites:crawl", args=[crawl.pk])

    first = signed_in.get(url, {"status": "2xx"})
    third = signed_in.get(url, {"status": "2xx", "spage": 3})

    assert len(first.context["soft404_pages"]) == 20
    assert [page.url for page in third.context["soft404_pages"]] == [
        f"https://example.com/s{number:02d}" for number in range(40, 45)
    ]
    assert len(third.context["pages"]) == 45  # the page table keeps its own page number
    nav = body(first).split('aria-label="Soft-404 table pages"')[1].split("</nav>")[0]
    assert "status=2xx&amp;spage=2#soft404" in nav


# Broken links


def test_broken_links_include_links_to_soft404_dead_and_failing_pages_with_the_targets_verdict(
    signed_in, verdict_crawl
):
    crawl, pages = verdict_crawl
    home = pages["ok"]
    to_soft = make_link(home, pages["soft_probe"], text="The old manual")
    to_dead = make_link(home, pages["dead"], text="Gone")
    to_failing = make_link(home, pages["failing"], text="Slow report")
    to_external = make_link(home, pages["external_failing"], text="Partner API")
    make_link(pages["dead"], home, text="Home is fine")
    make_link(home, pages["robots"], text="Private, not judged")
    make_link(home, None, target_url="https://unchecked.example/", text="Never checked")

    response = signed_in.get(reverse("sites:crawl", args=[crawl.pk]))

    listed = [link.pk for link in response.context["broken_links"]]
    assert listed == [to_soft.pk, to_dead.pk, to_failing.pk, to_external.pk]
    html = section(body(response), "broken-links")
    rows = html.split("<tr>")[2:]
    assert "The old manual" in rows[0] and 'class="badge v-soft404">soft-404</span>' in rows[0]
    assert f"probe: {PROBE_REASON}" in rows[0] and ">200<" in rows[0]
    assert 'class="badge v-dead">dead</span> <span class="verdict-reason">HTTP 404</span>' in rows[1]
    assert 'class="badge v-failing">failing</span>' in rows[2]
    assert "failing since" in rows[2] and "2 strikes" in rows[2]
    assert "HTTP 503" in rows[3] and "1 strike<" in rows[3]
    assert "Home is fine" not in html and "Private, not judged" not in html


def test_a_link_to_a_page_with_a_failed_fetch_but_no_verdict_yet_is_still_broken(signed_in, verdict_crawl):
    crawl, pages = verdict_crawl
    unjudged = make_page(crawl, "https://example.com/crash", 500, depth=1)  # fetched before verdicts existed
    link = make_link(pages["ok"], unjudged, text="Crash")

    response = signed_in.get(reverse("sites:crawl", args=[crawl.pk]))

    assert [listed.pk for listed in response.context["broken_links"]] == [link.pk]


# Query counts


def test_the_crawl_page_queries_do_not_grow_with_soft404_pages_and_broken_links(signed_in, verdict_crawl):
    crawl, pages = verdict_crawl
    url = reverse("sites:crawl", args=[crawl.pk])
    make_link(pages["ok"], pages["soft_probe"])
    with CaptureQueriesContext(connection) as few:
        assert signed_in.get(url).status_code == 200
    for number in range(60):
        soft = make_page(
            crawl,
            f"https://example.com/more/s{number}",
            depth=3,
            verdict=Verdict.SOFT404,
            probe=soft404_probe("https://example.com/more/"),
        )
        failing = make_page(
            crawl,
            f"https://example.com/more/f{number}",
            503,
            depth=3,
            verdict=Verdict.FAILING,
            strikes=1,
            failing_since=FAILING_SINCE,
        )
        make_link(pages["ok"], soft)
        make_link(soft, failing)
    with CaptureQueriesContext(connection) as many:
        response = signed_in.get(url)

    assert len(response.context["soft404_pages"]) == 20 and len(response.context["broken_links"]) == 50
    assert len(many) == len(few)
    page_lists = [query["sql"] for query in many if 'FROM "sites_page"' in query["sql"]]
    assert not any('"probe"' in sql for sql in page_lists if "LIMIT 50" in sql)  # the page table skips probes


# The site's summary


def test_the_site_page_summarises_the_verdicts_of_the_latest_finished_crawl(signed_in, owner):
    site = make_site(owner=owner, url="https://example.com/")
    older = make_crawl(site)
    make_page(older, "https://example.com/", verdict=Verdict.DEAD)
    latest = make_crawl(site)
    for verdict, number in [(Verdict.OK, 4), (Verdict.DEAD, 3), (Verdict.SOFT404, 2), (Verdict.FAILING, 1)]:
        for _ in range(number):
            make_page(latest, verdict=verdict)
    make_page(latest, None, error_kind="robots")
    running = make_crawl(site, status=Crawl.Status.RUNNING)
    make_page(running, "https://example.com/", verdict=Verdict.SOFT404)

    response = signed_in.get(reverse("sites:detail", args=[site.pk]))

    summary = response.context["verdict_summary"]
    assert summary.crawl == latest
    assert summary.counts == {"ok": 4, "dead": 3, "soft404": 2, "failing": 1}
    assert summary.unjudged == 1
    html = section(body(response), "verdicts")
    crawl_url = reverse("sites:crawl", args=[latest.pk])
    shown = dict(re.findall(rf'href="{crawl_url}\?verdict=(\w+)#pages">(\d+)</a>', html))
    assert shown == {"ok": "4", "dead": "3", "soft404": "2", "failing": "1"}
    assert "1 fetched page has no verdict" in html


def test_the_site_page_has_no_summary_before_a_crawl_finishes(signed_in, owner):
    site = make_site(owner=owner)
    make_crawl(site, status=Crawl.Status.RUNNING)
    make_crawl(site, status=Crawl.Status.FAILED)

    response = signed_in.get(reverse("sites:detail", args=[site.pk]))

    assert response.context["verdict_summary"] is None
    assert 'id="verdicts"' not in body(response)


def test_a_soft404_found_by_the_query_probe_names_that_probe(signed_in, owner):
    crawl = make_crawl(make_site(owner=owner, url="https://example.com/"))
    reason = "near-identical content to the probe"
    make_page(
        crawl,
        "https://example.com/product?id=98765",
        depth=1,
        verdict=Verdict.SOFT404,
        verdict_reason=f"query probe (id): {reason}",
        soft404_probability=0.0,
        probe=soft404_probe(
            "https://example.com/product?id=",
            final_url="https://example.com/product?id=qhzvtkwmbplrnxdyfjcasgueo",
            redirects=0,
            resemblance=1.0,
            reason=reason,
            kind="query",
        ),
    )
    response = signed_in.get(reverse("sites:crawl", args=[crawl.pk]))
    row = row_of(section(body(response), "soft404"), "https://example.com/product?id=98765")
    assert f"query probe (id): {reason}" in row and "<dt>Probe</dt><dd" in row and ">query</dd>" in row
    assert "Probe says" not in row  # the reason already says it
