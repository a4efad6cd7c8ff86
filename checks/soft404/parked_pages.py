"""Synthetic parked-domain pages: no real ones are available offline, so these are written to mimic them.

Every page here is marked synthetic in the manifest, and evaluation leaves them out; they only teach the
shipped model what a parking page looks like, which the paper found in 47% of its soft-404 pages: a domain
name, an offer to sell it, lists of advertising links (to an ad server, or to the parked host's own search
URLs, which makes them on-site), almost no text, and "keyword stuffing": Prieto et al. (Figure 5a) see the
soft-404 probability peak at 90% between 30 and 45 keywords and above 55, so the keyword lists here hold
30 to 60 entries.
"""

from __future__ import annotations

import html as html_lib
from collections.abc import Iterator
from urllib.parse import quote_plus

from checks.soft404.corpus import SOFT404, CorpusPage

# (language, domain, offer, heading for the links, privacy link text, advertising topics)
_PARKINGS = (
    (
        "en",
        "best-travel-deals.example",
        "The domain owner may be willing to sell it. Make an offer",
        "Related Links",
        "Privacy Policy",
        (
            "Cheap Flights",
            "Hotel Booking",
            "Car Rental",
            "Travel Insurance",
            "Last Minute Deals",
            "Cruises",
            "Vacation Packages",
            "Beach Resorts",
            "City Breaks",
            "Airport Parking",
            "Ski Holidays",
            "Tours",
        ),
    ),
    (
        "en",
        "myphotoshop.example",
        "Buy this domain",
        "Sponsored Listings",
        "Privacy",
        (
            "Digital Cameras",
            "Photo Printing",
            "Camera Lenses",
            "Photo Editing Software",
            "Tripods",
            "Drones",
            "Memory Cards",
            "Photo Books",
            "Canvas Prints",
            "Camera Bags",
            "Wedding Photographer",
        ),
    ),
    (
        "en",
        "quickloans24.example",
        "This domain name is available for purchase",
        "Top Searches",
        "Privacy Policy",
        (
            "Personal Loans",
            "Credit Cards",
            "Mortgage Rates",
            "Debt Consolidation",
            "Bad Credit Loans",
            "Home Equity",
            "Refinance",
            "Savings Account",
            "Car Loans",
            "Student Loans",
            "Insurance Quotes",
        ),
    ),
    (
        "de",
        "gartenmoebel-shop.example",
        "Diese Domain kaufen",
        "Ähnliche Suchanfragen",
        "Datenschutz",
        (
            "Gartenmöbel",
            "Loungemöbel",
            "Sonnenschirme",
            "Gartenstühle",
            "Rasenmäher",
            "Grill",
            "Pavillon",
            "Gartenhaus",
            "Hochbeet",
            "Pflanzen online",
            "Teichpumpe",
            "Strandkorb",
        ),
    ),
    (
        "es",
        "viajes-baratos.example",
        "¿Quiere comprar este dominio?",
        "Búsquedas relacionadas",
        "Política de privacidad",
        (
            "Vuelos baratos",
            "Hoteles",
            "Alquiler de coches",
            "Viajes al Caribe",
            "Cruceros",
            "Ofertas de última hora",
            "Seguro de viaje",
            "Paquetes vacacionales",
            "Escapadas",
            "Casas rurales",
            "Billetes de tren",
        ),
    ),
    (
        "fr",
        "immobilier-paris.example",
        "Ce nom de domaine est à vendre",
        "Recherches associées",
        "Confidentialité",
        (
            "Appartement à vendre",
            "Location Paris",
            "Crédit immobilier",
            "Agence immobilière",
            "Maison à vendre",
            "Estimation gratuite",
            "Déménagement",
            "Assurance habitation",
            "Studio étudiant",
            "Viager",
            "Notaire",
        ),
    ),
    (
        "ja",
        "kuruma-kaitori.example",
        "このドメインは販売中です",
        "関連検索",
        "プライバシーポリシー",
        (
            "中古車 買取",
            "車 査定",
            "自動車保険",
            "カーローン",
            "新車 値引き",
            "車検",
            "タイヤ 交換",
            "レンタカー",
            "軽自動車",
            "ハイブリッド車",
            "バイク 買取",
        ),
    ),
    (
        "it",
        "ricette-facili.example",
        "Acquista questo dominio",
        "Ricerche correlate",
        "Privacy",
        (
            "Ricette veloci",
            "Dolci fatti in casa",
            "Pizza",
            "Corsi di cucina",
            "Vino rosso",
            "Pasta fresca",
            "Robot da cucina",
            "Dieta mediterranea",
            "Olio extravergine",
            "Ristoranti",
            "Gelato",
        ),
    ),
)

_EXTERNAL = "https://ads.parking.invalid/click?q={q}&amp;d={domain}"
_ONSITE = "/search?q={q}&amp;type=related"

