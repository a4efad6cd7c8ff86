"""Structural filters and page types over a crawl's stored `dom` extracts (docs/structure.md)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence

from django.core.exceptions import ValidationError

from checks.jobs import JobInputError
from checks.structure import similarity as S
from checks.structure.extract import DomSequence, ExtractFormatError, decode
from sites.crawler.urls import normalize_url
from sites.models import BROKEN_VERDICTS, Crawl, Link, Page, PageBody, PageExtract, page_key
from sites.patterns import compile_user_pattern
from sites.services.extracts import page_extracts_backfill

log = logging.getLogger(__name__)

EXTRACT = "dom"
MAX_TEMPLATES = 20


def html_pages(crawl: Crawl):
    """The crawl's fetched HTML pages in its scope: what filters and page types look at."""
    return Page.objects.filter(
        crawl=crawl, state=Page.State.DONE, is_internal=True, content_type__icontains="html"
    )


def crawl_page_by_url(*, crawl: Crawl, url: str) -> Page | None:
    """The crawl's page for `url`, as given or normalized, by its URL or by where it redirected."""
    candidates = {url.strip()}
    normalized = normalize_url(url.strip(), crawl.site.url)
    if normalized:
        candidates.add(normalized)
    page = Page.objects.filter(crawl=crawl, url_key__in=[page_key(u) for u in candidates]).first()
    if page is None:
        page = Page.objects.filter(crawl=crawl, final_url__in=candidates).first()
    return page


def template_pages(*, crawl: Crawl, urls: Iterable[str]) -> list[Page]:
    """The template pages for `urls`; JobInputError says which URL cannot serve and why."""
    pages = []
    for url in urls:
        page = crawl_page_by_url(crawl=crawl, url=url)
        if page is None:
            raise JobInputError(f"{url} is not a page of crawl #{crawl.pk}")
        if not html_pages(crawl).filter(pk=page.pk).exists():
            raise JobInputError(
                f"{url} is not an HTML page of crawl #{crawl.pk} ({page.content_type or 'no content'})"
            )
        stored = PageExtract.objects.filter(page=page, name=EXTRACT).exclude(data=b"").exists()
        if not stored and not PageBody.objects.filter(page=page).exists():
            raise JobInputError(f"the body of {url} was pruned: it cannot serve as a template")
        if page not in pages:
            pages.append(page)
    return pages


def filter_parameters(crawl: Crawl, raw: dict) -> dict:
    """Clean a filter's parameters (the kind's `clean`): templates, relation, threshold, attributes, labels."""
    templates = [u for u in raw.get("templates") or [] if str(u).strip()]
    if not templates:
        raise JobInputError("give at least one template page")
    if len(templates) > MAX_TEMPLATES:
        raise JobInputError(f"at most {MAX_TEMPLATES} template pages")
    if not html_pages(crawl).exists():
        raise JobInputError(f"crawl #{crawl.pk} has no HTML pages")
    try:
        method = S.method_for(
            raw.get("relation") or None,
            tags=raw.get("tags") or None,
            attributes=raw.get("attributes") or None,
            combine=raw.get("combine") or "mean",
        )
        threshold = raw.get("threshold")
        threshold = None if threshold in (None, "") else S.check_threshold(float(threshold))
    except (TypeError, ValueError) as exc:  # MethodError is a ValueError
        raise JobInputError(str(exc)) from None
    pattern = (raw.get("target_pattern") or "").strip()
    if pattern:
        try:
            compile_user_pattern(pattern, what="target pattern")
        except ValidationError as exc:
            raise JobInputError(exc.messages[0]) from None
    pages = template_pages(crawl=crawl, urls=templates)
    return {
        "templates": [page.url for page in pages],
        "template_ids": [page.pk for page in pages],
        "relation": method.relation,
        "tags": sorted(method.tags),
        "attributes": [f"{tag}.{name}" for tag, name in method.attributes],
        "combine": method.combine,
        "threshold": threshold,
        "target_pattern": pattern,
        "targets": list(raw.get("targets") or []),
        "non_targets": list(raw.get("non_targets") or []),
        "filter_id": raw.get("filter_id"),
    }


def method_of(parameters: dict) -> S.Method:
    return S.method_for(
        parameters["relation"],
        tags=parameters.get("tags") or None,
        attributes=parameters.get("attributes") or None,
        combine=parameters.get("combine", "mean"),
    )


def dom_backfill(*, crawl: Crawl, limit: int) -> int:
    """Extract up to `limit` stored bodies that lack their `dom` extract (crawls older than the extractor)."""
    return page_extracts_backfill(crawl=crawl, name=EXTRACT, limit=limit)


