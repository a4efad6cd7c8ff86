"""Soft-404 lookups the directory probe cannot see: failed query and identifier lookups answered 200, on real
servers that answer unknown paths honestly (404), in several languages, with and without the site's chrome."""

from __future__ import annotations

import re
from urllib.parse import parse_qs

import pytest
from werkzeug.wrappers import Response

from checks.checking import urls_check

pytestmark = pytest.mark.django_db

CHROME = (
    "<html lang='{lang}'><head><title>{title}</title></head><body>"
    "<div class='nav'><a href='/'>{home}</a> | <a href='/catalogue'>{catalogue}</a> | <a href='/help'>{help}</a>"
    " | <a href='/contact'>{contact}</a></div><h1>{title}</h1>{body}"
    "<div class='footer'>© 2026 Mechanika GmbH · <a href='/imprint'>{imprint}</a> · <a href='/privacy'>"
    "{privacy}</a></div></body></html>"
)
LANGUAGES = {
    "de": dict(
        home="Startseite",
        catalogue="Katalog",
        help="Hilfe",
        contact="Kontakt",
        imprint="Impressum",
        privacy="Datenschutz",
        missing_title="Artikelsuche",
        missing="Zu dieser Artikelnummer gibt es in unserem Katalog keinen Eintrag. Vielleicht wurde der "
        "Artikel umbenannt oder aus dem Sortiment genommen. Nutzen Sie die Suche, um weiterzusuchen.",
    ),
    "fr": dict(
        home="Accueil",
        catalogue="Catalogue",
        help="Aide",
        contact="Contact",
        imprint="Mentions légales",
        privacy="Confidentialité",
        missing_title="Recherche d'article",
        missing="Aucun article ne correspond à cette référence dans notre catalogue. Il a peut-être été "
        "retiré de la vente ou renommé. Utilisez la recherche pour trouver un produit similaire.",
    ),
    "es": dict(
        home="Inicio",
        catalogue="Catálogo",
        help="Ayuda",
        contact="Contacto",
        imprint="Aviso legal",
        privacy="Privacidad",
        missing_title="Búsqueda de artículos",
        missing="No hay ningún artículo con esta referencia en nuestro catálogo. Es posible que se haya "
        "retirado o cambiado de nombre. Use el buscador para encontrar un producto parecido.",
    ),
}
PRODUCTS = {
    "1001": "Gear wheel, 40 teeth, hardened steel, for the 1952 drive trains; sold in pairs with spare pins",
    "1002": "Spring set of twelve, stainless, 3 to 9 mm; each spring tested to ten thousand cycles at the works",
    "1003": "Lever arm with bronze bushing, left-handed; fits every model built between 1960 and 1984",
}


def product_page(lang: str, number: str) -> str:
    words = LANGUAGES[lang]
    text = " ".join([PRODUCTS[number]] * 6)
    body = f"<p>{text}</p><p>Art.-Nr. {number}</p><img src='/img/{number}.jpg' alt='{number}'>"
    return CHROME.format(lang=lang, title=PRODUCTS[number][:30], body=body, **words)


def missing_page(lang: str, *, chrome: bool = True) -> str:
    words = LANGUAGES[lang]
    if not chrome:
        return f"<html lang='{lang}'><body><p>{words['missing']}</p></body></html>"
    return CHROME.format(lang=lang, title=words["missing_title"], body=f"<p>{words['missing']}</p>", **words)


@pytest.fixture(autouse=True)
def honest_by_default(httpserver):
    """Unknown paths answer 404: the directory probe sees an honest server on every site here."""
    httpserver.no_handler_status_code = 404


def serve_query_lookup(httpserver, lang: str, path: str = "/product", param: str = "id", chrome: bool = True):
    def lookup(request):
        number = (request.args.getlist(param) or [""])[0]
        html = product_page(lang, number) if number in PRODUCTS else missing_page(lang, chrome=chrome)
        return Response(html, content_type="text/html; charset=utf-8")

    httpserver.expect_request(path).respond_with_handler(lookup)


