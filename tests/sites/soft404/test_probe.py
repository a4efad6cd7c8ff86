"""The random-URL probe of Bar-Yossef et al.: every branch of isDeadPage (Table 1) and the shingle test."""

import random
import re

import pytest

from sites.crawler.soft404.probe import (
    DEFAULT_RESEMBLANCE_THRESHOLD,
    FetchSummary,
    Verdict,
    is_site_root,
    parent_directory,
    probe_url,
    probe_verdict,
    resemblance,
)

ERROR_PAGE = (
    "Sorry, nothing here. The page you asked for does not exist on this server. It may have been moved or "
    "removed, or the address may be mistyped. Try searching the documentation instead, or start from one of "
    "these pages: documentation home, tutorial, SQL commands, server administration, reference. Copyright "
    "1996-2025 The Global Development Group. All rights reserved. Contact the webmaster."
)


def ok(url: str, text: str = "", redirects: int = 0) -> FetchSummary:
    return FetchSummary(final_url=url, redirects=redirects, status=200, text=text)


def test_parent_directory_follows_the_papers_examples():
    assert parent_directory("http://www.ibm.com/us/hr") == "http://www.ibm.com/us/"
    assert parent_directory("http://www.ibm.com/us") == "http://www.ibm.com/"
    assert parent_directory("http://h/library/os.html?x=1#y") == "http://h/library/"
    assert parent_directory("http://h/library/") == "http://h/"
    assert parent_directory("http://h") == "http://h/"


def test_probe_url_is_25_random_lowercase_letters_in_the_parent_directory():
    url = probe_url("http://h/docs/page.html", random.Random(7))
    assert re.fullmatch(r"http://h/docs/[a-z]{25}", url)
    assert url == probe_url("http://h/docs/page.html", random.Random(7))
    assert url != probe_url("http://h/docs/page.html", random.Random(8))


def test_site_root_is_recognised_with_or_without_slash():
    assert is_site_root("http://h") and is_site_root("http://h/?lang=en")
    assert not is_site_root("http://h/a")


@pytest.mark.parametrize("status", [403, 404, 410, 500, 503])
def test_a_page_answering_an_error_is_dead(status):
    page = FetchSummary("http://h/a", 0, status)
    assert probe_verdict(page, ok("http://h/x"), is_root=False).verdict is Verdict.DEAD


def test_a_page_that_timed_out_is_dead():
    page = FetchSummary("http://h/a", 0, None, error="timeout")
    verdict = probe_verdict(page, ok("http://h/x"), is_root=False)
    assert verdict.verdict is Verdict.DEAD and "timeout" in verdict.reason


def test_other_4xx_answers_count_as_success_like_the_paper():
    page = FetchSummary("http://h/a", 0, 401, text="login")
    probe = FetchSummary("http://h/x", 0, 404)
    assert probe_verdict(page, probe, is_root=False).verdict is Verdict.ALIVE


def test_page_is_alive_when_the_server_answers_the_probe_with_a_hard_404():
    probe = FetchSummary("http://h/qwerty", 0, 404)
    assert probe_verdict(ok("http://h/a", ERROR_PAGE), probe, is_root=False).verdict is Verdict.ALIVE


def test_a_site_root_is_never_soft404_by_the_probe():
    # cnn.de: the root and a nonexistent page both redirect to www.n-tv.de.
    root = ok("http://www.n-tv.de/", "news", redirects=1)
    probe = ok("http://www.n-tv.de/", "news", redirects=1)
    assert probe_verdict(root, probe, is_root=True).verdict is Verdict.ALIVE


def test_same_final_url_and_redirect_count_is_soft404():
    page = ok("http://h/", "home", redirects=1)
    probe = ok("http://h/", "home", redirects=1)
    verdict = probe_verdict(page, probe, is_root=False)
    assert verdict.verdict is Verdict.SOFT404 and verdict.resemblance is None


def test_a_different_number_of_redirects_is_alive_even_at_the_same_final_url():
    # eurosport.de: the real page takes two redirects, a nonexistent one three, to the same page.
    page = ok("http://www.eurosport.de/home", "home", redirects=2)
    probe = ok("http://www.eurosport.de/home", "home", redirects=3)
    assert probe_verdict(page, probe, is_root=False).verdict is Verdict.ALIVE


def test_different_final_urls_with_near_identical_content_is_soft404():
    page = ok("http://h/docs/missing.html", ERROR_PAGE.replace("Contact", "/docs/missing.html"))
    probe = ok("http://h/docs/qwertyuiopasdfghjklzxcvbn", ERROR_PAGE)
    verdict = probe_verdict(page, probe, is_root=False)
    assert verdict.verdict is Verdict.SOFT404
    assert verdict.resemblance is not None and verdict.resemblance >= DEFAULT_RESEMBLANCE_THRESHOLD


def test_different_final_urls_with_different_content_is_alive():
    page = ok("http://h/docs/tutorial.html", "A tutorial that teaches how to write queries step by step " * 5)
    verdict = probe_verdict(page, ok("http://h/docs/qwerty", ERROR_PAGE), is_root=False)
    assert verdict.verdict is Verdict.ALIVE and verdict.resemblance is not None and verdict.resemblance < 0.1


def test_the_resemblance_threshold_decides_near_identity():
    page = ok("http://h/a", ERROR_PAGE.replace("webmaster", "administrator"))
    probe = ok("http://h/b", ERROR_PAGE)
    score = resemblance(page.text, probe.text)
    assert 0.8 < score < 1.0
    assert probe_verdict(page, probe, is_root=False, threshold=score).verdict is Verdict.SOFT404
    assert probe_verdict(page, probe, is_root=False, threshold=score + 0.01).verdict is Verdict.ALIVE


def test_resemblance_is_one_for_identical_and_zero_for_disjoint_texts():
    assert resemblance(ERROR_PAGE, ERROR_PAGE) == 1.0
    assert resemblance("a b c d e f", "g h i j k l") == 0.0
    assert resemblance("", "") == 1.0


def test_one_changed_word_in_a_50_word_page_stays_above_the_default_threshold():
    words = ERROR_PAGE.split()[:50]
    changed = words[:25] + ["/some/missing/url"] + words[26:]
    assert resemblance(" ".join(words), " ".join(changed)) >= DEFAULT_RESEMBLANCE_THRESHOLD
    assert resemblance(" ".join(words), " ".join(changed), width=10) < DEFAULT_RESEMBLANCE_THRESHOLD
