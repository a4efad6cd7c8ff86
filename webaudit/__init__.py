"""webaudit: audit a website for dead pages, soft-404s and decay; hand search engines a cleaner view."""

from .celery import app as celery_app

__all__ = ("celery_app",)
