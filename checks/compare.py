"""What changed between two crawls of a site: broken targets new and fixed, soft-404 pages new and cleared, pages
new and gone, redirects changed, pages whose content changed, health and decay before and after, and the new
broken targets that raised the site's decay most.

It lives in checks/ rather than sites/ because it reads decay (checks.decay), and sites must not import checks.
The dashboard's "What changed" page, `manage.py crawl_diff` and the alerts after a scheduled crawl call it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from checks.decay.dashboard import decay_latest_job
from checks.models import DecayFix
from sites.models import Crawl, Page, Verdict
from sites.services.issues import BrokenTarget, crawl_broken_targets, crawl_health

# Rows listed per section on the dashboard; the counts (and the command's JSON) are always complete.
LIST_CAP = 200
# New broken targets ranked by the decay they added.
DECAY_RAISERS = 10


class CompareError(ValueError):
    """Two crawls that cannot be compared (another site, the same crawl, one not finished); for the user."""


@dataclass(frozen=True)
class RedirectChange:
    url: str
    old: str  # where the page's answer ended in the old crawl ("" for no redirect)
    new: str


@dataclass(frozen=True)
class DecayRaiser:
    url: str
    gain: (
        float  # how much the site's total decay drops if this target lives again (checks.decay, fix targets)
    )
    inlinks: int


@dataclass
class CrawlComparison:
    old: Crawl
    new: Crawl
    new_broken_targets: list[BrokenTarget] = field(default_factory=list)
    fixed_targets: list[str] = field(default_factory=list)
    new_soft404: list[str] = field(default_factory=list)
    cleared_soft404: list[str] = field(default_factory=list)
    pages_new: list[str] = field(default_factory=list)
    pages_gone: list[str] = field(default_factory=list)
    redirects_changed: list[RedirectChange] = field(default_factory=list)
    content_changed: list[str] = field(default_factory=list)
    health: tuple[int | None, int | None] = (None, None)
    mean_decay: tuple[float | None, float | None] = (None, None)
    decay_raisers: list[DecayRaiser] = field(default_factory=list)

    @property
    def got_worse(self) -> bool:
        """Something an owner should hear of: a new broken target or soft-404 page, or a lower health score."""
        old, new = self.health
        return bool(self.new_broken_targets or self.new_soft404) or (
            old is not None and new is not None and new < old
        )

    def as_report(self) -> dict:
        """The JSON of `manage.py crawl_diff`, exactly the shape issue 21 gives."""
        return {
            "old": self.old.pk,
            "new": self.new.pk,
            "new_broken_targets": [
                {
                    "url": target.url,
                    "verdict": target.verdict,
                    "inlinks": target.inlinks,
                    "unique_inlinks": target.unique_inlinks,
                }
                for target in self.new_broken_targets
            ],
            "fixed_targets": self.fixed_targets,
            "new_soft404": self.new_soft404,
            "pages_new": self.pages_new,
            "pages_gone": self.pages_gone,
            "changed": len(self.content_changed),
            "health": list(self.health),
        }


def compare_check(*, old: Crawl, new: Crawl) -> None:
    """Raise CompareError unless `old` and `new` are two finished crawls of one site, `old` the earlier."""
    if old.pk == new.pk:
        raise CompareError(f"crawl #{old.pk} cannot be compared with itself")
    if old.site_id != new.site_id:
        raise CompareError(f"crawls #{old.pk} and #{new.pk} are of different sites")
    for crawl in (old, new):
        if crawl.status != Crawl.Status.FINISHED:
            raise CompareError(f"crawl #{crawl.pk} is {crawl.status}, not finished")
    if (old.created_at, old.pk) > (new.created_at, new.pk):
        raise CompareError(f"crawl #{old.pk} is newer than crawl #{new.pk}: give the older one first")


def crawl_compare(*, old: Crawl, new: Crawl) -> CrawlComparison:
    """Compare two finished crawls of one site (CompareError otherwise). Pages are matched by URL."""
    compare_check(old=old, new=new)
    result = CrawlComparison(old=old, new=new)

    old_broken = {target.url: target for target in crawl_broken_targets(crawl=old, with_sources=False)}
    new_broken = crawl_broken_targets(crawl=new, with_sources=False)
    new_broken_urls = {target.url for target in new_broken}
    result.new_broken_targets = [target for target in new_broken if target.url not in old_broken]
    result.fixed_targets = sorted(set(old_broken) - new_broken_urls)
    old_soft = {url for url, target in old_broken.items() if target.verdict == Verdict.SOFT404}
    new_soft = {target.url for target in new_broken if target.verdict == Verdict.SOFT404}
    result.new_soft404 = sorted(new_soft - old_soft)
    result.cleared_soft404 = sorted(old_soft - new_soft)

    old_pages, new_pages = _internal_pages(old), _internal_pages(new)
    result.pages_new = sorted(new_pages[key][0] for key in new_pages.keys() - old_pages.keys())
    result.pages_gone = sorted(old_pages[key][0] for key in old_pages.keys() - new_pages.keys())
    for key in sorted(old_pages.keys() & new_pages.keys(), key=lambda key: new_pages[key][0]):
        url, new_final, new_hash = new_pages[key]
        _, old_final, old_hash = old_pages[key]
        if old_final != new_final:
            result.redirects_changed.append(
                RedirectChange(
                    url, old_final if old_final != url else "", new_final if new_final != url else ""
                )
            )
        if old_hash and new_hash and old_hash != new_hash:
            result.content_changed.append(url)

    result.health = (crawl_health(crawl=old).score, crawl_health(crawl=new).score)
    result.mean_decay = (crawl_mean_decay(old), crawl_mean_decay(new))
    result.decay_raisers = _decay_raisers(new, result.new_broken_targets)
    return result


def _internal_pages(crawl: Crawl) -> dict[str, tuple[str, str, str]]:
    """The crawl's own fetched pages by URL key: (url, final URL, body hash)."""
    rows = Page.objects.filter(crawl=crawl, is_internal=True, state=Page.State.DONE).exclude(
        error_kind="robots"
    )
    return {
        key: (url, final_url or url, content_hash)
        for key, url, final_url, content_hash in rows.values_list(
            "url_key", "url", "final_url", "content_hash"
        )
    }


