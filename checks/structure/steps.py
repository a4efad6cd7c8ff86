"""The structural filter and page types in resumable phases (docs/analysis-jobs.md, "Steps that keep to their
budget"): each phase reads a chunk of pages in page order, saves what it made with its cursor in one
transaction, and stops once the step's time is up; the next step, in any process, goes on from the cursor.

A run in many steps ends with exactly the result of a run in one: a page's key sequence and score depend only
on the page, the method and the values common to the crawl (saved once, phase `common`); page types' key
integers are saved with the sequences (`Keyer.with_keys`), and their clustering state with its position
(`pagetypes.Clustering`). Rows are written by upsert on their unique (job, page): a chunk redone after a lost
lease rewrites its rows instead of adding or colliding.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

from django.db import transaction
from django.template.defaultfilters import pluralize

from checks.jobs import JobContext, JobError
from checks.jobs.scratch import scratch_delete, scratch_load, scratch_load_all, scratch_save
from checks.structure import services
from checks.structure import similarity as S
from checks.structure.models import PageSimilarity, PageTypeMember
from checks.structure.pagetypes import MIN_TYPE_SIZE, Clustering, PageType, group_sequences, type_name

# A chunk is sized to take a quarter of the step's budget (JobContext.chunk_took); the first is guessed from
# what a page costs: decoding, keying and scoring take ~0.3-0.5 ms a page (10,000 postgres docs pages: 4.7 s
# for the whole filter), so a 1-s step starts with 500 pages and a 20-s one with 10,000.
SECONDS_A_PAGE = 0.0005
# One sequence compared with every leader (one cdist call) at first; 10,000 pages' clustering took 7.9 s.
SECONDS_A_COMPARISON = 0.0005
MOST_CHUNK = 20_000
EXAMPLES = 5
UPSERT_BATCH = 1000

T = TypeVar("T")

COMMON = "common"  # scratch: the (tag, attribute, value) triples found on two pages or more
SEEN = "seen"  # scratch while phase `common` runs: each triple, with the pages holding it counted up to 2
WEIGHTS = "weights"  # scratch: the default method's keys, and the pages holding each (its weight: log N/df)
# Phase of the feedback rule (the default's): every page scored again with the template's nearest pages as
# templates (S.feedback_pages, chosen once and kept in the state as "feedback_pages").
FEEDBACK = "feedback"


def _timed(ctx: JobContext, key: str, seconds_each: float, work: Callable[[int], T]) -> T:
    """Run `work(size)` on a chunk sized for the step's budget, and size the next chunk by how long it took."""
    first = max(1, min(MOST_CHUNK, round(ctx.budget_seconds / 4 / seconds_each)))
    size = ctx.chunk_size(key, first=first, most=MOST_CHUNK)
    started = time.monotonic()
    outcome = work(size)
    ctx.chunk_took(key, size=size, seconds=time.monotonic() - started, most=MOST_CHUNK)
    return outcome


def _read_pages(ctx: JobContext, key: str, consume: Callable[[list], None]) -> bool:
    """Hand the next pages to `consume`, a chunk at a time, until the step's time is up (at least one chunk) or
    no page is left; True once none is left. Nothing is saved here: the caller saves what `consume` built with
    the cursor (`state["after"]`) in one transaction, once a step, so a partial result that grows with the
    crawl (counts, a key table) is written once a step rather than once a chunk."""
    crawl = ctx.job.crawl

    def read(size: int) -> int | None:
        doms, last = services.dom_chunk(crawl=crawl, after=ctx.state["after"], limit=size)
        if last is not None:
            consume(doms)
            ctx.state["after"] = last
        return last

    while True:
        if _timed(ctx, key, SECONDS_A_PAGE, read) is None:
            return True
        if time.monotonic() >= ctx.deadline:
            return False


def _next_phase(ctx: JobContext, phase: str) -> None:
    ctx.state.update(phase=phase, after=0)


