"""Exact LCS of a template with pages when keys are not compared by hash: under a relation (RPSA) or with weights.

Pure. Both keep Algorithm 1's answer (Deng & He 2018) and only change how it is computed: `RelatedLCS` runs the
recurrence bit-parallel over "related" instead of "equal"; `WeightedLCS` finds the heaviest common subsequence
of two sequences that repeat no key (the default method's). Tests compare both with the plain O(n·m) table.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence


class WeightedLCS:
    """The heaviest common subsequence of a template with any page, when neither repeats a key (the default
    method keeps each key once), and Formula (1) with weights: that weight over the mean of the two pages'
    total weights. Without repeats a common subsequence is an increasing run of template positions taken in
    the page's order, so the heaviest one is a heaviest increasing subsequence: O(k log k) for k shared keys,
    over a staircase of (template position, best weight ending there) kept increasing in both."""

    def __init__(self, template: Sequence[int], weights: Sequence[float]):
        self.weights = weights
        self.positions = {key: position for position, key in enumerate(template)}
        self.total = sum(weights[key] for key in self.positions)

    def heaviest(self, page: Sequence[int]) -> float:
        positions, weights = self.positions, self.weights
        ends: list[int] = []
        bests: list[float] = []
        for key in page:
            position = positions.get(key)
            if position is None or weights[key] <= 0:
                continue
            at = bisect_left(ends, position)
            value = (bests[at - 1] if at else 0.0) + weights[key]
            stop = at
            while stop < len(ends) and bests[stop] <= value:
                stop += 1
            ends[at:stop] = [position]
            bests[at:stop] = [value]
        return bests[-1] if bests else 0.0

    def similarity(self, page: Sequence[int]) -> float:
        weights = self.weights
        total = self.total + sum(weights[key] for key in page)
        if total <= 0:
            # Pages made only of keys on every page: alike when both are, else nothing shared that counts.
            return 1.0 if self.total == 0 and all(weights[key] == 0 for key in page) else 0.0
        return self.heaviest(page) / (total / 2)


class RelatedLCS:
    """The LCS of a template with any page under a relation given by shared atoms (Algorithm 1's recurrence
    with "related" for "equal"), exact, by the bit-parallel form of that recurrence (Allison & Dix 1986;
    Hyyrö 2004): one column of the DP table is an integer of |template| bits, and a page node costs an AND,
    an add, a subtract and an OR. The recurrence only reads which template nodes the page node is related to
    (its match mask), never that the relation is transitive, so it holds for RPSA (tests check it against the
    plain DP on random relations)."""

    def __init__(self, template: Sequence[int], atoms: Sequence[tuple[int, ...]]):
        self.atoms = atoms
        self.length = len(template)
        self.full = (1 << self.length) - 1
        # Each atom's positions in the template as one integer, set bit by bit in a bytearray (OR-ing shifted
        # integers one position at a time would cost |template|² bits for a long template).
        bits: dict[int, bytearray] = {}
        size = (self.length + 7) // 8
        for position, key in enumerate(template):
            for atom in atoms[key]:
                row = bits.get(atom)
                if row is None:
                    row = bits[atom] = bytearray(size)
                row[position >> 3] |= 1 << (position & 7)
        self.masks = {atom: int.from_bytes(row, "little") for atom, row in bits.items()}
        self.columns: dict[int, int] = {}  # page key -> its match mask over the template

    def _mask(self, key: int) -> int:
        mask = self.columns.get(key)
        if mask is None:
            mask = 0
            for atom in self.atoms[key]:
                mask |= self.masks.get(atom, 0)
            self.columns[key] = mask
        return mask

    def lcs(self, page: Sequence[int]) -> int:
        full = column = self.full
        for key in page:
            mask = self._mask(key)
            if mask:
                kept = column & mask
                column = ((column + kept) | (column - kept)) & full
        return self.length - column.bit_count()

    def similarity(self, page: Sequence[int]) -> float:
        if not self.length and not page:
            return 1.0
        if not self.length or not page:
            return 0.0
        return self.lcs(page) / ((self.length + len(page)) / 2)


def related_lcs_by_table(a: Sequence, b: Sequence, related: Callable[[object, object], bool]) -> int:
    """Algorithm 1 as the paper writes it, O(|a|·|b|) in Python, for any relation: the reference RelatedLCS is
    tested against, and a way to check a relation on small trees by hand."""
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, y in enumerate(b, start=1):
            current.append(previous[j - 1] + 1 if related(x, y) else max(current[j - 1], previous[j]))
        previous = current
    return previous[-1]
