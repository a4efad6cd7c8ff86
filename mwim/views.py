"""MWIM's views: the public sitemap and CE files (verified sites only, with ETag/Last-Modified/304), the push
endpoint, and the owner's dashboard page and CE reports."""

from __future__ import annotations

import gzip
import hashlib

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.cache import patch_cache_control
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import condition, require_GET, require_POST

from mwim import selectors, services
from mwim.ce import CEFormatError, decode
from mwim.models import ContentExtractFile, MwimSite
from mwim.report import report_context
from mwim.services.notify import indexnow_key_file
from mwim.services.owner import mwim_enabled_set, mwim_indexnow_endpoints_set
from mwim.tasks import ce_refresh_url
from sites.access import can_manage
from sites.models import Site

CE_CONTENT_TYPE = "application/vnd.mwim.content-extract"
# Search engines re-read a sitemap often and a CE file when the sitemap says it changed; both revalidate with
# their ETag, so short lifetimes cost a 304, not a download.
SITEMAP_MAX_AGE = 300
CE_MAX_AGE = 3600
CE_FILES_PER_PAGE = 50


def public_base_url(request: HttpRequest) -> str:
    return settings.WEBAUDIT_PUBLIC_URL or request.build_absolute_uri("/").rstrip("/")


def _published(request: HttpRequest, site_id: int) -> MwimSite | None:
    """The site's published registration, read once per request (the ETag, Last-Modified and the view ask)."""
    cache = request.__dict__.setdefault("_mwim_published", {})
    if site_id not in cache:
        cache[site_id] = selectors.published_mwim_site(site_id=site_id)
    return cache[site_id]


def _published_or_404(request: HttpRequest, site_id: int) -> MwimSite:
    """The site's MWIM registration if its MWIM URLs may answer: enabled and verified; else 404."""
    mwim_site = _published(request, site_id)
    if mwim_site is None:
        raise Http404("no verified MWIM site here")
    return mwim_site


def _sitemap_etag(request: HttpRequest, site_id: int, name: str, **kwargs) -> str | None:
    mwim_site = _published(request, site_id)
    if mwim_site is None or mwim_site.published_at is None:
        return None
    seed = (
        f"{site_id}|{mwim_site.published_at.isoformat()}|{name}|{kwargs.get('gz')}|{public_base_url(request)}"
    )
    return hashlib.sha256(seed.encode()).hexdigest()[:32]


def _sitemap_modified(request: HttpRequest, site_id: int, name: str, **kwargs):
    mwim_site = _published(request, site_id)
    return mwim_site.published_at if mwim_site else None


@require_GET
@condition(etag_func=_sitemap_etag, last_modified_func=_sitemap_modified)
def sitemap(request: HttpRequest, site_id: int, name: str, gz: bool = False) -> HttpResponse:
    """sitemap.xml (or the index when the site needs parts), sitemap-N.xml, each also as .xml.gz."""
    mwim_site = _published_or_404(request, site_id)
    files = services.published_sitemap_files(mwim_site=mwim_site, base_url=public_base_url(request))
    if name == "sitemap.xml" and "sitemap-index.xml" in files:
        name = "sitemap-index.xml"
    if name not in files:
        raise Http404("no such sitemap part")
    data = files[name]  # gzipped
    response = HttpResponse(
        data if gz else gzip.decompress(data),
        content_type="application/gzip" if gz else "application/xml; charset=utf-8",
    )
    patch_cache_control(response, public=True, max_age=SITEMAP_MAX_AGE)
    return response


def sitemap_part(request: HttpRequest, site_id: int, number: int, gz: bool = False) -> HttpResponse:
    return sitemap(request, site_id=site_id, name=f"sitemap-{number}.xml", gz=gz)


def _ce_values(request: HttpRequest, site_id: int, key: str):
    """(fingerprint, updated_at) of the published CE file, read once per request (ETag and Last-Modified)."""
    cache = request.__dict__.setdefault("_mwim_ce_values", {})
    if (site_id, key) not in cache:
        cache[site_id, key] = selectors.published_ce_validators(site_id=site_id, key=key)
    return cache[site_id, key]


def _ce_etag(request: HttpRequest, site_id: int, key: str) -> str | None:
    values = _ce_values(request, site_id, key)
    return (
        hashlib.sha256(f"{values[0]}|{values[1].isoformat()}".encode()).hexdigest()[:32] if values else None
    )


def _ce_modified(request: HttpRequest, site_id: int, key: str):
    values = _ce_values(request, site_id, key)
    return values[1] if values else None


@require_GET
@condition(etag_func=_ce_etag, last_modified_func=_ce_modified)
def ce_file(request: HttpRequest, site_id: int, key: str) -> HttpResponse:
    row = selectors.published_ce_file(site_id=site_id, key=key)
    if row is None:
        raise Http404("no such CE file on a verified MWIM site")
    response = HttpResponse(bytes(row.data), content_type=CE_CONTENT_TYPE)
    patch_cache_control(response, public=True, max_age=CE_MAX_AGE)
    return response