def _triple(text: str) -> tuple[str, str, str]:
    tag, name, value = text.split("\x1f")
    return tag, name, value


def common_phase(ctx: JobContext, *, then: str) -> None:
    """Count the pages holding each (tag, attribute, value); keep those on two pages or more. The extract
    format strips \x1f from stored text, so it joins a triple safely."""
    job, crawl = ctx.job, ctx.job.crawl
    total = ctx.state.setdefault("pages", services.dom_pages(crawl=crawl))
    seen: dict[str, int] = scratch_load(job, SEEN, {})

    def consume(doms: list) -> None:
        for _, dom in doms:
            for triple in S.page_values(dom):
                key = "\x1f".join(triple)
                seen[key] = min(2, seen.get(key, 0) + 1)
        ctx.state["read"] = ctx.state.get("read", 0) + len(doms)

    done = _read_pages(ctx, COMMON, consume)
    with transaction.atomic():
        if done:
            scratch_save(job, COMMON, sorted(key for key, pages in seen.items() if pages >= 2))
            scratch_delete(job, SEEN)
            _next_phase(ctx, then)
        else:
            scratch_save(job, SEEN, seen)
        ctx.progress(done=0, note=f"{ctx.state.get('read', 0):,} of {total:,} pages' attributes counted")


def _common(ctx: JobContext, method: S.Method) -> set | None:
    if not method.needs_frequencies:
        return None
    return {_triple(text) for text in scratch_load(ctx.job, COMMON, [])}


# ---- the structural filter: backfill, labels, common, score, summary ------------------------------------------


def filter_steps(ctx: JobContext) -> bool:
    """The filter's phases after the backfill; True once the summary is saved."""
    if ctx.state.get("phase") == "analyse":
        _next_phase(ctx, "labels")
    if ctx.state["phase"] == "labels":
        _filter_labels(ctx)
        if ctx.time_up():
            return False
    if ctx.state["phase"] == COMMON:
        common_phase(ctx, then=WEIGHTS if "default" in _relations(ctx) else "score")
        if ctx.state["phase"] == COMMON or ctx.time_up():
            return False
    if ctx.state["phase"] == WEIGHTS:
        _filter_weights(ctx)
        if ctx.state["phase"] == WEIGHTS or ctx.time_up():
            return False
    if ctx.state["phase"] == "score":
        _filter_score(ctx)
        if ctx.state["phase"] == "score" or ctx.time_up():
            return False
    if ctx.state["phase"] == FEEDBACK:
        _filter_feedback(ctx)
        if ctx.state["phase"] == FEEDBACK or ctx.time_up():
            return False
    return _filter_summary(ctx)


def _feeds_back(ctx: JobContext) -> bool:
    """Whether the filter's scores are recomputed with the template's nearest pages: under the feedback rule, when
    the threshold is calibrated from the scores (none given, no labels: with labels the relations are compared
    on the plain similarity, and the threshold is the labels' best) and templates combine by their mean (the
    rule was measured so; with `max` a filter asks for any of several kinds, and the nearest pages of one would
    widen it)."""
    method = services.method_of(ctx.parameters)
    return (
        method.threshold_rule in S.RULES_WITH_FEEDBACK
        and method.combine == "mean"
        and ctx.parameters.get("threshold") is None
        and not ctx.state.get("labelled")
    )


def _filter_labels(ctx: JobContext) -> None:
    """Targets and non-targets by the URL pattern and the marked pages: one query and a linear RE2 pass."""
    job = ctx.job
    urls = services.scored_page_urls(crawl=job.crawl)
    targets, non_targets = services.labels(crawl=job.crawl, parameters=ctx.parameters, page_urls=urls)
    labelled = bool(targets) and bool(non_targets)
    # The comparison of relations (labelled filters only) scores every page under our methods too.
    needs_common = services.method_of(ctx.parameters).needs_frequencies or labelled
    with transaction.atomic():
        scratch_save(job, "labels", {"targets": sorted(targets), "non_targets": sorted(non_targets)})
        ctx.state["labelled"] = labelled
        _next_phase(ctx, COMMON if needs_common else "score")
        ctx.progress(done=0, note=f"{len(targets):,} targets, {len(non_targets):,} other pages labelled")


