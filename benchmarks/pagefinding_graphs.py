"""The paper's generated web sites: an evolving copy model with Zipf degrees, node text from a topic
vocabulary, edge labels drawn from the target node's words with probability α, and a query drawn likewise.

Every choice the paper leaves open is a field of `GraphParameters` and is written down in
docs/pagefinding.md. The words are synthetic (the paper's Norwegian LOS keywords are not available): they
are already terms, so stemming and stop-word removal leave them as they are.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass, field
from itertools import accumulate

from checks.pagefinding.environment import Environment, Link, Node, Page

_CONSONANTS = "bcdfghjklmnprstvz"
_VOWELS = "aeiou"


@dataclass(frozen=True)
class GraphParameters:
    n: int = 1000
    alpha: float = 0.75  # a label word (and a query word) comes from the target node's words
    topics: int = 50
    topic_words: int = 400
    general_words: int = 600
    text_length: tuple[int, int] = (10, 40)  # words of a node, uniform
    keywords: tuple[int, int] | None = None  # a node's text repeats this many keywords of its own
    topic_share: float = 0.8  # a node word comes from the node's topic, else from the general words
    word_zipf: float = 1.0  # word frequency within a word list ~ 1 / rank^s
    degree_zipf: float = 1.2  # in-degree d of a new node: P(d) ~ d^-γ on 1 … max_degree
    max_degree: int = 60  # with γ = 1.2: 8-9 links a page on average, 11% of pages without links
    copy_probability: float = 0.5  # a new node's i-th in-link is copied from its prototype's i-th
    topic_inheritance: float = 0.8  # a new node takes its prototype's topic
    same_topic_link: float = 0.8  # an uncopied in-link comes from a node of the same topic
    # A new node also gets a link from the start (a home page or site map) with this probability; the
    # default puts OPTIMAL's path length where the paper's table has it (2.0-2.9 downloads).
    start_link_share: float = 0.0
    label_length: tuple[int, int] = (1, 3)
    # How a label or query word "within the node text" is chosen: uniform over the node's distinct words
    # ("distinct"), or a random word of its text ("text"; a word written three times is thrice as likely).
    word_choice: str = "distinct"
    query_length: int = 5
    # Topical locality. In the copy model a new node is made from a prototype: it copies the prototype's
    # links and, as a copied page does, part of its text; here each of its words is one of the prototype's
    # with this probability. 0 draws node texts independently of the graph: nothing to navigate by.
    text_copy: float = 0.0
    # The prototype links to its copy (a page links to the pages made from it, a section to its
    # subpages), so that linked pages share words: parents resemble children, grandparents less so.
    prototype_link: float = 0.0
    # The pages made from the start page (the home page) are the site's sections, each on a topic of its own,
    # which its pages then inherit (with `topic_inheritance`): a site organised by topic, as LOS is.
    sections: bool = False
    # LOS is a hierarchy (themes, their subthemes, their keywords). With `subtopics` > 0 each of the `topics`
    # themes has that many subthemes of `subtopic_words` words each; a node's word is one of its subtheme's
    # with probability `subtopic_share`, else as before (its theme's with `topic_share`, else general). A new
    # node keeps its prototype's subtheme with `topic_inheritance`, else its theme with `theme_inheritance`
    # (a new subtheme of it), else takes any; uncopied in-links come from its subtheme (`same_topic_link`).
    subtopics: int = 0
    subtopic_words: int = 100
    subtopic_share: float = 0.5
    theme_inheritance: float = 0.8
    # LOS as a taxonomy (`los_hierarchy`; docs/pagefinding.md, assumption 10): `los_themes` main themes, each
    # of `los_subthemes` subthemes, each of `los_keywords` keywords, every level with its own words
    # (`los_level_words`: theme, subtheme, keyword). Node 0 is the home page; every other node is the page of
    # one entry of the taxonomy, drawn uniformly over all entries (so most are keyword pages). Each word of
    # its text is a word of its theme, subtheme or keyword with `los_level_shares` (the share of a level below
    # the page's own goes to its own level), else a general word. The copy model takes a new page's prototype
    # among its siblings (the pages of the same parent entry) with `los_sibling_prototype`, and an uncopied
    # in-link comes, with `same_topic_link`, from a page of its parent entry (else of the nearest ancestor
    # entry with a page; the home page for a theme page only), so that a page's parents describe it:
    # home → theme → subtheme → keyword.
    los_hierarchy: bool = False
    los_themes: int = 20
    los_subthemes: int = 10
    los_keywords: int = 20
    los_level_words: tuple[int, int, int] = (20, 20, 20)
    los_level_shares: tuple[float, float, float] = (0.25, 0.3, 0.35)
    los_sibling_prototype: float = 0.8


@dataclass
class Graph:
    texts: list[tuple[str, ...]]
    out: list[list[int]]
    labels: list[list[tuple[str, ...]]]  # parallel to out
    topics: list[int]
    vocabulary: list[str]
    # A page's text holds its link texts, as an HTML page's does (and as live pages are read).
    link_text_in_page: bool = True
    # Pages as read, shared by every search over this graph (a benchmark runs many on one graph).
    pages: dict[int, Page] = field(default_factory=dict)
    # `los_hierarchy` only: each node's (theme, subtheme, keyword), subthemes and keywords numbered
    # across the whole taxonomy, and each level's word lists by that number.
    taxonomy: list[tuple[int, int, int]] = field(default_factory=list)
    level_words: tuple[list[list[str]], ...] = ()


def _words(count: int, rng: random.Random, taken: set[str]) -> list[str]:
    words: list[str] = []
    while len(words) < count:
        syllables = rng.randint(2, 4)
        word = "".join(rng.choice(_CONSONANTS) + rng.choice(_VOWELS) for _ in range(syllables))
        if word not in taken:
            taken.add(word)
            words.append(word)
    return words


def _zipf_weights(count: int, exponent: float) -> list[float]:
    return list(accumulate(1.0 / (rank**exponent) for rank in range(1, count + 1)))


def generate(params: GraphParameters, rng: random.Random) -> Graph:
    """A site of `params.n` nodes; node 0 is the start, and every node is reachable from it."""
    if params.word_choice not in ("distinct", "text"):
        raise ValueError(f"word_choice must be 'distinct' or 'text', not {params.word_choice!r}")
    if params.los_hierarchy:
        return _generate_los(params, rng)
    taken: set[str] = set()
    general = _words(params.general_words, rng, taken)
    topic_lists = [_words(params.topic_words, rng, taken) for _ in range(params.topics)]
    topic_cum = _zipf_weights(params.topic_words, params.word_zipf)
    subs = max(1, params.subtopics)
    # (Options that are off draw nothing: the default graphs stay those of the same seeds.)
    sub_lists = (
        [_words(params.subtopic_words, rng, taken) for _ in range(params.topics * subs)]
        if params.subtopics
        else []
    )
    sub_cum = _zipf_weights(params.subtopic_words, params.word_zipf)
    general_cum = _zipf_weights(params.general_words, params.word_zipf)
    degree_cum = _zipf_weights(params.max_degree, params.degree_zipf)
    n = params.n
    topics = [0] * n
    parents: list[list[int]] = [[] for _ in range(n)]
    by_topic: dict[int, list[int]] = {}
    topics[0] = rng.randrange(params.topics * subs)
    by_topic.setdefault(topics[0], []).append(0)
    prototypes = [0] * n
    for k in range(1, n):
        prototype = prototypes[k] = rng.randrange(k)
        if params.sections and prototype == 0:
            topic = rng.randrange(params.topics * subs)
        elif rng.random() < params.topic_inheritance:
            topic = topics[prototype]
        elif params.subtopics and rng.random() < params.theme_inheritance:
            topic = topics[prototype] // subs * subs + rng.randrange(subs)
        else:
            topic = rng.randrange(params.topics * subs)
        topics[k] = topic
        degree = min(k, rng.choices(range(1, params.max_degree + 1), cum_weights=degree_cum)[0])
        chosen: list[int] = []
        for i in range(degree):
            if rng.random() < params.copy_probability and i < len(parents[prototype]):
                source = parents[prototype][i]
            elif rng.random() < params.same_topic_link and by_topic.get(topic):
                source = rng.choice(by_topic[topic])
            else:
                source = rng.randrange(k)
            if source not in chosen:
                chosen.append(source)
        if params.prototype_link and prototype not in chosen and rng.random() < params.prototype_link:
            chosen.insert(0, prototype)
        if k > 1 and 0 not in chosen and rng.random() < params.start_link_share:
            chosen.append(0)
        parents[k] = chosen
        by_topic.setdefault(topic, []).append(k)
    texts = []
    for k in range(n):
        own = topic_lists[topics[k] // subs]
        sub = sub_lists[topics[k]] if params.subtopics else own

        def draw(own: list[str] = own, sub: list[str] = sub) -> str:
            if params.subtopics and rng.random() < params.subtopic_share:
                return rng.choices(sub, cum_weights=sub_cum)[0]
            if rng.random() < params.topic_share:
                return rng.choices(own, cum_weights=topic_cum)[0]
            return rng.choices(general, cum_weights=general_cum)[0]

        length = rng.randint(*params.text_length)
        if k and params.text_copy > 0:
            source = texts[prototypes[k]]
            texts.append(
                tuple(
                    rng.choice(source) if rng.random() < params.text_copy else draw() for _ in range(length)
                )
            )
        elif params.keywords is None:
            texts.append(tuple(draw() for _ in range(length)))
        else:
            # The node's own few keywords, repeated through its text (the paper's pages are made of keywords).
            keywords = [draw() for _ in range(rng.randint(*params.keywords))]
            texts.append(tuple(rng.choice(keywords) for _ in range(length)))
    vocabulary = general + [word for words in topic_lists for word in words]
    if params.subtopics:
        vocabulary += [word for words in sub_lists for word in words]
    out, labels = _links(parents, texts, vocabulary, params, rng)
    return Graph(texts=texts, out=out, labels=labels, topics=topics, vocabulary=vocabulary)


def _generate_los(params: GraphParameters, rng: random.Random) -> Graph:
    """The copy model over a LOS-like taxonomy (see `GraphParameters.los_hierarchy`)."""
    taken: set[str] = set()
    general = _words(params.general_words, rng, taken)
    themes, subthemes, keywords = params.los_themes, params.los_subthemes, params.los_keywords
    counts = (themes, themes * subthemes, themes * subthemes * keywords)
    level_words = tuple(
        [_words(size, rng, taken) for _ in range(count)]
        for size, count in zip(params.los_level_words, counts, strict=True)
    )
    level_cum = [_zipf_weights(size, params.word_zipf) for size in params.los_level_words]
    general_cum = _zipf_weights(params.general_words, params.word_zipf)
    degree_cum = _zipf_weights(params.max_degree, params.degree_zipf)
    n = params.n
    # An entry is (level, number): level 0 a theme, 1 a subtheme, 2 a keyword; numbers run across the
    # taxonomy, so an entry's parent is (level - 1, number // children); the home page is (-1, 0).
    children = (subthemes, keywords)
    entries: list[tuple[int, int]] = [(-1, 0)]
    pages_of: dict[tuple[int, int], list[int]] = {(-1, 0): [0]}
    siblings_of: dict[tuple[int, int], list[int]] = {}

    def parent_entry(entry: tuple[int, int]) -> tuple[int, int]:
        level, number = entry
        return (-1, 0) if level == 0 else (level - 1, number // children[level - 1])

    def parent_pages(entry: tuple[int, int]) -> list[int]:
        """The pages of `entry`'s parent entry, else of its grandparent, …; none above the theme: the home
        page links to theme pages only, as a LOS site's front page lists its themes."""
        own_level = entry[0]
        while (entry := parent_entry(entry)) != (-1, 0) and not pages_of.get(entry):
            pass
        return [] if entry == (-1, 0) and own_level != 0 else pages_of.get(entry, [])

    parents: list[list[int]] = [[] for _ in range(n)]
    total = sum(counts)
    for k in range(1, n):
        pick = rng.randrange(total)
        level = 0 if pick < counts[0] else 1 if pick < counts[0] + counts[1] else 2
        entry = (level, pick - sum(counts[:level]))
        entries.append(entry)
        family = siblings_of.get(parent_entry(entry))
        prototype = (
            rng.choice(family) if family and rng.random() < params.los_sibling_prototype else rng.randrange(k)
        )
        degree = min(k, rng.choices(range(1, params.max_degree + 1), cum_weights=degree_cum)[0])
        chosen: list[int] = []
        for i in range(degree):
            if rng.random() < params.copy_probability and i < len(parents[prototype]):
                source = parents[prototype][i]
            elif rng.random() < params.same_topic_link and (above := parent_pages(entry)):
                source = rng.choice(above)
            else:
                source = rng.randrange(k)
            if source not in chosen:
                chosen.append(source)
        parents[k] = chosen
        pages_of.setdefault(entry, []).append(k)
        siblings_of.setdefault(parent_entry(entry), []).append(k)
    taxonomy: list[tuple[int, int, int]] = []
    texts = []
    for level, number in entries:
        path = [-1, -1, -1]
        if level >= 0:
            path[level] = number
            for up in range(level, 0, -1):
                path[up - 1] = path[up] // children[up - 1]
        taxonomy.append((path[0], path[1], path[2]))
        text = []
        for _ in range(rng.randint(*params.text_length)):
            roll = rng.random()
            word = None
            for depth, share in enumerate(params.los_level_shares):
                if roll < share:
                    own = min(depth, level)  # a level below the page's own gives its share to its own
                    if own >= 0:
                        words = level_words[own][path[own]]
                        word = rng.choices(words, cum_weights=level_cum[own])[0]
                    break
                roll -= share
            text.append(word or rng.choices(general, cum_weights=general_cum)[0])
        texts.append(tuple(text))
    vocabulary = general + [word for level in level_words for words in level for word in words]
    out, labels = _links(parents, texts, vocabulary, params, rng)
    return Graph(
        texts=texts,
        out=out,
        labels=labels,
        topics=[subtheme for _, subtheme, _ in taxonomy],
        vocabulary=vocabulary,
        taxonomy=taxonomy,
        level_words=level_words,
    )


