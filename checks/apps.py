from django.apps import AppConfig


class ChecksConfig(AppConfig):
    name = "checks"
    verbose_name = "Checks (soft-404, decay, structural filtering, page finding)"

    def ready(self) -> None:
        from checks import tasks  # noqa: F401  (registers the tasks that services enqueue by name)
