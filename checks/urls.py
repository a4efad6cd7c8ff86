"""URLs of the checks app (soft-404, decay, structural filtering, page finding); filled by their issues."""

app_name = "checks"
urlpatterns: list = []
