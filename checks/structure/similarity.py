"""Structural similarity of pages after Deng & He (2018): node keys per same-relationship, LCS and Formula (1).

Pure: plain data in, plain data out. A page is its decoded `dom` extract (checks.structure.extract); a
`Keyer` turns it into a sequence of small integers, one per node kept, under one relation:

- `rsn`  (Definition 1) the tag;
- `rpsa` (Definition 2) the tag and at least one attribute of a chosen subset (default div.class, div.id,
  span.class, span.id, the paper's §4.1) equal in name and value. Not an equivalence (a node with class
  and id relates to one sharing its class and to one sharing its id, which need not relate to each other),
  so keys cannot be compared by hash: each key stands for the node's set of attributes (its *atoms*) and the
  LCS runs over the relation itself (RelatedLCS, exact);
- `csr`  (Definition 3) the tag and every attribute, name and value;
- `blocks`, ours until issue 23 (docs/structure.md): the tag with its class and id, leaving out attribute
  values found on one page only, over a wider set of block tags, each distinct key kept once, in BFS order of
  first sight;
- `default`, ours: the tag with its class and the first word of its id (`SQL` of `SQL-ABORT`, `module` of
  `module-json`: the generator's naming scheme, where the whole id names one page or one heading), each key
  weighing its inverse document frequency over the crawl (log N/df; a key on every page, the site's chrome,
  weighs 0, and so does a key on one page, which no pair shares); the similarity is the heaviest common
  subsequence over the mean of the two pages' weights (Formula (1) with weights for counts; WeightedLCS).

The LCS of two key sequences is rapidfuzz's bit-parallel LCSseq (native, compares by hash) for the relations
that are equivalences, the same bit-parallel recurrence over Python integers for RPSA, and a heaviest
increasing subsequence for the weighted default; Formula (1) divides it by the mean of the two lengths (or
weights). `Keyer.scorer` picks the right one.
"""

from __future__ import annotations

import functools
import math
import random
import re
import statistics
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from rapidfuzz.distance import LCSseq

from checks.structure.extract import STORED_TAGS, DomSequence
from checks.structure.lcs import RelatedLCS, WeightedLCS

RELATIONS = ("default", "blocks", "rsn", "rpsa", "csr")
# What each relation is, in plain words first (forms, results); the paper's names stay for help and the CLI.
RELATION_LABELS = {
    "default": "blocks that vary across the site (recommended)",
    "blocks": "kinds of blocks and their order, every block alike",
    "rsn": "same tag name (the paper's RSN)",
    "rpsa": "same tag and one shared class or id (the paper's RPSA)",
    "csr": "same tag and all attributes (the paper's CSR)",
}
PAPER_RELATIONS = ("rsn", "rpsa", "csr")
# Ours: keys made of the tag, class and id of DEFAULT_TAGS, each distinct key once, attribute values of one page
# left out; `default` weighs them by inverse document frequency.
OUR_RELATIONS = ("default", "blocks")
# The node kinds of the paper's Table 2.
PAPER_TAGS = frozenset({"div", "span"})
# The default method's node kinds: the paper's plus block containers. On the postgres docs (reference pages
# as the target) they raised the median PR of one template from 0.997 to 1.0 (docs/structure.md).
DEFAULT_TAGS = frozenset({"div", "span", "section", "table", "ul", "ol", "dl", "pre", "h1", "h2", "h3"})
RPSA_ATTRIBUTES = (("div", "class"), ("div", "id"), ("span", "class"), ("span", "id"))
DEFAULT_ATTRIBUTES = ("class", "id")
# The default method's stand-in for an id: its first word, kept as this pseudo-attribute (a space cannot be in
# a parsed attribute's name, so no real attribute collides with it).
ID_WORD = "id word"
# An id's first word when a second follows it (words split at -, _, ., :, / and spaces): one match, not a split.
_FIRST_OF_TWO_WORDS = re.compile(r"[\s\-_.:/]*([^\s\-_.:/]+)[\s\-_.:/]+[^\s\-_.:/]")
# The paper's thresholds (§4.1); RSN has none in the paper, this one is ours.
PAPER_THRESHOLDS = {"csr": 0.2, "rpsa": 0.4, "rsn": 0.5}
COMBINES = ("mean", "max")


class MethodError(ValueError):
    """A relation, tag set, attribute subset or threshold that cannot be used."""


@dataclass(frozen=True)
class Method:
    """How pages are compared: the relation, the node kinds, RPSA's attribute subset, how templates combine."""

    relation: str = "default"
    tags: frozenset[str] = DEFAULT_TAGS
    attributes: tuple[tuple[str, str], ...] = RPSA_ATTRIBUTES
    combine: str = "mean"

    @property
    def needs_frequencies(self) -> bool:
        return self.relation in OUR_RELATIONS

    @property
    def threshold_rule(self) -> str:
        """How ours set their threshold without labels (chosen leave-one-site-out, docs/structure.md)."""
        return THRESHOLD_RULE_OF.get(self.relation, DEFAULT_THRESHOLD_RULE)


