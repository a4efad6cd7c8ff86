"""Soft-404 detection as every crawl runs it: the Prieto et al. content classifier and the Bar-Yossef et al.
random-URL probe (the tooling that builds the classifier's data is checks/soft404)."""
