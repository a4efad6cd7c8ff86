"""Dashboard URLs under /sites/: sites, their crawls, live progress and report downloads."""

from django.urls import path

from sites import views

app_name = "sites"
urlpatterns = [
    path("", views.site_list, name="list"),
    path("add/", views.site_add, name="add"),
    path("<int:site_id>/", views.site_detail, name="detail"),
    path("<int:site_id>/edit/", views.site_edit, name="edit"),
    path("<int:site_id>/delete/", views.site_delete_view, name="delete"),
    path("<int:site_id>/share/", views.site_share_view, name="share"),
    path("<int:site_id>/unshare/", views.site_unshare_view, name="unshare"),
    path("<int:site_id>/crawls/start/", views.crawl_start_view, name="crawl_start"),
    path("crawls/<int:crawl_id>/", views.crawl_detail, name="crawl"),
    path("crawls/<int:crawl_id>/progress/", views.crawl_progress, name="crawl_progress"),
    path("crawls/<int:crawl_id>/progress.json", views.crawl_progress_json, name="crawl_progress_json"),
    path("crawls/<int:crawl_id>/cancel/", views.crawl_cancel_view, name="crawl_cancel"),
    path("crawls/<int:crawl_id>/delete/", views.crawl_delete_view, name="crawl_delete"),
    path("crawls/<int:crawl_id>/report.json", views.crawl_report_json, name="crawl_report_json"),
    path("crawls/<int:crawl_id>/pages.csv", views.crawl_pages_csv, name="crawl_pages_csv"),
    path("crawls/<int:crawl_id>/links.csv", views.crawl_links_csv, name="crawl_links_csv"),
]
