"""Real not-found pages for the corpus: Django, Wagtail, Apache, nginx and Werkzeug, in every language they ship."""

from __future__ import annotations

import html as html_lib
import re
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import django
from django.conf import settings
from django.contrib import admin
from django.contrib.auth.models import AnonymousUser
from django.template.loader import render_to_string
from django.test import RequestFactory
from django.test.utils import override_settings
from django.utils import translation
from django.views.defaults import ERROR_PAGE_TEMPLATE
from werkzeug.exceptions import Gone, NotFound

from checks.soft404.corpus import apache_errors, wheels
from checks.soft404.corpus.manifest import SOFT404, CorpusPage
from checks.soft404.corpus.phrase_sources import (
    DJANGO_ADMIN_LOCALE,
    NGINX_BINARY,
    catalog_translations,
    language_key,
)

_DJANGO = f"Django {django.get_version()}"
# Plain static storage: the admin templates only need {% static %} URLs, not a collected manifest.
_PLAIN_STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}


def django_admin_404_pages() -> Iterator[CorpusPage]:
    """Render contrib.admin's 404.html in each language Django's admin is translated into (98 in 5.2)."""
    request = RequestFactory().get("/admin/missing/page/")
    request.user = AnonymousUser()
    locales = ["en"] + sorted(p.parts[-3] for p in DJANGO_ADMIN_LOCALE.glob("*/LC_MESSAGES/django.mo"))
    with override_settings(STORAGES=_PLAIN_STORAGES, DEBUG=False):
        for locale in dict.fromkeys(locales):
            with translation.override(locale):
                html = render_to_string("admin/404.html", admin.site.each_context(request), request=request)
            yield CorpusPage(
                source="django-admin-404",
                name=locale,
                label=SOFT404,
                lang=language_key(locale),
                url="http://localhost/admin/missing/page/",
                package=_DJANGO,
                license="BSD-3-Clause",
                origin="django/contrib/admin/templates/admin/404.html",
                html=html.encode("utf-8"),
            )


def django_default_404_page() -> CorpusPage:
    """Django's built-in page when a project has no 404.html (django.views.defaults.page_not_found)."""
    html = ERROR_PAGE_TEMPLATE % {
        "title": "Not Found",
        "details": "The requested resource was not found on this server.",
    }
    return CorpusPage(
        source="django-default-404",
        name="en",
        label=SOFT404,
        lang="en",
        url="http://localhost/missing/",
        package=_DJANGO,
        license="BSD-3-Clause",
        origin="django/views/defaults.py ERROR_PAGE_TEMPLATE",
        html=html.encode("utf-8"),
    )


def apache_pages() -> Iterator[CorpusPage]:
    """Apache's 404 and 410 pages in 21 languages, with and without a Referer (which adds a paragraph)."""
    for status in ("HTTP_NOT_FOUND", "HTTP_GONE"):
        for referer in ("", "http://localhost/links.html"):
            for doc in apache_errors.error_documents(status, referer=referer):
                variant = "referer" if referer else "direct"
                yield CorpusPage(
                    source="apache2-error",
                    name=f"{status}-{variant}-{doc.lang}",
                    label=SOFT404,
                    lang=language_key(doc.lang),
                    url="http://localhost/missing/page.html",
                    package="Debian apache2-data",
                    license="Apache-2.0",
                    origin=f"/usr/share/apache2/error/{status}.html.var",
                    html=doc.html.encode("utf-8"),
                )


def _c_strings(data: bytes, needle: bytes) -> list[bytes]:
    found = []
    start = data.find(needle)
    while start != -1:
        begin, end = data.rfind(b"\0", 0, start) + 1, data.find(b"\0", start)
        found.append(data[begin:end])
        start = data.find(needle, end)
    return found


