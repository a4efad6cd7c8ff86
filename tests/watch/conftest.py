"""Fixtures of the watch tests: Celery in-process, and a webhook receiver that checks signatures."""

from __future__ import annotations

import hashlib
import hmac
import json

import pytest
from pytest_httpserver import HTTPServer
from werkzeug.wrappers import Request, Response


@pytest.fixture
def eager_tasks():
    """Celery runs tasks (webhook deliveries and their retries) in the calling process."""
    from webaudit.celery import app

    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before


class WebhookReceiver:
    """A second HTTP server taking webhook POSTs: answers from `answers` in turn (then 200), keeps each body."""

    def __init__(self) -> None:
        self.server = HTTPServer(host="127.0.0.1")
        self.server.start()
        self.answers: list[int] = []
        self.received: list[tuple[bytes, str]] = []  # (body, signature header)
        self.server.expect_request("/hook", method="POST").respond_with_handler(self.answer)
        self.url = self.server.url_for("/hook")

    def answer(self, request: Request) -> Response:
        self.received.append((request.get_data(), request.headers.get("X-Webaudit-Signature", "")))
        status = self.answers.pop(0) if self.answers else 200
        return Response(json.dumps({"ok": status == 200}), status=status, content_type="application/json")

    def verified(self, secret: str) -> list[dict]:
        """The payloads whose signature is the HMAC-SHA256 of their exact body under `secret`."""
        good = []
        for body, signature in self.received:
            expected = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
            if hmac.compare_digest(expected, signature):
                good.append(json.loads(body))
        return good


@pytest.fixture
def webhook_receiver():
    receiver = WebhookReceiver()
    yield receiver
    receiver.server.clear()
    receiver.server.stop()
