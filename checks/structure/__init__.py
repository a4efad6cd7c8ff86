"""Structural filtering (MFPSDDP, Deng & He 2018) and page types: see docs/structure.md."""
