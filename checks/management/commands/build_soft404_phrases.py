"""Regenerate sites/crawler/soft404/data/phrases.json from the real catalogs (see checks/soft404/corpus/phrase_sources)."""

from __future__ import annotations

import json
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand

from sites.crawler.soft404.phrases import PHRASES_FILE


class Command(BaseCommand):
    help = "Harvest multilingual not-found phrases from Django, Wagtail, Apache and server sources."

    def add_arguments(self, parser):
        parser.add_argument(
            "--cache",
            type=Path,
            default=Path(settings.VAR_DIR) / "soft404-cache",
            help="where pinned PyPI wheels are downloaded (default: var/soft404-cache)",
        )
        parser.add_argument("--output", type=Path, default=PHRASES_FILE)

    def handle(self, *args, cache: Path, output: Path, **options):
        # Imported here: the builders render Werkzeug's error pages, and Werkzeug is a test extra that
        # `manage.py help` in production must not need.
        from checks.soft404.corpus.phrase_table import build_phrase_table

        phrases, sources = build_phrase_table(cache)
        document = {
            "generated_by": "python manage.py build_soft404_phrases",
            "sources": sources,
            "phrases": phrases,
        }
        output.write_text(
            json.dumps(document, ensure_ascii=False, indent=0, sort_keys=True) + "\n", encoding="utf-8"
        )
        merged = {(lang, p) for table in phrases.values() for lang, ps in table.items() for p in ps}
        languages = {lang for lang, _ in merged}
        self.stdout.write(f"{output}: {len(merged)} phrases in {len(languages)} languages")
