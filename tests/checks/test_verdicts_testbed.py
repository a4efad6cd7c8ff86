"""The combined verdict on the test bed's ground truth (truth.py): every site behaviour, every URL kind."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter

import pytest

from checks.checking import urls_check
from tests.conftest import TESTBED

pytestmark = [pytest.mark.django_db, pytest.mark.testbed]

# truth.py's verdicts in ours: a parked page is a kind of soft-404, a hard 404 is dead.
EXPECTED = {"ok": "ok", "hard404": "dead", "soft404": "soft404", "parked": "soft404"}


@pytest.fixture(scope="module")
def truth(testbed) -> dict:
    done = subprocess.run(
        [sys.executable, str(TESTBED / "truth.py"), "--n", "30", "--seed", "7"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return json.loads(done.stdout)


@pytest.mark.parametrize("port", [8101, 8102, 8103, 8104, 8105, 8106, 8107])
def test_every_truth_url_gets_its_verdict(truth, port, settings):
    settings.WEBAUDIT_CRAWL_DELAY = 0
    records = [record for record in truth["urls"] if record["port"] == port]
    results = urls_check(urls=[record["url"] for record in records], concurrency=8)
    wrong = [
        (record["url"], EXPECTED[record["verdict"]], result.verdict, result.reason)
        for record, result in zip(records, results, strict=True)
        if result.verdict != EXPECTED[record["verdict"]]
    ]
    # The parked domain's root is the one URL only the classifier can judge (a root is never a probe soft-404).
    assert wrong == [], f"{len(wrong)} of {len(records)} wrong: {wrong[:5]}"
    assert Counter(result.verdict for result in results)  # every URL got one


def test_evidence_names_the_detector_that_decided(truth):
    redirect_home = next(r["url"] for r in truth["urls"] if r["port"] == 8103 and r["verdict"] == "soft404")
    error_page = next(r["url"] for r in truth["urls"] if r["port"] == 8102 and r["verdict"] == "soft404")
    home, page = urls_check(urls=[redirect_home, error_page])
    assert home.reason.startswith("probe: same final URL") and home.probe["redirects"] == 1
    assert (
        home.probe["url"].startswith("http://127.0.0.1:8103/")
        and len(home.probe["url"].rsplit("/", 1)[1]) == 25
    )
    assert page.probe["resemblance"] >= 0.8 and page.soft404_probability is not None
