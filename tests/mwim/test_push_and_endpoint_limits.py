"""The push limit holds across web processes, and IndexNow endpoints are de-duplicated and capped."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mwim.services import indexnow_announce
from mwim.services.notify import MAX_INDEXNOW_ENDPOINTS, indexnow_endpoints_clean, push_allowed
from tests.mwim.factories import make_mwim_site

REPO = Path(__file__).resolve().parents[2]


def test_an_endpoint_typed_twice_is_kept_once():
    text = "https://api.indexnow.org/indexnow\nhttps://api.indexnow.org/indexnow\n https://b.example/in \n"
    assert indexnow_endpoints_clean(text) == ["https://api.indexnow.org/indexnow", "https://b.example/in"]


def test_more_endpoints_than_the_cap_are_refused_with_the_reason():
    text = "\n".join(f"https://e{n}.example/indexnow" for n in range(MAX_INDEXNOW_ENDPOINTS + 1))
    with pytest.raises(ValueError, match=f"at most {MAX_INDEXNOW_ENDPOINTS}"):
        indexnow_endpoints_clean(text)


def test_five_hundred_copies_of_one_endpoint_are_five_hundred_lines_for_one():
    assert len(indexnow_endpoints_clean("https://a.example/in\n" * 500)) == 1


@pytest.mark.django_db
def test_a_stored_list_of_copies_is_sent_one_post(httpserver):
    httpserver.expect_request("/in", method="POST").respond_with_data("", status=200)
    mwim_site = make_mwim_site(indexnow_endpoints=[httpserver.url_for("/in")] * 500)
    outcomes = indexnow_announce(mwim_site=mwim_site, urls=["https://s.example/a"])
    assert len(outcomes) == 1 and len(httpserver.log) == 1


@pytest.mark.django_db
def test_the_push_limit_counts_what_every_process_counted(settings):
    settings.WEBAUDIT_MWIM_PUSH_PER_MINUTE = 3
    mwim_site = make_mwim_site()
    now = 1_000_000 * 60 + 5.0
    assert [push_allowed(mwim_site=mwim_site, now=now) for _ in range(3)] == [0, 0, 0]
    from django.core.cache import cache

    cache.clear()  # what another web process, with memory of its own, would start from
    assert push_allowed(mwim_site=mwim_site, now=now) == 55
    assert push_allowed(mwim_site=mwim_site, now=now + 60) == 0  # a new minute


def test_two_processes_pushing_at_once_let_through_exactly_the_limit(tmp_path):
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "webaudit.settings",
        "WEBAUDIT_VAR_DIR": str(tmp_path),
        "DATABASE_URL": f"sqlite:///{tmp_path}/db.sqlite3",
        "WEBAUDIT_MWIM_PUSH_PER_MINUTE": "60",
    }
    env.pop("CELERY_BROKER_URL", None)
    env.pop("WEBAUDIT_CACHE_URL", None)
    subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=REPO, env=env, check=True)
    setup = "from tests.mwim.factories import make_mwim_site; print(make_mwim_site().pk)"
    made = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", setup], cwd=REPO, env=env, capture_output=True, text=True
    )
    site_id = made.stdout.strip().splitlines()[-1]
    count = (
        "from mwim.models import MwimSite; from mwim.services.notify import push_allowed; "
        f"site = MwimSite.objects.get(pk={site_id}); now = 1_000_000 * 60 + 1; "
        "print(sum(push_allowed(mwim_site=site, now=now) == 0 for _ in range(60)))"
    )
    runs = [
        subprocess.Popen(
            [sys.executable, "manage.py", "shell", "-c", count],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    allowed = [int(run.communicate(timeout=120)[0].strip().splitlines()[-1]) for run in runs]
    assert sum(allowed) == 60, allowed
