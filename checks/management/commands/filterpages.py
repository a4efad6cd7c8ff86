"""filterpages CRAWL_ID --template URL [--template URL] [--relation NAME] [--threshold T] [--json FILE|-]."""

from __future__ import annotations

from checks.jobs import job_start
from checks.jobs.cli import JobCommand, bad_input, crawl_for_analysis
from checks.structure.similarity import PAPER_RELATIONS

# Besides the paper's, ours before issue 23 (every block alike), for comparison.
CHOSEN_RELATIONS = (*PAPER_RELATIONS, "blocks")


class Command(JobCommand):
    help = (
        "Pages of a crawl whose structure matches template pages (MFPSDDP, docs/structure.md). Without "
        "--relation the default method (calibrated threshold); --relation csr|rpsa|rsn the paper's, blocks "
        "ours unweighted. Writes "
        '{"relation", "threshold", "templates", "pages": [{"url", "similarity", "match"}]}.'
    )
    progress_unit = "page"

    def add_job_arguments(self, parser) -> None:
        parser.add_argument("crawl_id")
        parser.add_argument(
            "--template", action="append", required=True, metavar="URL", help="a template page"
        )
        parser.add_argument("--relation", help=f"one of {', '.join(CHOSEN_RELATIONS)} (default: ours)")
        parser.add_argument("--threshold", help="similarity in [0, 1] at or above which a page matches")
        parser.add_argument("--attributes", help="RPSA's subset, comma-separated tag.attribute")
        parser.add_argument(
            "--tags", help="node kinds, comma-separated (default: div,span; ours a wider set)"
        )
        parser.add_argument(
            "--combine", choices=["mean", "max"], default="mean", help="how templates combine"
        )
        parser.add_argument(
            "--targets", metavar="REGEX", help="label target pages by URL: adds PR/RR to the job"
        )

    def start_job(self, options):
        crawl = crawl_for_analysis(options["crawl_id"])
        relation = options["relation"]
        if relation is not None and relation.strip().lower() not in CHOSEN_RELATIONS:
            raise bad_input(f"unknown relation {relation!r}: choose one of {', '.join(CHOSEN_RELATIONS)}")
        threshold = options["threshold"]
        if threshold is not None:
            try:
                threshold = float(threshold)
            except ValueError:
                raise bad_input(f"threshold {threshold!r} is not a number") from None
        parameters = {
            "templates": options["template"],
            "relation": relation,
            "threshold": threshold,
            "attributes": options["attributes"].split(",") if options["attributes"] else None,
            "tags": options["tags"].split(",") if options["tags"] else None,
            "combine": options["combine"],
            "target_pattern": options["targets"] or "",
        }
        return job_start(kind="filter", crawl=crawl, parameters=parameters, enqueue=False)

    def summary(self, job) -> str:
        if job.status != "finished":
            return super().summary(job)
        result = job.result
        line = f"{job}: {result['matches']} of {result['pages']} pages match at {result['threshold']:.3f}"
        if result.get("accuracy"):
            line += f" (PR {result['accuracy']['PR']:.3f}, RR {result['accuracy']['RR']:.3f})"
        if feedback := result.get("feedback_pages"):
            line += f", scored against the templates and their {len(feedback)} nearest pages"
        if wider := result.get("wider_group"):
            line += (
                f"; a wider group of {wider['matches']} pages scores {wider['threshold']:.3f} or more"
                f" (--threshold {wider['threshold']:.3f} takes it)"
            )
        return line
