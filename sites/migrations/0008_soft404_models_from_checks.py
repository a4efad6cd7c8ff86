# The soft-404 verdict is part of every crawl, so its directory probes and URL strikes moved from the checks app
# to this one (docs/analysis-jobs.md). The tables stay where they are, under the checks app's names: no row is
# copied, and an existing database only changes Django's state.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("sites", "0007_link_and_page_indexes"),
        ("checks", "0005_soft404_models_to_sites"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="UrlHealth",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("url", models.TextField()),
                        ("url_key", models.CharField(max_length=40, unique=True)),
                        ("strikes", models.PositiveSmallIntegerField(default=0)),
                        ("failing_since", models.DateTimeField()),
                        ("last_strike_at", models.DateTimeField()),
                        ("last_reason", models.CharField(blank=True, max_length=300)),
                    ],
                    options={
                        "verbose_name_plural": "URL health",
                        "db_table": "checks_urlhealth",
                    },
                ),
                migrations.CreateModel(
                    name="DirectoryProbe",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("directory", models.TextField()),
                        ("directory_key", models.CharField(max_length=40)),
                        ("url", models.TextField(help_text="The probe URL: the directory and 25 random lower-case letters.")),
                        ("final_url", models.TextField(blank=True)),
                        ("redirects", models.PositiveSmallIntegerField(default=0)),
                        ("status", models.PositiveSmallIntegerField(blank=True, null=True)),
                        ("error_kind", models.CharField(blank=True, max_length=32)),
                        ("text", models.TextField(blank=True, help_text="Visible text of the answer, for the resemblance test.")),
                        ("body", models.BinaryField(blank=True, help_text="The HTML answer, zlib-compressed: a soft-404 page by construction.", null=True)),
                        ("fetched_at", models.DateTimeField(auto_now_add=True)),
                        ("crawl", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="probes", to="sites.crawl")),
                    ],
                    options={
                        "db_table": "checks_directoryprobe",
                        "constraints": [models.UniqueConstraint(fields=("crawl", "directory_key"), name="probe_unique_directory_per_crawl")],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
