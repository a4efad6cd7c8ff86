"""The soft-404 model as plain data (fastpredict.CompiledModel in JSON), loaded without scikit-learn.

A page reader (sites/crawler/reading.py) only ever asks a fitted model for one probability, which the compiled
trees answer alone. Loading the joblib file instead imports scikit-learn: 90 MB of every reader's 140 MB.
train_soft404 writes the compiled model beside the joblib file, with its checksum in the metadata; a model
saved without one (before this file existed) is compiled from the joblib file, with scikit-learn, as before.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from pathlib import Path

from sites.crawler.soft404.errors import ModelVersionError
from sites.crawler.soft404.fastpredict import CompiledModel, CompiledTree
from sites.crawler.soft404.features import FEATURE_NAMES

SHIPPED_MODEL = Path(__file__).parent / "data" / "model.joblib"


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def metadata_path(model_path: Path) -> Path:
    return model_path.with_suffix(".json")


def compiled_path(model_path: Path) -> Path:
    return model_path.with_suffix(".compiled.json")


def write_compiled(model: CompiledModel, model_path: Path) -> str:
    """Write `model` beside the joblib file at `model_path`; return the file's SHA-256 for the metadata."""
    path = compiled_path(model_path)
    path.write_text(json.dumps(asdict(model), separators=(",", ":")) + "\n", encoding="utf-8")
    return sha256_of(path)


def _from_data(data: dict) -> CompiledModel:
    return CompiledModel(
        kind=data["kind"],
        trees=[CompiledTree(**tree) for tree in data["trees"]],
        weights=list(data["weights"]),
        n_classes=data["n_classes"],
        negative=data["negative"],
        parts=tuple(_from_data(part) for part in data["parts"]),
    )


def read_compiled(model_path: Path) -> CompiledModel | None:
    """The compiled model of the model saved at `model_path`, checked against its metadata like the model is;
    None for a model saved before compiled files (shipped.load_compiled compiles it).

    Raises ModelVersionError for a model whose metadata is missing, that was trained on other features, or
    whose compiled file does not match its checksum.
    """
    meta_file = metadata_path(model_path)
    if not meta_file.exists():
        raise ModelVersionError(f"{meta_file} is missing; a model is only loaded together with its metadata")
    metadata = json.loads(meta_file.read_text(encoding="utf-8"))
    if metadata.get("feature_names") != list(FEATURE_NAMES):
        raise ModelVersionError(
            f"{model_path} was trained on other features than sites.crawler.soft404.features computes"
        )
    path = compiled_path(model_path)
    if "compiled_sha256" not in metadata or not path.exists():
        return None
    if metadata["compiled_sha256"] != sha256_of(path):
        raise ModelVersionError(f"{path} does not match the checksum in {meta_file}")
    return _from_data(json.loads(path.read_text(encoding="utf-8")))
