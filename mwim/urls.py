"""URLs of MWIM: content-extract files and extended sitemaps served to search engines; filled by its issue."""

app_name = "mwim"
urlpatterns: list = []
