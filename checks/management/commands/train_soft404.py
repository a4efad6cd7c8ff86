"""Train the soft-404 classifier on the corpus and save it (by default over the shipped model)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from checks.soft404.corpus.manifest import manifest_sha256
from checks.soft404.crawl_labels import crawl_labelled_pages
from checks.soft404.training import BOOSTING, corpus_matrix, estimators, save_model
from sites.crawler.soft404.features import extract
from sites.crawler.soft404.model import CLASS_NAMES, MODEL_FILE, NORMAL, NOT_FOUND, load_model


class Command(BaseCommand):
    help = (
        "Fit C4.5, bagging or boosting on the corpus (its real pages and, unless --real-only, its synthetic "
        "parked pages) and save it with joblib and a metadata JSON (scikit-learn version, features, manifest "
        "hash, date)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--corpus", type=Path, default=Path(settings.VAR_DIR) / "soft404-corpus")
        parser.add_argument("--model", choices=list(estimators()), default=BOOSTING)
        parser.add_argument("--output", type=Path, default=MODEL_FILE)
        parser.add_argument("--seed", type=int, default=0)
        # The synthetic parked pages are in by default: they are the only parked pages there are, and the
        # classifier is what must catch parked domains (the probe cannot). With the parked features they leave
        # the real pages' scores where they were (docs/soft404-classifier.md).
        parser.add_argument("--real-only", action="store_true", help="leave the synthetic parked pages out")
        parser.add_argument(
            "--from-crawls",
            action="store_true",
            help="add the pages this deployment's crawls labelled through the probe (checks.soft404.crawl_labels)",
        )

    def handle(
        self,
        *args,
        corpus: Path,
        model: str,
        output: Path,
        seed: int,
        real_only: bool,
        from_crawls: bool,
        **options,
    ):
        if not (corpus / "manifest.jsonl").exists():
            raise CommandError(f"no corpus at {corpus}; run: python manage.py build_soft404_corpus")
        X, y, entries = corpus_matrix(corpus, include_synthetic=not real_only)
        crawl_pages = 0
        if from_crawls:
            labelled = list(crawl_labelled_pages())
            if labelled:
                X = np.vstack([X, *(extract(page.html, page.url).vector() for page in labelled)])
                y = np.concatenate([y, [NOT_FOUND if page.label else NORMAL for page in labelled]])
            crawl_pages = len(labelled)
            self.stdout.write(f"{crawl_pages} pages labelled by crawls' probes added")
        estimator = estimators(seed)[model].fit(X, y)
        metadata = save_model(
            estimator,
            output,
            name=model,
            training={
                "training_manifest_sha256": manifest_sha256(corpus),
                "training_pages": len(y),
                "training_soft404_pages": int((y != NORMAL).sum()),
                "classes": [CLASS_NAMES[c] for c in sorted(set(y.tolist()))],
                "training_synthetic_pages": sum(e.synthetic for e in entries),
                "seed": seed,
                "training_crawl_labelled_pages": crawl_pages,
            },
        )
        load_model(output)  # fail now, not in a worker, if the file cannot be read back
        self.stdout.write(
            f"{output}: {model} on {len(y)} pages ({int((y != NORMAL).sum())} soft-404); "
            f"{output.stat().st_size} bytes; sklearn {metadata['sklearn_version']}"
        )
