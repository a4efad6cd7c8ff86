"""Soft-404 tooling: the training corpus, its builders and the classifier training run by management commands.

The verdict runtime (probe, features, model loading, verdict) is part of the crawl, in sites/crawler/soft404.
"""