def method_for(
    relation: str | None = None,
    *,
    tags: Iterable[str] | None = None,
    attributes: Iterable[str] | None = None,
    combine: str = "mean",
) -> Method:
    """A Method from user input: relation None or "default" for ours; `attributes` as "tag.name" strings."""
    relation = (relation or "default").strip().lower()
    if relation not in RELATIONS:
        raise MethodError(f"unknown relation {relation!r}: choose one of {', '.join(RELATIONS)}")
    if combine not in COMBINES:
        raise MethodError(f"unknown combination {combine!r}: choose mean or max")
    chosen_tags = frozenset(t.strip().lower() for t in tags if t.strip()) if tags is not None else None
    if chosen_tags is not None and not chosen_tags:
        raise MethodError("the tag set is empty")
    if chosen_tags is not None and not chosen_tags <= set(STORED_TAGS):
        unknown = ", ".join(sorted(chosen_tags - set(STORED_TAGS)))
        raise MethodError(f"tags not stored by the dom extract: {unknown} (stored: {', '.join(STORED_TAGS)})")
    pairs = RPSA_ATTRIBUTES
    if attributes is not None:
        pairs = []
        for item in attributes:
            tag, dot, name = item.strip().lower().partition(".")
            if not dot or not tag or not name:
                raise MethodError(f"attribute {item!r} is not of the form tag.attribute (div.class)")
            pairs.append((tag, name))
        if not pairs:
            raise MethodError("the RPSA attribute subset is empty")
        pairs = tuple(pairs)
    default_tags = DEFAULT_TAGS if relation in OUR_RELATIONS else PAPER_TAGS
    return Method(relation, chosen_tags or default_tags, tuple(pairs), combine)


def check_threshold(value: float) -> float:
    if not 0.0 <= value <= 1.0:
        raise MethodError(f"threshold {value} is outside [0, 1]")
    return float(value)


@functools.lru_cache(maxsize=1 << 16)  # a site's ids repeat on many pages (its chrome): each split once
def id_word(value: str) -> str | None:
    """The first word of an id made of two words or more (split at -, _, ., :, / and spaces), else None.

    An id names one page's element (`SQL-CREATETABLE-NOTES`, `basic-usage`, `id-1.9.3.85.6`), so its whole
    value is shared by few pages, and weighed by its rarity it would be the heaviest key of a page while saying
    nothing about its type; its first word is the naming scheme of the generator or author (`SQL`, `module`,
    `id`), shared by every page it names alike. One word alone (`sidebar`) is not a scheme: None."""
    match = _FIRST_OF_TWO_WORDS.match(value)
    return match.group(1) if match else None


def page_values(dom: DomSequence) -> set[tuple[str, str, str]]:
    """The (tag, attribute, value) triples of one page, and (tag, ID_WORD, the id's first word) for each id."""
    values = set()
    for tag, attributes in dom.signatures:
        for name, value in attributes:
            values.add((tag, name, value))
            if name == "id" and (word := id_word(value)) is not None:
                values.add((tag, ID_WORD, word))
    return values


def common_values(doms: Iterable[DomSequence]) -> set[tuple[str, str, str]]:
    """The (tag, attribute, value) triples found on two pages or more: the ones the default method keeps."""
    seen: Counter = Counter()
    for dom in doms:
        seen.update(page_values(dom))
    return {triple for triple, pages in seen.items() if pages >= 2}


