"""Settings: one module that runs with zero environment variables (SQLite and a file broker under var/).

Every variable is listed in .env.example. Production sets DATABASE_URL (PostgreSQL), CELERY_BROKER_URL (Redis),
WEBAUDIT_SECRET_KEY, WEBAUDIT_ALLOWED_HOSTS and WEBAUDIT_HTTPS=1.
Reference: https://docs.djangoproject.com/en/5.2/ref/settings/
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import dj_database_url

from sites.limits import CRAWL_RANGES
from webaudit.env import env_bool, env_cache, env_float, env_int, env_list, env_networks, env_sigmas, env_str

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("WEBAUDIT_VAR_DIR", str(BASE_DIR / "var"))).resolve()
VAR_DIR.mkdir(parents=True, exist_ok=True)


def _usable_cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _secret_key() -> str:
    """Use WEBAUDIT_SECRET_KEY, else a key generated once and kept in var/secret_key (embedded default)."""
    configured = env_str("WEBAUDIT_SECRET_KEY")
    if configured:
        return configured
    key_file = VAR_DIR / "secret_key"
    if not key_file.exists():
        key_file.write_text(secrets.token_urlsafe(64))
        key_file.chmod(0o600)
    return key_file.read_text().strip()


SECRET_KEY = _secret_key()
DEBUG = env_bool("WEBAUDIT_DEBUG", False)
ALLOWED_HOSTS = env_list("WEBAUDIT_ALLOWED_HOSTS", ("localhost", "127.0.0.1", "[::1]"))
CSRF_TRUSTED_ORIGINS = env_list("WEBAUDIT_CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "django_htmx",
    # `sites` shares its label with django.contrib.sites, which must never be installed.
    "sites",
    "checks",
    "mwim",
    "watch",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "webaudit.method_not_allowed.MethodNotAllowedPage",
]

ROOT_URLCONF = "webaudit.urls"
WSGI_APPLICATION = "webaudit.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# Database: DATABASE_URL (postgres://user:pass@host:5432/name) or SQLite under var/.
# SQLite runs in WAL mode with IMMEDIATE transactions so the web process and the worker can write side by side.
DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'webaudit.sqlite3'}"),
        conn_max_age=env_int("WEBAUDIT_DB_CONN_MAX_AGE", 60, minimum=0, maximum=3600),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # A database that is down is reported within 5 s rather than the operating system's minutes; TCP
    # keepalives find a connection whose server vanished (docs/operations.md, "Retries").
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        connect_timeout=5, keepalives=1, keepalives_idle=30, keepalives_interval=10, keepalives_count=3
    )
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 30,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "sites:list"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

# HTTPS hardening (https://docs.djangoproject.com/en/5.2/howto/deployment/checklist/): on behind TLS.
WEBAUDIT_HTTPS = env_bool("WEBAUDIT_HTTPS", False)
SECURE_SSL_REDIRECT = WEBAUDIT_HTTPS
SESSION_COOKIE_SECURE = WEBAUDIT_HTTPS
CSRF_COOKIE_SECURE = WEBAUDIT_HTTPS
SECURE_HSTS_SECONDS = env_int(
    "WEBAUDIT_HSTS_SECONDS", 31_536_000 if WEBAUDIT_HTTPS else 0, minimum=0, maximum=63_072_000
)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("WEBAUDIT_HSTS_INCLUDE_SUBDOMAINS", WEBAUDIT_HTTPS)
SECURE_HSTS_PRELOAD = env_bool("WEBAUDIT_HSTS_PRELOAD", WEBAUDIT_HTTPS)
if env_bool("WEBAUDIT_BEHIND_PROXY", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

# The cache holds built sitemaps. In memory per process by default; with several web processes give them one
# Redis (WEBAUDIT_CACHE_URL, e.g. redis://127.0.0.1:6379/1) so that a sitemap is built once for all of them.
# (The MWIM push limit is counted in the database, which every process shares: mwim.models.PushWindow.)
CACHES = {"default": env_cache("WEBAUDIT_CACHE_URL")}

# Celery (https://docs.celeryq.dev/en/stable/userguide/configuration.html). Without CELERY_BROKER_URL the
# broker is kombu's filesystem transport under var/broker: no server needed, a real worker process consumes it.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "filesystem://")
_BROKER_DIR = VAR_DIR / "broker"
if CELERY_BROKER_URL.startswith("filesystem://"):
    for _sub in ("queue", "processed", "control"):
        (_BROKER_DIR / _sub).mkdir(parents=True, exist_ok=True)
    # kombu's file transport, with each message written whole before a consumer can take it (webaudit/broker.py:
    # the stock one let a worker read a file not yet written and die of a JSONDecodeError).
    CELERY_BROKER_TRANSPORT = "webaudit.broker:Transport"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_BROKER_DIR / "queue"),
        "data_folder_out": str(_BROKER_DIR / "queue"),
        "processed_folder": str(_BROKER_DIR / "processed"),
        "control_folder": str(_BROKER_DIR / "control"),
        "store_processed": False,
        # The file broker polls its folder; 0.1 s keeps a crawl's batch hand-offs quick at negligible CPU.
        "polling_interval": 0.1,
    }
else:
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        # Redis re-delivers an unacknowledged task (its worker died) after this many seconds.
        "visibility_timeout": env_int(
            "WEBAUDIT_BROKER_VISIBILITY_TIMEOUT", 3600, minimum=60, maximum=7 * 86400
        ),
        # A dead or unreachable Redis is noticed within these many seconds on every connection, instead of a
        # call hanging on a half-open socket (docs/operations.md, "Retries").
        "socket_connect_timeout": 5,
        "socket_timeout": 30,
        "socket_keepalive": True,
        "health_check_interval": 10,
    }
# Broker outages (docs/operations.md): the worker reconnects for as long as it takes (Celery's default gives up
# after 100 attempts, about 45 minutes, and the worker exits), and a step's successor is published with
# retries for about 60 s before the step gives up on it (the resume check then re-enqueues the crawl).
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_PUBLISH_RETRY = True
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 15,
    "interval_start": 0,
    "interval_step": 1,
    "interval_max": 5,
}
# A running task whose broker connection dropped is redelivered when the broker comes back (if the broker kept
# it). Crawl steps refuse such a repeat of themselves (sites/services/crawls.py), so the running one is left to
# finish and publish its successor: cancelling it would leave its batch to the lease.
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False
# No remote control (`celery inspect`, `celery control`: nothing here uses them). Its channel shares the
# worker's broker connection with the task channel, and when Redis goes away its close fails first and cuts
# short kombu's closing of the other channels: the task channel, holding a running task's unacknowledged
# message, is then closed after the connection was detached and the worker exits with "AttributeError:
# 'NoneType' object has no attribute 'hostname'" (docs/operations.md, "Why the worker exited on a Redis
# restart"; benchmarks/redis_restart.py). Gossip's and mingle's channels do the same: the worker's consumer
# leaves those two steps out (webaudit/worker.py), so a worker started without --without-gossip lives too.
CELERY_WORKER_ENABLE_REMOTE_CONTROL = False
CELERY_WORKER_CONSUMER = "webaudit.worker:Consumer"
CELERY_TASK_IGNORE_RESULT = True  # job state lives in our models
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_DEFAULT_QUEUE = "default"
# Network-bound crawl batches get their own queue so quick jobs never wait behind them.
CELERY_TASK_ROUTES = {"sites.tasks.crawl_step": {"queue": "crawl"}}
CELERY_BEAT_SCHEDULE = {
    "resume-stalled-crawls": {
        "task": "sites.tasks.crawls_resume_stalled",
        "schedule": env_float("WEBAUDIT_RESUME_CHECK_SECONDS", 10.0, minimum=1.0, maximum=3600.0),
    },
    "resume-stalled-analysis-jobs": {
        "task": "checks.tasks.jobs_resume_stalled",
        "schedule": env_float("WEBAUDIT_RESUME_CHECK_SECONDS", 60.0, minimum=1.0, maximum=3600.0),
    },
}
# Functions ("module:function", called with site=) saying whether something compares the site's crawls: retention
# then keeps the finished crawl the next comparison needs (sites/services/retention.py).
WEBAUDIT_CRAWL_COMPARERS = ["watch.services.schedules:site_compares_crawls"]
# Site schedules (watch/): beat looks for schedules whose time has come once a minute (docs/operations.md).
CELERY_BEAT_SCHEDULE["run-due-schedules"] = {"task": "watch.tasks.schedules_run_due", "schedule": 60.0}
# Alerts waiting for their crawl's analyses are sent by the analyses' end; beat sends any whose end went unheard.
CELERY_BEAT_SCHEDULE["send-waiting-alerts"] = {"task": "watch.tasks.alerts_send_waiting", "schedule": 60.0}
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
CELERY_TIMEZONE = TIME_ZONE

# Fetching: every request goes through sites.http with these limits, read in one place with the crawl's
# politeness settings below (sites.http.FetchSettings.from_settings).
WEBAUDIT_USER_AGENT = env_str("WEBAUDIT_USER_AGENT", "webaudit/0.1 (site audit crawler)")
WEBAUDIT_FETCH_TIMEOUT = env_float("WEBAUDIT_FETCH_TIMEOUT", 10.0, minimum=0.1, maximum=300.0)
WEBAUDIT_FETCH_MAX_BYTES = env_int("WEBAUDIT_FETCH_MAX_BYTES", 5_000_000, minimum=1024, maximum=1_000_000_000)
WEBAUDIT_FETCH_MAX_REDIRECTS = env_int("WEBAUDIT_FETCH_MAX_REDIRECTS", 20, minimum=0, maximum=100)
# Private, loopback, link-local and reserved addresses are never fetched, except inside these networks.
WEBAUDIT_ALLOWED_NETWORKS = env_networks("WEBAUDIT_ALLOWED_NETWORKS")

# Crawl defaults; a site may override them, and each crawl keeps a snapshot.
WEBAUDIT_CRAWL_MAX_PAGES = env_int(
    "WEBAUDIT_CRAWL_MAX_PAGES", 1000, minimum=1, maximum=CRAWL_RANGES["max_pages"][1]
)
WEBAUDIT_CRAWL_MAX_DEPTH = env_int(
    "WEBAUDIT_CRAWL_MAX_DEPTH", 50, minimum=0, maximum=CRAWL_RANGES["max_depth"][1]
)
WEBAUDIT_CRAWL_CONCURRENCY = env_int(
    "WEBAUDIT_CRAWL_CONCURRENCY", 4, minimum=1, maximum=CRAWL_RANGES["concurrency"][1]
)
WEBAUDIT_CRAWL_DELAY = env_float("WEBAUDIT_CRAWL_DELAY", 0.25, minimum=0.0, maximum=CRAWL_RANGES["delay"][1])
# Requests in flight at once across all hosts, per crawl lane (the politeness to one host is the two above): a
# request waiting for its host's turn holds no thread, so this many hosts are talked to at once (docs/crawling.md).
WEBAUDIT_FETCH_CONCURRENCY = env_int("WEBAUDIT_FETCH_CONCURRENCY", 256, minimum=1, maximum=1024)
# Hours an external link target's verdict is reused by later crawls of the same owner's sites (lychee's --cache,
# --max-cache-age 1d); 0 checks every target every time. A site may set its own. A year at most.
WEBAUDIT_EXTERNAL_CACHE_HOURS = env_float("WEBAUDIT_EXTERNAL_CACHE_HOURS", 24.0, minimum=0.0, maximum=8760.0)
WEBAUDIT_CRAWL_OBEY_ROBOTS = env_bool("WEBAUDIT_CRAWL_OBEY_ROBOTS", True)
WEBAUDIT_CRAWL_CHECK_EXTERNAL = env_bool("WEBAUDIT_CRAWL_CHECK_EXTERNAL", True)
# A crawl task works for about this long, then hands over to its successor (so a dead worker costs little).
WEBAUDIT_CRAWL_STEP_SECONDS = env_float("WEBAUDIT_CRAWL_STEP_SECONDS", 20.0, minimum=1.0, maximum=600.0)
# A running step renews its claims and the crawl's heartbeat every quarter of this; a claim or a crawl not
# renewed for this long belonged to a step that died (or lost its message) and is taken up again.
WEBAUDIT_CRAWL_LEASE_SECONDS = env_int("WEBAUDIT_CRAWL_LEASE_SECONDS", 30, minimum=1, maximum=3600)
# Independent task chains working one crawl's frontier at once, each on any worker (docs/crawling.md).
WEBAUDIT_CRAWL_LANES = env_int("WEBAUDIT_CRAWL_LANES", 1, minimum=1, maximum=64)
# 429/503 answers: retried this many times with exponential backoff (Retry-After honoured up to the cap).
WEBAUDIT_CRAWL_RETRIES = env_int("WEBAUDIT_CRAWL_RETRIES", 4, minimum=0, maximum=20)
WEBAUDIT_CRAWL_BACKOFF_SECONDS = env_float("WEBAUDIT_CRAWL_BACKOFF_SECONDS", 2.0, minimum=0.0, maximum=600.0)
WEBAUDIT_CRAWL_BACKOFF_CAP_SECONDS = env_float(
    "WEBAUDIT_CRAWL_BACKOFF_CAP_SECONDS", 300.0, minimum=0.0, maximum=86400.0
)
# Ended crawls kept per site (with their pages, bodies and links); older ones are deleted when a crawl ends.
# 0 keeps them all. A crawl of a 500-page documentation site takes about 30 MB.
WEBAUDIT_CRAWLS_KEPT = env_int("WEBAUDIT_CRAWLS_KEPT", 0, minimum=0, maximum=1_000_000)
# Processes that read fetched pages (parse, links, soft-404 classifier) for each crawling process, so that one
# crawl uses more than one core; 0 reads them in the fetch threads (docs/crawling.md, "Reading pages").
WEBAUDIT_PAGE_READERS = env_int("WEBAUDIT_PAGE_READERS", min(_usable_cores(), 4), minimum=0, maximum=64)
# Per-page data the analyses read while the crawl's readers hold the parsed page, by name: "module:function"
# (docs/analysis-jobs.md, "Reading a page once"). WEBAUDIT_PAGE_EXTRACTORS_OFF names ones a deployment skips.
WEBAUDIT_PAGE_EXTRACTORS = {
    name: path
    for name, path in {
        "ce": "mwim.extract:content_extract",
        # Each HTML page's BFS node sequence for structural filters and page types (docs/structure.md).
        "dom": "checks.structure.extract:dom_keys",
    }.items()
    if name not in env_list("WEBAUDIT_PAGE_EXTRACTORS_OFF")
}
# Functions ("module:function", called with crawl=) run once a crawl has finished, in the order listed: how an
# analysis follows every crawl without the crawl engine importing it. An exception is logged, never fatal.
WEBAUDIT_CRAWL_FINISHED_HOOKS = [
    "mwim.services:mwim_crawl_finished",
    "watch.services.alerts:watch_crawl_finished",
]
# Functions ("module:function", called with job=) run once an analysis job has ended (finished, failed or
# cancelled): a scheduled crawl's alert waits for its analyses (docs/watching.md). An exception is logged.
WEBAUDIT_JOB_ENDED_HOOKS = ["watch.services.alerts:watch_job_ended"]
# What the other apps show on the sites app's pages, by place: templates rendered there in order with the page's
# context, so that templates/sites names no analysis (sites.templatetags.dashboard.page_sections).
WEBAUDIT_PAGE_SECTIONS = {
    # The site's page, under its settings: its analyses, its schedule and alerts, its MWIM link.
    "site": [
        "checks/partials/site_sections.html",
        "watch/partials/site_sections.html",
        "mwim/partials/site_link.html",
    ],
    # The crawl's page, under its settings: its analyses and the sections of the crawl-scoped kinds.
    "crawl": ["checks/partials/crawl_sections.html"],
    # Beside the crawl's broken pages (the layout makes room only when something is shown).
    "broken-targets": ["checks/partials/broken_targets_sections.html"],
    # After the URL of an HTML page in a page table.
    "page-actions": ["checks/structure/partials/page_action.html"],
}
# MWIM (docs/mwim.md): the public base URL of this deployment, for the URLs written into extended sitemaps
# ("https://audit.example.com"); empty: the URL each request came in on.
WEBAUDIT_PUBLIC_URL = env_str("WEBAUDIT_PUBLIC_URL", "").rstrip("/")
# Build content extracts in the crawl's page readers on an MWIM site's first crawl (saves a parse per page, but
# nearly doubles that crawl's CPU on big pages: docs/benchmarks.md). Off: the `ce` job builds them afterwards.
WEBAUDIT_MWIM_READER_EXTRACTS = env_bool("WEBAUDIT_MWIM_READER_EXTRACTS", False)
# Pushes a site's backend may send a minute (one token can't flood the workers); more answer 429.
WEBAUDIT_MWIM_PUSH_PER_MINUTE = env_int("WEBAUDIT_MWIM_PUSH_PER_MINUTE", 60, minimum=1, maximum=100_000)

# Analysis jobs (docs/analysis-jobs.md): a step works this long, then hands over to its successor; a job whose
# worker has not reported for the lease is resumed by beat (checked every WEBAUDIT_RESUME_CHECK_SECONDS).
WEBAUDIT_JOB_STEP_SECONDS = env_float("WEBAUDIT_JOB_STEP_SECONDS", 20.0, minimum=1.0, maximum=600.0)
WEBAUDIT_JOB_LEASE_SECONDS = env_int("WEBAUDIT_JOB_LEASE_SECONDS", 90, minimum=1, maximum=86400)

# Dead pages and soft-404s (docs/soft404.md). A transient failure (timeout, reset, 5xx) makes a page "failing";
# it is reported dead once it has failed on this many checks, each at least the spacing after the previous
# strike. Three strikes an hour apart: a blip or a deploy never kills a page, a server down all afternoon does;
# for daily crawls it means three days in a row, about how long search engines wait before dropping a 5xx page.
WEBAUDIT_DEAD_STRIKES = env_int("WEBAUDIT_DEAD_STRIKES", 3, minimum=1, maximum=100)
WEBAUDIT_DEAD_STRIKE_SPACING_SECONDS = env_int(
    "WEBAUDIT_DEAD_STRIKE_SPACING_SECONDS", 3600, minimum=0, maximum=30 * 86400
)
# Prieto et al. 2014 (§6.3) called pages "almost identical" at 80% equal content; Bar-Yossef et al. give no number.
WEBAUDIT_PROBE_RESEMBLANCE = env_float("WEBAUDIT_PROBE_RESEMBLANCE", 0.8, minimum=0.0, maximum=1.0)
WEBAUDIT_SOFT404_THRESHOLD = env_float("WEBAUDIT_SOFT404_THRESHOLD", 0.5, minimum=0.0, maximum=1.0)
WEBAUDIT_SOFT404_MODEL = env_str(
    "WEBAUDIT_SOFT404_MODEL", ""
)  # default: the model shipped in sites/crawler/soft404/data

# Decay (docs/decay.md). The success probabilities σ a decay run computes, the first being the one pages are
# listed and ranked by (the paper's 0.1; the others are its Figure 1's); the walks per page of the walk method
# (the paper's 300: ±0.08 at 95% confidence); and the pages a run may fetch beyond its crawl.
WEBAUDIT_DECAY_SIGMAS = env_sigmas("WEBAUDIT_DECAY_SIGMAS", (0.1, 0.2, 0.33, 0.5))
# The bounds are the ones a user's run is held to (checks/decay/job.py, docs/decay.md).
WEBAUDIT_DECAY_WALKS = env_int("WEBAUDIT_DECAY_WALKS", 300, minimum=1, maximum=100_000)
WEBAUDIT_DECAY_MAX_FETCHES = env_int("WEBAUDIT_DECAY_MAX_FETCHES", 5000, minimum=0, maximum=100_000)
# Links followed onto other sites by default (docs/decay.md): 1 reads the pages the site links to and checks theirs.
WEBAUDIT_DECAY_EXTERNAL_DEPTH = env_int("WEBAUDIT_DECAY_EXTERNAL_DEPTH", 1, minimum=0, maximum=3)
# Analyses that add columns to every page of a crawl's report (JSON and CSV), named here so that the sites app
# never imports them (sites/services/reports.py, report_page_extensions).
WEBAUDIT_REPORT_PAGE_EXTENSIONS = ["checks.decay.report:page_decay"]
# Functions `(crawl) -> [CrawlIssue]` adding analyses' kinds to a crawl's issues overview (sites.services.issues).
WEBAUDIT_CRAWL_ISSUE_PROVIDERS = ["checks.decay.issues:decay_issues"]

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("WEBAUDIT_LOG_LEVEL", "INFO")},
}

# Alerts after scheduled crawls (watch/) go out by email through Django's email backend: SMTP when EMAIL_HOST
# is set, else the console (development). Every variable is in .env.example.
EMAIL_HOST = env_str("EMAIL_HOST", "")
EMAIL_PORT = env_int("EMAIL_PORT", 587)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
EMAIL_TIMEOUT = 20
EMAIL_BACKEND = env_str(
    "EMAIL_BACKEND",
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.console.EmailBackend",
)
DEFAULT_FROM_EMAIL = env_str("WEBAUDIT_FROM_EMAIL", "webaudit@localhost")
# Webhook alerts: attempts before a delivery is given up (1, 2, 4 … minutes apart, as Celery retries).
WEBAUDIT_WEBHOOK_ATTEMPTS = env_int("WEBAUDIT_WEBHOOK_ATTEMPTS", 6)
