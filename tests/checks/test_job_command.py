"""The command-line convention every analysis command shares (checks.jobs.cli.JobCommand)."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from checks.jobs import job_report_json, job_start
from checks.jobs.cli import JobCommand, crawl_for_analysis
from checks.models import AnalysisJob
from sites.models import Crawl
from tests.sites.factories import make_crawl, make_page

pytestmark = pytest.mark.django_db


class PageCountCommand(JobCommand):
    pause = 0.0  # seconds each chunk takes (tests of slow steps set it)

    def add_job_arguments(self, parser) -> None:
        parser.add_argument("crawl_id")
        parser.add_argument("--chunk", type=int, default=2)

    def start_job(self, options) -> AnalysisJob:
        crawl = crawl_for_analysis(options["crawl_id"])
        parameters = {"chunk": options["chunk"], "pause": self.pause}
        return job_start(kind="pagecount", crawl=crawl, parameters=parameters, enqueue=False)


def run(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command(PageCountCommand(), *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


@pytest.fixture
def crawl(pagecount_kind):
    crawl = make_crawl()
    for number in range(3):
        make_page(crawl, url=f"{crawl.site.url}p{number}.html")
    return crawl


def test_the_report_goes_to_standard_output_with_json_dash(crawl):
    out, err = run(str(crawl.pk), "--json", "-", "--quiet")
    assert json.loads(out) == {"crawl": crawl.pk, "pages": 3, "chunks": 2}
    assert out == job_report_json(job=AnalysisJob.objects.get())  # what the dashboard's download gives
    assert "finished" in err


def test_the_report_is_written_whole_to_a_file(crawl, tmp_path):
    target = tmp_path / "result.json"
    target.write_text("the previous report")
    run(str(crawl.pk), "--json", str(target), "--quiet")
    assert json.loads(target.read_text())["pages"] == 3
    assert [p.name for p in tmp_path.iterdir()] == ["result.json"]  # no temporary file left


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["nonsense"], "'nonsense' is not a crawl id"),
        (["999999"], "there is no crawl #999999"),
        (["{crawl}", "--chunk", "0"], "chunk must be a whole number of at least 1"),
        (["{crawl}", "--json", "/nonexistent-folder/out.json"], "is not a writable folder"),
        (["{crawl}", "--json", "{tmp}"], "it is a directory"),
    ],
)
def test_bad_input_exits_with_status_2_and_runs_nothing(crawl, tmp_path, arguments, message):
    arguments = [a.format(crawl=crawl.pk, tmp=tmp_path) for a in arguments]
    with pytest.raises(CommandError, match=message) as raised:
        run(*arguments, "--quiet")
    assert raised.value.returncode == 2
    assert not AnalysisJob.objects.exists()


def test_an_unfinished_crawl_is_bad_input(pagecount_kind):
    running = make_crawl(status=Crawl.Status.RUNNING)
    with pytest.raises(CommandError, match="is running; only a finished crawl") as raised:
        run(str(running.pk))
    assert raised.value.returncode == 2


def test_a_job_that_fails_exits_1_and_writes_no_report(crawl, tmp_path):
    class Failing(PageCountCommand):
        def start_job(self, options):
            return job_start(kind="pagecount", crawl=crawl, parameters={"fail": "user"}, enqueue=False)

    target = tmp_path / "out.json"
    with pytest.raises(CommandError, match="the crawl has nothing to count") as raised:
        call_command(Failing(), str(crawl.pk), "--json", str(target), "--quiet", stderr=io.StringIO())
    assert raised.value.returncode == 1 and not target.exists()
