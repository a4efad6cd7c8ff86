"""Load the soft-404 model once per process: the one shipped with webaudit, or a file that train_soft404 wrote."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from checks.soft404.fastpredict import CompiledModel
    from checks.soft404.model import Soft404Model


@lru_cache(maxsize=4)
def soft404_model(path: str = "") -> Soft404Model:
    """The model at `path` ("" for the shipped one); a model of another scikit-learn major version is refused.

    scikit-learn is imported here, on first use, not when Django starts: it costs every process ~1.5 s.
    """
    from checks.soft404.model import default_model, load_model

    return load_model(Path(path)) if path else default_model()


@lru_cache(maxsize=4)
def soft404_compiled(path: str = "") -> CompiledModel:
    """The compiled form of the model at `path` ("" for the shipped one): what page readers classify with,
    without importing scikit-learn (compiled.py)."""
    from checks.soft404.compiled import SHIPPED_MODEL, load_compiled

    return load_compiled(Path(path) if path else SHIPPED_MODEL)
