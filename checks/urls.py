"""URLs of the checks app: analysis jobs (decay, structural filtering, page types, page finding) and their results."""

from django.urls import include, path

import sites.converters  # noqa: F401 - registers the <id:…> path converter
from checks import views
from checks.decay import views as decay_views

app_name = "checks"
urlpatterns = [
    path("jobs/<id:job_id>/", views.job_detail, name="job"),
    path("jobs/<id:job_id>/progress/", views.job_progress, name="job-progress"),
    path("jobs/<id:job_id>/cancel/", views.job_cancel_view, name="job-cancel"),
    path("jobs/<id:job_id>/report.json", views.job_report, name="job-report"),
    path("start/<slug:kind>/<id:target_id>/", views.job_start_view, name="job-start"),
    path("decay/<id:job_id>/pages/<id:page_id>/", decay_views.decay_page, name="decay-page"),
    path("structure/", include("checks.structure.urls")),
]