def _links(
    parents: list[list[int]],
    texts: list[tuple[str, ...]],
    vocabulary: list[str],
    params: GraphParameters,
    rng: random.Random,
) -> tuple[list[list[int]], list[list[tuple[str, ...]]]]:
    """Every node's out-links (to the nodes that chose it as a parent) and each link's anchor text."""
    out: list[list[int]] = [[] for _ in parents]
    labels: list[list[tuple[str, ...]]] = [[] for _ in parents]
    for k in range(1, len(parents)):
        for source in parents[k]:
            out[source].append(k)
            labels[source].append(_label(texts[k], vocabulary, params, rng))
    return out, labels


def _label(text: tuple[str, ...], vocabulary: list[str], params: GraphParameters, rng: random.Random):
    # Like the query, a label draws from the node's distinct words: "words within the node" in the paper.
    own = set(text)
    distinct = sorted(own) if params.word_choice == "distinct" else text
    words = []
    for _ in range(rng.randint(*params.label_length)):
        if rng.random() < params.alpha:
            words.append(rng.choice(distinct))
        else:
            while (word := rng.choice(vocabulary)) in own:
                pass
            words.append(word)
    return tuple(words)


def make_query(graph: Graph, target: int, params: GraphParameters, rng: random.Random) -> tuple[str, ...]:
    """`params.query_length` distinct words: from the target's words with probability α, else from the
    words of other nodes that the target does not hold."""
    own = sorted(set(graph.texts[target])) if params.word_choice == "distinct" else graph.texts[target]
    query: list[str] = []
    for _ in range(params.query_length * 20):
        if len(query) == params.query_length:
            break
        if rng.random() < params.alpha:
            word = rng.choice(own)
        else:
            other = rng.randrange(len(graph.texts))
            word = rng.choice(graph.texts[other])
            if word in own:
                continue
        if word not in query:
            query.append(word)
    return tuple(query)


