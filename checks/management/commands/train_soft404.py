"""Train the soft-404 classifier on the corpus and save it (by default over the shipped model)."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from checks.soft404.corpus import manifest_sha256
from checks.soft404.model import BOOSTING, MODEL_FILE, corpus_matrix, estimators, load_model, save_model


class Command(BaseCommand):
    help = (
        "Fit C4.5, bagging or boosting on the real pages of the corpus and save it with joblib and a metadata "
        "JSON (scikit-learn version, features, manifest hash, date)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--corpus", type=Path, default=Path(settings.VAR_DIR) / "soft404-corpus")
        parser.add_argument("--model", choices=list(estimators()), default=BOOSTING)
        parser.add_argument("--output", type=Path, default=MODEL_FILE)
        parser.add_argument("--seed", type=int, default=0)
        # Off by default: with the 24 synthetic parked pages in training, leave-one-source-out on the real pages
        # fell from P 1.000 / R 0.997 to P 0.982 / R 0.958 (boosting), and recall with unseen wording from
        # 0.664 to 0.360, while the parked pages they mimic gained nothing measurable.
        parser.add_argument(
            "--with-synthetic", action="store_true", help="also train on the synthetic parked pages"
        )

    def handle(
        self, *args, corpus: Path, model: str, output: Path, seed: int, with_synthetic: bool, **options
    ):
        if not (corpus / "manifest.jsonl").exists():
            raise CommandError(f"no corpus at {corpus}; run: python manage.py build_soft404_corpus")
        X, y, entries = corpus_matrix(corpus, include_synthetic=with_synthetic)
        estimator = estimators(seed)[model].fit(X, y)
        metadata = save_model(
            estimator,
            output,
            name=model,
            training={
                "training_manifest_sha256": manifest_sha256(corpus),
                "training_pages": len(y),
                "training_soft404_pages": int(y.sum()),
                "training_synthetic_pages": sum(e.synthetic for e in entries),
                "seed": seed,
            },
        )
        load_model(output)  # fail now, not in a worker, if the file cannot be read back
        self.stdout.write(
            f"{output}: {model} on {len(y)} pages ({int(y.sum())} soft-404); "
            f"{output.stat().st_size} bytes; sklearn {metadata['sklearn_version']}"
        )
