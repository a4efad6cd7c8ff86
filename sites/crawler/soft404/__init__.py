"""Soft-404 detection: the Prieto et al. content classifier and the Bar-Yossef et al. random-URL probe."""
