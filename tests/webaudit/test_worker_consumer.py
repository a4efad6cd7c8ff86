"""Every worker of the app runs without gossip and mingle, whatever its command line says."""

from __future__ import annotations

from celery.worker.consumer import Consumer as CeleryConsumer
from django.utils.module_loading import import_string

from webaudit.celery import app


def test_the_apps_worker_consumer_has_no_gossip_or_mingle_step_but_keeps_the_others():
    consumer = import_string(app.conf.worker_consumer.replace(":", "."))
    steps = consumer.Blueprint.default_steps
    assert not [step for step in steps if step.endswith((":Gossip", ":Mingle"))]
    celery_steps = CeleryConsumer.Blueprint.default_steps
    assert set(celery_steps) - set(steps) == {
        "celery.worker.consumer.gossip:Gossip",
        "celery.worker.consumer.mingle:Mingle",
    }
    assert not app.conf.worker_enable_remote_control