@dataclass
class Keyer:
    """Maps pages to key sequences under one method; keys get small integers shared by every page it maps."""

    method: Method
    # For our methods: the values seen on two pages or more (common_values); None keeps every value.
    common: set[tuple[str, str, str]] | None = None
    # For the default method: each key id's weight, log(N / pages holding it), set by `weigh` (None: all 1).
    weights: list[float] | None = None
    _ids: dict = field(default_factory=dict)
    # RPSA only: key id -> the atom ids of its node; (tag, name, value) -> atom id.
    _atoms: list = field(default_factory=list)
    _atom_ids: dict = field(default_factory=dict)

    @property
    def size(self) -> int:
        """How many distinct keys the keyer has met."""
        return len(self._ids)

    def known_keys(self) -> list:
        """The keys met so far, in the order of their integers (to save between steps, see `with_keys`)."""
        return list(self._ids)

    @classmethod
    def with_keys(cls, method: Method, common: set | None, keys: Iterable) -> Keyer:
        """A keyer that gives `keys` (from `known_keys`, JSON lists or tuples) the integers they had: pages keyed
        by it in a later step compare with the sequences saved before. Not for RPSA (its atoms are not kept)."""
        keyer = cls(method, common=common)
        for key in keys:
            keyer._id(_tupled(key))
        return keyer

    def node_key(self, signature: tuple[str, tuple[tuple[str, str], ...]]):
        tag, attributes = signature
        if tag not in self.method.tags:
            return None
        relation = self.method.relation
        if relation == "rsn":
            return tag
        if relation == "csr":
            return (tag, tuple(sorted(attributes)))
        if relation == "rpsa":
            # The node's atoms: its attributes of the chosen subset, each (tag, name, value). Two nodes are
            # related when they share one (Definition 2, k >= 1); a node with none relates to nothing.
            chosen = self.method.attributes
            return ("rpsa", tuple(sorted({(tag, n, v) for n, v in attributes if (tag, n) in chosen})))
        common = self.common
        if relation == "default":
            # The class, and for an id its first word when two pages or more share it (id_word).
            kept = []
            for name, value in attributes:
                if name == "class":
                    kept.append((name, " ".join(sorted(value.split()))))
                elif name == "id" and (word := id_word(value)) is not None:
                    if common is None or (tag, ID_WORD, word) in common:
                        kept.append((ID_WORD, word))
            return (tag, *sorted(kept))
        kept = [
            (name, " ".join(sorted(value.split())) if name == "class" else value)
            for name, value in attributes
            if name in DEFAULT_ATTRIBUTES and (common is None or (tag, name, value) in common)
        ]
        return (tag, *sorted(kept))

    def _id(self, key) -> int:
        ids = self._ids
        position = ids.get(key)
        if position is None:
            position = ids[key] = len(ids)
            if self.method.relation == "rpsa":
                atom_ids = self._atom_ids
                self._atoms.append(tuple(atom_ids.setdefault(atom, len(atom_ids)) for atom in key[1]))
        return position

    def keys(self, dom: DomSequence) -> list[int]:
        """The page's key sequence (BFS order) under this method."""
        local = np.fromiter(
            (
                -1 if (key := self.node_key(signature)) is None else self._id(key)
                for signature in dom.signatures
            ),
            dtype=np.int64,
            count=len(dom.signatures),
        )
        if not len(dom.nodes):
            return []
        sequence = local[np.frombuffer(dom.nodes, dtype=np.uint32)]
        sequence = sequence[sequence >= 0]
        if self.method.relation in OUR_RELATIONS and len(sequence):
            # Each distinct key once, where BFS first meets it: how much text a page holds (its spans, its
            # repeated sections) stops weighing on the score, its kinds of blocks and their order remain.
            _, first = np.unique(sequence, return_index=True)
            sequence = sequence[np.sort(first)]
        return sequence.tolist()

    def weigh(self, sequences: Iterable[Sequence[int]]) -> None:
        """Weigh every key by its inverse document frequency over these pages (the crawl's), log(N / df)
        (Spärck Jones 1972): a key on every page (the site's header, sidebar, footer) weighs 0 and a key on
        few pages weighs most; a key on one page weighs 0 too (key_weight). Only the default method weighs;
        the others compare every key alike."""
        if self.method.relation != "default":
            return
        pages = 0
        holding = Counter()
        for sequence in sequences:
            pages += 1
            holding.update(set(sequence))
        self.weights = [key_weight(pages, holding[key]) for key in range(len(self._ids))]

    def keyed(self, doms: Mapping[object, DomSequence]) -> dict[object, list[int]]:
        """Every page's key sequence (by the same id as `doms`), and the key weights they give (`weigh`)."""
        sequences = {page: self.keys(dom) for page, dom in doms.items()}
        self.weigh(sequences.values())
        return sequences

    def pair_similarity(self) -> Callable[[Sequence[int], Sequence[int]], float]:
        """Formula (1) between two sequences under this method (what the chance level shuffles)."""
        if self.method.relation == "rpsa":
            return lambda a, b: RelatedLCS(a, self._atoms).similarity(b)
        if self.method.relation == "default" and self.weights is not None:
            return lambda a, b: WeightedLCS(a, self.weights).similarity(b)
        return similarity

    def scorer(self, templates: Sequence[Sequence[int]]) -> Callable[[Sequence[int]], float]:
        """page sequence -> its similarity to `templates` (Formula (1), combined by the method's rule), under
        this method's relation: by hash for the equivalences, over the relation itself for RPSA, weighted
        for the default method once weighed."""
        pick = max if self.method.combine == "max" else statistics.fmean
        if self.method.relation == "rpsa":
            related = [RelatedLCS(template, self._atoms) for template in templates]
            return lambda page: pick([lcs.similarity(page) for lcs in related])
        if self.method.relation == "default" and self.weights is not None:
            weighted = [WeightedLCS(template, self.weights) for template in templates]
            return lambda page: pick([lcs.similarity(page) for lcs in weighted])
        return lambda page: combined(templates, page, self.method.combine)


def key_weight(pages: int, holding: int) -> float:
    """A key's weight in the default method: log(N / df) over the crawl's N pages, df of them holding it; 0 for
    a key on one page or none, which no two pages share: it would only swell the template's total weight, and
    the most for the keys that say the least about a type (a page's own ids and one-off blocks)."""
    return math.log(pages / holding) if holding >= 2 else 0.0


