"""URLs of watching a site: its schedule, alerts and what changed between two crawls."""

from django.urls import path

from watch import views

app_name = "watch"
urlpatterns = [
    path("sites/<id:site_id>/schedule", views.schedule_save_view, name="schedule"),
    path("sites/<id:site_id>/alerts", views.alerts_save_view, name="alerts"),
    path("sites/<id:site_id>/changes", views.changes_view, name="changes"),
]