def _scorers(ctx: JobContext, relations: Sequence[str]) -> dict[str, tuple[S.Keyer, Callable]]:
    """For each relation: a keyer and the scorer of a page's sequence against the templates keyed by it."""
    parameters, crawl = ctx.parameters, ctx.job.crawl
    template_ids = parameters["template_ids"]
    templates = services.doms_of(crawl=crawl, page_ids=template_ids)
    if any(pid not in templates for pid in template_ids):
        raise JobError("a template page has no readable structure (its body is not HTML, or was pruned)")
    common_values = None
    scorers = {}
    for relation in relations:
        method = _method(ctx, relation)
        if method.needs_frequencies and common_values is None:
            common_values = _common(ctx, method)
        keyer = _keyer(ctx, method, common_values if method.needs_frequencies else None)
        scorers[relation] = (keyer, keyer.scorer([keyer.keys(templates[pid]) for pid in template_ids]))
    return scorers


def _relations(ctx: JobContext) -> list[str]:
    chosen = services.method_of(ctx.parameters).relation
    if not ctx.state.get("labelled"):
        return [chosen]
    return [chosen] + [r for r in ("rpsa", "csr", "default", "blocks") if r != chosen]


def _method(ctx: JobContext, relation: str) -> S.Method:
    """The filter's own method for its relation, else `relation` with the paper's or our node kinds."""
    chosen = services.method_of(ctx.parameters)
    return chosen if relation == chosen.relation else S.method_for(relation, combine=chosen.combine)


def _keyer(ctx: JobContext, method: S.Method, common: set | None) -> S.Keyer:
    """The keyer of `method`; for the default method, with the key integers and weights of phase `weights`."""
    if method.relation != "default":
        return S.Keyer(method, common=common)
    saved = scratch_load(ctx.job, WEIGHTS, {"keys": [], "holding": [], "pages": 0})
    keyer = S.Keyer.with_keys(method, common, saved["keys"])
    pages = saved["pages"]
    # As Keyer.weigh gives them over every page at once.
    keyer.weights = [S.key_weight(pages, held) for held in saved["holding"]]
    return keyer


def _filter_weights(ctx: JobContext) -> None:
    """Key every page under the default method, counting the pages that hold each key (its document
    frequency): the weights are the crawl's, so they need every page before any score."""
    job, crawl = ctx.job, ctx.job.crawl
    method = _method(ctx, "default")
    saved = scratch_load(job, WEIGHTS, {"keys": [], "holding": [], "pages": 0})
    keyer = S.Keyer.with_keys(method, _common(ctx, method), saved["keys"])
    holding = saved["holding"]
    total = ctx.state.setdefault("pages", services.dom_pages(crawl=crawl))

    def consume(doms: list) -> None:
        for _, dom in doms:
            keys = set(keyer.keys(dom))
            holding.extend([0] * (keyer.size - len(holding)))
            for key in keys:
                holding[key] += 1
        saved["pages"] += len(doms)

    done = _read_pages(ctx, WEIGHTS, consume)
    with transaction.atomic():
        scratch_save(job, WEIGHTS, {"keys": keyer.known_keys(), "holding": holding, "pages": saved["pages"]})
        if done:
            _next_phase(ctx, "score")
        ctx.progress(done=0, total=total, note=f"{saved['pages']:,} of {total:,} pages' blocks weighed")