_LAYOUTS = (
    (
        _EXTERNAL,
        """<!DOCTYPE html>
<html lang="{lang}"><head><meta charset="utf-8"><title>{domain}</title>
<meta name="description" content="{domain}">
<meta name="keywords" content="{keywords}">
<script>var parking = {{"domain": "{domain}", "lander": 3}};</script>
</head><body>
<div class="header"><h1>{domain}</h1><a class="offer" href="https://sedo.parking.invalid/buy?domain={domain}">{offer}</a></div>
<div class="links"><h2>{related}</h2><ul>{links}</ul></div>
<div class="footer">&copy; 2025 {domain} | <a href="https://parking.invalid/privacy">{privacy}</a></div>
</body></html>
""",
    ),
    (
        _ONSITE,
        """<!DOCTYPE html>
<html lang="{lang}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{domain} - {related}</title>
<meta name="description" content="{domain}: {related}. {topics}">
<meta name="keywords" content="{keywords}">
<style>
body {{ margin: 0; font-family: Arial, Helvetica, sans-serif; background: #f4f4f4; color: #333; }}
.container {{ max-width: 960px; margin: 0 auto; padding: 24px; }}
.domain {{ font-size: 42px; font-weight: bold; color: #1a4d8f; text-align: center; margin: 32px 0 8px; }}
.sale {{ text-align: center; margin-bottom: 24px; }} .sale a {{ color: #c0392b; }}
.box {{ background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: 16px 24px; }}
.box h2 {{ font-size: 18px; border-bottom: 1px solid #eee; padding-bottom: 8px; }}
.box ul {{ list-style: none; padding: 0; columns: 2; }} .box li {{ padding: 6px 0; }}
.box li a {{ color: #1a4d8f; font-size: 16px; text-decoration: underline; }}
.search {{ margin: 24px 0; text-align: center; }} .search input {{ width: 60%; padding: 8px; }}
footer {{ font-size: 11px; color: #999; text-align: center; margin-top: 32px; }}
</style></head>
<body><div class="container">
<div class="domain">{domain}</div>
<div class="sale"><a href="/buy-this-domain">{offer}</a></div>
<div class="box"><h2>{related}</h2><ul>{links}</ul></div>
<form class="search" action="/search" method="get"><input type="text" name="q"><button type="submit">&#128269;</button></form>
<footer>{year} Copyright. {domain} | <a href="/privacy">{privacy}</a></footer>
</div></body></html>
""",
    ),
    (
        _ONSITE,
        """<html lang="{lang}"><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8">
<title>{domain}</title>
<meta name="keywords" content="{keywords}"></head>
<body style="margin:0"><table width="100%"><tr><td align="center">
<font size="5">{domain}</font><br><font size="2"><a href="/?action=sell">{offer}</a></font>
</td></tr><tr><td><p><b>{related}</b></p>{link_paragraphs}</td></tr></table>
<div style="font-size:10px"><a href="/privacy.html">{privacy}</a></div></body></html>
""",
    ),
)


def _keywords(domain: str, topics: tuple[str, ...]) -> str:
    stem = domain.split(".")[0]
    entries = [
        *topics,
        *(t.lower() for t in topics),
        *(f"{t} {stem}" for t in topics),
        *(f"{stem} {t}" for t in topics),
        stem,
        domain,
    ]
    return ", ".join(dict.fromkeys(entries))  # 35 to 50 entries per profile


def parked_pages() -> Iterator[CorpusPage]:
    """Yield one page per parking profile and layout (24 pages), each marked synthetic."""
    for index, (lang, domain, offer, related, privacy, topics) in enumerate(_PARKINGS):
        for layout_index, (link, layout) in enumerate(_LAYOUTS):
            anchors = [
                f'<a href="{link.format(q=quote_plus(t), domain=domain)}">{html_lib.escape(t)}</a>'
                for t in topics
            ]
            html = layout.format(
                lang=lang,
                domain=domain,
                offer=html_lib.escape(offer),
                related=html_lib.escape(related),
                privacy=html_lib.escape(privacy),
                keywords=html_lib.escape(_keywords(domain, topics)),
                topics=html_lib.escape(", ".join(topics[:5])),
                year=2025,
                links="".join(f"<li>{a}</li>" for a in anchors),
                link_paragraphs="".join(f"<p>&raquo; {a}</p>" for a in anchors),
            )
            yield CorpusPage(
                source="parked-synthetic",
                name=f"{index:02d}-{layout_index}",
                label=SOFT404,
                lang=lang,
                url=f"http://{domain}/",
                package="webaudit (written for this corpus)",
                license="same as webaudit",
                origin="checks/soft404/parked_pages.py",
                html=html.encode("utf-8"),
                synthetic=True,
            )
