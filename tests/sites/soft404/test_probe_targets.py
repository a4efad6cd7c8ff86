"""Which probe a URL gets: the query probe, the identifier probe or the directory probe, and their random URLs."""

import random
import re

import pytest

from sites.crawler.soft404.probe_targets import (
    DIRECTORY,
    IDENTIFIER,
    MAX_LOOKUP_PARAMETERS,
    QUERY,
    kind_of_key,
    lookup_names,
    probe_target,
)
from sites.crawler.soft404.probing import MAX_PROBE_KEYS_PER_PATH, ProbeCache
from sites.http import FetchResult


def test_a_lookup_query_gets_a_query_probe_keyed_by_path_and_parameter_names():
    a = probe_target("http://h/product?id=98765")
    b = probe_target("http://h/product?id=1")
    assert a.kind == QUERY and a.key == b.key == "http://h/product?id"
    assert probe_target("http://h/product?id=1&name=x").key == "http://h/product?id&name"


def test_the_query_probe_replaces_each_lookup_value_with_random_letters():
    url = probe_target("http://h/article.php?slug=old-news&page=2&utm_source=mail").url(random.Random(1))
    assert re.fullmatch(r"http://h/article\.php\?slug=[a-z]{25}&page=2", url)


def test_a_repeated_key_gets_one_random_value_and_one_probe():
    target = probe_target("http://h/find?tag=a&tag=b")
    assert target.key == "http://h/find?tag"
    url = target.url(random.Random(2))
    values = re.findall(r"tag=([a-z]+)", url)
    assert len(values) == 2 and values[0] == values[1] and len(values[0]) == 25


@pytest.mark.parametrize(
    "url",
    [
        "http://h/docs/intro.html?utm_source=x&utm_medium=y&fbclid=abc&gclid=1",
        "http://h/news/list.html?page=2",
        "http://h/news/list.html?sort=date&order=desc",
    ],
)
def test_tracking_and_presentation_parameters_alone_get_the_directory_probe(url):
    target = probe_target(url)
    assert (target.kind, target.key) == (DIRECTORY, url.rsplit("/", 1)[0] + "/")


def test_hundreds_of_parameters_are_no_lookup_and_cost_no_probe_of_their_own():
    url = "http://h/search?" + "&".join(f"f{i}=v" for i in range(300))
    assert lookup_names(url) == ()
    assert probe_target(url).kind == DIRECTORY
    many = "http://h/search?" + "&".join(f"f{i}=v" for i in range(MAX_LOOKUP_PARAMETERS))
    assert probe_target(many).kind == QUERY


def test_non_utf8_bytes_in_a_query_are_kept_as_written():
    target = probe_target("http://h/lookup?name=%FF%FE&q%FF=1")
    assert target.kind == QUERY and target.key == "http://h/lookup?name&q%FF"
    assert re.fullmatch(r"http://h/lookup\?name=[a-z]{25}&q%FF=[a-z]{25}", target.url(random.Random(3)))


@pytest.mark.parametrize(
    ("url", "key", "pattern"),
    [
        ("http://h/item/98765", "http://h/item/{n}", r"http://h/item/9[0-9]{11}"),
        ("http://h/p/some-slug", "http://h/p/{slug}", r"http://h/p/[a-z]{7}-[a-z]{7}-[a-z]{7}"),
        ("http://h/p/some-slug/", "http://h/p/{slug}/", r"http://h/p/[a-z]{7}-[a-z]{7}-[a-z]{7}/"),
        ("http://h/item/98765/reviews", "http://h/item/{n}/reviews", r"http://h/item/9[0-9]{11}/reviews"),
        (
            "http://h/u/3f2a9c1e-77aa-4b1c-9d00-1234567890ab",
            "http://h/u/{hex}",
            r"http://h/u/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
        ),
    ],
)
def test_an_identifier_segment_gets_a_probe_of_the_same_shape(url, key, pattern):
    target = probe_target(url)
    assert (target.kind, target.key) == (IDENTIFIER, key)
    assert re.fullmatch(pattern, target.url(random.Random(4)))


@pytest.mark.parametrize(
    "url", ["http://h/library/os.html", "http://h/docs/tutorial-sql.html", "http://h/library/", "http://h/"]
)
def test_file_names_and_plain_directories_keep_the_directory_probe(url):
    assert probe_target(url).kind == DIRECTORY


def test_stored_keys_tell_their_kind_and_never_collide():
    assert kind_of_key("http://h/docs/") == DIRECTORY
    assert kind_of_key("http://h/page?id") == QUERY
    assert kind_of_key("http://h/item/{n}") == IDENTIFIER


def test_a_root_with_a_lookup_query_is_probed_like_any_lookup():
    assert not probe_target("http://h/?id=7").is_root()
    assert probe_target("http://h/?page=2").is_root()


def test_a_path_with_ever_new_parameter_names_falls_back_to_its_directory_probe():
    fetched = []

    def fetch(url):
        fetched.append(url)
        return FetchResult(url=url, final_url=url, status=404)

    cache = ProbeCache(fetch, random.Random(5))
    for i in range(MAX_PROBE_KEYS_PER_PATH + 20):
        cache.get(f"http://h/search?f{i}=x")
    assert len(fetched) == MAX_PROBE_KEYS_PER_PATH + 1  # the last 20 share the directory's probe
    assert sum("?" not in url for url in fetched) == 1


@pytest.mark.parametrize(
    "url", ["http://h/docs/intro.html?x=1", "http://h/a/b.htm?id=7&id=8", "http://h/report.pdf?q=%FF"]
)
def test_a_query_on_a_static_file_gets_the_directory_probe(url):
    assert probe_target(url).kind == DIRECTORY