def _html_extracts(crawl: Crawl):
    """The stored `dom` extracts of the crawl's HTML pages (filters and page types read no other page)."""
    return PageExtract.objects.filter(
        name=EXTRACT,
        page__crawl=crawl,
        page__state=Page.State.DONE,
        page__is_internal=True,
        page__content_type__icontains="html",
    )


def _decoded(rows: Iterable[tuple[int, bytes]]) -> list[tuple[int, DomSequence]]:
    doms = []
    for page_id, data in rows:
        if not data:
            continue  # read, with nothing to keep
        try:
            doms.append((page_id, decode(bytes(data))))
        except ExtractFormatError as exc:
            log.warning("page %s: %s", page_id, exc)
    return doms


def dom_chunk(*, crawl: Crawl, after: int, limit: int) -> tuple[list[tuple[int, DomSequence]], int | None]:
    """The decoded extracts of up to `limit` HTML pages past page id `after`, in page order, and the last page id
    read (None when none is left). Pages with an empty or unreadable extract are read and left out."""
    rows = list(
        _html_extracts(crawl)
        .filter(page_id__gt=after)
        .order_by("page_id")
        .values_list("page_id", "data")[:limit]
    )
    return _decoded(rows), (rows[-1][0] if rows else None)


def dom_pages(*, crawl: Crawl) -> int:
    """How many HTML pages have a stored extract (the chunks' total, for progress)."""
    return _html_extracts(crawl).count()


def doms_of(*, crawl: Crawl, page_ids: Iterable[int]) -> dict[int, DomSequence]:
    """The decoded extracts of these pages (templates, a sample), by page id."""
    ids = list(page_ids)
    rows = _html_extracts(crawl).filter(page_id__in=ids).values_list("page_id", "data")
    return dict(_decoded(rows))


def scored_page_urls(*, crawl: Crawl) -> dict[int, str]:
    """The URLs of the HTML pages with a non-empty extract, by page id: the pages a filter labels."""
    return dict(_html_extracts(crawl).exclude(data=b"").values_list("page_id", "page__url"))


def labels(*, crawl: Crawl, parameters: dict, page_urls: dict[int, str]) -> tuple[set[int], set[int]]:
    """(targets, non-targets) by the URL pattern (every other page then a non-target) and by marked pages."""
    targets: set[int] = set()
    non_targets: set[int] = set()
    pattern = parameters.get("target_pattern")
    if pattern:
        # RE2: linear in each URL whatever the pattern, so a crawl's URLs cost what their length does.
        compiled = compile_user_pattern(pattern, what="target pattern")
        for page_id, url in page_urls.items():
            (targets if compiled.search(url) else non_targets).add(page_id)
    marked_in, marked_out = set(parameters.get("targets") or []), set(parameters.get("non_targets") or [])
    for page_id, url in page_urls.items():
        if url in marked_in:
            targets.add(page_id)
            non_targets.discard(page_id)
        elif url in marked_out:
            non_targets.add(page_id)
            targets.discard(page_id)
    return targets, non_targets


def histogram(scores: Iterable[float], bins: int = 50) -> list[int]:
    counts = [0] * bins
    for value in scores:
        counts[min(bins - 1, max(0, int(value * bins)))] += 1
    return counts


class _Aligned(Sequence):
    """The pages of `ids`, by position, from a mapping by page id: what a threshold rule that reads the pages
    takes beside the scores, in their order."""

    def __init__(self, pages: Mapping[int, Sequence[int]], ids: list[int]) -> None:
        self.pages, self.ids = pages, ids

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, position):  # type: ignore[override]
        return self.pages[self.ids[position]]