class GeneratedSite(Environment):
    def __init__(self, graph: Graph, *, max_downloads: int | None = None) -> None:
        super().__init__(0, max_downloads=max_downloads)
        self.graph = graph
        # A page's text holds its link texts, as an HTML page does (and as live pages are read).
        self.link_text_in_page = True

    @property
    def size(self) -> int:
        return len(self.graph.texts)

    def _fetch(self, node: Node) -> tuple[Page | None, str]:
        index = int(node)  # type: ignore[call-overload]
        page = self.graph.pages.get(index)
        if page is None:
            graph = self.graph
            links = [
                Link(target=target, label=label, text=" ".join(label))
                for target, label in zip(graph.out[index], graph.labels[index], strict=True)
            ]
            words = graph.texts[index]
            if graph.link_text_in_page:
                words += tuple(word for label in graph.labels[index] for word in label)
            page = graph.pages[index] = Page(node=index, terms=words, links=links)
        return page, ""

    def shortest_path(self, target: int) -> list[int]:
        """The shortest start … target path, from perfect knowledge of the graph (for OPTIMAL)."""
        parent: dict[int, int | None] = {0: None}
        queue = deque([0])
        while queue:
            node = queue.popleft()
            if node == target:
                break
            for child in self.graph.out[node]:
                if child not in parent:
                    parent[child] = node
                    queue.append(child)
        if target not in parent:
            return []
        path = [target]
        while (up := parent[path[-1]]) is not None:
            path.append(up)
        return path[::-1]

    def label(self, node: Node) -> str:
        return f"p{node}"