def _tupled(value):
    return tuple(_tupled(item) for item in value) if isinstance(value, (list, tuple)) else value


def similarity(a: Sequence[int], b: Sequence[int]) -> float:
    """Formula (1): LCS(a, b) / ((|a| + |b|) / 2); 1.0 for two empty sequences."""
    if not a and not b:
        return 1.0
    if not a or not b:
        return 0.0
    return LCSseq.similarity(a, b) / ((len(a) + len(b)) / 2)


def combined(templates: Sequence[Sequence[int]], page: Sequence[int], combine: str = "mean") -> float:
    """The page's similarity to several templates: their mean (the paper's future work, §5) or their max."""
    scores = [similarity(template, page) for template in templates]
    return max(scores) if combine == "max" else sum(scores) / len(scores)


def chance_level(
    templates: Sequence[Sequence[int]],
    pages: Sequence[Sequence[int]],
    *,
    samples: int = 60,
    seed: int = 1,
    pair_similarity: Callable[[Sequence[int], Sequence[int]], float] = similarity,
) -> float:
    """What Formula (1) gives for pages with these key counts and no shared order: the median similarity of
    shuffled pages to shuffled templates (under `pair_similarity`, Keyer.pair_similarity for weighted keys).
    Scores near it say nothing about structure."""
    if not templates or not pages:
        return 0.0
    rng = random.Random(seed)
    # Positions, not the pages: `pages` may be a lazy sequence that keys only the pages drawn. random.sample
    # draws the same positions from a range as from a list of that length.
    chosen = [pages[i] for i in rng.sample(range(len(pages)), min(samples, len(pages)))]
    values = []
    for page in chosen:
        template = list(rng.choice(templates))
        shuffled = list(page)
        rng.shuffle(template)
        rng.shuffle(shuffled)
        values.append(pair_similarity(template, shuffled))
    return float(np.median(values))


# The valley rule's settings (valley_threshold): a valley is a fall of the smoothed density to a tenth of
# the peaks on both sides; the density is smoothed over 0.03 of score. Compared leave-one-site-out with 0.05 and
# 0.2, and 0.02 and 0.04 (docs/benchmarks.md).
VALLEY_DEPTH = 0.1
VALLEY_SMOOTHING = 0.03
# The fewest pages above a valley for the group there to count as a type: two to four pages scoring far above
# everything else are the template's near-copies (the what's new pages of the releases next to it, the patch
# releases of its own), and a cut above them selects nothing else. Until issue 23's second round, 2 (the
# rule `valley-2`); 3, 5, 10 and 20 compared leave-one-site-out (docs/benchmarks.md): 5 is the fewest that
# drops the near-copies, and 20 loses a type of 21 pages.
VALLEY_MIN_GROUP = 5


def otsu_threshold(scores: Sequence[float], bins: int = 100) -> float:
    """The cut of [0, 1] that best splits the scores into two groups (Otsu 1979: most between-class variance)."""
    values = np.asarray(scores, dtype=float)
    if len(values) < 2 or values.min() == values.max():
        return float(values.max()) if len(values) else 0.5
    histogram, edges = np.histogram(values, bins=bins, range=(0.0, 1.0))
    p = histogram / histogram.sum()
    middles = (edges[:-1] + edges[1:]) / 2
    w0 = np.cumsum(p)[:-1]
    m0 = np.cumsum(p * middles)[:-1]
    total = (p * middles).sum()
    w1 = 1 - w0
    with np.errstate(divide="ignore", invalid="ignore"):
        between = (total * w0 - m0) ** 2 / (w0 * w1)
    between[~np.isfinite(between)] = -1
    return float(edges[1 + int(np.argmax(between))])


def gap_threshold(scores: Sequence[float], chance: float) -> float:
    """The middle of the widest gap between consecutive scores above the chance level: where the crawl's
    pages stop looking like the template. A type made from one layout sits above a clear gap; scores that
    fall off evenly have no such gap, and the cut then lands between near neighbours."""
    values = np.sort(np.asarray([score for score in scores if score > chance], dtype=float))[::-1]
    if len(values) < 2:
        return round(max(chance, 0.5), 4)
    gaps = values[:-1] - values[1:]
    widest = int(np.argmax(gaps))
    return round(float((values[widest] + values[widest + 1]) / 2), 4)


