"""URLs of structural filters and page types, under /checks/structure/ (included by checks.urls)."""

from django.urls import path

import sites.converters  # noqa: F401 - registers the <id:…> path converter
from checks.structure import views

urlpatterns = [
    path("crawl/<id:crawl_id>/filter/", views.filter_new, name="structure-new"),
    path("crawl/<id:crawl_id>/filter/<id:filter_id>/run/", views.filter_rerun, name="structure-rerun"),
    path("jobs/<id:job_id>/label/", views.filter_label, name="structure-label"),
    path("jobs/<id:job_id>/types/<id:index>/", views.pagetype_pages, name="structure-type"),
]
