"""The Celery worker's consumer without gossip and mingle, however the worker is started.

Gossip and mingle exchange worker events nothing in webaudit uses. Their channels share the worker's broker
connection with the task channel, and when Redis goes away kombu's closing of that connection fails on them
first and leaves the task channel to be closed after the transport was detached: the worker exits with
"AttributeError: 'NoneType' object has no attribute 'hostname'" (docs/operations.md, "Why the worker exited
on a Redis restart"). `--without-gossip --without-mingle` avoided it only for workers started with them; this
consumer (the `CELERY_WORKER_CONSUMER` setting) leaves the two steps out of every worker, so
`celery -A webaudit worker -B` as Celery's documentation writes it lives through a Redis restart.
"""

from __future__ import annotations

from celery.worker.consumer import Consumer as CeleryConsumer

# Consumer bootsteps that open a channel of their own on the worker's broker connection.
LEFT_OUT_STEPS = ("celery.worker.consumer.mingle:Mingle", "celery.worker.consumer.gossip:Gossip")


class Consumer(CeleryConsumer):
    class Blueprint(CeleryConsumer.Blueprint):
        default_steps = [
            step for step in CeleryConsumer.Blueprint.default_steps if step not in LEFT_OUT_STEPS
        ]
