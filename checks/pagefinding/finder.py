"""webaudit's own page finder: best-first search over the links seen so far, each scored with BM25F over
its link text, the text around it and its URL's words (Robertson et al.), plus a share of its parent
page's relevance handed down with a decay (Shark-Search, Hersovici et al. 1998), less a penalty per level
of depth, plus what the pages read so far say of the query's topic (relevance feedback: Lavrenko and
Croft's relevance model, learnt as the search goes). The downloaded page that best covers the query (terms
weighted by their rarity) is the answer; the search stops when a page holds every query term, or when the
frontier stops promising better."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

from .alphabet import alphabet_letters, filed_under, is_letter
from .baselines import Settings
from .environment import BudgetExhausted, Environment, Link, Node, Page
from .symbolindex import rank_names
from .termindex import is_index_link, rank_entries
from .text import terms, text_digest, written_terms
from .twins import ViewLinks, twins_of

FIELD_WEIGHTS = {"label": 1.0, "context": 0.35, "url": 0.6}
K1 = 1.2
# Share of a parent's relevance a child inherits (Shark-Search's δ) and the penalty per level of depth.
INHERIT = 0.5
# A query term in a page's title counts this much more than one in its text (live pages have titles).
TITLE_BONUS = 1.0
DEPTH_PENALTY = 0.04
# The stopping rule. A search stops once its best page covers CONFIDENT of the query (rarity-weighted) and
# it has gone PATIENCE_SHARE times the downloads it took to find that page without finding a better one, and
# at least MIN_PATIENCE (UNSURE_PATIENCE while the best page's title lacks part of the query). Measured on
# generated graphs (seeds of the benchmark, N = 100 / 1000): CONFIDENT 0.7 and a share of 1 gave 0.90 / 0.65
# accuracy with 60 / 154 downloads; 0.5 and 0.25 give 0.88 / 0.63 with 38 / 103. On the test bed a minimum
# of 10 stopped short of "DROP SCHEMA" behind the information schema's schemata page, hence 25 when unsure.
CONFIDENT = 0.5
PATIENCE_SHARE = 0.25
MIN_PATIENCE = 10
UNSURE_PATIENCE = 25
# On live sites the search waits longer (session 14): a documentation site's target lies deeper in the frontier
# than a generated graph's (of the 148 targets never read on 65 case sets, 114 searches were ended by the stopping
# rule with the target unread behind links that say nothing: "Use", "Tree", "List of all members"). With a page
# whose own words are the query counting as sure (OWN_WORDS_SURE), most searches stop sooner, which pays for it:
# all 65 sets 0.796 / 0.872 / 33 -> 0.803 / 0.888 / 27 (accuracy / top 3 / median downloads). Generated graphs
# keep the values above, which their measured tables are for (docs/benchmarks.md).
LIVE_MIN_PATIENCE = 15
LIVE_UNSURE_PATIENCE = 35
# A page linked from several seen pages is likelier a hub; no bonus measured best on generated graphs.
HUB_BONUS = 0.0
# Relevance feedback (off: measured, no gain): the words of the pages read, each page weighted by the square
# of the query terms it holds, against the words of every page read, tell which words go with the query's
# topic; a link whose text holds such words gains FEEDBACK times their mean log-ratio. With 0.3, paired on the
# benchmark's seeds: N = 10,000 0.10 -> 0.11 accuracy with 138 -> 149 downloads (150 runs; 0.08 -> 0.18 on the
# first 60 was noise), N = 1000 0.41 -> 0.41 with 106 -> 116, N = 100 0.83 -> 0.84 (41 -> 42), the test bed 0.93 -> 0.94
# (docs/benchmarks.md). `benchmarks/pagefinding.py --feedback 0.3` runs it. SMOOTHING: its Dirichlet prior.
FEEDBACK = 0.0
SMOOTHING = 50.0
# An HTML index or site map lists the site's pages with their titles: one download that shows many links.
INDEX_LABELS = frozenset(terms("index site map sitemap contents table"))
INDEX_WORDS = frozenset(terms("index map sitemap contents"))  # "Table" alone is not a site index
INDEX_BONUS = 1.0  # test bed, 36 targets: 0.86 accuracy, median 10 downloads without; 0.89, 8.5 with
# A page's relevance weighs its words as BM25 does (Robertson et al.; k1 = PAGE_K1, length normalisation B):
# a page that repeats the query's words beats one that mentions them once among many others (an index page).
# With k1 = 1.2 a page's counts saturate after a few occurrences, so a book printed on one page (every word
# of its chapters) scored as high as the chapter itself; k1 = 5 keeps the counts' weight in proportion to
# the page's length for longer (issue 19's `tune` cases, python and django docs, 40: accuracy 0.72 -> 0.75
# with the site search, 0.65 -> 0.70 without; k1 = 20 gave 0.72 and 0.68; the title queries did not move).
B = 0.75
PAGE_K1 = 5.0
# The site's own search index (siteindex.py) ranks its pages for the query before any page is read: its
# SEARCH_CANDIDATES best become candidates with SEARCH_WEIGHT times their index score (1 = every query word
# in the title and text), ahead of any link.
SEARCH_CANDIDATES = 50
SEARCH_WEIGHT = 2.0
# A site may have several indexes (each book of a documentation site built with mdBook has its own, named on
# every one of its pages): the finder reads each one a page it reads names, up to this many.
MAX_SEARCH_INDEXES = 12
# A section of the site with its own index (a book) whose index holds no page with the whole query sends the
# search to the section's siblings (the other links of the page it was reached from: the other books): each
# gets SEARCH_WEIGHT times the share of the query the best index read lacks, the chance the page is elsewhere.
# Even when one index has a page with the whole query, another section may have it too: a sibling is worth
# at least what an index page holding the whole query in its text, none in its title, is worth (its score 1/3).
SIBLING_FLOOR = 1 / 3
# A site without a search index may have a term index (termindex.py: DocBook's bookindex, Sphinx's genindex),
# linked from its start page as "Index": its TERM_CANDIDATES best pages for the query become candidates with
# SEARCH_WEIGHT times their entries' score, as a search index's do; being partial, it rules no page out.
TERM_CANDIDATES = 10
TERM_WEIGHT = 0.5
# An API reference's symbol index (symbolindex.py: Javadoc's, Doxygen's) is partial as a term index is (names,
# not text): its best pages become candidates as the term index's do, with the same weight, for the same reason.
# The answer must hold at least this share of the query (rarity-weighted) or the search answers "not found":
# a page holding fewer of the query's words than it lacks is not the page asked for.
FOUND_SHARE = 0.5
# A page hands its topicality (how much it is about the query: BestFirst.read) down to each of its links
# as the chance that the link leads on to the topic; a page with n links gives each 1/n of its reader's
# clicks, and one that links hundreds of pages (Javadoc's "Index", a site map) holds the query's words
# because it holds every word, not because it is about them. What it hands down is divided by
# 1 + ln(n / HUB_LINKS): unchanged up to the links a documentation page's own navigation makes, halved at e
# times as many (issue 19, eighth round: tuned on Commons IO and the `tune` cases, HUB_LINKS 50 and 100
# alike, 200 none of the gain; measured held out in docs/benchmarks.md).
HUB_LINKS = 100
# A page is about the words it repeats: the query's words being the page's most frequent (less the words on
# more than COMMON_SHARE of the pages read, its site's navigation) adds DOMINANCE times that share to its
# relevance. Only once MIN_PAGES_FOR_COMMON pages are read (before, no word is known to be common); the
# TOP_WORDS most frequent words of each page are kept for it. Common is "on most pages read", not the 30% of
# the site a query maker may use: the pages read are the query's neighbourhood, where its topic's words are
# on many (tornado's release notes, read for "test testing stop fetch", share "ioloop" and "callback"; with
# 0.3 these were common, and every release note scored as if the query were its own words; issue 19, tenth
# round: 0.5 gained 14 cases of 500 seen, none lost, and one of 100 held out).
# A stricter credit, 1 / (1 + the page's own words above the query word), measured in session 13: +13 -9 hits on
# the 14 sets it was tried on, +5 -9 held out on 14 others (log4cplus 16 -> 12): not kept.
# Weighed twice (2.0, session 14) once the own words are counted as written (OWN_WORDS_UNSTEMMED): the case makers'
# queries are their targets' own most frequent words, which BM25 and the share held do not tell apart from a
# sibling's or a twin's words; with both, on all 65 sets (1,317 cases) 0.768 -> 0.796 accuracy, top 3 0.863 ->
# 0.872, median 33 downloads either way; session 14's seven held-out sets 0.810 -> 0.832 (docs/benchmarks.md).
DOMINANCE = 2.0
COMMON_SHARE = 0.5
MIN_PAGES_FOR_COMMON = 5
TOP_WORDS = 60
# Before it answers, the search reads the unread twins (twins.py: one thing's other views, named alike) of
# its TWIN_RANKS best pages, up to TWIN_READS of them: the query's words are on both, and which holds them
# most is known only by reading it.
TWIN_RANKS = 3
# The search does not stop while its best page would be answered "not found" (it holds less than FOUND_SHARE
# of the query): the stopping rule is about being sure of an answer, and a page holding one word of four is
# none (issue 19, tenth round: seen sets +6 of 220, held out +3 of 100, none lost; a search that finds
# nothing now reads on to its budget or the end of its frontier).
ANSWERABLE_TO_STOP = True
TWIN_READS = 6
# On live sites the twins read before answering include the best pages' view links (twins.ViewLinks): the other
# views a site's generator links from every page of a kind by one text, where URLs do not name them. Off:
# measured on the 65 case sets of issue 19 (session 15, paired) 0.803 / 0.889 / 28 -> 0.803 / 0.891 / 29. It finds
# pqxx's numbered member lists (+2), and loses Javadoc targets to the siblings its "Tree" and "Next Class" links
# read (Commons Codec, Collections): +3 -3 answered, +3 -1 in the top 3.
VIEW_LINKS = False
# A page longer than the pages read holds more of a query's words by its length alone, and one far longer holds
# most words of any query (Xerces-C's release archive, every release's notes on one page, 1.4 MB, held three of
# four words of most API queries and ended those searches before the API reference): holding them there is no
# sign of being about them. So the stopping rule weighs a page longer than a typical page read (the mean length
# of the other pages read, BM25's average length: one the site sets, not a fitted one) by its best passage of
# that length (passage-level evidence, Callan 1994): it is sure of the page only if some page-sized part of it
# holds the query's share an answer must (FOUND_SHARE). A page no longer than that is its own passage: nothing
# changes for it. The answer is still the best page by `coverage` (issue 19, fourteenth round: Xerces-C 9 -> 12
# hits of 20; held out, 25 sets, 373 of 520 either way, every case as before). The median length measured as
# well, but a site's stub pages make it a few words: a class page naming the query once in a sentence was then
# no answer to stop on.
PASSAGES_TO_STOP = True
# A link reading one letter on a page with an A-Z bar names the query words beginning with that letter: an
# alphabetical index files them there (alphabet.py; issue 19, twelfth round). What such a link leads to is told
# by its letter, not by the page it is on (LETTERS_INHERIT off): the letter pages of an index link each other,
# and the page of "r" being about the query says nothing of the page of "s".
LETTER_LINKS = True
LETTERS_INHERIT = False
# When to answer "not found" before the budget is spent (issue 19, session 11: a search for a page the site
# lacks read on to its budget, 100 downloads). Two signs that reading on will not find an answer, each asked only
# while no page read is one (it holds less than FOUND_SHARE of the query):
# - the frontier holds nothing promising: its best link scores at most 0 (nothing seen of any link, its text,
#   context, URL, an index's say or the page it is on, outweighs the depth it lies at), so the search reads blind,
#   as a person clicking links that say nothing of what they seek; after BLIND_PATIENCE such downloads in a row it
#   stops, as long without a lead as it waits for a better page when sure (MIN_PATIENCE). On the cases of nine
#   sites (180, traced) a blind run of 3 or 5 came before one hit (json-glib: the first lead after 6 blind reads),
#   of 8 or more before none;
# - NOT_FOUND_PATIENCE downloads without a better page: on those cases the longest such stretch before a hit was
#   35 downloads (JUnit 4; pg 34, Octave 30), 40 being the goal's median downloads for a search.
# Queries from another site's cases (80, ten a site on eight sites): 81 downloads a search on average, 58 with the
# first sign, 42 with both (docs/benchmarks.md, thirteenth round). Asked for only (`LiveSettings.give_up`: off, as
# it loses late hits on Doxygen sites whose pages link through a script menu).
BLIND_PATIENCE = 10  # MIN_PATIENCE's value when it was measured
NOT_FOUND_PATIENCE = 40
# A page's most frequent words are counted as the page writes them (WRITTEN_WORDS): an identifier joined by
# underscores is one word, not also its parts (text.written_terms). A person asking for a page by its own words
# names the words its sentences repeat; a Doxygen or gtk-doc page repeating `gtk_widget_show` in every signature
# is not thereby about "widget", yet counted by its parts it outranked the page whose prose is about widgets.
WRITTEN_WORDS = True
# The search does not stop on a page that is not about the query (ABOUT_TO_STOP): one where no query word is
# among its len(query) most frequent words of its own (less the site's common words, as DOMINANCE counts them).
# Holding the words is not being about them: a long listing or a sibling page holds most of a query's words in
# passing and, once sure of it, the search stopped before the page that repeats them.
ABOUT_TO_STOP = True
# A letter of an A-Z bar that files none of the query's words (alphabet.filed_under) is read last
# (OTHER_LETTERS_LAST): a person looking up "removechild" does not click "s", whatever page the bar is on.
# LAST_PENALTY puts such links below any other link of the frontier.
OTHER_LETTERS_LAST = True
LAST_PENALTY = 10.0
# A site's search index confirms the best page (`index_confirms`) only while every page read that could be an
# answer is one it covers (PARTIAL_INDEX_UNSURE): Sphinx writes its `_modules/` source listings, Doxygen-like
# generators their source files, outside the index, so a page read there that holds the query shows the index
# does not know every page that may be the answer, and its ranking proves nothing of them.
PARTIAL_INDEX_UNSURE = True
# A page's own words (DOMINANCE, ABOUT_TO_STOP) are counted unstemmed where the page's text is known
# (OWN_WORDS_UNSTEMMED; live pages: text.written_words): a person naming a page by the words it repeats names
# them as written, and stemming merges words the page keeps apart. Gloox's StreamHost member list says
# "including" once a line; its class page says "#include" once: stemmed, both held "includ" and the class page,
# longer, ranked first for "streamhost host including port".
OWN_WORDS_UNSTEMMED = True
# Where the site's search index counts the pages holding each word (Sphinx's), a word is common to the site
# when it is on more than SITE_COMMON_SHARE of them (COMMON_FROM_INDEX): the site's own count, not the pages
# read, which are the query's neighbourhood. 0.3 is the share the issue's queries leave out (issue 19: "appear
# on at most 30% of the site's pages"). Either count makes a word common (`_common`). Off: measured in session 14
# on the 25 Sphinx sets, with the index alone SymPy's searches never stopped (its examples' "import", "symbols" on
# most pages read, rare site-wide, outranked every query word); with either count, 0.878 / 0.936 without it and
# 0.876 / 0.934 with it.
COMMON_FROM_INDEX = False
SITE_COMMON_SHARE = 0.3
# A page whose own most frequent words are the query's makes the search as sure as a page titled with the
# query does (OWN_WORDS_SURE): the stopping rule waits the short patience for a better one, not the unsure one.
# It outweighs PARTIAL_INDEX_UNSURE's doubt: a page that repeats the query's words is sure however partial the
# site's index. Measured (all 65 sets, paired, with the index's common words and the unsure patience 35): median
# downloads 33 -> 26, accuracy 0.796 -> 0.793, top 3 0.872 -> 0.884; with the live patience (LIVE_MIN_PATIENCE)
# 0.803 / 0.888 / 27.
OWN_WORDS_SURE = True


def hub_damped(topicality: float, links: int) -> float:
    """The share of a page's topicality each of its `links` (distinct targets) inherits: all of it up to
    HUB_LINKS links, less by the log of how many times more it has (HUB_LINKS' comment)."""
    return topicality / (1 + math.log(max(1.0, links / HUB_LINKS)))


@dataclass
class Candidate:
    node: Node
    parent: Node
    link: Link
    depth: int
    inherited: float
    tf: dict[str, float] = field(default_factory=dict)  # weighted term frequency of query terms
    in_links: int = 1
    index_page: bool = False  # a link reading "Index", "Site map", "Contents": a page that lists the site
    # The words of each link text (and URL) pointing here, less the query's: what relevance feedback reads.
    other_words: list[tuple[str, ...]] = field(default_factory=list)
    prior: float = 0.0  # the site's search index's score for this page (0 … 1), when it has one
    indexed: bool = False  # the site's search index knows this page's words: its score says what it holds
    sibling: bool = False  # linked beside a section that has its own search index: maybe another one
    other_letter: bool = False  # reached only by A-Z letters filing none of the query (OTHER_LETTERS_LAST)


class BestFirst:
    def __init__(self, env: Environment, query: tuple[str, ...], settings: Settings) -> None:
        self.env, self.query, self.settings = env, query, settings
        self.wanted = frozenset(query)
        self.df: Counter[str] = Counter()
        self.documents = 0
        self.frontier: dict[Node, Candidate] = {}
        self.relevance: dict[Node, float] = {}  # downloaded pages: their weighted query coverage
        self.inherited: dict[Node, float] = {}
        self.topicality: dict[Node, float] = {}
        self.titles = 0
        self.title_df: Counter[str] = Counter()
        self.not_answers: set[Node] = set()  # a site search's result page guides but is not an answer
        self.background: Counter[str] = Counter()  # words of every page read
        self.background_total = 0
        self.feedback: Counter[str] = Counter()  # words of the pages read, weighted by their query terms
        self.feedback_total = 0.0
        self._topic_weights: dict[str, float] = {}  # topic_weight's cache, emptied when a page is read
        self.site_indexes: list = []  # the site's own search indexes read (siteindex.SiteIndex)
        self.indexes_named: set[str] = set()  # the URLs of those a page named, read or tried
        self.indexes_lack = 1.0  # the share of the query the best page of the best index read lacks
        self.index_scores: dict[Node, float] = {}  # its score for every page it knows (0: none of the query)
        self.read_as_index: set[Node] = set()  # term index pages read as indexes: not candidates as pages
        # The query's words as typed, by term: the site's index stems words its own way.
        self.typed: dict[str, str] = {}
        for word in settings.query_text.split():
            for term in terms(word):
                self.typed.setdefault(term, word)
        self.counts: dict[Node, Counter[str]] = {}  # query terms' frequencies on each page read
        self.word_df: Counter[str] = Counter()  # pages read holding each word (DOMINANCE's common words)
        self.pages_read = 0
        self.top_words: dict[Node, list[tuple[str, int]]] = {}  # each page read's most frequent words
        self.lengths: dict[Node, int] = {}
        self.positions: dict[Node, list[tuple[int, str]]] = {}  # query terms' places on long pages
        self.blind = 0  # downloads in a row whose link was no lead (BLIND_PATIENCE)
        self.written: dict[Node, Counter[str]] = {}  # query terms' frequencies on each page, as written
        self._common_words: dict[str, bool | None] = {}  # _common's cache (None: a word no index knows)
        self.typed_words = frozenset(word.lower() for word in settings.query_text.split())
        self.digests: dict[Node, str] = {}  # each page read's text digest: one page under two URLs is one
        self.views = ViewLinks()  # the link texts of the pages read (VIEW_LINKS)

    # Rarity of a term among the pages and link texts seen so far: a term on every page guides nowhere.
    def idf(self, term: str) -> float:
        if self.site_indexes:
            # The site's own count of the pages holding the word, over every index read (a site of several
            # books: the pages of all of them).
            counts = [index.document_frequency(self.typed.get(term, term)) for index in self.site_indexes]
            known = [df for df in counts if df is not None]
            if known:
                size, df = sum(index.size for index in self.site_indexes), sum(known)
                return math.log(1 + (size - df + 0.5) / (df + 0.5))
        return math.log(1 + (self.documents - self.df[term] + 0.5) / (self.df[term] + 0.5))

    def _count(self, words: frozenset[str]) -> None:
        self.documents += 1
        for term in self.wanted & words:
            self.df[term] += 1

    def query_weights(self) -> tuple[dict[str, float], float]:
        """Each query term's rarity (idf) as the pages read now weigh it, and their sum (1 when it is 0)."""
        weights = {term: self.idf(term) for term in self.query}
        return weights, sum(weights.values()) or 1.0

    def held(self, page: Page) -> float:
        """The rarity-weighted share of the query's terms that the page holds (0 … 1)."""
        weights, total = self.query_weights()
        return sum(weight for term, weight in weights.items() if term in page.term_set) / total

    def passage_held(self, page: Page) -> float:
        """`held` over the page's best passage as long as the mean page read (PASSAGES_TO_STOP's comment)."""
        window = self._typical_length(page.node)
        if not window or len(page.terms) <= window:
            return self.held(page)
        positions = self.positions.get(page.node)
        if positions is None:
            positions = self.positions[page.node] = [
                (i, term) for i, term in enumerate(page.terms) if term in self.wanted
            ]
        weights, total = self.query_weights()
        titled = self.wanted & frozenset(page.title_terms)  # the title heads every passage
        best, inside, first = 0.0, Counter(), 0
        for i, term in positions:
            inside[term] += 1
            while positions[first][0] <= i - window:
                gone = positions[first][1]
                inside[gone] -= 1
                if not inside[gone]:
                    del inside[gone]
                first += 1
            share = sum(weights[t] for t in self.wanted if t in inside or t in titled) / total
            best = max(best, share)
        return best

    def _typical_length(self, node: Node) -> int:
        """The mean length (terms) of the pages read other than `node`: what a page of this site is, as BM25's
        average length says (the page's own length left out: a page of 200,000 words would set its own window)."""
        others = [n for other, n in self.lengths.items() if other != node]
        return int(sum(others) / len(others)) if others else 0

    def bm25(self, page: Page) -> float:
        """BM25 of the page's text for the query, divided by its bound (every term saturated): 0 … 1."""
        counts = self.counts.get(page.node)
        if counts is None:
            counts = self.counts[page.node] = Counter(t for t in page.terms if t in self.wanted)
            self.lengths[page.node] = len(page.terms)
        average = sum(self.lengths.values()) / len(self.lengths)
        norm = PAGE_K1 * (1 - B + B * self.lengths[page.node] / max(1.0, average))
        weights, total = self.query_weights()
        total *= PAGE_K1 + 1  # the bound: every term saturated
        return sum(weights[t] * n * (PAGE_K1 + 1) / (n + norm) for t, n in counts.items()) / total

    def coverage(self, page: Page) -> float:
        """The page's relevance: the rarity-weighted share of the query it holds, its BM25 (which ranks the
        pages holding the whole query by how much they are about it), and a bonus for the query's share in
        the page's title."""
        weights, total = self.query_weights()
        text = self.held(page) + self.bm25(page) + DOMINANCE * self.dominance(page)
        if not page.title_terms:
            return text
        titled = frozenset(page.title_terms)
        in_title = sum(weight for term, weight in weights.items() if term in titled) / total
        # A title made of the query ("DROP SCHEMA") beats one that merely contains it among other words;
        # the words every title of the site carries ("Django documentation") do not count.
        own = titled - self.sitewide() or titled
        precision = len(own & self.wanted) / len(own)
        return text + TITLE_BONUS * in_title * (0.5 + 0.5 * precision)

    def dominance(self, page: Page) -> float:
        """How far the query's words are the page's own most frequent words (0 … 1): each query word scores
        1 when no more than len(query) of the page's words occur more often, less as more do. Words on more
        than COMMON_SHARE of the pages read (the site's navigation, boilerplate) are not the page's own."""
        if not DOMINANCE:
            return 0.0
        ranks = self.own_ranks(page)
        if ranks is None:
            return 0.0
        size = len(self.query)
        return sum(min(1.0, size / (above + 1)) if above >= size else 1.0 for above in ranks.values()) / size

    def own_ranks(self, page: Page) -> dict[str, int] | None:
        """For each query term on the page, how many of the page's own words (its TOP_WORDS most frequent, less
        the query's and the words on more than COMMON_SHARE of the pages read) it writes more often; None
        before MIN_PAGES_FOR_COMMON pages are read (no word is known to be common yet)."""
        if self.pages_read < MIN_PAGES_FOR_COMMON:
            return None
        top = self.top_words.get(page.node)
        if top is None:
            return None
        counts = self._query_counts(page)
        query_words = self.typed_words if self._unstemmed(page) else self.wanted
        own = [n for word, n in top if word not in query_words and not self._common(word)]
        return {term: sum(1 for m in own if m > counts[term]) for term in self.query if counts.get(term)}

    def about(self, page: Page) -> bool:
        """The page is about the query (ABOUT_TO_STOP's comment): a query word is among its len(query) most
        frequent words of its own. True while that cannot be told (too few pages read)."""
        ranks = self.own_ranks(page)
        return ranks is None or any(above < len(self.query) for above in ranks.values())

    def _common(self, word: str) -> bool:
        """A word of the site's navigation and boilerplate, not a page's own (DOMINANCE's comment): on more than
        COMMON_SHARE of the pages read or, where the site's search index counts it (COMMON_FROM_INDEX), on more
        than SITE_COMMON_SHARE of the site's pages. Either: a word on most pages of the query's neighbourhood
        (SymPy's "import", "symbols" in every example) is no page's own there, however rare it is site-wide."""
        if COMMON_FROM_INDEX and self.site_indexes:
            if word in self._common_words:
                common = self._common_words[word]
            else:
                counts = [index.document_frequency(word) for index in self.site_indexes]
                known = [df for df in counts if df is not None]
                size = sum(index.size for index in self.site_indexes)
                common = self._common_words[word] = sum(known) > SITE_COMMON_SHARE * size if known else None
            if common:
                return True
        return self.word_df[word] > COMMON_SHARE * self.pages_read

    @staticmethod
    def _unstemmed(page: Page) -> bool:
        return OWN_WORDS_UNSTEMMED and page.words is not None

    def _query_counts(self, page: Page) -> Counter[str]:
        """The query terms' frequencies on the page, counted as `top_words` counts its words (WRITTEN_WORDS;
        OWN_WORDS_UNSTEMMED: each term as the query types it)."""
        if self._unstemmed(page):
            return Counter({term: page.words[self.typed.get(term, term).lower()] for term in self.query})
        if not WRITTEN_WORDS:
            return self.counts.get(page.node) or Counter(t for t in page.terms if t in self.wanted)
        counts = self.written.get(page.node)
        if counts is None:
            counts = self.written[page.node] = Counter(
                t for t in written_terms(page.terms) if t in self.wanted
            )
        return counts

    def complete(self, page: Page) -> bool:
        """A page whose title is the query (less the site's common title words) ends the search; a page
        without a title, once it holds the whole query, on a generated graph only (`pages_titled`: on a live
        site an untitled page holding the words is weighed with the others, by the stopping rule)."""
        if not page.title_terms:
            return not self.env.pages_titled and self.wanted <= page.term_set
        titled = frozenset(page.title_terms)
        return self.wanted <= titled and titled - self.sitewide() <= self.wanted

    def own_share(self, page: Page) -> float | None:
        """The share of the query's words that none of the page's own words outranks (`own_ranks`); None while
        that cannot be told (too few pages read)."""
        ranks = self.own_ranks(page)
        if ranks is None:
            return None
        return sum(1 for above in ranks.values() if above == 0) / max(1, len(self.query))

    def titled_whole(self, node: Node) -> bool:
        page = self.env.download(node)  # in memory
        return page is not None and (not page.title_terms or self.wanted <= frozenset(page.title_terms))

    def index_confirms(self, node: Node) -> bool:
        """The site's own search index knows the page and every page it ranks as high has been read: what
        a person who looked through the site search's results down to this page would have seen."""
        score = self.index_scores.get(node)
        if not score:
            return False
        if PARTIAL_INDEX_UNSURE and self._answer_outside_index():
            return False
        return not any(c.indexed and c.prior >= score for c in self.frontier.values())

    def _answer_outside_index(self) -> bool:
        """A page read that the site's index does not cover holds FOUND_SHARE of the query: it could be the
        answer, and the index cannot say whether the pages like it that are left unread are better."""
        for node in self.relevance:
            if node in self.index_scores or node in self.not_answers or node == self.env.start:
                continue
            page = self.env.download(node)  # in memory
            if page is not None and self.held(page) >= FOUND_SHARE:
                return True
        return False

    def sitewide(self) -> frozenset[str]:
        """Title terms of more than half the pages read (once three have titles)."""
        if self.titles < 3:
            return frozenset()
        return frozenset(term for term, count in self.title_df.items() if count * 2 > self.titles)

    def _learn(self, page: Page) -> None:
        """Relevance feedback: add a page read to the background, and to the query's topic as much as it
        holds of the query (a page with two query terms says four times what a page with one says)."""
        counts = Counter(page.terms)
        self.background.update(counts)
        self.background_total += len(page.terms)
        held = len(self.wanted & page.term_set)
        if held and page.terms:
            weight = held**2
            for term, count in counts.items():
                self.feedback[term] += weight * count / len(page.terms)
            self.feedback_total += weight
        self._topic_weights.clear()

    def topic_weight(self, term: str) -> float:
        """How much likelier `term` is on pages of the query's topic than on pages at large (log-ratio,
        zero when not likelier): P(term | topic) against P(term | background), Dirichlet-smoothed."""
        weight = self._topic_weights.get(term)
        if weight is None:
            if not self.feedback_total:
                return 0.0
            background = (self.background[term] + 0.5) / (
                self.background_total + 0.5 * (len(self.background) + 1)
            )
            topical = (self.feedback[term] + SMOOTHING * background) / (self.feedback_total + SMOOTHING)
            weight = self._topic_weights[term] = max(0.0, math.log(topical / background))
        return weight

    def topicality_of_link(self, candidate: Candidate) -> float:
        """The best of the link texts pointing to the candidate, each by its words' mean topic weight."""
        return max(
            (sum(map(self.topic_weight, words)) / len(words) for words in candidate.other_words if words),
            default=0.0,
        )

    def link_score(self, candidate: Candidate) -> float:
        if candidate.other_letter:
            return -LAST_PENALTY - DEPTH_PENALTY * candidate.depth
        weights, total = self.query_weights()
        text = sum(weights[t] * tf * (K1 + 1) / (tf + K1) for t, tf in candidate.tf.items()) / total
        if candidate.indexed:
            # The site's index has read the page: what it holds is known, better than what the page it was
            # found on suggests (no inheritance); its link texts still name it (a title, a version number
            # the index splits into digits).
            return SEARCH_WEIGHT * candidate.prior + text - DEPTH_PENALTY * candidate.depth
        return (
            text
            + SEARCH_WEIGHT * candidate.prior
            + INHERIT * candidate.inherited
            + HUB_BONUS * math.log(candidate.in_links)
            + (INDEX_BONUS if candidate.index_page else 0.0)
            + (SEARCH_WEIGHT * max(self.indexes_lack, SIBLING_FLOOR) if candidate.sibling else 0.0)
            + (FEEDBACK * self.topicality_of_link(candidate) if FEEDBACK else 0.0)
            - DEPTH_PENALTY * candidate.depth
        )

    def ruled_out(self, candidate: Candidate) -> bool:
        """A page the site's own index says holds none of the query's words, and no link to which names one:
        it is not the page, and reading it would cost a download for its links alone. Not read."""
        return candidate.indexed and not candidate.prior and not candidate.tf

    def _index_knows(self, candidate: Candidate) -> None:
        score = self.index_scores.get(candidate.node)
        if score is not None:
            candidate.indexed, candidate.prior = True, score

    def _add_links(self, node: Node, page: Page, depth: int) -> None:
        relevance = hub_damped(self.topicality.get(node, 0.0), len({link.target for link in page.links}))
        handed_down = relevance if relevance > 0 else INHERIT * self.inherited.get(node, 0.0)
        letters = alphabet_letters(link.text for link in page.links) if LETTER_LINKS else frozenset()
        for link in page.links:
            if self.env.downloaded(link.target) or link.target in self.read_as_index:
                continue
            self._count(frozenset(link.label) | frozenset(link.context) | frozenset(link.url_terms))
            tf: Counter[str] = Counter()
            for name, words in (("label", link.label), ("context", link.context), ("url", link.url_terms)):
                for word in words:
                    if word in self.wanted:
                        tf[word] += FIELD_WEIGHTS[name]
            handed = handed_down
            other_letter = False
            if letters and is_letter(link.text):
                # An A-Z bar's letter names the query words its index page files (LETTER_LINKS' comment).
                handed = handed_down if LETTERS_INHERIT else 0.0
                filed = [term for term in filed_under(link.text, self.typed) if term in self.wanted]
                for term in filed:
                    tf[term] += FIELD_WEIGHTS["label"]
                other_letter = OTHER_LETTERS_LAST and not filed
            other_words = tuple(word for word in link.label + link.url_terms if word not in self.wanted)
            known = self.frontier.get(link.target)
            if known is None:
                known = self.frontier[link.target] = Candidate(
                    link.target, node, link, depth + 1, handed, dict(tf), other_words=[other_words]
                )
                known.index_page = bool(set(link.label) & INDEX_WORDS) and set(link.label) <= INDEX_LABELS
                known.other_letter = other_letter
                self._index_knows(known)
                continue
            known.other_words.append(other_words)
            known.other_letter = known.other_letter and other_letter  # another way in: read as it deserves
            # Several links to one page: their texts add up to one document about it (an index lists a page
            # under several entries), which BM25 saturates; the best parent is kept.
            known.in_links += 1
            for term, value in tf.items():
                known.tf[term] = known.tf.get(term, 0.0) + value
            if handed > known.inherited:
                known.inherited, known.parent, known.link = handed, node, link

    def read(self, node: Node, page: Page | None, depth: int) -> None:
        if page is None:
            self.relevance[node] = 0.0
            return
        self._count(page.term_set)
        self.pages_read += 1
        if self._unstemmed(page):
            words = page.words
        else:
            written = written_terms(page.terms) if WRITTEN_WORDS else page.terms
            words = Counter(t for t in written if len(t) >= 4 and t.isalpha())
        self.word_df.update(words.keys())
        self.top_words[node] = words.most_common(TOP_WORDS)
        if FEEDBACK:
            self._learn(page)
        if page.title_terms:
            self.titles += 1
            self.title_df.update(frozenset(page.title_terms))
        if VIEW_LINKS and self.env.pages_titled:
            self.views.add(node, page.links)
        self.relevance[node] = self.coverage(page)
        # What a page hands its links is how much it is about the query (its BM25, length-normalised), not
        # how many of the query's words it holds: a long page naming most of them once in passing (a header
        # file, a changelog, an index) leads on to the topic less than a short page about it (issue 19, ninth
        # round: measured on four sites nobody had looked at, and on the earlier ones; docs/benchmarks.md).
        self.topicality[node] = self.bm25(page)
        self._add_links(node, page, depth)

    def _other_sources(self, start: Page | None) -> None:
        """On live sites: the site's sitemap adds candidates known by their URL alone, and the site's own
        search form, filled with the query, adds its results page's links."""
        env = self.env
        if start is None or not hasattr(env, "sitemap_links"):
            return
        if env.settings.use_sitemap:
            for link in env.sitemap_links():
                if link.target in self.frontier or env.downloaded(link.target):
                    continue
                tf: Counter[str] = Counter(t for t in link.url_terms if t in self.wanted)
                shown = Link(target=link.target, label=(), text="(sitemap)", url_terms=link.url_terms)
                self.frontier[link.target] = Candidate(
                    link.target,
                    env.start,
                    shown,
                    1,
                    0.0,
                    {t: FIELD_WEIGHTS["url"] * n for t, n in tf.items()},
                )
        if env.settings.use_site_search:
            # The index the start page's search box loads (mdBook's, MkDocs') first: a site that names one has
            # no search page to read for another (Material's search form names the page itself).
            self._read_named_index(env.start, start)
            index = env.search_index() if not self.site_indexes else None
            if index is not None:
                self._use_index(index, env.start)
        if self.site_indexes:
            return
        if env.settings.use_site_search and env.settings.use_symbol_index:
            index = env.symbol_index(self.settings.query_text)
            if index is not None:
                ranked = rank_names(index, self.settings.query_text, TERM_CANDIDATES)
                self._add_index_candidates(ranked, "(site symbol index)")
        if env.settings.use_term_index:
            self._read_term_index(start)
        url = env.search_url(self.settings.query_text) if env.settings.use_site_search else None
        if url and not env.downloaded(url):
            self.not_answers.add(url)
            self.frontier.pop(url, None)
            results = env.download(url, via=(env.start, Link(target=url, label=(), text="(site search)")))
            if results is not None and (
                not self.wanted & results.term_set
                or text_digest(results.terms) == getattr(env, "search_page_digest", "")
            ):
                # A results page that says none of the query's words, or says what the search page says without
                # a query, shows no results: a script fills them in in a browser (rustdoc's search). Its links
                # are the search page's, not results.
                results = None
            self.read(url, results, 0)

    def _read_term_index(self, start: Page) -> None:
        """Read the term index the start page links as "Index" (termindex.py), once: its best pages for the
        query become candidates, ranked by the entries that name them (a prior; no page is ruled out)."""
        env = self.env
        url = next((link.target for link in start.links if is_index_link(link.text)), None)
        if url is None or env.downloaded(url):
            return
        self.read_as_index.add(url)
        self.frontier.pop(url, None)
        index = env.term_index(url)
        if index is not None:
            self._add_index_candidates(
                rank_entries(index, self.settings.query_text, TERM_CANDIDATES), "(site term index)"
            )

    def _add_index_candidates(self, ranked: list[tuple[str, float]], text: str) -> None:
        """A partial index's (a term index's, a symbol index's) best pages for the query become candidates
        with TERM_WEIGHT times its score as their prior; no page is ruled out."""
        env = self.env
        for target, score in ranked:
            if env.downloaded(target) or target in self.read_as_index:
                continue
            shown = Link(target=target, label=(), text=text)
            candidate = self.frontier.setdefault(target, Candidate(target, env.start, shown, 1, 0.0))
            candidate.prior = max(candidate.prior, TERM_WEIGHT * score)

    def _read_named_index(self, node: Node, page: Page | None, parent: Node | None = None) -> None:
        """Read the search index a page names for its own search box (mdBook's), once, on live sites."""
        env = self.env
        url = getattr(page, "search_index", "")
        if (
            not url
            or url in self.indexes_named
            or len(self.indexes_named) >= MAX_SEARCH_INDEXES
            or not getattr(env, "settings", None)
            or not env.settings.use_site_search
        ):
            return
        self.indexes_named.add(url)
        index = env.named_search_index(url)
        if index is None:
            return
        self._use_index(index, node)
        self.indexes_lack = min(self.indexes_lack, 1.0 - index.best_share(self.settings.query_text))
        siblings = env.download(parent) if parent is not None and env.downloaded(parent) else None
        for link in siblings.links if siblings is not None else ():  # in memory: no new download
            known = self.frontier.get(link.target)
            if known is not None:
                known.sibling = True

    def _use_index(self, index, found_on: Node) -> None:
        """The site's own search index ranks its pages for the query: every page it knows is scored by what
        it holds, and its SEARCH_CANDIDATES best become candidates (reached from the page that named it)."""
        env = self.env
        self.site_indexes.append(index)
        ranked = index.rank(self.settings.query_text, limit=None)
        for url in index.urls:
            self.index_scores.setdefault(url, 0.0)
        self.index_scores.update(ranked)
        for known in self.frontier.values():
            self._index_knows(known)
        depth = 1 if found_on == env.start else 2
        for url, _ in ranked[:SEARCH_CANDIDATES]:
            if env.downloaded(url) or url in self.frontier:
                continue
            shown = Link(target=url, label=(), text="(site search index)")
            self._index_knows(self.frontier.setdefault(url, Candidate(url, found_on, shown, depth, 0.0)))

    def ranking(self) -> list[tuple[Node, float]]:
        """The pages read that hold part of the query, most relevant first (recomputed as rarity changes)."""
        scored = []
        for node in self.relevance:
            if node in self.not_answers:
                continue
            page = self.env.download(node)  # in memory: no new download
            if page is None or not self.wanted & page.term_set:
                continue
            scored.append((node, self.coverage(page)))
        scored.sort(key=lambda item: -item[1])
        return self._one_url_a_page(scored)

    def _one_url_a_page(self, scored: list[tuple[Node, float]]) -> list[tuple[Node, float]]:
        """The ranking with each page once: a site serving one file under two URLs (`/` and `/index.html`, a
        page and its copy) shows it once, under the URL read first, so a copy takes no runner-up's place."""
        seen: set[str] = set()
        kept = []
        for node, score in scored:
            digest = self._digest(node)
            if digest in seen:
                continue
            seen.add(digest)
            kept.append((node, score))
        return kept

    def _digest(self, node: Node) -> str:
        """The digest of a page read (its title and words); the URL itself for a page that could not be read."""
        digest = self.digests.get(node)
        if digest is None:
            page = self.env.download(node)  # in memory
            digest = text_digest((page.title, *page.terms)) if page is not None else f"unread {node}"
            self.digests[node] = digest
        return digest

    def answer(self) -> Node | None:
        """The most relevant page read, or None when it holds less than FOUND_SHARE of the query; the
        ranking, the answer's runners-up, is left on the environment either way."""
        ranked = self.env.ranked = self.ranking()
        if not ranked:
            return None
        best = self.env.download(ranked[0][0])
        return ranked[0][0] if best is not None and self.held(best) >= FOUND_SHARE else None

    def run(self) -> Node | None:
        env = self.env
        start = env.download(env.start)
        self.read(env.start, start, 0)
        if start is not None and self.complete(start):
            return self.answered(env.start)
        best_score, best_node, improved_at = self.relevance[env.start], env.start, env.downloads
        self._other_sources(start)
        cap = env.max_downloads or self.settings.budget
        while self.frontier and env.downloads < cap:
            recorded = self._recorded_choice()
            if recorded is not None:
                # Replaying a search that stopped between steps: the records say which candidate came next.
                # Ranking the frontier has no side effect, so skipping it changes nothing but the time (it is
                # most of a long search's CPU); the stopping rule is still asked, since the page recorded next
                # may be a twin read after the search stopped here (`_read_twins`).
                if self._stops(best_score, best_node, improved_at):
                    break
                top_score, chosen = self.link_score(recorded), recorded
            else:
                scored = sorted(
                    ((self.link_score(c), c) for c in self.frontier.values() if not self.ruled_out(c)),
                    key=lambda item: -item[0],
                )
                if not scored:
                    break
                top_score, chosen = scored[0]
                env.frontier = [(c.node, round(score, 3), c.link.text) for score, c in scored[:5]]
                if self._stops(best_score, best_node, improved_at):
                    break
                if self._patience_spent(best_score, best_node, improved_at):
                    # Sure of the best page but it is no answer (ANSWERABLE_TO_STOP): its twins first, as
                    # `_read_twins` would read them had the search stopped (a replay takes them as recorded).
                    twin = self._unread_twin()
                    if twin is not None and twin[0] in self.frontier:
                        chosen = self.frontier[twin[0]]
                        top_score = self.link_score(chosen)
            if self._gives_up(top_score, best_node, improved_at):
                break
            del self.frontier[chosen.node]
            page = env.download(chosen.node, via=(chosen.parent, chosen.link), score=top_score)
            self.inherited[chosen.node] = chosen.inherited
            self.read(chosen.node, page, chosen.depth)
            self._read_named_index(chosen.node, page, chosen.parent)
            if page is not None and chosen.node not in self.not_answers and self.complete(page):
                return self.answered(chosen.node)
            if chosen.node not in self.not_answers:
                # The best page's relevance as the pages read now weigh it (rarity and the site's common words
                # change as pages are read): a page is better only than the best as it stands now.
                best_page = env.download(best_node)  # in memory
                if best_page is not None and best_node not in self.not_answers:
                    best_score = self.coverage(best_page)
                if self.relevance[chosen.node] > best_score:
                    best_score, best_node, improved_at = (
                        self.relevance[chosen.node],
                        chosen.node,
                        env.downloads,
                    )
        answer = self._read_twins(cap)
        if answer is not None:
            return self.answered(answer)
        if env.max_downloads is not None and env.downloads >= env.max_downloads:
            # The auditor's budget ran out before the search was sure: report nothing rather than a guess
            # (the pages it read are still shown, as candidates).
            self.env.ranked = self.ranking()
            raise BudgetExhausted()
        return self.answer()

    def _patience_spent(self, best_score: float, best_node: Node, improved_at: int) -> bool:
        """The best page is good enough and the search has gone long enough without finding a better one
        (CONFIDENT's comment)."""
        waited = self.env.downloads - improved_at
        sure, unsure = (
            (LIVE_MIN_PATIENCE, LIVE_UNSURE_PATIENCE)
            if self.env.pages_titled  # a live site
            else (MIN_PATIENCE, UNSURE_PATIENCE)
        )
        patience = max(
            sure
            if self.titled_whole(best_node)
            or self.index_confirms(best_node)
            or self._own_words_sure(best_node)
            else unsure,
            int(improved_at * PATIENCE_SHARE),
        )
        return best_score >= CONFIDENT and waited >= patience

    def _own_words_sure(self, node: Node) -> bool:
        if not OWN_WORDS_SURE or len(self.query) < 2:
            return False
        page = self.env.download(node)  # in memory
        return page is not None and self._unstemmed(page) and self.own_share(page) == 1.0

    def _gives_up(self, top_score: float, best_node: Node, improved_at: int) -> bool:
        """No page read is an answer and reading on looks vain: the frontier's best link (`top_score`) was no lead
        for BLIND_PATIENCE downloads in a row, or NOT_FOUND_PATIENCE downloads found no better page (their
        comment). Counts the blind downloads. Only when the search asks for it (`LiveSettings.give_up`)."""
        self.blind = self.blind + 1 if top_score <= 0 else 0
        if not getattr(getattr(self.env, "settings", None), "give_up", False):
            return False
        if self.blind <= BLIND_PATIENCE and self.env.downloads - improved_at < NOT_FOUND_PATIENCE:
            return False
        best = self.env.download(best_node)  # in memory
        return best is None or self.held(best) < FOUND_SHARE

    def _stops(self, best_score: float, best_node: Node, improved_at: int) -> bool:
        """The stopping rule: patience spent, and the best page is an answer (ANSWERABLE_TO_STOP)."""
        if not self._patience_spent(best_score, best_node, improved_at):
            return False
        if ANSWERABLE_TO_STOP:
            best = self.env.download(best_node)  # in memory
            if best is None:
                return False
            held = self.passage_held(best) if PASSAGES_TO_STOP else self.held(best)
            if held < FOUND_SHARE:
                return False
        if ABOUT_TO_STOP:
            best = self.env.download(best_node)  # in memory
            return best is not None and self.about(best)
        return True

    def _read_twins(self, cap: int) -> Node | None:
        """Read the unread twins of the best pages (TWIN_RANKS' comment), best page first, until none is left,
        TWIN_READS are read or the budget is spent; a twin that ends the search (`complete`) is returned."""
        env, read = self.env, 0
        while read < TWIN_READS and env.downloads < cap:
            twin = self._unread_twin()
            if twin is None:
                return None
            node, parent, link = twin
            known = self.frontier.pop(node, None)
            depth = known.depth if known is not None else 1
            page = env.download(node, via=(parent, link), score=None)
            self.read(node, page, depth)
            read += 1
            if page is not None and self.complete(page):
                return node
        return None

    def _unread_twin(self) -> tuple[Node, Node, Link] | None:
        for node, _ in self.ranking()[:TWIN_RANKS]:
            page = self.env.download(node)  # in memory
            if page is None:
                continue
            links = {link.target: link for link in reversed(page.links)}  # the first link to each
            twins = twins_of(node, links)
            if VIEW_LINKS and self.env.pages_titled:
                twins += [target for target in self.views.of(node, page.links) if target not in twins]
            for target in twins:
                if (
                    not self.env.downloaded(target)
                    and target not in self.read_as_index
                    and self.index_scores.get(target) != 0.0  # the site's index: none of the query there
                ):
                    return target, node, links[target]
        return None

    def _recorded_choice(self) -> Candidate | None:
        """The candidate a recorded search downloaded next (live sites replaying their records), if any."""
        next_page = getattr(self.env, "next_recorded_page", None)
        url = next_page() if next_page is not None else None
        return None if url is None else self.frontier.get(url)

    def answered(self, node: Node) -> Node:
        """A page that ends the search is the answer; the other pages read are its runners-up."""
        digest = self._digest(node)
        ranked = [item for item in self.ranking() if self._digest(item[0]) != digest]
        page = self.env.download(node)
        self.env.ranked = [(node, self.coverage(page) if page is not None else 1.0), *ranked]
        return node


def best_first(env: Environment, query: tuple[str, ...], s: Settings) -> Node | None:
    return BestFirst(env, query, s).run()
