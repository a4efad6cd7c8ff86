from django.apps import AppConfig


class WatchConfig(AppConfig):
    name = "watch"
    verbose_name = "Watching sites over time"

    def ready(self) -> None:
        from watch import tasks  # noqa: F401  (registers the tasks that services enqueue by name)