def minimum_error_threshold(scores: Sequence[float], bins: int = 100) -> float:
    """Kittler & Illingworth's minimum-error cut (1986): the split of [0, 1] whose two groups, each fitted by
    a normal distribution of its own share, mean and spread, explain the scores best. Otsu's cut assumes two
    groups of like spread, so when the template's type is a small, tight group among many other pages (30
    index pages among 530) it splits the big group instead; this one does not (docs/structure.md)."""
    values = np.asarray(scores, dtype=float)
    if len(values) < 2 or values.min() == values.max():
        return float(values.max()) if len(values) else 0.5
    histogram, edges = np.histogram(values, bins=bins, range=(0.0, 1.0))
    p = histogram / histogram.sum()
    middles = (edges[:-1] + edges[1:]) / 2
    w0 = np.cumsum(p)[:-1]
    w1 = 1 - w0
    m0 = np.cumsum(p * middles)[:-1]
    s0 = np.cumsum(p * middles**2)[:-1]
    total_m, total_s = (p * middles).sum(), (p * middles**2).sum()
    # A group inside one bin has the spread of a uniform bin, not zero (which would make its cost -inf).
    floor = (1 / bins) / np.sqrt(12)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean0, mean1 = m0 / w0, (total_m - m0) / w1
        sd0 = np.sqrt(np.maximum(s0 / w0 - mean0**2, 0)) + floor
        sd1 = np.sqrt(np.maximum((total_s - s0) / w1 - mean1**2, 0)) + floor
        cost = 1 + 2 * (w0 * np.log(sd0) + w1 * np.log(sd1)) - 2 * (w0 * np.log(w0) + w1 * np.log(w1))
    cost[~np.isfinite(cost) | (w0 <= 0) | (w1 <= 0)] = np.inf
    if not np.isfinite(cost).any():
        return otsu_threshold(values, bins)
    return float(edges[1 + int(np.argmin(cost))])


def nested_threshold(scores: Sequence[float], chance: float, separation: float = 3.0) -> float:
    """The minimum-error cut, then again inside the group above it while that group is itself two clearly
    apart groups (Ashman's D > `separation`: means further apart than the spreads allow): the cut just below
    the topmost clear group, for a small type that scores a little above many near-alike pages."""
    values = np.asarray(scores, dtype=float)
    threshold = minimum_error_threshold(values)
    while True:
        upper = values[values >= threshold]
        if len(upper) < 4 or upper.min() == upper.max():
            break
        span = upper.max() - upper.min()
        inner = minimum_error_threshold((upper - upper.min()) / span) * span + upper.min()
        low, high = upper[upper < inner], upper[upper >= inner]
        if len(low) == 0 or len(high) < 2:
            break
        d = np.sqrt(2) * abs(high.mean() - low.mean()) / np.sqrt(high.var() + low.var() + 1e-12)
        if d <= separation:
            break
        threshold = float(inner)
    return round(max(threshold, chance), 4)


