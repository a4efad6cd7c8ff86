from django.db import migrations, models
from django.db.models import Count, Q


def count_admitted(apps, schema_editor):
    """Crawls still running when this migration runs carry on with exact counters."""
    Crawl = apps.get_model("sites", "Crawl")
    Page = apps.get_model("sites", "Page")
    for crawl in Crawl.objects.filter(status__in=("queued", "running")):
        counts = Page.objects.filter(crawl=crawl).aggregate(
            internal=Count("id", filter=Q(is_internal=True)), external=Count("id", filter=Q(is_internal=False))
        )
        Crawl.objects.filter(pk=crawl.pk).update(
            internal_admitted=counts["internal"], external_admitted=counts["external"]
        )


class Migration(migrations.Migration):
    dependencies = [("sites", "0005_pageextract")]

    operations = [
        migrations.AddField(model_name="crawl", name="generation", field=models.PositiveIntegerField(default=0)),
        migrations.AddField(
            model_name="crawl", name="lane_steps", field=models.JSONField(blank=True, default=dict)
        ),
        migrations.AddField(
            model_name="crawl", name="internal_admitted", field=models.PositiveIntegerField(default=0)
        ),
        migrations.AddField(
            model_name="crawl", name="external_admitted", field=models.PositiveIntegerField(default=0)
        ),
        migrations.RunPython(count_admitted, migrations.RunPython.noop),
    ]