def _save_scores(rows: list[PageSimilarity]) -> None:
    """Write the pages' scores by upsert on (job, page): a chunk redone after a lost lease rewrites its rows."""
    PageSimilarity.objects.bulk_create(
        rows,
        batch_size=UPSERT_BATCH,
        update_conflicts=True,
        unique_fields=["job", "page"],
        update_fields=["similarity", "match"],
    )


def _score_pages(
    ctx: JobContext,
    *,
    phase: str,
    then: str,
    counter: str,
    note: str,
    score: Callable[[object], float],
    beside: Callable[[int, list], None] | None = None,
) -> None:
    """Score the pages from the cursor, a chunk at a time until the step's time is up or none is left: each
    page's row (`score` of its dom) written by upsert with the cursor and `state[counter]` in one transaction,
    `beside(after, doms)` run in it too; on the last chunk the phase moves to `then`. The first pass (`score`)
    and the feedback rule's second (`feedback`) differ only in what they score and what they save beside."""
    job, crawl = ctx.job, ctx.job.crawl
    total = ctx.state.get("pages")
    while ctx.state["phase"] == phase and not ctx.time_up():

        def work(size: int) -> None:
            after = ctx.state["after"]
            doms, last = services.dom_chunk(crawl=crawl, after=after, limit=size)
            rows = [
                PageSimilarity(job=job, page_id=page_id, similarity=round(score(dom), 6), match=False)
                for page_id, dom in doms
            ]
            with transaction.atomic():
                _save_scores(rows)
                if beside is not None:
                    beside(after, doms)
                if last is None:
                    _next_phase(ctx, then)
                else:
                    ctx.state[counter] = ctx.state.get(counter, 0) + len(rows)
                    ctx.state["after"] = last
                done = ctx.state.get(counter, 0)
                ctx.progress(done=done, total=total, note=f"{done:,} {note}")

        _timed(ctx, phase, SECONDS_A_PAGE, work)


def _filter_score(ctx: JobContext) -> None:
    job, crawl = ctx.job, ctx.job.crawl
    ctx.state.setdefault("pages", services.dom_pages(crawl=crawl))
    relations = _relations(ctx)
    scorers = _scorers(ctx, relations)
    keyer, score = scorers[relations[0]]
    labels = scratch_load(job, "labels", {})
    labelled_ids = set(labels.get("targets", [])) | set(labels.get("non_targets", []))

    def other_relations(after: int, doms: list) -> None:
        # A labelled filter compares the relations (§3.3): its labelled pages are scored under the others too.
        others: dict[str, dict[str, float]] = {relation: {} for relation in relations[1:]}
        for page_id, dom in doms:
            if page_id in labelled_ids:
                for relation in relations[1:]:
                    other_keyer, other_score = scorers[relation]
                    others[relation][str(page_id)] = other_score(other_keyer.keys(dom))
        if any(others.values()):
            scratch_save(job, f"others:{after:012d}", others)

    _score_pages(
        ctx,
        phase="score",
        then=FEEDBACK if _feeds_back(ctx) else "summary",
        counter="scored",
        note="pages scored",
        score=lambda dom: score(keyer.keys(dom)),
        beside=other_relations if len(relations) > 1 else None,
    )


