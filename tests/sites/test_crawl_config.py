"""A crawl's configuration: its fetch settings are a FetchSettings, stored flat in the crawl's snapshot."""

from __future__ import annotations

from django.conf import settings

from sites.crawler.config import FETCH_FIELDS, CrawlConfig
from sites.http import FetchSettings


def test_the_fetch_overrides_make_the_crawls_fetch_settings_and_the_rest_its_own():
    config = CrawlConfig.from_settings(
        settings, start_url="http://example.org/", delay=1.5, obey_robots=False, max_pages=7
    )
    assert config.fetch == FetchSettings.from_settings(settings, delay=1.5, obey_robots=False)
    assert config.max_pages == 7


def test_the_snapshot_keeps_the_fetch_settings_flat_and_reads_back_the_same_config():
    config = CrawlConfig.from_settings(
        settings, start_url="http://example.org/", delay=1.5, allowed_networks=["10.0.0.0/8"]
    )
    snapshot = config.to_dict()
    assert "fetch" not in snapshot
    assert set(FETCH_FIELDS) <= set(snapshot)
    assert snapshot["delay"] == 1.5 and snapshot["allowed_networks"] == ["10.0.0.0/8"]
    assert snapshot["start_url"] == "http://example.org/"
    assert CrawlConfig.from_dict(snapshot) == config


def test_a_snapshot_stored_before_a_fetch_field_existed_reads_back_with_its_default():
    snapshot = CrawlConfig.from_settings(settings, start_url="http://example.org/", delay=2.0).to_dict()
    del snapshot["fetch_concurrency"], snapshot["backoff_cap_seconds"]
    config = CrawlConfig.from_dict(snapshot)
    assert config.fetch.fetch_concurrency == FetchSettings().fetch_concurrency
    assert config.fetch.backoff_cap_seconds == FetchSettings().backoff_cap_seconds
    assert config.fetch.delay == 2.0


def test_each_lane_fetches_with_its_share_of_the_politeness():
    config = CrawlConfig.from_settings(
        settings, start_url="http://example.org/", concurrency=5, delay=0.5, fetch_concurrency=9, lanes=2
    )
    lane = config.lane_fetch_settings
    assert (lane.concurrency, lane.delay, lane.fetch_concurrency) == (3, 1.0, 5)
    assert lane.with_changes(concurrency=5, delay=0.5, fetch_concurrency=9) == config.fetch
