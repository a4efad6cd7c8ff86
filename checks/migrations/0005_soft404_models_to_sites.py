# DirectoryProbe and UrlHealth belong to the crawl now (sites 0008, docs/analysis-jobs.md): the checks app
# forgets them without touching their tables, which the sites app takes over under the same names.

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("checks", "0004_structure"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name="DirectoryProbe"),
                migrations.DeleteModel(name="UrlHealth"),
            ],
            database_operations=[],
        ),
    ]
