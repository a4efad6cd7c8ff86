"""A site's crawls over time: pages, broken targets, soft-404 pages, health and mean decay, one point a crawl."""

from __future__ import annotations

from dataclasses import dataclass

from checks.compare import crawl_mean_decay
from sites.models import Crawl, Site, Verdict
from sites.services.issues import crawl_broken_targets, crawl_health
from watch.charts import trend_svg
from watch.models import CrawlFigures
from watch.selectors import finished_crawls

# Crawls a trend shows, newest last.
TREND_CRAWLS = 30
SERIES = (
    ("pages", "Pages"),
    ("broken_targets", "Broken targets"),
    ("soft404_pages", "Soft-404 pages"),
    ("health", "Health (0-100)"),
    ("mean_decay", "Mean decay"),
)


@dataclass(frozen=True)
class TrendPoint:
    crawl_id: int
    finished_at: object
    pages: int
    broken_targets: int
    soft404_pages: int
    health: int | None
    mean_decay: float | None


def crawl_figures(*, crawl: Crawl) -> CrawlFigures:
    """The crawl's figures, counted on first need and kept (a finished crawl does not change)."""
    figures = CrawlFigures.objects.filter(crawl=crawl).first()
    if figures is None:
        targets = crawl_broken_targets(crawl=crawl, with_sources=False)
        health = crawl_health(crawl=crawl)
        figures, _ = CrawlFigures.objects.get_or_create(
            crawl=crawl,
            defaults={
                "pages": health.pages,
                "broken_targets": len(targets),
                "soft404_pages": sum(target.verdict == Verdict.SOFT404 for target in targets),
                "health": health.score,
            },
        )
    return figures


def site_trend(*, site: Site, limit: int = TREND_CRAWLS) -> list[TrendPoint]:
    """The site's last `limit` finished crawls, oldest first."""
    crawls = list(finished_crawls(site=site)[:limit])
    points = []
    for crawl in reversed(crawls):
        figures = crawl_figures(crawl=crawl)
        points.append(
            TrendPoint(
                crawl_id=crawl.pk,
                finished_at=crawl.finished_at,
                pages=figures.pages,
                broken_targets=figures.broken_targets,
                soft404_pages=figures.soft404_pages,
                health=figures.health,
                mean_decay=crawl_mean_decay(crawl),
            )
        )
    return points


def trend_charts(points: list[TrendPoint]) -> list[tuple[str, str]]:
    """(title, SVG) of each series over the crawls."""
    labels = [f"#{point.crawl_id}" for point in points]
    return [
        (title, trend_svg(labels, [getattr(point, name) for point in points], title))
        for name, title in SERIES
    ]