def valley_cuts(
    scores: Sequence[float],
    chance: float,
    *,
    depth: float = VALLEY_DEPTH,
    smoothing: float = VALLEY_SMOOTHING,
    min_group: int = VALLEY_MIN_GROUP,
) -> tuple[float, list[float]]:
    """The valley rule's candidate cuts: its base, Otsu's cut never below the chance level, and every clear
    valley of the score density above it, lowest first (valley_threshold takes the highest; linkage_threshold
    reads them from the highest down). A valley is where the density, smoothed by a normal kernel of
    `smoothing` (in score), falls to `depth` of the highest density on both sides of it (both above the base),
    with `min_group` pages or more above (fewer are the template's near-copies, not a type: VALLEY_MIN_GROUP).
    Valleys that part the same pages (no page scores between them) count once."""
    values = np.asarray(scores, dtype=float)
    base = round(max(otsu_threshold(values), chance), 4)
    if len(values) < 2:
        return base, []
    bins = 100
    histogram, edges = np.histogram(values, bins=bins, range=(0.0, 1.0))
    sigma = smoothing * bins
    reach = np.arange(-math.ceil(4 * sigma), math.ceil(4 * sigma) + 1)
    kernel = np.exp(-0.5 * (reach / sigma) ** 2)
    density = np.convolve(histogram.astype(float), kernel / kernel.sum(), mode="same")
    middles = (edges[:-1] + edges[1:]) / 2
    above_from = np.cumsum(histogram[::-1])[::-1]  # pages scoring in bin i or higher
    highest_above = np.maximum.accumulate(density[::-1])[::-1]
    lowest = int(np.searchsorted(middles, base, side="right"))
    highest_below = 0.0
    cuts: dict[int, float] = {}  # pages above -> the highest valley that leaves them above
    for i in range(lowest, bins - 1):
        if i > lowest and density[i] <= density[i - 1] and density[i] <= density[i + 1]:
            sides = min(highest_below, highest_above[i + 1])
            if sides > 0 and density[i] <= depth * sides and above_from[i] >= min_group:
                # A valley with a flat floor (no page scores there at all) is cut in its middle, not at its top
                # edge: pages of the type that score a little lower than those seen stay in.
                start = i
                while start > lowest and density[start - 1] <= density[i] + 1e-12:
                    start -= 1
                cut = round(float(edges[(start + i + 1) // 2]), 4)
                cuts[int((values >= cut).sum())] = cut
        highest_below = max(highest_below, density[i])
    return base, sorted(cuts.values())


def valley_threshold(
    scores: Sequence[float],
    chance: float,
    *,
    depth: float = VALLEY_DEPTH,
    smoothing: float = VALLEY_SMOOTHING,
    min_group: int = VALLEY_MIN_GROUP,
) -> float:
    """Otsu's cut (never below the chance level), moved up to the highest clear valley of the score density
    above it (valley_cuts). Otsu's cut finds the site's biggest divide; when the template's type is a small
    group scoring clearly above a larger group of near-alike pages (21 release notes above 800 chapter pages of
    one site), that divide lies below both, and the valley between them is the type's edge. A type whose
    scores fall off evenly has no such valley, and Otsu's cut stands."""
    base, cuts = valley_cuts(scores, chance, depth=depth, smoothing=smoothing, min_group=min_group)
    return cuts[-1] if cuts else base


# The linkage rule's samples (linkage_threshold): pages read from each side of a valley, and random pages whose
# pairs give the site's background similarity. 20 pages a side cost ~600 comparisons a valley and 30 pages 435,
# ~0.1 s each on the python docs; samples of 5 to 40 pages a side gave the same cuts (docs/benchmarks.md).
LINKAGE_SAMPLE = 20
BACKGROUND_PAGES = 30


def spread_over_ranks(positions: Sequence[int], count: int) -> list[int]:
    """`count` of these positions (ranked), spread evenly from the first to the last; all when fewer."""
    if len(positions) <= count:
        return list(positions)
    return [positions[round(k * (len(positions) - 1) / (count - 1))] for k in range(count)]


def background_similarity(
    pages: Sequence[Sequence[int]],
    pair_similarity: Callable[[Sequence[int], Sequence[int]], float],
    *,
    sample: int = BACKGROUND_PAGES,
    seed: int = 1,
) -> float:
    """How alike two pages of the crawl are when nothing chose them: the mean similarity over the pairs of
    `sample` pages drawn at random (the site's own scale: 0.11 on the python docs, 0.45 on GIO's gtk-doc
    pages, where every page is a reference entry of one layout)."""
    if len(pages) < 2:
        return 0.0
    rng = random.Random(seed)
    # Positions, not the pages: `pages` may key only the pages drawn (as chance_level's).
    drawn = [pages[i] for i in rng.sample(range(len(pages)), min(sample, len(pages)))]
    return float(np.mean([pair_similarity(a, b) for n, a in enumerate(drawn) for b in drawn[n + 1 :]]))


def linkage_threshold(
    scores: Sequence[float],
    chance: float,
    pages: Sequence[Sequence[int]],
    pair_similarity: Callable[[Sequence[int], Sequence[int]], float],
    *,
    sample: int = LINKAGE_SAMPLE,
    background: float | None = None,
) -> float:
    """The valley rule's cuts read from the highest down, each valley crossed while the pages just below it
    are of the group above it: their mean similarity to that group's pages (C) is nearer the group's own (W,
    the mean over its pairs) than the site's background (B, background_similarity), C >= (W + B) / 2; the cut
    stops at the first valley whose lower side is not. `pages` are the scored pages' key sequences, in the
    order of `scores`; `sample` pages of each side are read, spread over their ranks.

    Why: the valley rule takes the highest clear valley, which is right when the group above it is the
    template's type (21 release notes above 800 chapter pages: C 0.33 against W 0.94 and B 0.15) and wrong when
    a type is two variants of one layout (Doxygen's member lists of classes with and without inherited
    members, 12 and 86 pages: C 0.83 against W 1.00) or its pages spread over several steps of likeness. The
    score of a page says how like the template it is; whether the pages below a valley are the same kind as
    those above is a question about them, which their likeness to each other answers. Never below the valley
    rule's base (Otsu's cut, the chance level)."""
    base, cuts = valley_cuts(scores, chance)
    if not cuts:
        return base
    values = np.asarray(scores, dtype=float)
    ranked = [int(i) for i in np.argsort(-values, kind="stable")]
    rungs = [*reversed(cuts), base]
    if background is None:
        background = background_similarity(pages, pair_similarity)
    cut = rungs[0]
    for lower in rungs[1:]:
        above = spread_over_ranks([i for i in ranked if values[i] >= cut], sample)
        band = spread_over_ranks([i for i in ranked if lower <= values[i] < cut], sample)
        if not band:
            continue  # no page between the two: the same selection, and the higher cut sits in its valley
        group = [pages[i] for i in above]
        w = _mean_within(group, pair_similarity)
        c = _mean_across([pages[i] for i in band], group, pair_similarity)
        if c < (w + background) / 2:
            break
        cut = lower
    return cut


def linkage_split_threshold(
    scores: Sequence[float],
    chance: float,
    pages: Sequence[Sequence[int]],
    pair_similarity: Callable[[Sequence[int], Sequence[int]], float],
    *,
    sample: int = LINKAGE_SAMPLE,
    background: float | None = None,
) -> float:
    """The linkage rule, then the other way: every shallow minimum of the score density above its cut (every
    local minimum, not only the clear valleys), lowest first; the first whose lower side is not of the group
    above (C < (W + B) / 2, the linkage rule's test) and is a kind of its own (C < (W_band + B) / 2: its pages
    are more like each other than like the group above) becomes the cut. A small type on the shoulder of another
    kind (celery's ten what's new pages above its changelogs) has no clear valley, but the pages below it are
    another kind. Alone it splits some wide types (issue 23's sixth round); after `feedback_pages` has sharpened
    the scores it does not (the seventh round, docs/structure.md)."""
    if background is None:
        background = background_similarity(pages, pair_similarity)
    cut = linkage_threshold(scores, chance, pages, pair_similarity, sample=sample, background=background)
    values = np.asarray(scores, dtype=float)
    ranked = [int(i) for i in np.argsort(-values, kind="stable")]
    _, minima = valley_cuts(scores, chance, depth=1.0)
    for upper in [c for c in minima if c > cut]:
        band_all = [i for i in ranked if cut <= values[i] < upper]
        if len(band_all) < VALLEY_MIN_GROUP:
            continue
        group = [pages[i] for i in spread_over_ranks([i for i in ranked if values[i] >= upper], sample)]
        band = [pages[i] for i in spread_over_ranks(band_all, sample)]
        w = _mean_within(group, pair_similarity)
        w_band = _mean_within(band, pair_similarity)
        c = _mean_across(band, group, pair_similarity)
        if c < (w + background) / 2 and c < (w_band + background) / 2:
            return upper
    return cut


def _mean_within(group: list, pair_similarity) -> float:
    """W: the mean similarity over the pairs of `group` (1.0 for a group of one page: alike to itself)."""
    pairs = [pair_similarity(a, b) for n, a in enumerate(group) for b in group[n + 1 :]]
    return float(np.mean(pairs)) if pairs else 1.0


def _mean_across(band: list, group: list, pair_similarity) -> float:
    """C: the mean similarity of the pages of `band` to the pages of `group`, every pair of one and the other."""
    return float(np.mean([pair_similarity(a, b) for a in band for b in group]))


# The feedback rule's template's nearest pages (feedback_pages): chosen leave-one-site-out among 7, 10 and 15
# (issue 23's seventh round); a type of fewer pages than this is not diluted, since only pages the linkage cut
# selects join.
FEEDBACK_PAGES = 10


def feedback_pages(
    scores: Sequence[float],
    chance: float,
    pages: Sequence[Sequence[int]],
    pair_similarity: Callable[[Sequence[int], Sequence[int]], float],
    *,
    nearest: int = FEEDBACK_PAGES,
    background: float | None = None,
) -> list[int]:
    """The positions (in `scores`) of the template's `nearest` best-scoring pages that the linkage rule selects:
    the pages that join the templates in the feedback rule (pseudo-relevance feedback, Rocchio 1971). A page
    then scores by its likeness to the template's group, not to the one page: a template that shares some blocks
    with another kind (celery's what's new 2.5 with the changelogs) no longer lifts that kind to its own type's
    level, and the linkage-split cut on the new scores parts them."""
    cut = linkage_threshold(scores, chance, pages, pair_similarity, background=background)
    values = np.asarray(scores, dtype=float)
    ranked = [int(i) for i in np.argsort(-values, kind="stable")][:nearest]
    return [i for i in ranked if values[i] >= cut]


# How a threshold is chosen without labels: "minimum-error" (Kittler & Illingworth), "otsu" (most
# between-group variance), "valley" (Otsu's, moved up to the highest clear valley above it with
# VALLEY_MIN_GROUP pages or more), "valley-2" (the same with two pages or more, as before issue 23's second
# round), "gap" (the widest gap), "nested" (minimum-error again inside a bimodal top) or "linkage" (the valley
# rule's valleys read from the highest down, crossed while the pages below are like those above; it reads the
# pages themselves) or "feedback" (the scores first recomputed with the template's nearest pages as templates,
# feedback_pages, by the caller; then the linkage rule and a split at a shallow dip whose lower side is a kind
# of its own, linkage_split_threshold). The rules were compared leave-one-site-out (benchmarks/structure.py
# --parts types, docs/structure.md).
THRESHOLD_RULES = ("minimum-error", "otsu", "valley", "valley-2", "gap", "nested", "linkage", "feedback")
# The rules that read the pages as well as their scores (calibrated_threshold's `pages`, `pair_similarity`).
RULES_READING_PAGES = frozenset({"linkage", "feedback"})
# The rules whose scores are recomputed with the template's nearest pages before the cut (feedback_pages).
RULES_WITH_FEEDBACK = frozenset({"feedback"})
DEFAULT_THRESHOLD_RULE = "minimum-error"
# Each of our methods with its rule: for the default, the feedback rule (Otsu's cut alone stops at the site's
# biggest divide, below a small type's own group: postgres release notes PR 0.08; the valley rule, which takes
# the highest clear valley, splits a type of two variants: Doxygen member lists RR 0.88, issue 23's sixth
# round; the linkage rule never cuts higher than a clear valley, so a small type on the shoulder of another
# kind takes that kind too: celery's what's new pages PR 0.16, the seventh round); for `blocks`, the
# minimum-error cut (docs/structure.md).
THRESHOLD_RULE_OF = {"default": "feedback", "blocks": "minimum-error"}


def calibrated_threshold(
    scores: Sequence[float],
    chance: float,
    rule: str = DEFAULT_THRESHOLD_RULE,
    *,
    pages: Sequence[Sequence[int]] | None = None,
    pair_similarity: Callable[[Sequence[int], Sequence[int]], float] | None = None,
    background: float | None = None,
) -> float:
    """The threshold from the score distribution alone, never below the chance level. The linkage and feedback
    rules also read the scored pages (`pages`, in the order of `scores`, compared by `pair_similarity`;
    `background`, the site's background_similarity, when the caller has it); the feedback rule cuts scores its
    caller has recomputed with the template's nearest pages (feedback_pages)."""
    if rule in RULES_READING_PAGES:
        if pages is None or pair_similarity is None:
            raise ValueError(f"the {rule} rule reads the scored pages: pass pages and pair_similarity")
        cut = linkage_split_threshold if rule == "feedback" else linkage_threshold
        return cut(scores, chance, pages, pair_similarity, background=background)
    if rule == "valley":
        return valley_threshold(scores, chance)
    if rule == "valley-2":
        return valley_threshold(scores, chance, min_group=2)
    if rule == "gap":
        return gap_threshold(scores, chance)
    if rule == "nested":
        return nested_threshold(scores, chance)
    if rule == "minimum-error":
        return round(max(minimum_error_threshold(scores), chance), 4)
    if rule != "otsu":
        raise MethodError(f"unknown threshold rule {rule!r}: choose one of {', '.join(THRESHOLD_RULES)}")
    return round(max(otsu_threshold(scores), chance), 4)


@dataclass(frozen=True)
class Accuracy:
    """One row of the paper's Table 1: TUF targets, AF pages selected, TAF targets selected, RR, PR."""

    relation: str
    threshold: float
    tuf: int
    af: int
    taf: int

    @property
    def pr(self) -> float:  # Formula (2)
        return self.taf / self.af if self.af else 0.0

    @property
    def rr(self) -> float:  # Formula (3)
        return self.taf / self.tuf if self.tuf else 0.0

    @property
    def f1(self) -> float:
        return 2 * self.pr * self.rr / (self.pr + self.rr) if self.pr + self.rr else 0.0

    def as_dict(self) -> dict:
        return {
            "relation": self.relation,
            "threshold": self.threshold,
            "TUF": self.tuf,
            "AF": self.af,
            "TAF": self.taf,
            "PR": round(self.pr, 4),
            "RR": round(self.rr, 4),
        }


def accuracy(
    scores: Mapping[object, float], targets: set, threshold: float, *, relation: str = "", labelled=None
) -> Accuracy:
    """PR and RR (Formulas 2 and 3) of selecting score >= threshold, over `labelled` pages (default: all)."""
    pool = scores.keys() if labelled is None else labelled
    selected = {page for page in pool if scores.get(page, 0.0) >= threshold}
    tuf = len(targets & set(pool))
    return Accuracy(relation, round(threshold, 4), tuf, len(selected), len(selected & targets))


def best_threshold(
    scores: Mapping[object, float], targets: set, non_targets: set, *, relation: str = ""
) -> Accuracy:
    """§3.3 with labels: the threshold whose PR and RR over TWPS ∪ NTWPS are best (their harmonic mean, then
    PR). One sweep over the labelled pages sorted by score, so 10,000 labels cost milliseconds."""
    labelled = targets | non_targets
    tuf = len(targets & labelled)
    ranked = sorted(((round(scores.get(page, 0.0), 4), page in targets) for page in labelled), reverse=True)
    best = Accuracy(relation, 1.0, tuf, 0, 0)
    af = taf = 0
    for position, (score, is_target) in enumerate(ranked):
        af += 1
        taf += is_target
        if position + 1 < len(ranked) and ranked[position + 1][0] == score:
            continue  # a threshold selects every page of its score at once
        row = Accuracy(relation, score, tuf, af, taf)
        if (row.f1, row.pr) > (best.f1, best.pr):
            best = row
    return best


def select_relation(
    table: Mapping[str, Mapping[object, float]], targets: set, non_targets: set
) -> list[Accuracy]:
    """§3.3: each relation's best threshold and its PR/RR (the paper's Table 1), best relation first."""
    rows = [best_threshold(scores, targets, non_targets, relation=name) for name, scores in table.items()]
    return sorted(rows, key=lambda row: (row.f1, row.pr), reverse=True)
