"""Dashboard URLs under /sites/: sites, their crawls, live progress and report downloads."""

from django.urls import path

import sites.converters  # noqa: F401 - registers the <id:…> path converter
from sites import views

app_name = "sites"
urlpatterns = [
    path("", views.site_list, name="list"),
    path("add/", views.site_add, name="add"),
    path("<id:site_id>/", views.site_detail, name="detail"),
    path("<id:site_id>/edit/", views.site_edit, name="edit"),
    path("<id:site_id>/delete/", views.site_delete_view, name="delete"),
    path("<id:site_id>/share/", views.site_share_view, name="share"),
    path("<id:site_id>/unshare/", views.site_unshare_view, name="unshare"),
    path("<id:site_id>/crawls/start/", views.crawl_start_view, name="crawl_start"),
    path("crawls/<id:crawl_id>/", views.crawl_detail, name="crawl"),
    path("crawls/<id:crawl_id>/progress.json", views.crawl_progress_json, name="crawl_progress_json"),
    path("crawls/<id:crawl_id>/cancel/", views.crawl_cancel_view, name="crawl_cancel"),
    path("crawls/<id:crawl_id>/delete/", views.crawl_delete_view, name="crawl_delete"),
    path("crawls/<id:crawl_id>/report.json", views.crawl_report_json, name="crawl_report_json"),
    path("crawls/<id:crawl_id>/pages.csv", views.crawl_pages_csv, name="crawl_pages_csv"),
    path("crawls/<id:crawl_id>/links.csv", views.crawl_links_csv, name="crawl_links_csv"),
]
