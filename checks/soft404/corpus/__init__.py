"""Builders of the soft-404 training corpus and of the phrase table (run by build_soft404_corpus/_phrases)."""
