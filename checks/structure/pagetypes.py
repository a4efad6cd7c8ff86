"""Page types: pages grouped by structure (the default method's key sequences), without any template.

Pure. Pages with the very same key sequence form one group at once; the distinct sequences, most common
first, then join the most similar group leader at or above `threshold` (Formula (1)) or lead a new group;
a second pass moves each sequence to its most similar leader. Each comparison of a sequence with all leaders
is one rapidfuzz cdist call, so a 10,000-page crawl takes seconds (docs/benchmarks.md).
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

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


def group_sequences(sequences: Mapping[object, Sequence[int]]) -> list[tuple[tuple[int, ...], list]]:
    """The distinct sequences with their pages, most common first (then shortest; then first seen)."""
    groups: dict[tuple, list] = {}
    for page, sequence in sequences.items():
        groups.setdefault(tuple(sequence), []).append(page)
    return sorted(groups.items(), key=lambda item: (-len(item[1]), len(item[0])))


class Clustering:
    """The two passes over the distinct sequences, resumable: `state` (plain lists and numbers) says where they
    stand, so that a job can save it between steps and go on in another process with the same outcome."""

    def __init__(
        self,
        distinct: Sequence[Sequence[int]],
        *,
        threshold: float = TYPE_THRESHOLD,
        state: dict | None = None,
    ) -> None:
        self.distinct = distinct
        self.threshold = threshold
        self.state = state or {"pass": 1, "position": 0, "leaders": [], "assigned": []}
        self.leaders = [list(distinct[i]) for i in self.state["leaders"]]
        self.lengths = np.array([len(leader) for leader in self.leaders], dtype=float)

    @property
    def done(self) -> bool:
        return self.state["pass"] == 2 and self.state["position"] >= len(self.distinct)

    def advance(self, items: int) -> bool:
        """Compare up to `items` sequences with the leaders; True once both passes are done."""
        state = self.state
        for _ in range(items):
            if self.done:
                break
            position = state["position"]
            if state["pass"] == 1 and position >= len(self.distinct):
                state["pass"], state["position"] = 2, 0
                continue
            sequence = self.distinct[position]
            scores = _similarities(sequence, self.leaders, self.lengths)
            if state["pass"] == 1:
                # A sequence like no leader so far leads a type of its own.
                if not len(scores) or scores.max() < self.threshold:
                    state["leaders"].append(position)
                    self.leaders.append(list(sequence))
                    self.lengths = np.append(self.lengths, len(sequence))
            else:
                # Second pass: every sequence to its most similar leader (a leader is most similar to itself).
                state["assigned"].append(int(np.argmax(scores)))
            state["position"] = position + 1
        return self.done

    def types(self, pages: Sequence[list]) -> list[PageType]:
        """The types, biggest first, once done; `pages[i]` are the pages of distinct sequence i."""
        members: list[list] = [[] for _ in self.leaders]
        for position, leader in enumerate(self.state["assigned"]):
            members[leader].extend(pages[position])
        types = []
        for leader, grouped in zip(self.state["leaders"], members, strict=True):
            if not grouped:
                continue
            head = pages[leader][0]
            ordered = [head] + [page for page in grouped if page != head]
            types.append(PageType(leader=head, members=ordered))
        return sorted(types, key=lambda t: -t.size)


def page_types(
    sequences: Mapping[object, Sequence[int]], *, threshold: float = TYPE_THRESHOLD
) -> list[PageType]:
    """Group pages (id -> key sequence) into structural types, biggest first."""
    distinct = group_sequences(sequences)
    clustering = Clustering([sequence for sequence, _ in distinct], threshold=threshold)
    clustering.advance(2 * len(distinct) + 1)
    return clustering.types([pages for _, pages in distinct])


# A type is named by a URL pattern when one covers at least this share of its pages.
NAME_COVERAGE = 0.6
_BOUNDARY = re.compile(r"[/\-_.]")
_WORD = re.compile(r"[^\W\d_]{3,}")


def _pattern(paths: list[str]) -> str | None:
    """ "/dir/prefix*suffix" from the paths' common start and end, cut at a separator; None when only "/*"."""
    if len(paths) == 1:
        return paths[0]
    start = os.path.commonprefix(paths)
    if not all(len(path) > len(start) and not path[len(start)].isalpha() for path in paths):
        # The shared start ends inside a word ("/sql-in" of insert and index): back to the last separator.
        start = start[: max((m.end() for m in _BOUNDARY.finditer(start)), default=0)]
    rests = [path[len(start) :] for path in paths]
    end = os.path.commonprefix([rest[::-1] for rest in rests])[::-1]
    end = end[end.find(".") :] if "." in end else ""
    return None if start in ("", "/") and not end.strip(".") else f"{start}*{end}"


def type_name(urls: Sequence[str], titles: Sequence[str] = ()) -> str:
    """What a page type is, in the words of its pages: the URL pattern its pages share ("/library/*.html";
    "mostly /ref/* (82%)" when most do), else the words all its titles share, else its first page's path."""
    paths = [urlsplit(url).path or "/" for url in urls]
    if not paths:
        return "no pages"
    whole = _pattern(paths)
    if whole and whole not in ("/*", "/*.html"):
        return whole
    by_top: Counter = Counter(path.split("/")[1] + "/" if path.count("/") > 1 else "" for path in paths)
    top, count = by_top.most_common(1)[0]
    if top and count / len(paths) >= NAME_COVERAGE:
        inside = _pattern([path for path in paths if path.startswith("/" + top)]) or f"/{top}*"
        return inside if count == len(paths) else f"mostly {inside} ({count / len(paths):.0%})"
    words = [set(_WORD.findall(title.lower())) for title in titles if title]
    shared = set.intersection(*words) if len(words) >= 2 else set()
    if shared:
        first = [word for word in _WORD.findall(titles[0].lower()) if word in shared]
        return "titles with “" + " ".join(dict.fromkeys(first)) + "”"
    return whole or f"pages like {paths[0]}"