@pytest.mark.parametrize(("lang", "chrome"), [("de", True), ("fr", True), ("es", False)])
def test_a_failed_query_lookup_is_a_soft404_by_the_query_probe(httpserver, lang, chrome):
    serve_query_lookup(httpserver, lang, chrome=chrome)
    gone, real = urls_check(
        urls=[httpserver.url_for("/product?id=98765"), httpserver.url_for("/product?id=1002")], delay=0
    )
    assert gone.verdict == "soft404", gone.reason
    assert gone.reason == "query probe (id): same final URL and number of redirects as the probe" or (
        gone.reason == "query probe (id): near-identical content to the probe"
    )
    assert gone.probe["kind"] == "query" and re.search(r"\?id=[a-z]{25}$", gone.probe["url"])
    assert real.verdict == "ok" and real.probe["verdict"] == "alive" and real.probe["kind"] == "query"


def test_the_german_lookup_page_is_a_soft404_however_it_was_reached(httpserver):
    serve_query_lookup(httpserver, "de", path="/article.php", param="slug")
    results = urls_check(
        urls=[
            httpserver.url_for("/article.php?slug=old-news"),
            httpserver.url_for("/article.php?slug=misspelt&utm_source=newsletter&fbclid=x"),
            httpserver.url_for("/article.php?slug=1001"),
        ],
        delay=0,
    )
    assert [r.verdict for r in results] == ["soft404", "soft404", "ok"]
    probes = [request for request, _ in httpserver.log if request.path == "/article.php"]
    assert len(probes) == 4  # three pages, one probe for the path and its parameter: tracking adds none
    probe = [
        r.query_string.decode() for r in probes if re.fullmatch(r"slug=[a-z]{25}", r.query_string.decode())
    ]
    assert len(probe) == 1  # tracking parameters are left out of the probe URL


def test_a_failed_identifier_lookup_is_a_soft404_by_the_identifier_probe(httpserver):
    def item(request):
        number = request.path.rsplit("/", 1)[1]
        html = product_page("fr", number) if number in PRODUCTS else missing_page("fr")
        return Response(html, content_type="text/html; charset=utf-8")

    httpserver.expect_request(re.compile(r"/item/[0-9]+")).respond_with_handler(item)
    gone, real = urls_check(
        urls=[httpserver.url_for("/item/98765"), httpserver.url_for("/item/1003")], delay=0
    )
    assert gone.verdict == "soft404" and gone.reason.startswith("identifier probe: ")
    assert gone.probe["kind"] == "identifier" and re.search(r"/item/9[0-9]{11}$", gone.probe["url"])
    assert real.verdict == "ok"


def test_a_slug_lookup_without_chrome_is_a_soft404_by_the_identifier_probe(httpserver):
    slugs = {"gear-wheel-40": "1001"}

    def post(request):
        slug = request.path.rstrip("/").rsplit("/", 1)[1]
        html = product_page("es", slugs[slug]) if slug in slugs else missing_page("es", chrome=False)
        return Response(html, content_type="text/html; charset=utf-8")

    httpserver.expect_request(re.compile(r"/p/[a-z0-9-]+")).respond_with_handler(post)
    gone, real = urls_check(
        urls=[httpserver.url_for("/p/some-slug"), httpserver.url_for("/p/gear-wheel-40")], delay=0
    )
    assert (gone.verdict, gone.probe["kind"]) == ("soft404", "identifier")
    assert real.verdict == "ok"


def test_pages_whose_query_changes_only_presentation_stay_ok(httpserver):
    news = [f"Item {i}: the works at Mechanika reopened hall {i} after the summer break" for i in range(40)]

    def listing(request):
        args = parse_qs(request.query_string.decode())
        page = int(args["page"][0]) if args.get("page", [""])[0].isdigit() else 1
        items = sorted(news, reverse=args.get("sort") == ["date"])[(page - 1) * 10 : page * 10]
        body = "".join(f"<p>{item}</p>" for item in items)
        return Response(
            CHROME.format(lang="en", title="News", body=body, **LANGUAGES["de"]), content_type="text/html"
        )

    httpserver.expect_request("/news").respond_with_handler(listing)
    results = urls_check(
        urls=[
            httpserver.url_for("/news?page=2"),
            httpserver.url_for("/news?sort=date"),
            httpserver.url_for("/news?page=3&sort=date&utm_campaign=x"),
        ],
        delay=0,
    )
    assert [r.verdict for r in results] == ["ok", "ok", "ok"], [r.reason for r in results]
    assert {r.probe["kind"] for r in results} == {"directory"}


