"""Transductive scores from one template (issue 23, fourth round): the crawl's own structure around the template.

Measured in `benchmarks/structure.py --parts types` beside the shipped default, not shipped (docs/benchmarks.md,
"Transductive ranking from one template"): every variant raised the recall of the wide types (python library and
C API pages, django release notes) and lost the small ones (postgres release notes, celery changelogs), and none
was better held out. Pure: plain arrays in, plain arrays out.

The pages' graph: each page's `k` nearest pages by the **order-free** form of the default method's Formula (1),
the idf weight of the keys two pages share over the mean of their total weights (`overlap_similarities`). The
weighted LCS itself costs ~0.05 ms a pair in Python, 100 s for all pairs of 2,000 pages; its order-free form is
one sparse matrix product (the shared keys' weights bound the heaviest common subsequence from above), computed
in blocks of rows so that only the k best of each row are kept. Over the graph:

- `diffused`: the template's similarity averaged over each page's neighbourhood, f = (1 - α) s + α P f, P the
  random walk on the graph (Zhou et al. 2004, "Learning with local and global consistency", with the
  similarity as the initial vector and P row-normalized). f stays a weighted mean of similarities, so the
  label-free cut rules and the chance level read it as they read s. A page whose neighbours resemble the template
  rises, one whose neighbours do not falls;
- `harmonic`: the harmonic function (Zhu, Ghahramani & Lafferty 2003) between the pages the cut already selects
  (and the template) and the pages below half the cut: the chance that a walk from a page meets the first before
  the second; selected at 1/2;
- `manifold_ranking`: Zhou et al.'s ranking on data manifolds (2004) from the template alone, f = (1 - α) y +
  α S f with S the symmetrically normalized graph, scaled to its largest value off the template.

Bounded: a crawl of more than MAX_GRAPH_PAGES pages is graphed over the MAX_GRAPH_PAGES pages most similar to the
template (what lies near the cut); the others keep their similarity. The product costs O(n² · shared keys) and
its blocks O(block · n) memory: 2,000 pages take ~0.1 s (docs/benchmarks.md).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

# The most pages one graph holds: 5,000 cost ~1 s and 25 M similarities computed block by block; a 100k-page
# crawl is graphed over the 5,000 pages most similar to the template, the only ones near a cut.
MAX_GRAPH_PAGES = 5000
BLOCK_ROWS = 500
DIFFUSION_STEPS = 30  # α ≤ 0.9: the neglected tail is α^30 ≤ 0.04 of the mass
HARMONIC_STEPS = 200
RANKING_STEPS = 50


def key_matrix(sequences: Sequence[Sequence[int]], keys: int) -> sp.csr_matrix:
    """Pages × keys, 1 where the page holds the key (the default method's sequences hold each key once)."""
    rows = np.repeat(np.arange(len(sequences)), [len(sequence) for sequence in sequences])
    columns = np.fromiter(
        (key for sequence in sequences for key in sequence), dtype=np.int64, count=len(rows)
    )
    data = np.ones(len(rows))
    return sp.csr_matrix((data, (rows, columns)), shape=(len(sequences), keys))


def overlap_similarities(
    sequences: Sequence[Sequence[int]], weights: Sequence[float], rows: Sequence[int] | None = None
) -> np.ndarray:
    """Formula (1) with weights and without order: the weight of the keys two pages share over the mean of the
    two pages' total weights, for `rows` (default: every page) against every page. 0 where both weigh 0."""
    matrix = key_matrix(sequences, len(weights))
    weighted = matrix @ sp.diags(np.asarray(weights, dtype=float))
    totals = np.asarray(weighted.sum(axis=1)).ravel()
    chosen = np.arange(len(sequences)) if rows is None else np.asarray(rows)
    shared = (weighted[chosen] @ matrix.T).toarray()
    mean = (totals[chosen][:, None] + totals[None, :]) / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(mean > 0, shared / mean, 0.0)


def knn_graph(
    sequences: Sequence[Sequence[int]], weights: Sequence[float], k: int, *, mutual: bool = False
) -> sp.csr_matrix:
    """Each page linked to its k most similar other pages (overlap_similarities), weighted by that similarity,
    made symmetric: an edge when either page is among the other's k (`mutual` False) or both are (True)."""
    n = len(sequences)
    k = max(0, min(k, n - 1))
    if not k:
        return sp.csr_matrix((n, n))
    rows, columns, values = [], [], []
    for start in range(0, n, BLOCK_ROWS):
        block = np.arange(start, min(n, start + BLOCK_ROWS))
        similarities = overlap_similarities(sequences, weights, block)
        similarities[np.arange(len(block)), block] = -1.0  # not its own neighbour
        nearest = np.argpartition(-similarities, k - 1, axis=1)[:, :k]
        rows.append(np.repeat(block, k))
        columns.append(nearest.ravel())
        values.append(np.take_along_axis(similarities, nearest, axis=1).ravel().clip(min=0))
    graph = sp.csr_matrix(
        (np.concatenate(values), (np.concatenate(rows), np.concatenate(columns))), shape=(n, n)
    )
    graph.eliminate_zeros()
    return graph.minimum(graph.T) if mutual else graph.maximum(graph.T)


def _walk(graph: sp.csr_matrix, self_loops: bool) -> sp.csr_matrix:
    """The random walk on the graph (rows summing to 1); with `self_loops`, each page also stays where it is
    with weight 1, so a page without neighbours keeps its own value instead of losing it."""
    if self_loops:
        graph = graph + sp.identity(graph.shape[0], format="csr")
    degrees = np.asarray(graph.sum(axis=1)).ravel()
    degrees[degrees == 0] = 1.0
    return sp.diags(1.0 / degrees) @ graph


def diffused(
    graph: sp.csr_matrix, scores: np.ndarray, alpha: float, *, self_loops: bool = False
) -> np.ndarray:
    """f = (1 - α) s + α P f, iterated: each page's similarity mixed with its neighbours', theirs with theirs."""
    walk = _walk(graph, self_loops)
    values = np.asarray(scores, dtype=float)
    mixed = values.copy()
    for _ in range(DIFFUSION_STEPS):
        mixed = (1 - alpha) * values + alpha * (walk @ mixed)
    return mixed


def harmonic(graph: sp.csr_matrix, positives: np.ndarray, negatives: np.ndarray) -> np.ndarray:
    """Zhu et al.'s harmonic function: 1 on `positives`, 0 on `negatives` (boolean masks), elsewhere the mean of
    the neighbours' values (the chance that a walk meets a positive first), by iteration."""
    walk = _walk(graph, self_loops=False)
    values = positives.astype(float)
    for _ in range(HARMONIC_STEPS):
        values = walk @ values
        values[positives] = 1.0
        values[negatives] = 0.0
    return values


def manifold_ranking(graph: sp.csr_matrix, seed: int, alpha: float = 0.99) -> np.ndarray:
    """Zhou et al.'s ranking from one page: f = (1 - α) y + α D^-1/2 W D^-1/2 f, y the seed's indicator;
    scaled so that the highest page other than the seed scores 1 (the seed itself scores 1)."""
    degrees = np.asarray(graph.sum(axis=1)).ravel()
    degrees[degrees == 0] = 1.0
    scale = sp.diags(1.0 / np.sqrt(degrees))
    normalized = scale @ graph @ scale
    seed_vector = np.zeros(graph.shape[0])
    seed_vector[seed] = 1.0
    values = seed_vector.copy()
    for _ in range(RANKING_STEPS):
        values = (1 - alpha) * seed_vector + alpha * (normalized @ values)
    values[seed] = 0.0
    top = values.max()
    if top > 0:
        values = values / top
    values[seed] = 1.0
    return values


def graphed_pages(scores: np.ndarray, limit: int = MAX_GRAPH_PAGES) -> np.ndarray:
    """The positions of the pages a graph holds: all of them, or the `limit` most similar to the template."""
    if len(scores) <= limit:
        return np.arange(len(scores))
    return np.sort(np.argpartition(-np.asarray(scores), limit - 1)[:limit])
