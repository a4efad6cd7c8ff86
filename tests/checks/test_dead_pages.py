"""Each branch of the dead-page algorithm (Bar-Yossef et al., Table 1) and the combined verdict, on real servers."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from werkzeug.wrappers import Response

from checks.checking import urls_check
from sites.models import UrlHealth

pytestmark = pytest.mark.django_db

DATA = Path(__file__).resolve().parents[1] / "data" / "soft404"
ARTICLE = "<html><head><title>{title}</title></head><body><h1>{title}</h1><p>{text}</p></body></html>"


@pytest.fixture(autouse=True)
def honest_by_default(httpserver):
    """Unknown paths (robots.txt and the probes included) answer 404 unless a test says otherwise."""
    httpserver.no_handler_status_code = 404


def page(title: str, words: int = 200) -> str:
    text = " ".join(f"{title.lower()}-{i} about widgets and gears" for i in range(words // 5))
    return ARTICLE.format(title=title, text=text)


def check_one(url: str):
    return urls_check(urls=[url], delay=0)[0]


@pytest.mark.parametrize("status", [403, 404, 410])
def test_403_404_and_410_are_dead_at_once(httpserver, status):
    httpserver.expect_request("/gone").respond_with_data("no", status=status)
    result = check_one(httpserver.url_for("/gone"))
    assert (result.verdict, result.reason, result.status) == ("dead", f"HTTP {status}", status)
    assert not UrlHealth.objects.exists()


def test_other_4xx_answers_count_as_alive_as_in_the_paper(httpserver):
    httpserver.expect_request("/private").respond_with_data(
        "login first", status=401, content_type="text/plain"
    )
    assert check_one(httpserver.url_for("/private")).verdict == "ok"


def test_a_5xx_is_failing_until_it_has_failed_on_enough_spaced_checks(httpserver, settings):
    settings.WEBAUDIT_DEAD_STRIKES = 3
    settings.WEBAUDIT_DEAD_STRIKE_SPACING_SECONDS = 0
    settings.WEBAUDIT_CRAWL_RETRIES = 0
    httpserver.expect_request("/down").respond_with_data("oops", status=500)
    url = httpserver.url_for("/down")
    first, second, third = check_one(url), check_one(url), check_one(url)
    assert (first.verdict, first.strikes, second.verdict, second.strikes) == ("failing", 1, "failing", 2)
    assert first.failing_since == second.failing_since is not None
    assert (
        third.verdict == "dead"
        and third.strikes == 3
        and re.search(r"HTTP 500, on 3 checks since", third.reason)
    )


def test_checks_closer_than_the_spacing_count_as_one_strike(httpserver, settings):
    settings.WEBAUDIT_DEAD_STRIKE_SPACING_SECONDS = 3600
    settings.WEBAUDIT_CRAWL_RETRIES = 0
    httpserver.expect_request("/down").respond_with_data("oops", status=502)
    url = httpserver.url_for("/down")
    assert [check_one(url).strikes for _ in range(3)] == [1, 1, 1]


def test_a_url_that_recovers_forgets_its_strikes(httpserver, settings):
    settings.WEBAUDIT_DEAD_STRIKE_SPACING_SECONDS = 0
    settings.WEBAUDIT_CRAWL_RETRIES = 0
    answers = iter(
        [
            Response("oops", status=503),
            Response("oops", status=503),
            Response(page("Back"), content_type="text/html"),
        ]
    )
    httpserver.expect_request("/flaky").respond_with_handler(lambda request: next(answers))
    httpserver.expect_request(re.compile(r"/[a-z]{25}")).respond_with_data("nothing here", status=404)
    url = httpserver.url_for("/flaky")
    assert [check_one(url).verdict for _ in range(3)] == ["failing", "failing", "ok"]
    assert not UrlHealth.objects.exists()


def test_a_timeout_is_failing_not_dead(httpserver, settings):
    settings.WEBAUDIT_FETCH_TIMEOUT = 0.5

    def slow(request):
        time.sleep(1.2)
        return Response("late")

    httpserver.expect_request("/slow").respond_with_handler(slow)
    result = check_one(httpserver.url_for("/slow"))
    assert (result.verdict, result.reason, result.strikes) == ("failing", "timeout", 1)


def test_a_refused_connection_is_failing(closed_port):
    assert check_one(f"http://127.0.0.1:{closed_port}/x").reason == "connection refused"


def test_redirect_loops_and_too_many_redirects_are_dead(httpserver):
    httpserver.expect_request("/a").respond_with_data("", status=302, headers={"Location": "/b"})
    httpserver.expect_request("/b").respond_with_data("", status=302, headers={"Location": "/a"})
    for hop in range(25):
        httpserver.expect_request(f"/r{hop}").respond_with_data(
            "", status=301, headers={"Location": f"/r{hop + 1}"}
        )
    loop, chain = urls_check(urls=[httpserver.url_for("/a"), httpserver.url_for("/r0")], delay=0)
    assert (loop.verdict, loop.reason) == ("dead", "redirect loop")
    assert (chain.verdict, chain.reason) == ("dead", "too many redirects")
    assert len(chain.redirects) == 21


def test_dns_failures_and_malformed_urls_are_dead_without_a_request():
    dns, malformed = urls_check(urls=["http://no-such-host.invalid/page", "http//broken"], delay=0)
    assert (dns.verdict, dns.reason) == ("dead", "DNS failure")
    assert (malformed.verdict, malformed.reason) == ("dead", "malformed URL")


def test_an_honest_404_server_makes_its_pages_alive(httpserver):
    httpserver.no_handler_status_code = 404
    httpserver.expect_request("/docs/real.html").respond_with_data(page("Real"), content_type="text/html")
    result = check_one(httpserver.url_for("/docs/real.html"))
    assert result.verdict == "ok" and result.probe["reason"].startswith(
        "server answers unknown URLs with an error"
    )
    assert result.probe["url"].startswith(httpserver.url_for("/docs/")) and result.probe["status"] == 404


def test_a_redirect_to_home_is_a_soft404_by_the_probe(httpserver):
    httpserver.expect_request("/").respond_with_data(page("Home"), content_type="text/html")
    httpserver.expect_request("/docs/real.html").respond_with_data(page("Real"), content_type="text/html")
    httpserver.expect_request(re.compile(r"/docs/.+")).respond_with_data(
        "", status=302, headers={"Location": "/"}
    )
    missing, real = urls_check(
        urls=[httpserver.url_for("/docs/gone.html"), httpserver.url_for("/docs/real.html")], delay=0
    )
    assert (missing.verdict, missing.reason) == (
        "soft404",
        "probe: same final URL and number of redirects as the probe",
    )
    assert (real.verdict, real.probe["reason"]) == ("ok", "different number of redirects than the probe")


def test_an_error_page_that_echoes_the_url_is_near_identical_to_the_probe(httpserver):
    def sorry(request):
        body = (
            f"<html><body><h1>Sorry</h1><p>We looked everywhere for {request.path} but it is not in our "
            "catalogue of widgets, gears, springs and levers. Try the search box or browse the "
            "categories below to find what you need today. Our shop has sold fine mechanical parts since 1952 "
            "and ships to every country in the world within a week.</p></body></html>"
        )
        return Response(body, content_type="text/html")

    httpserver.expect_request("/shop/real").respond_with_data(page("Real product"), content_type="text/html")
    httpserver.expect_request(re.compile(r"/shop/.+")).respond_with_handler(sorry)
    missing, real = urls_check(
        urls=[httpserver.url_for("/shop/old-item"), httpserver.url_for("/shop/real")], delay=0
    )
    assert missing.verdict == "soft404" and 0.8 <= missing.probe["resemblance"] < 1.0
    assert real.verdict == "ok" and real.probe["resemblance"] < 0.8


def test_a_site_root_is_never_a_soft404_by_the_probe(httpserver):
    httpserver.expect_request(re.compile(r"/.*")).respond_with_data(
        page("Everything"), content_type="text/html"
    )
    root, other = urls_check(urls=[httpserver.url_for("/"), httpserver.url_for("/anything")], delay=0)
    assert root.verdict == "ok" and root.probe is None  # not even probed: the answer could not change it
    assert other.verdict == "soft404" and other.probe["reason"] == "near-identical content to the probe"
    assert len(httpserver.log) == 4  # robots.txt, the two pages, one probe


def test_one_probe_per_directory_serves_every_page_in_it(httpserver):
    httpserver.no_handler_status_code = 404
    for name in ("a", "b", "c", "d"):
        httpserver.expect_request(f"/docs/{name}.html").respond_with_data(
            page(name), content_type="text/html"
        )
    urls_check(urls=[httpserver.url_for(f"/docs/{name}.html") for name in "abcd"], concurrency=4, delay=0)
    probes = [request.path for request, _ in httpserver.log if re.fullmatch(r"/docs/[a-z]{25}", request.path)]
    assert len(probes) == 1


def test_the_classifier_catches_a_non_english_not_found_page_the_probe_cannot(httpserver):
    httpserver.no_handler_status_code = 404
    httpserver.expect_request("/producto/123").respond_with_data(
        (DATA / "notfound-es.html").read_bytes(), content_type="text/html; charset=utf-8"
    )
    result = check_one(httpserver.url_for("/producto/123"))
    assert result.probe["verdict"] == "alive"
    assert (result.verdict, result.reason.startswith("classifier:")) == ("soft404", True)
    assert result.soft404_probability >= 0.5


def test_strikes_are_kept_per_normalized_url_so_spellings_share_them_and_recovery_clears_them(
    httpserver, settings
):
    settings.WEBAUDIT_DEAD_STRIKE_SPACING_SECONDS = 0
    settings.WEBAUDIT_CRAWL_RETRIES = 0
    answers = iter([Response("oops", status=500), Response("oops", status=500), Response("fine", status=200)])
    httpserver.expect_request("/flaky").respond_with_handler(lambda request: next(answers))
    plain = httpserver.url_for("/flaky")
    shouting = plain.replace("http://", "HTTP://").replace("/flaky", "/./flaky#top")
    assert [check_one(plain).strikes, check_one(shouting).strikes] == [1, 2]
    assert check_one(shouting).verdict == "ok"
    assert not UrlHealth.objects.exists()
