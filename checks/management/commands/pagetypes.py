"""pagetypes CRAWL_ID [--json FILE|-]: the crawl's structural page types."""

from __future__ import annotations

from checks.jobs import job_start
from checks.jobs.cli import JobCommand, crawl_for_analysis


class Command(JobCommand):
    help = (
        "Group a crawl's HTML pages into structural page types (docs/structure.md). Writes "
        '{"crawl", "types": [{"index", "size", "template", "examples", "broken", "soft404", "broken_share", '
        '"soft404_share", "linking_to_broken", "linking_to_broken_share", "pages"}]}.'
    )
    progress_unit = "page"

    def add_job_arguments(self, parser) -> None:
        parser.add_argument("crawl_id")

    def start_job(self, options):
        crawl = crawl_for_analysis(options["crawl_id"])
        return job_start(kind="pagetypes", crawl=crawl, parameters={}, enqueue=False)

    def summary(self, job) -> str:
        if job.status != "finished":
            return super().summary(job)
        return f"{job}: {len(job.result['types'])} page types over {job.result['pages']} pages"