def _filter_feedback(ctx: JobContext) -> None:
    """The feedback rule's second pass: once, the template's nearest pages that the linkage rule selects
    (S.feedback_pages, reading the few dozen pages it weighs), kept in the state; then every page scored again
    against the templates and those pages (their mean, as a filter of several templates), chunk by chunk from
    the cursor, its row rewritten."""
    job, crawl, parameters = ctx.job, ctx.job.crawl, ctx.parameters
    template_ids = parameters["template_ids"]
    method = services.method_of(parameters)
    keyer = _keyer(ctx, method, _common(ctx, method))
    pair = keyer.pair_similarity()
    doms = services.doms_of(crawl=crawl, page_ids=template_ids)
    templates = [keyer.keys(doms[pid]) for pid in template_ids]
    if "feedback_pages" not in ctx.state:
        scores = dict(
            PageSimilarity.objects.filter(job=job).order_by("page_id").values_list("page_id", "similarity")
        )
        keyed = _KeyedPages(ctx, list(scores), keyer)
        # The chance level as the summary draws it (the same pages, the same seed).
        chance = S.chance_level(templates, keyed, pair_similarity=pair)
        other_ids = [pid for pid in scores if pid not in template_ids]
        others = _KeyedPages(ctx, other_ids, keyer)
        others.read = keyed.read
        positions = S.feedback_pages([scores[pid] for pid in other_ids], chance, others, pair)
        with transaction.atomic():
            ctx.state["feedback_pages"] = [other_ids[i] for i in positions]
            ctx.state["after"] = 0
            ctx.progress(
                done=0,
                total=ctx.state.get("pages"),
                note=f"scoring again with the template's {len(positions)} nearest pages",
            )
        if ctx.time_up():
            return
    nearest = services.doms_of(crawl=crawl, page_ids=ctx.state["feedback_pages"])
    score = keyer.scorer(templates + [keyer.keys(nearest[pid]) for pid in ctx.state["feedback_pages"]])
    _score_pages(
        ctx,
        phase=FEEDBACK,
        then="summary",
        counter="rescored",
        note="pages scored again",
        score=lambda dom: score(keyer.keys(dom)),
    )


class _KeyedPages(Sequence):
    """The crawl's scored pages as a sequence of key sequences, keyed only when read (chance_level draws 60, the
    linkage rule 30 and at most 40 a valley it weighs), each page read once."""

    def __init__(self, ctx: JobContext, page_ids: list[int], keyer: S.Keyer) -> None:
        self.ctx, self.page_ids, self.keyer = ctx, page_ids, keyer
        self.read: dict[int, list[int]] = {}

    def __len__(self) -> int:
        return len(self.page_ids)

    def __getitem__(self, position):  # type: ignore[override]
        return self.by_id(self.page_ids[position])

    def by_id(self, page_id: int) -> list[int]:
        keys = self.read.get(page_id)
        if keys is None:
            dom = services.doms_of(crawl=self.ctx.job.crawl, page_ids=[page_id])[page_id]
            keys = self.read[page_id] = self.keyer.keys(dom)
        return keys


class _ById(Mapping):
    """_KeyedPages by page id (what filter_summary reads the pages from)."""

    def __init__(self, keyed: _KeyedPages) -> None:
        self.keyed = keyed

    def __getitem__(self, page_id: int) -> list[int]:
        return self.keyed.by_id(page_id)

    def __iter__(self):
        return iter(self.keyed.page_ids)

    def __len__(self) -> int:
        return len(self.keyed.page_ids)


def _filter_summary(ctx: JobContext) -> bool:
    job, parameters = ctx.job, ctx.parameters
    scores = dict(
        PageSimilarity.objects.filter(job=job).order_by("page_id").values_list("page_id", "similarity")
    )
    if not scores:
        raise JobError(f"crawl #{job.crawl_id} has no HTML page with a readable structure")
    method = services.method_of(parameters)
    keyer = _keyer(ctx, method, _common(ctx, method))
    doms = services.doms_of(crawl=job.crawl, page_ids=parameters["template_ids"])
    templates = [keyer.keys(doms[pid]) for pid in parameters["template_ids"]]
    keyed = _KeyedPages(ctx, list(scores), keyer)
    chance = S.chance_level(templates, keyed, pair_similarity=keyer.pair_similarity())
    labels = scratch_load(job, "labels", {})
    other_scores: dict[str, dict[int, float]] = {}
    for chunk in scratch_load_all(job, "others:").values():
        for other, by_page in chunk.items():
            other_scores.setdefault(other, {}).update({int(pid): score for pid, score in by_page.items()})
    summary = services.filter_summary(
        parameters=parameters,
        scores=scores,
        chance=chance,
        targets=set(labels.get("targets", [])),
        non_targets=set(labels.get("non_targets", [])),
        other_scores=other_scores,
        pages=_ById(keyed),
        pair_similarity=keyer.pair_similarity(),
        fed_back=ctx.state.get("feedback_pages") is not None,
    )
    if (feedback := ctx.state.get("feedback_pages")) is not None:
        # The scores are the mean similarity to the templates and these pages (the feedback rule).
        summary["feedback_pages"] = feedback
    threshold = summary["threshold"]
    with transaction.atomic():
        PageSimilarity.objects.filter(job=job, similarity__gte=threshold).update(match=True)
        PageSimilarity.objects.filter(job=job, similarity__lt=threshold).update(match=False)
        ctx.progress(
            done=len(scores), total=len(scores), note=f"{summary['matches']:,} of {len(scores):,} pages match"
        )
    ctx.finish(result=summary)
    return True


