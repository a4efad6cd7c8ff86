"""Page finding: find the one page of a site that answers a query with as few downloads as possible
(Goodwin's "lost sheep" and its baselines, and webaudit's own best-first finder). docs/pagefinding.md."""

from .algorithms import ALGORITHMS, DEFAULT_ALGORITHM, algorithm_named, search
from .environment import BudgetExhausted, Download, Environment, Link, Page, SearchResult
from .text import query_terms, terms

__all__ = [
    "ALGORITHMS",
    "DEFAULT_ALGORITHM",
    "BudgetExhausted",
    "Download",
    "Environment",
    "Link",
    "Page",
    "SearchResult",
    "algorithm_named",
    "query_terms",
    "search",
    "terms",
]
