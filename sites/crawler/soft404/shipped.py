"""Load the soft-404 model once per process: the one shipped with webaudit, or a file that train_soft404 wrote."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sites.crawler.soft404.fastpredict import CompiledModel
    from sites.crawler.soft404.model import Soft404Model


@lru_cache(maxsize=4)
def soft404_model(path: str = "") -> Soft404Model:
    """The model at `path` ("" for the shipped one); a model of another scikit-learn major version is refused.

    scikit-learn is imported here, on first use, not when Django starts: it costs every process ~1.5 s.
    """
    from sites.crawler.soft404.model import default_model, load_model

    return load_model(Path(path)) if path else default_model()


@lru_cache(maxsize=4)
def soft404_compiled(path: str = "") -> CompiledModel:
    """The compiled form of the model at `path` ("" for the shipped one): what page readers classify with,
    without importing scikit-learn (compiled.py)."""
    from sites.crawler.soft404.compiled import SHIPPED_MODEL

    return load_compiled(Path(path) if path else SHIPPED_MODEL)


def load_compiled(model_path: Path) -> CompiledModel:
    """The compiled model of the model saved at `model_path` (compiled.read_compiled), compiling a model saved
    before compiled files existed, which takes scikit-learn.

    Raises ModelVersionError for a model whose metadata is missing, that was trained on other features, or
    whose compiled file does not match its checksum.
    """
    from sites.crawler.soft404.compiled import read_compiled

    compiled = read_compiled(model_path)
    if compiled is None:
        from sites.crawler.soft404.model import load_model

        compiled = load_model(model_path).compiled
    return compiled
