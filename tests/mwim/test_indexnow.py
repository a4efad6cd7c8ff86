"""IndexNow announcements: one JSON POST a batch per endpoint, with a clear reason for every refusal."""

from __future__ import annotations

import time

import pytest
from werkzeug import Request, Response

from mwim.services import indexnow_announce, notify
from tests.mwim.factories import make_mwim_site

pytestmark = pytest.mark.django_db
URLS = ["https://s.example/a", "https://s.example/b", "https://s.example/c"]


def announce(httpserver, urls=URLS) -> dict:
    mwim_site = make_mwim_site(indexnow_endpoints=[httpserver.url_for("/indexnow")])
    [outcome] = indexnow_announce(mwim_site=mwim_site, urls=urls)
    return outcome


def test_all_changed_urls_go_in_one_post_per_endpoint(httpserver):
    httpserver.expect_request("/one", method="POST").respond_with_data("", status=200)
    httpserver.expect_request("/two", method="POST").respond_with_data("", status=202)
    mwim_site = make_mwim_site(indexnow_endpoints=[httpserver.url_for("/one"), httpserver.url_for("/two")])
    outcomes = indexnow_announce(mwim_site=mwim_site, urls=URLS)
    assert [(line["announced"], line["accepted"], line["error"]) for line in outcomes] == [(3, 3, "")] * 2
    assert [request.path for request, _ in httpserver.log] == ["/one", "/two"]
    assert all(request.get_json()["urlList"] == URLS for request, _ in httpserver.log)


@pytest.mark.parametrize(
    ("status", "reason"),
    [
        (400, "HTTP 400: IndexNow found the request malformed"),
        (403, "HTTP 403: IndexNow rejected the key; publish https://{host}/{key}.txt holding the key"),
        (422, "HTTP 422: IndexNow refused the URLs: they are not on {host}, or the key does not match"),
        (429, "HTTP 429: too many requests; IndexNow asks to slow down"),
        (500, "HTTP 500: IndexNow did not accept the URLs"),
    ],
)
def test_a_refusal_says_why_and_accepts_nothing(httpserver, status, reason):
    httpserver.expect_request("/indexnow").respond_with_data("", status=status)
    mwim_site = make_mwim_site(indexnow_endpoints=[httpserver.url_for("/indexnow")])
    [outcome] = indexnow_announce(mwim_site=mwim_site, urls=URLS)
    host = mwim_site.site.url.split("/")[2]
    assert outcome["accepted"] == 0 and outcome["announced"] == 3
    assert outcome["error"].startswith(reason.format(host=host, key=mwim_site.indexnow_key))


def test_longer_lists_go_in_batches_until_one_is_refused(httpserver, monkeypatch):
    monkeypatch.setattr(notify, "URLS_PER_REQUEST", 1)
    httpserver.expect_ordered_request("/indexnow").respond_with_data("", status=200)
    httpserver.expect_ordered_request("/indexnow").respond_with_data("", status=429)
    outcome = announce(httpserver)
    assert [request.get_json()["urlList"] for request, _ in httpserver.log] == [URLS[:1], URLS[1:2]]
    assert (outcome["accepted"], outcome["error"]) == (
        1,
        "HTTP 429: too many requests; IndexNow asks to slow down",
    )


def test_a_429_with_a_short_retry_after_is_asked_once_more_after_it(httpserver):
    httpserver.expect_ordered_request("/indexnow").respond_with_data(
        "", status=429, headers={"Retry-After": "1"}
    )
    httpserver.expect_ordered_request("/indexnow").respond_with_data("", status=202)
    started = time.monotonic()
    outcome = announce(httpserver)
    assert time.monotonic() - started >= 1.0
    assert len(httpserver.log) == 2
    assert (outcome["accepted"], outcome["error"]) == (3, "")


def test_a_429_asking_for_a_long_wait_is_not_retried_and_says_how_long(httpserver):
    httpserver.expect_request("/indexnow").respond_with_data("", status=429, headers={"Retry-After": "3600"})
    started = time.monotonic()
    outcome = announce(httpserver)
    assert time.monotonic() - started < notify.MAX_RETRY_WAIT and len(httpserver.log) == 1
    assert outcome["error"] == "HTTP 429: too many requests; IndexNow asks to slow down (Retry-After: 3600 s)"


def test_a_redirect_answer_is_an_error_and_not_followed(httpserver):
    elsewhere = httpserver.url_for("/elsewhere")
    httpserver.expect_request("/indexnow").respond_with_data("", status=307, headers={"Location": elsewhere})
    httpserver.expect_request("/elsewhere").respond_with_data("", status=200)
    outcome = announce(httpserver)
    assert [request.path for request, _ in httpserver.log] == ["/indexnow"]
    assert outcome["accepted"] == 0
    assert outcome["error"] == f"HTTP 307 redirect to {elsewhere} not followed: a POST is not re-sent"


def test_a_private_endpoint_is_refused_by_the_address_guard(httpserver, settings):
    settings.WEBAUDIT_ALLOWED_NETWORKS = []
    httpserver.expect_request("/indexnow").respond_with_data("", status=200)
    outcome = announce(httpserver)
    assert httpserver.log == []
    assert outcome["accepted"] == 0 and outcome["error"].endswith("is loopback; not fetched")


def test_a_slow_endpoint_is_given_up_at_the_fetch_timeout(httpserver, settings):
    settings.WEBAUDIT_FETCH_TIMEOUT = 0.5

    def slow(request: Request) -> Response:
        time.sleep(1.5)
        return Response("", status=200)

    httpserver.expect_request("/indexnow").respond_with_handler(slow)
    started = time.monotonic()
    outcome = announce(httpserver)
    assert time.monotonic() - started < 1.4
    assert (outcome["accepted"], outcome["error"]) == (0, "Timed out after 0.5 s")


def test_a_huge_accepting_answer_is_cut_short_and_still_counts(httpserver):
    httpserver.expect_request("/indexnow").respond_with_data(b"x" * 5_000_000, status=200)
    outcome = announce(httpserver)
    assert (outcome["accepted"], outcome["error"]) == (3, "")
