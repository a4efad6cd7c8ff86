"""Test overrides: loopback allowed (the test servers live there), no politeness delay, plain static storage."""

import os

os.environ.setdefault("WEBAUDIT_ALLOWED_NETWORKS", "127.0.0.0/8,::1/128")

from webaudit.settings import *  # noqa: E402,F403
from webaudit.settings import DATABASES, VAR_DIR  # noqa: E402

# Loopback, where the test servers live ("localhost" may resolve to ::1 as well).
WEBAUDIT_ALLOWED_NETWORKS = ["127.0.0.0/8", "::1/128"]
WEBAUDIT_CRAWL_DELAY = 0.0
WEBAUDIT_FETCH_TIMEOUT = 5.0
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
(VAR_DIR / "staticfiles").mkdir(exist_ok=True)  # whitenoise warns on every request when it is missing
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast logins in tests
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A file, not memory, so a real worker process started by a test sees the same database.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / f"test-{os.getpid()}.sqlite3")}
