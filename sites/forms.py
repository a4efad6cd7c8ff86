"""Dashboard forms: logging in, registering a site with its crawl settings, sharing it, and filtering a crawl's
pages."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm

from sites.crawler.urls import PatternError, compile_patterns, normalize_url
from sites.http.urls import url_problem
from sites.limits import CRAWL_RANGES
from sites.models import Site
from sites.services.dashboard import SCOPES, STATUS_CLASSES, VERDICTS, PageFilter
from sites.services.issues import BROKEN_TARGET_ORDERS, BROKEN_TARGET_SCOPES, ISSUE_KINDS

PATTERN_HELP = (
    "Regular expressions (RE2 syntax: no back references or look-around), one a line, at most 500 characters "
    "each, matched anywhere in the URL."
)


class SiteForm(forms.ModelForm):
    # A CharField, not a URLField: Django's URLField accepts ftp:// and guesses schemes; the crawler takes
    # exactly what normalize_url takes, so the form checks with the same function.
    url = forms.CharField(
        label="Start URL",
        max_length=2000,
        help_text="Where crawls start, such as https://example.com/. Its host is the site.",
        widget=forms.TextInput(attrs={"inputmode": "url", "autocomplete": "url", "placeholder": "https://"}),
    )
    # Ranges from sites/limits.py (a FloatField refuses nan and infinity itself).
    max_pages = forms.IntegerField(
        label="Max pages",
        required=False,
        min_value=CRAWL_RANGES["max_pages"][0],
        max_value=CRAWL_RANGES["max_pages"][1],
    )
    max_depth = forms.IntegerField(
        label="Max depth",
        required=False,
        min_value=CRAWL_RANGES["max_depth"][0],
        max_value=CRAWL_RANGES["max_depth"][1],
    )
    concurrency = forms.IntegerField(
        label="Concurrent requests",
        required=False,
        min_value=CRAWL_RANGES["concurrency"][0],
        max_value=CRAWL_RANGES["concurrency"][1],
    )
    delay = forms.FloatField(
        label="Delay (seconds)",
        required=False,
        min_value=CRAWL_RANGES["delay"][0],
        max_value=CRAWL_RANGES["delay"][1],
    )
    # A year at most: a verdict older than that says nothing of the link today.
    external_cache_hours = forms.FloatField(
        label="Reuse external verdicts (hours)", required=False, min_value=0, max_value=8760
    )

    class Meta:
        model = Site
        fields = ["url", "name", *Site.CRAWL_SETTINGS]
        widgets = {
            "include_patterns": forms.Textarea(attrs={"rows": 3, "spellcheck": "false"}),
            "exclude_patterns": forms.Textarea(attrs={"rows": 3, "spellcheck": "false"}),
        }
        labels = {"obey_robots": "Obey robots.txt", "check_external": "Check external links"}

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        defaults = {
            "max_pages": settings.WEBAUDIT_CRAWL_MAX_PAGES,
            "max_depth": settings.WEBAUDIT_CRAWL_MAX_DEPTH,
            "concurrency": settings.WEBAUDIT_CRAWL_CONCURRENCY,
            "delay": settings.WEBAUDIT_CRAWL_DELAY,
            "external_cache_hours": settings.WEBAUDIT_EXTERNAL_CACHE_HOURS,
        }
        for name, default in defaults.items():
            self.fields[name].help_text = f"Leave blank for the default ({default})."
            self.fields[name].widget.attrs["placeholder"] = str(default)
        self.fields["name"].help_text = "Optional; the URL is shown when empty."
        self.fields["external_cache_hours"].help_text = (
            "How long your later crawls reuse an external link's verdict instead of checking it again; 0 checks "
            "every time. " + self.fields["external_cache_hours"].help_text
        )
        for name in ("include_patterns", "exclude_patterns"):
            self.fields[
                name
            ].strip = False  # keep leading blank lines so an error's line number is the user's
        self.fields["include_patterns"].help_text = (
            PATTERN_HELP + " When set, only matching URLs are crawled."
        )
        self.fields["exclude_patterns"].help_text = PATTERN_HELP + " Matching URLs are never crawled."

    def clean_url(self) -> str:
        raw = self.cleaned_data["url"].strip()
        # People type "example.com"; a URL without a scheme is taken as https.
        candidate = raw if "://" in raw else f"https://{raw}"
        normalized = normalize_url(candidate)
        if normalized is None:
            raise forms.ValidationError(
                "Enter an http:// or https:// URL with a host name, such as https://example.com/.",
                code="invalid_url",
            )
        problem = url_problem(normalized)  # a host no DNS name can be: "a..b", a label over 63 characters
        if problem:
            raise forms.ValidationError(f"This URL cannot be fetched: {problem}.", code="invalid_url")
        return normalized

    def _clean_patterns(self, name: str) -> str:
        text = self.cleaned_data[name]
        try:
            compile_patterns(text)
        except PatternError as exc:  # compile_patterns names the line: "line 2 ('[a'): ... missing ]"
            raise forms.ValidationError(
                f"Not a usable regular expression on {exc}", code="bad_pattern"
            ) from None
        return text.strip()

    def clean_include_patterns(self) -> str:
        return self._clean_patterns("include_patterns")

    def clean_exclude_patterns(self) -> str:
        return self._clean_patterns("exclude_patterns")

    def crawl_settings(self) -> dict:
        """The cleaned crawl settings, as keyword arguments for site_create."""
        return {name: self.cleaned_data[name] for name in self.Meta.fields if name not in ("url", "name")}


class PlainLabelsForm(forms.Form):
    """A form whose labels carry no trailing colon, as everywhere on the dashboard."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)


