"""URLs of MWIM: the public sitemap and CE files of verified sites, the push endpoint, the owner's pages."""

from django.urls import path, re_path

import sites.converters  # noqa: F401 - registers the <id:…> path converter
from mwim import views

app_name = "mwim"
urlpatterns = [
    path("<id:site_id>/sitemap.xml", views.sitemap, {"name": "sitemap.xml"}, name="sitemap"),
    path(
        "<id:site_id>/sitemap.xml.gz", views.sitemap, {"name": "sitemap.xml", "gz": True}, name="sitemap-gz"
    ),
    path("<id:site_id>/sitemap-<id:number>.xml", views.sitemap_part, name="sitemap-part"),
    path("<id:site_id>/sitemap-<id:number>.xml.gz", views.sitemap_part, {"gz": True}, name="sitemap-part-gz"),
    re_path(r"^(?P<site_id>[0-9]{1,18})/ce/(?P<key>[0-9a-f]{40})\.ce$", views.ce_file, name="ce"),
    path("<id:site_id>/push", views.push, name="push"),
    path("report/", views.ce_report_upload, name="report-upload"),
    path("sites/<id:site_id>/", views.site_page, name="site"),
    path("sites/<id:site_id>/<slug:action>", views.site_action, name="site-action"),
    re_path(
        r"^sites/(?P<site_id>[0-9]{1,18})/ce/(?P<key>[0-9a-f]{40})/$", views.ce_report_view, name="site-ce"
    ),
    re_path(
        r"^sites/(?P<site_id>[0-9]{1,18})/ce/(?P<key>[0-9a-f]{40})\.ce$",
        views.ce_download,
        name="site-ce-download",
    ),
]
