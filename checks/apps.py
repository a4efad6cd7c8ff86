from django.apps import AppConfig


class ChecksConfig(AppConfig):
    name = "checks"
    verbose_name = "Checks (soft-404, decay, structural filtering, page finding)"