class LoginForm(PlainLabelsForm, AuthenticationForm):
    """Django's login form with the dashboard's labels ("Username", not "Username:")."""


class ShareForm(PlainLabelsForm):
    username = forms.CharField(
        label="Share with user",
        max_length=150,
        widget=forms.TextInput(attrs={"autocomplete": "off", "placeholder": "username"}),
    )


class PageFilterForm(PlainLabelsForm):
    """The GET form above a crawl's page table; an unknown choice is ignored rather than an error page."""

    status = forms.ChoiceField(
        required=False,
        label="Status",
        choices=[("", "Any status")] + [(key, label) for key, (label, _) in STATUS_CLASSES.items()],
    )
    scope = forms.ChoiceField(
        required=False,
        label="Scope",
        choices=[("", "Internal and external")] + [(key, label) for key, (label, _) in SCOPES.items()],
    )
    verdict = forms.ChoiceField(
        required=False,
        label="Verdict",
        choices=[("", "Any verdict")] + [(key, label) for key, (label, _) in VERDICTS.items()],
    )
    broken = forms.BooleanField(required=False, label="Broken only")
    q = forms.CharField(required=False, label="URL contains", max_length=500)
    # Only the kinds that list pages: the broken-target kinds list targets in their own table.
    issue = forms.ChoiceField(
        required=False,
        label="Issue",
        choices=[("", "Any issue")]
        + [(kind.kind, kind.title) for kind in ISSUE_KINDS if kind.anchor == "pages"],
    )

    def page_filter(self) -> PageFilter:
        self.is_valid()
        data = self.cleaned_data  # only the fields that were valid
        return PageFilter(
            status=data.get("status", ""),
            scope=data.get("scope", ""),
            verdict=data.get("verdict", ""),
            broken=data.get("broken", False),
            search=data.get("q", "").strip(),
            issue=data.get("issue", ""),
        )


class BrokenTargetsForm(PlainLabelsForm):
    """The GET parameters of the broken targets' table; an unknown choice falls back to the default."""

    targets = forms.ChoiceField(
        required=False,
        label="Targets",
        choices=[("", "All broken targets")]
        + [("internal", "Internal"), ("external", "External"), ("soft404", "Soft-404")],
    )
    tsort = forms.ChoiceField(
        required=False,
        label="Sort",
        choices=[(order, order) for order in BROKEN_TARGET_ORDERS],
    )

    def choice(self) -> tuple[str, str]:
        """(scope, order) asked for, the defaults for whatever is missing or unknown."""
        self.is_valid()
        scope = self.cleaned_data.get("targets", "")
        order = self.cleaned_data.get("tsort") or "-inlinks"
        return (scope if scope in BROKEN_TARGET_SCOPES else "", order)