def test_an_honest_lookup_server_keeps_its_pages_ok(httpserver):
    def lookup(request):
        number = request.args.get("id", "")
        if number not in PRODUCTS:
            return Response("not found", status=404)
        return Response(product_page("de", number), content_type="text/html")

    httpserver.expect_request("/product").respond_with_handler(lookup)
    gone, real = urls_check(
        urls=[httpserver.url_for("/product?id=98765"), httpserver.url_for("/product?id=1001")], delay=0
    )
    assert (gone.verdict, gone.reason) == ("dead", "HTTP 404")
    assert real.verdict == "ok" and real.probe["reason"].startswith(
        "server answers unknown URLs with an error"
    )


def test_a_soft404_the_classifier_reached_alone_still_leads_the_crawl_to_its_links(httpserver, crawl_site):
    from sites.models import Page

    httpserver.expect_request("/").respond_with_data(
        CHROME.format(
            lang="en", title="Home", body="<p><a href='/notes/gone.html'>Notes</a></p>", **LANGUAGES["de"]
        ),
        content_type="text/html",
    )
    # A page that says it is not found, on a server that answers unknown paths with 404: the probe sees an
    # honest server, so only the classifier calls it a soft-404. The one link to /notes/only-here.html is on it.
    httpserver.expect_request("/notes/gone.html").respond_with_data(
        "<html><head><title>Page not found</title></head><body><h1>Page not found</h1><p>Sorry, the page you "
        "requested could not be found.</p><p><a href='/notes/only-here.html'>only here</a></p></body></html>",
        content_type="text/html",
    )
    httpserver.expect_request("/notes/only-here.html").respond_with_data(
        product_page("de", "1001"), content_type="text/html"
    )
    crawl = crawl_site(httpserver.url_for("/"), site_settings={"check_external": False})
    pages = {page.url.rsplit("/", 1)[1]: page for page in Page.objects.filter(crawl=crawl)}
    gone = pages["gone.html"]
    assert gone.verdict == "soft404" and gone.verdict_reason.startswith("classifier: ")
    assert gone.probe["verdict"] == "alive"
    assert pages["only-here.html"].verdict == "ok"  # found through the page the classifier flagged


def test_junk_queries_on_real_pages_neither_multiply_probes_nor_make_them_soft404(httpserver):
    """A server that ignores queries: static files with junk, repeated or non-UTF-8 parameters, and a program
    path given hundreds of parameters, all stay ok, each at the cost of its directory's probe only."""
    httpserver.expect_request("/docs/intro.html").respond_with_data(
        product_page("fr", "1001"), content_type="text/html"
    )
    httpserver.expect_request("/search").respond_with_data(
        product_page("fr", "1002"), content_type="text/html"
    )
    many = "&".join(f"f{i}=v{i}" for i in range(300))
    results = urls_check(
        urls=[
            httpserver.url_for("/docs/intro.html") + "?x=1&x=2",
            httpserver.url_for("/docs/intro.html") + "?q=%FF%FE&utm_source=x&fbclid=y",
            httpserver.url_for("/search") + "?" + many,
        ],
        delay=0,
    )
    assert [(r.verdict, r.probe["kind"]) for r in results] == [("ok", "directory")] * 3, [
        r.reason for r in results
    ]
    probes = [r.path for r, _ in httpserver.log if re.fullmatch(r"/(docs/)?[a-z]{25}", r.path)]
    assert sorted(probes, key=len)[0].count("/") == 1 and len(probes) == 2  # one per directory: / and /docs/
