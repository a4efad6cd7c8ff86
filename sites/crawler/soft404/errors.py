"""Errors of the soft-404 classifier, importable without loading scikit-learn."""


class ModelVersionError(RuntimeError):
    """The saved model cannot be trusted in this process (other scikit-learn major, features or bytes)."""