def nginx_pages(binary: Path = NGINX_BINARY) -> Iterator[CorpusPage]:
    """nginx's built-in 404 and 410 pages, assembled from the strings compiled into the installed binary."""
    data = binary.read_bytes()
    tails = sorted(set(_c_strings(data, b"<hr><center>nginx")))  # with and without the version number
    for code, title in ((404, b"404 Not Found"), (410, b"410 Gone")):
        for head in _c_strings(data, b"<head><title>" + title + b"</title></head>"):
            for index, tail in enumerate(tails):
                yield CorpusPage(
                    source="nginx-error",
                    name=f"{code}-{index}",
                    label=SOFT404,
                    lang="en",
                    url="http://localhost/missing/page.html",
                    package=f"Debian nginx ({binary})",
                    license="BSD-2-Clause",
                    origin="ngx_http_special_response.c strings",
                    html=head + tail,
                )


def werkzeug_pages() -> Iterator[CorpusPage]:
    """Werkzeug's NotFound and Gone pages (what Flask serves by default)."""
    for exception in (NotFound(), Gone()):
        yield CorpusPage(
            source="werkzeug-error",
            name=str(exception.code),
            label=SOFT404,
            lang="en",
            url="http://localhost/missing/page",
            package=f"Werkzeug {metadata.version('werkzeug')}",
            license="BSD-3-Clause",
            origin="werkzeug/exceptions.py",
            html=exception.get_body().encode("utf-8"),
        )


_WAGTAIL_MSGIDS = (
    "Error 404: Page not found",
    "Error 404",
    "The requested page could not be found.",
    "Go to Wagtail admin",
)
# wagtailadmin/skeleton.html and 404.html with the template tags resolved; sprites, scripts and styles are
# left out because rendering them needs a configured Wagtail project.
_WAGTAIL_TEMPLATE = """<!doctype html>
<html lang="{lang}" dir="{dir}">
    <head>
        <meta charset="utf-8" />
        <title>{title} - Wagtail</title>
        <meta name="description" content="" />
        <meta name="viewport" content="width=device-width, initial-scale=1.0" />
        <meta name="robots" content="noindex" />
    </head>
    <body id="wagtail" class="">
    <main class="page404__bg">
        <div class="w-w-full w-h-full w-max-w-6xl w-mx-auto w-flex w-items-center w-justify-center">
            <div class="page404__text-container">
                <h1 class="page404__header">
                    {header}
                </h1>
                <p class="page404__text">
                    {text}
                </p>
                <a class="page404__button button" href="/admin/">{button}</a>
            </div>
        </div>
    </main>
    </body>
</html>
"""


def wagtail_admin_404_pages(cache: Path) -> Iterator[CorpusPage]:
    """Wagtail's admin 404 page in each language whose catalog translates its strings."""
    wheel = wheels.fetch(*wheels.WAGTAIL, cache)
    pattern = re.compile(r"^wagtail/admin/locale/([^/]+)/LC_MESSAGES/django\.mo$")
    catalogs = {"en": list(_WAGTAIL_MSGIDS)}
    for member in wheels.members(wheel):
        match = pattern.match(member)
        if match:
            texts = catalog_translations(wheels.read_member(wheel, member), _WAGTAIL_MSGIDS)
            if len(texts) == len(_WAGTAIL_MSGIDS):  # a partly translated page would mix languages
                catalogs[match[1]] = texts
    for locale, (title, header, text, button) in sorted(catalogs.items()):
        rtl = locale.split("_")[0] in settings.LANGUAGES_BIDI
        html = _WAGTAIL_TEMPLATE.format(
            lang=language_key(locale),
            dir="rtl" if rtl else "ltr",
            title=html_lib.escape(title),
            header=html_lib.escape(header),
            text=html_lib.escape(text),
            button=html_lib.escape(button),
        )
        yield CorpusPage(
            source="wagtail-admin-404",
            name=locale,
            label=SOFT404,
            lang=language_key(locale),
            url="http://localhost/admin/missing/",
            package=f"wagtail {wheels.WAGTAIL[1]}",
            license="BSD-3-Clause",
            origin="wagtail/admin/templates/wagtailadmin/404.html (tags resolved)",
            html=html.encode("utf-8"),
        )


def notfound_pages(cache: Path) -> list[CorpusPage]:
    """Every real not-found page source, in a fixed order."""
    pages = list(django_admin_404_pages())
    pages.append(django_default_404_page())
    pages += apache_pages()
    pages += nginx_pages()
    pages += werkzeug_pages()
    pages += wagtail_admin_404_pages(cache)
    return pages
