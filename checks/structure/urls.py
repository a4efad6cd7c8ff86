"""URLs of structural filters and page types, under /checks/structure/ (included by checks.urls)."""

from django.urls import path

from checks.structure import views

urlpatterns = [
    path("crawl/<int:crawl_id>/filter/", views.filter_new, name="structure-new"),
    path("crawl/<int:crawl_id>/filter/<int:filter_id>/run/", views.filter_rerun, name="structure-rerun"),
    path("jobs/<int:job_id>/label/", views.filter_label, name="structure-label"),
    path("jobs/<int:job_id>/types/<int:index>/", views.pagetype_pages, name="structure-type"),
]