# ---- page types: backfill, common, keys, cluster, write ----------------------------------------------------------


def pagetypes_steps(ctx: JobContext) -> bool:
    """Page types' phases after the backfill; True once every type is written."""
    if ctx.state.get("phase") == "analyse":
        _next_phase(ctx, COMMON)
    if ctx.state["phase"] == COMMON:
        common_phase(ctx, then="keys")
    for phase, run in (("keys", _types_keys), ("cluster", _types_cluster), ("write", _types_write)):
        if ctx.state["phase"] != phase:
            continue
        if ctx.time_up():
            return False
        run(ctx)
    return ctx.state["phase"] == "done"


def _types_keys(ctx: JobContext) -> None:
    """Key every page with one keyer, whose keys are saved beside the sequences so that they keep their integers."""
    job, crawl = ctx.job, ctx.job.crawl
    # Page types group by the unweighted blocks: a weight per key depends on the crawl's mix of types, and the
    # grouping threshold (0.5, pagetypes.TYPE_THRESHOLD) was measured on these (docs/structure.md).
    method = S.method_for("blocks")
    keyer = S.Keyer.with_keys(method, _common(ctx, method), scratch_load(job, "keys", []))
    total = ctx.state.setdefault("pages", services.dom_pages(crawl=crawl))
    first = ctx.state["after"]
    sequences: dict[str, list[int]] = {}

    def consume(doms: list) -> None:
        sequences.update({str(page_id): keyer.keys(dom) for page_id, dom in doms})

    done = _read_pages(ctx, "keys", consume)
    with transaction.atomic():
        scratch_save(job, f"sequences:{first:012d}", sequences)
        scratch_save(job, "keys", keyer.known_keys())
        ctx.state["keyed"] = ctx.state.get("keyed", 0) + len(sequences)
        if done:
            _group(ctx)
            _next_phase(ctx, "cluster")
        ctx.progress(done=0, total=total, note=f"{ctx.state['keyed']:,} pages keyed")


def _group(ctx: JobContext) -> None:
    """The distinct sequences with their pages, most common first, from the saved chunks (in page order)."""
    job = ctx.job
    sequences = {}
    for chunk in scratch_load_all(job, "sequences:").values():
        sequences.update({int(page_id): sequence for page_id, sequence in chunk.items()})
    if not sequences:
        raise JobError(f"crawl #{job.crawl_id} has no HTML page with a readable structure")
    scratch_save(job, "distinct", [[list(sequence), pages] for sequence, pages in group_sequences(sequences)])
    scratch_delete(job, "sequences:")


