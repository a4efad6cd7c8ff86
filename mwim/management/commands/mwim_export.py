"""Export a site's extended sitemap and Content Extract files to a folder, to publish on the site's own host."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import CommandParser

from checks.jobs.cli import bad_input
from mwim.services import mwim_export
from sites.cli import Command as WebauditCommand
from sites.models import Site


def site_lookup(value: str) -> Site:
    """A site by id or by its start URL (with or without the trailing slash)."""
    if value.isdigit():
        site = Site.objects.filter(pk=int(value)).first()
    else:
        site = (
            Site.objects.filter(url__in=[value, value.rstrip("/"), value.rstrip("/") + "/"])
            .order_by("pk")
            .first()
        )
    if site is None:
        raise bad_input(f"there is no site {value!r} (give its id or its start URL)")
    return site


class Command(WebauditCommand):
    help = (
        "Write SITE's sitemap.xml (or sitemap-index.xml and its parts), gzipped copies, and its CE files under "
        "DIR/ce/, from its latest finished crawl. The operator runs it: no ownership verification."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("site", help="the site's id or start URL")
        parser.add_argument("folder", help="where to write (made if missing)")
        parser.add_argument("--base-url", help="the URL DIR will be published at (default: the site's root)")

    def handle(self, *args, **options) -> None:
        site = site_lookup(options["site"])
        folder = Path(options["folder"])
        if folder.exists() and not folder.is_dir():
            raise bad_input(f"{folder} exists and is not a folder")
        base_url = options["base_url"]
        if base_url is not None and not base_url.startswith(("http://", "https://")):
            raise bad_input(f"--base-url {base_url!r} is not an http(s) URL")
        try:
            folder.mkdir(parents=True, exist_ok=True)
            summary = mwim_export(site=site, folder=folder, base_url=base_url)
        except LookupError as exc:
            raise bad_input(str(exc)) from None
        except OSError as exc:
            raise bad_input(f"cannot write {folder}: {exc}") from None
        self.stdout.write(json.dumps(summary, indent=1))
