from django.apps import AppConfig


class MwimConfig(AppConfig):
    name = "mwim"
    verbose_name = "MWIM (content extracts and extended sitemaps)"
