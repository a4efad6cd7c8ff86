"""`manage.py check_url`: verdicts with evidence as JSON, URLs from arguments or a file, clear errors."""

from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command

pytestmark = pytest.mark.django_db


@pytest.fixture
def site(httpserver):
    httpserver.no_handler_status_code = 404
    httpserver.expect_request("/ok.html").respond_with_data(
        "<html><head><title>Fine</title></head><body><p>" + "real words here " * 50 + "</p>"
        "<img src='a.png'><img src='b.png'></body></html>",
        content_type="text/html",
    )
    return httpserver


def test_check_url_writes_a_verdict_with_evidence_for_every_url(site, tmp_path):
    out = tmp_path / "results.json"
    call_command(
        "check_url", site.url_for("/ok.html"), site.url_for("/gone.html"), "not a url", "--json", str(out)
    )
    results = json.loads(out.read_text())["results"]
    assert [result["verdict"] for result in results] == ["ok", "dead", "dead"]
    assert {"url", "verdict", "reason", "soft404_probability", "probe"} <= set(results[0])
    assert results[0]["probe"]["status"] == 404 and results[1]["reason"] == "HTTP 404"
    assert results[2]["reason"] == "malformed URL"


def test_check_url_reads_urls_from_a_file_and_skips_comments(site, tmp_path, capsys):
    listing = tmp_path / "urls.txt"
    listing.write_text(f"# to check\n{site.url_for('/gone.html')}\n\n")
    call_command("check_url", "--from", str(listing))
    assert "dead" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ([], "at least one URL"),
        (["--from", "/no/such/file.txt"], "Cannot read URLs"),
        (["http://example.com/", "--concurrency", "0"], "--concurrency: must be between 1 and 32"),
        (["http://example.com/", "--delay", "inf"], "--delay: must be a finite number"),
        (["not a url", "--json", "/no/such/dir/out.json"], "cannot write"),
    ],
)
def test_check_url_rejects_bad_input_clearly_with_exit_status_2(arguments, message):
    with pytest.raises(CommandError, match=message) as raised:
        call_command("check_url", *arguments)
    assert raised.value.returncode == 2


def test_check_url_refuses_a_binary_url_file_clearly(tmp_path):
    listing = tmp_path / "urls.bin"
    listing.write_bytes(b"\xff\xfe\x00\x81binary")
    with pytest.raises(CommandError, match="Cannot read URLs"):
        call_command("check_url", "--from", str(listing))
