"""The Celery app with the test analysis kind registered: `celery -A tests.checks.celery_with_test_kind worker`."""

import django

from webaudit.celery import app

django.setup()  # the kind's package imports models

from checks.jobs.kinds import kind_register  # noqa: E402

kind_register("tests.checks.jobkinds:KIND", name="pagecount")

__all__ = ["app"]
