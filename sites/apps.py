from django.apps import AppConfig


class SitesConfig(AppConfig):
    name = "sites"
    verbose_name = "Sites and crawls"

    def ready(self) -> None:
        from django.conf import settings

        from sites import tasks  # noqa: F401  (registers the tasks that services enqueue by name)
        from sites.crawler.extractors import extractors_check

        # A mistyped extractor path stops the app here, not each crawl later.
        extractors_check(settings.WEBAUDIT_PAGE_EXTRACTORS)