def crawl_mean_decay(crawl: Crawl) -> float | None:
    """The site's mean decay at the first σ of the crawl's latest finished decay job; None without one."""
    job = decay_latest_job(crawl=crawl)
    if job is None:
        return None
    sigmas = job.parameters.get("sigmas") or []
    means = (job.result or {}).get("mean_decay") or {}
    value = means.get(str(sigmas[0])) if sigmas else None
    return float(value) if value is not None else None


def _decay_raisers(crawl: Crawl, targets: list[BrokenTarget]) -> list[DecayRaiser]:
    """The new broken targets that raised total decay most: their gain as fix targets in the new crawl's latest
    decay job (how much the total would drop if each lived again), largest first."""
    job = decay_latest_job(crawl=crawl)
    if job is None or not targets:
        return []
    inlinks = {target.url: target.inlinks for target in targets}
    gains = DecayFix.objects.filter(job=job, target__in=list(inlinks)).values_list("target", "gain")
    ranked = sorted(((gain, url) for url, gain in gains), key=lambda pair: (-pair[0], pair[1]))
    return [DecayRaiser(url, gain, inlinks[url]) for gain, url in ranked[:DECAY_RAISERS]]


def crawl_compare_default(*, new: Crawl) -> Crawl | None:
    """The crawl `new` is compared with by default: the site's finished crawl just before it."""
    return (
        Crawl.objects.filter(site_id=new.site_id, created_at__lte=new.created_at)
        .exclude(pk=new.pk)
        .finished()
        .first()
    )