def _types_cluster(ctx: JobContext) -> None:
    """The clustering's comparisons until the step's time is up; its state is saved once a step."""
    job = ctx.job
    distinct = scratch_load(job, "distinct", [])
    clustering = Clustering([sequence for sequence, _ in distinct], state=scratch_load(job, "clustering"))
    done = _timed(ctx, "cluster", SECONDS_A_COMPARISON, clustering.advance)
    while not done and time.monotonic() < ctx.deadline:
        done = _timed(ctx, "cluster", SECONDS_A_COMPARISON, clustering.advance)
    position = clustering.state["position"] + (len(distinct) if clustering.state["pass"] == 2 else 0)
    with transaction.atomic():
        scratch_save(job, "clustering", clustering.state)
        if done:
            _next_phase(ctx, "write")
            ctx.state["type_next"] = 0
        ctx.progress(
            done=position,
            total=2 * len(distinct),
            note=f"{_counted(len(clustering.leaders), 'page type')} among "
            f"{_counted(len(distinct), 'distinct structure')}",
        )


def _types(ctx: JobContext) -> tuple[list[PageType], list[int]]:
    """(the types of at least MIN_TYPE_SIZE pages, biggest first; the pages of the smaller ones: "other")."""
    distinct = scratch_load(ctx.job, "distinct", [])
    clustering = Clustering([sequence for sequence, _ in distinct], state=scratch_load(ctx.job, "clustering"))
    types = clustering.types([pages for _, pages in distinct])
    kept = [page_type for page_type in types if page_type.size >= MIN_TYPE_SIZE]
    other = [page for page_type in types if page_type.size < MIN_TYPE_SIZE for page in page_type.members]
    return kept, other


def _type_entry(index: int, members: list[int], leader: int | None) -> dict:
    urls = services.page_urls(crawl=None, page_ids=members)
    examples = [urls[pid] for pid in members[:EXAMPLES]]
    shares = services.type_shares(members)
    if leader is None:
        return {
            "index": index,
            "size": len(members),
            "template": None,
            "template_id": None,
            "examples": examples,
            "other": True,
            **shares,
        }
    titles = services.page_titles(page_ids=members)
    return {
        "index": index,
        "name": type_name([urls[pid] for pid in members], [titles.get(pid, "") for pid in members]),
        "size": len(members),
        "template": urls[leader],
        "template_id": leader,
        "examples": examples,
        **shares,
    }


def _types_write(ctx: JobContext) -> None:
    """Types in order until the step's time is up: their pages' rows and summary entries (name, template,
    shares), saved together once a step; "other" comes last."""
    job = ctx.job
    kept, other = _types(ctx)
    groups = [(page_type.members, page_type.leader) for page_type in kept]
    if other:
        groups.append((other, None))
    first = index = ctx.state["type_next"]
    entries, rows = [], []
    while index < len(groups):
        members, leader = groups[index]
        entries.append(_type_entry(index, members, leader))
        rows += [PageTypeMember(job=job, page_id=pid, type_index=index) for pid in members]
        index += 1
        if time.monotonic() >= ctx.deadline:
            break
    with transaction.atomic():
        PageTypeMember.objects.bulk_create(
            rows,
            batch_size=UPSERT_BATCH,
            update_conflicts=True,
            unique_fields=["job", "page"],
            update_fields=["type_index"],
        )
        if entries:
            scratch_save(job, f"types:{first:06d}", entries)
        ctx.state["type_next"] = index
        ctx.progress(done=index, total=len(groups), note=f"{index} of {len(groups)} page types written")
    if index >= len(groups):
        _types_finish(ctx, groups)


def _counted(count: int, noun: str) -> str:
    """ "1 page type", "2 page types": the job page shows the last note as the job's summary."""
    return f"{count:,} {noun}{pluralize(count)}"


def _types_finish(ctx: JobContext, groups: list) -> None:
    summary = [entry for part in scratch_load_all(ctx.job, "types:").values() for entry in part]
    pages = sum(len(members) for members, _ in groups)
    with transaction.atomic():
        ctx.state["phase"] = "done"
        ctx.progress(done=len(groups), total=len(groups), note=_counted(len(summary), "page type"))
    ctx.finish(result={"types": summary, "pages": pages})
