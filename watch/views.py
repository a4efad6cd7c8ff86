"""Views of watching a site: thin wrappers over watch.services and checks.compare."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from checks.compare import LIST_CAP, CompareError, crawl_compare, crawl_compare_default
from sites.access import can_manage
from sites.kept_input import input_keep
from sites.models import Crawl, Site
from watch.forms import AlertForm, ScheduleForm, alerts_input_key, schedule_input_key
from watch.models import AlertSubscription
from watch.selectors import alert_subscription, finished_crawls, site_schedule
from watch.services.alerts import alerts_save
from watch.services.schedules import schedule_save

# Crawls offered in the "What changed" page's two pickers.
CRAWLS_OFFERED = 100


def _visible_site(request: HttpRequest, site_id: int) -> Site:
    return get_object_or_404(Site.objects.visible_to(request.user).select_related("owner"), pk=site_id)


def _errors_named(form) -> str:
    """The form's errors, each after its field's label (as the form shows it), for the message above the page."""
    return "; ".join(
        f"{form[field].label if field in form.fields else 'form'}: {' '.join(errors)}"
        for field, errors in form.errors.items()
    )


def _watch_url(site: Site) -> str:
    from django.urls import reverse

    return reverse("sites:detail", args=[site.pk]) + "#watch"


@login_required
@require_POST
def schedule_save_view(request: HttpRequest, site_id: int) -> HttpResponse:
    site = _visible_site(request, site_id)
    if not can_manage(request.user, site):
        raise PermissionDenied("Only the site's owner can schedule its crawls.")
    form = ScheduleForm(request.POST, instance=site_schedule(site=site))
    if form.is_valid():
        fields = {name: form.cleaned_data[name] for name in ScheduleForm.Meta.fields}
        schedule = schedule_save(site=site, **fields)
        state = (
            f"next crawl {schedule.next_run_at:%d %b %Y, %H:%M} UTC"
            if schedule.enabled
            else 'off (tick "Re-crawl on this schedule" to turn it on)'
        )
        messages.success(request, f"Schedule saved: {state}.")
    else:
        errors = _errors_named(form)
        messages.error(request, f"The schedule was not saved: {errors}")
        input_keep(request, schedule_input_key(site), form)
    return redirect(_watch_url(site))


@login_required
@require_POST
def alerts_save_view(request: HttpRequest, site_id: int) -> HttpResponse:
    site = _visible_site(request, site_id)
    subscription = alert_subscription(site=site, user=request.user)
    form = AlertForm(request.POST, instance=subscription or AlertSubscription(site=site, user=request.user))
    if form.is_valid():
        alerts_save(
            site=site, user=request.user, **{name: form.cleaned_data[name] for name in AlertForm.Meta.fields}
        )
        messages.success(request, "Your alerts for this site are saved.")
    else:
        errors = _errors_named(form)
        messages.error(request, f"Your alerts were not saved: {errors}")
        input_keep(request, alerts_input_key(site), form)
    return redirect(_watch_url(site))


def _picked(request: HttpRequest, name: str, crawls) -> Crawl | None:
    value = request.GET.get(name, "")
    if not value:
        return None
    if not value.isdigit():
        raise CompareError(f"{name} must be a crawl number")
    crawl = crawls.filter(pk=int(value)).first()
    if crawl is None:
        raise CompareError(f"this site has no crawl #{value}")
    return crawl


@login_required
@require_GET
def changes_view(request: HttpRequest, site_id: int) -> HttpResponse:
    """What changed between two finished crawls of the site: by default the newest and the one before."""
    site = _visible_site(request, site_id)
    finished = finished_crawls(site=site)
    context = {
        "site": site,
        "crawls": list(finished[:CRAWLS_OFFERED]),
        "cap": LIST_CAP,
        "slice": f":{LIST_CAP}",
    }
    status = 200
    try:
        new = _picked(request, "new", finished) or finished.first()
        old = _picked(request, "old", finished) or (crawl_compare_default(new=new) if new else None)
        if new is None or old is None:
            context["empty"] = True
        else:
            context["comparison"] = crawl_compare(old=old, new=new)
    except CompareError as exc:
        context["error"], status = str(exc), 400
    return render(request, "watch/changes.html", context, status=status)
