"""WSGI entry point (gunicorn webaudit.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webaudit.settings")
application = get_wsgi_application()