@csrf_exempt  # authenticated by the site's push token, not a session: the caller is the site's backend
@require_POST
def push(request: HttpRequest, site_id: int) -> JsonResponse:
    """POST url=<changed page> with `Authorization: Bearer <push token>`: refresh that page's CE now."""
    mwim_site = selectors.published_mwim_site(site_id=site_id)
    header = request.headers.get("Authorization", "")
    token = header[7:].strip() if header.lower().startswith("bearer ") else ""
    if mwim_site is None or not services.push_token_check(mwim_site=mwim_site, token=token):
        return JsonResponse({"error": "unknown site or wrong push token"}, status=403)
    url = (request.POST.get("url") or "").strip()
    problem = services.push_url_problem(mwim_site=mwim_site, url=url)
    if problem:
        return JsonResponse({"error": problem}, status=400)
    wait = services.push_allowed(mwim_site=mwim_site)
    if wait:
        response = JsonResponse(
            {"error": f"more than {settings.WEBAUDIT_MWIM_PUSH_PER_MINUTE} pushes this minute; retry later"},
            status=429,
        )
        response["Retry-After"] = str(wait)
        return response
    ce_refresh_url.delay_on_commit(mwim_site.pk, url)
    return JsonResponse({"queued": url}, status=202)


# The owner's dashboard -----------------------------------------------------------------------------------


def _managed_site(request: HttpRequest, site_id: int) -> Site:
    site = get_object_or_404(Site.objects.visible_to(request.user), pk=site_id)
    if not can_manage(request.user, site):
        raise Http404("only the site's owner manages its MWIM registration")
    return site


@login_required
def site_page(request: HttpRequest, site_id: int) -> HttpResponse:
    site = get_object_or_404(Site.objects.visible_to(request.user), pk=site_id)
    mwim_site = selectors.site_mwim(site=site)
    context = {
        "site": site,
        "mwim": mwim_site,
        "can_manage": can_manage(request.user, site),
    }
    if mwim_site is not None:
        rows = selectors.mwim_ce_files(mwim_site=mwim_site)
        context.update(
            instructions=services.verification_instructions(mwim_site),
            indexnow_file=indexnow_key_file(mwim_site),
            page=Paginator(rows, CE_FILES_PER_PAGE).get_page(request.GET.get("page")),
            listed=selectors.mwim_listed_count(mwim_site=mwim_site),
            base=public_base_url(request),
        )
    return render(request, "mwim/site.html", context)


@login_required
@require_POST
def site_action(request: HttpRequest, site_id: int, action: str) -> HttpResponse:
    site = _managed_site(request, site_id)
    if action == "register":
        services.mwim_register(site=site)
        messages.success(request, "Registered. Prove you control the site, then crawl it.")
        return redirect("mwim:site", site.pk)
    mwim_site = selectors.site_mwim(site=site)
    if mwim_site is None:
        raise Http404("the site is not registered for MWIM")
    if action == "verify":
        if services.mwim_verify(mwim_site=mwim_site):
            messages.success(request, "Verified: the site's MWIM files are now public.")
        else:
            messages.error(request, f"Not verified: {mwim_site.verification_error}")
    elif action == "push-token":
        token = services.push_token_rotate(mwim_site=mwim_site)
        messages.success(request, f"New push token (shown once, keep it secret): {token}")
    elif action == "indexnow":
        try:
            endpoints = mwim_indexnow_endpoints_set(
                mwim_site=mwim_site, text=request.POST.get("endpoints", "")
            )
        except ValueError as exc:
            messages.error(request, str(exc))
        else:
            messages.success(request, f"{len(endpoints)} IndexNow endpoint(s) saved.")
    elif action in ("enable", "disable"):
        mwim_enabled_set(mwim_site=mwim_site, enabled=action == "enable")
    else:
        raise Http404("no such action")
    return redirect("mwim:site", site.pk)


def _site_ce_file_or_404(site: Site, key: str) -> ContentExtractFile:
    row = selectors.site_ce_file(site=site, key=key)
    if row is None:
        raise Http404("no such CE file")
    return row


@login_required
def ce_report_view(request: HttpRequest, site_id: int, key: str) -> HttpResponse:
    site = get_object_or_404(Site.objects.visible_to(request.user), pk=site_id)
    row = _site_ce_file_or_404(site, key)
    context = {"site": site, "ce": row}
    try:
        context.update(report_context(decode(bytes(row.data)), file_bytes=len(row.data)))
    except CEFormatError as exc:
        context["error"] = f"This file cannot be read: {exc}"
    return render(request, "mwim/ce_report.html", context)


@login_required
def ce_download(request: HttpRequest, site_id: int, key: str) -> HttpResponse:
    site = get_object_or_404(Site.objects.visible_to(request.user), pk=site_id)
    row = _site_ce_file_or_404(site, key)
    response = HttpResponse(bytes(row.data), content_type=CE_CONTENT_TYPE)
    response["Content-Disposition"] = f'attachment; filename="{key}.ce"'
    return response


# A CE file is small (a 750 KB page makes 45 KB); anything past this is not one.
MAX_UPLOADED_CE = 16 * 1024 * 1024


@login_required
def ce_report_upload(request: HttpRequest) -> HttpResponse:
    """The report of any CE file the user uploads (GET: the form)."""
    context: dict = {}
    if request.method == "POST":
        upload = request.FILES.get("file")
        if upload is None:
            context["error"] = "Choose a .ce file."
        elif upload.size > MAX_UPLOADED_CE:
            context["error"] = f"{upload.name} is over {MAX_UPLOADED_CE:,} bytes: not a content extract."
        else:
            data = upload.read()
            try:
                context.update(report_context(decode(data), file_bytes=len(data)), name=upload.name)
            except CEFormatError as exc:
                context["error"] = f"{upload.name} cannot be read: {exc}"
    return render(request, "mwim/ce_report_upload.html", context)
