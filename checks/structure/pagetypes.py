"""Page types: pages grouped by structure (the default method's key sequences), without any template.

Pure. Pages with the very same key sequence form one group at once; the distinct sequences, most common
first, then join the most similar group leader at or above `threshold` (Formula (1)) or lead a new group;
a second pass moves each sequence to its most similar leader. Each comparison of a sequence with all leaders
is one rapidfuzz cdist call, so a 10,000-page crawl takes seconds (docs/benchmarks.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from rapidfuzz.distance import LCSseq
from rapidfuzz.process import cdist

# Two pages whose default-method similarity reaches this share a type. On the postgres docs reference pages
# score 0.6-0.9 to each other and other pages 0.1-0.4 to them (docs/structure.md).
TYPE_THRESHOLD = 0.5
# Groups smaller than this are reported together as "other" by the services, not as types of their own.
MIN_TYPE_SIZE = 2


@dataclass
class PageType:
    leader: object  # the page whose sequence stands for the type (a template for a filter)
    members: list  # page ids, the leader first

    @property
    def size(self) -> int:
        return len(self.members)


def _similarities(sequence: Sequence[int], leaders: list[list[int]], lengths: np.ndarray) -> np.ndarray:
    if not leaders:
        return np.zeros(0)
    common = cdist([sequence], leaders, scorer=LCSseq.similarity, dtype=np.int32)[0]
    mean = (len(sequence) + lengths) / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        scores = np.where(mean > 0, common / mean, 1.0)
    return scores


def page_types(
    sequences: Mapping[object, Sequence[int]], *, threshold: float = TYPE_THRESHOLD
) -> list[PageType]:
    """Group pages (id -> key sequence) into structural types, biggest first."""
    groups: dict[tuple, list] = {}
    for page, sequence in sequences.items():
        groups.setdefault(tuple(sequence), []).append(page)
    distinct = sorted(groups, key=lambda s: (-len(groups[s]), len(s)))
    leaders: list[list[int]] = []
    lengths = np.zeros(0)
    for sequence in distinct:
        scores = _similarities(sequence, leaders, lengths)
        if not len(scores) or scores.max() < threshold:
            leaders.append(list(sequence))
            lengths = np.append(lengths, len(sequence))
    # Second pass: every sequence to its most similar leader (a leader is most similar to itself).
    members: list[list] = [[] for _ in leaders]
    for sequence in distinct:
        scores = _similarities(sequence, leaders, lengths)
        members[int(np.argmax(scores))].extend(groups[sequence])
    types = []
    for leader, pages in zip(leaders, members, strict=True):
        if not pages:
            continue
        head = groups[tuple(leader)][0]
        ordered = [head] + [page for page in pages if page != head]
        types.append(PageType(leader=head, members=ordered))
    return sorted(types, key=lambda t: -t.size)