def filter_summary(
    *,
    parameters: dict,
    scores: dict[int, float],
    chance: float,
    targets: set[int],
    non_targets: set[int],
    other_scores: dict[str, dict[int, float]],
    pages: Mapping[int, Sequence[int]] | None = None,
    pair_similarity: Callable[[Sequence[int], Sequence[int]], float] | None = None,
    fed_back: bool = False,
) -> dict:
    """The filter's summary from every page's score: threshold (given, the paper's, or calibrated), chance level,
    histograms and, with labels, PR/RR and each relation at its best threshold (`other_scores`: the labelled
    pages' scores under the other relations). A rule that reads the pages (the default's feedback and linkage
    rules) reads them from `pages` (page id -> key sequence, read lazily: it reads a few dozen) by
    `pair_similarity`. `fed_back`: the scores were recomputed with the template's nearest pages (the feedback
    rule's phase); when they were not (templates combined by `max`), the feedback rule's cut gives way to the
    linkage rule, as its split was measured on fed-back scores only."""
    method = method_of(parameters)
    rule = method.threshold_rule
    if rule in S.RULES_WITH_FEEDBACK and not fed_back:
        rule = "linkage"
    targets, non_targets = targets & scores.keys(), non_targets & scores.keys()
    labelled = bool(targets) and bool(non_targets)
    other_ids = [pid for pid in scores if pid not in parameters["template_ids"]]
    others = [scores[pid] for pid in other_ids]
    comparison = []
    if labelled:
        # §3.3: every relation tried on the labelled pages, with its best threshold (the paper's Table 1).
        table = {method.relation: scores, **{r: v for r, v in other_scores.items() if r != method.relation}}
        comparison = [
            {**row.as_dict(), "label": S.RELATION_LABELS.get(row.relation, row.relation)}
            for row in S.select_relation(table, targets, non_targets)
        ]
    threshold, how, wider_group = parameters.get("threshold"), "given", None
    if threshold is None and method.relation in S.PAPER_RELATIONS:
        threshold, how = S.PAPER_THRESHOLDS[method.relation], "the paper's"
    elif threshold is None and labelled:
        threshold, how = (
            S.best_threshold(scores, targets, non_targets).threshold,
            "calibrated on your labels (best precision and recall)",
        )
    elif threshold is None:
        reads_pages = rule in S.RULES_READING_PAGES
        threshold = S.calibrated_threshold(
            others,
            chance,
            rule,
            pages=_Aligned(pages, other_ids) if reads_pages and pages is not None else None,
            pair_similarity=pair_similarity,
        )
        how = "calibrated from the score distribution"
        wider = S.calibrated_threshold(others, chance, "otsu")
        wider_matches = sum(score >= wider for score in scores.values())
        if rule in ("valley", "linkage", "feedback") and wider_matches > sum(
            s >= threshold for s in scores.values()
        ):
            # The valley or linkage rule took the closest clear group; the wider one it passed over (the SQL commands'
            # layout: all reference pages) may be the type meant, and one number chooses it.
            wider_group = {"threshold": wider, "matches": wider_matches}
    summary = {
        "threshold": threshold,
        "threshold_source": how,
        "chance_level": round(chance, 4),
        "pages": len(scores),
        "matches": sum(score >= threshold for score in scores.values()),
        "histogram": histogram(scores.values()),
        "labelled": labelled,
    }
    if wider_group:
        summary["wider_group"] = wider_group
    if labelled:
        summary["histogram_targets"] = histogram(scores[pid] for pid in targets)
        summary["histogram_non_targets"] = histogram(scores[pid] for pid in non_targets)
        summary["accuracy"] = S.accuracy(
            scores, targets, threshold, relation=method.relation, labelled=targets | non_targets
        ).as_dict()
        summary["comparison"] = comparison
    return summary


def page_urls(*, crawl: Crawl, page_ids: Iterable[int]) -> dict[int, str]:
    ids = list(page_ids)
    urls: dict[int, str] = {}
    for start in range(0, len(ids), 1000):
        urls.update(Page.objects.filter(pk__in=ids[start : start + 1000]).values_list("pk", "url"))
    return urls


def page_titles(*, page_ids: Iterable[int]) -> dict[int, str]:
    """The titles of these pages, by page id (page types are named by them when URLs say nothing)."""
    ids = list(page_ids)
    titles: dict[int, str] = {}
    for start in range(0, len(ids), 1000):
        titles.update(Page.objects.filter(pk__in=ids[start : start + 1000]).values_list("pk", "title"))
    return titles


def type_shares(page_ids: list[int]) -> dict:
    """How many pages of a type are broken (dead, failing or soft-404), soft-404, and link to a broken page."""
    broken = soft404 = linking = 0
    for start in range(0, len(page_ids), 1000):
        ids = page_ids[start : start + 1000]
        chunk = Page.objects.filter(pk__in=ids)
        broken += chunk.broken().count()
        soft404 += chunk.filter(verdict="soft404").count()
        linking += (
            Link.objects.filter(source_id__in=ids, target__verdict__in=BROKEN_VERDICTS)
            .values("source_id")
            .distinct()
            .count()
        )
    size = len(page_ids) or 1
    return {
        "broken": broken,
        "soft404": soft404,
        "linking_to_broken": linking,
        "broken_share": broken / size,
        "soft404_share": soft404 / size,
        "linking_to_broken_share": linking / size,
    }
