"""Forms of the site's watch panel: its schedule (owner) and each user's alerts."""

from __future__ import annotations

from urllib.parse import urlsplit

from django import forms

from sites.models import Site
from watch.cron import CronError, cron_parse
from watch.models import AlertSubscription, Schedule


class ScheduleForm(forms.ModelForm):
    """The site's schedule; a site with none saved shows it off, as the panel above the form says."""

    hour = forms.IntegerField(min_value=0, max_value=23, initial=3, help_text="UTC.")
    minute = forms.IntegerField(min_value=0, max_value=59, initial=0)
    cron = forms.CharField(
        required=False,
        max_length=100,
        label="Cron expression",
        help_text="minute hour day month weekday, UTC; at most once an hour (e.g. 30 2 * * mon-fri).",
        widget=forms.TextInput(attrs={"spellcheck": "false", "placeholder": "30 2 * * mon-fri"}),
    )

    class Meta:
        model = Schedule
        fields = ["enabled", "frequency", "hour", "minute", "weekday", "cron", "analyses"]
        labels = {
            "enabled": "Re-crawl on this schedule",
            "analyses": "Run decay and page types after each crawl",
        }
        help_texts = {"analyses": ""}  # the label says it all

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        if self.instance.pk is None:
            self.initial["enabled"] = False

    def clean(self) -> dict:
        cleaned = super().clean()
        if cleaned.get("frequency") == Schedule.Frequency.CRON:
            try:
                cleaned["cron"] = cron_parse(cleaned.get("cron", "")).text
            except CronError as exc:
                self.add_error("cron", str(exc))
        return cleaned


class AlertForm(forms.ModelForm):
    """The user's alerts for a site; a user who never saved any gets none, and the form shows them all off."""

    webhook_url = forms.CharField(
        required=False,
        max_length=2000,
        label="Webhook URL",
        help_text="A JSON POST after each scheduled crawl, signed in X-Webaudit-Signature (HMAC-SHA256).",
        widget=forms.TextInput(attrs={"inputmode": "url", "placeholder": "https://"}),
    )

    class Meta:
        model = AlertSubscription
        fields = ["email", "webhook_url", "even_when_unchanged"]
        labels = {"email": "Email me", "even_when_unchanged": "Even when nothing got worse"}

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        if self.instance.pk is None:
            self.initial["email"] = False

    def clean_webhook_url(self) -> str:
        url = self.cleaned_data["webhook_url"].strip()
        if url:
            parts = urlsplit(url)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise forms.ValidationError("A webhook URL is an http:// or https:// URL with a host.")
        return url


# Where a refused form's input waits for the site's page (sites.kept_input).
def schedule_input_key(site: Site) -> str:
    return f"watch-schedule:{site.pk}"


def alerts_input_key(site: Site) -> str:
    return f"watch-alerts:{site.pk}"
