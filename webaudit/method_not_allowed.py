"""The dashboard's page for a GET to an address that only takes a form's POST.

A browser lands there when a refused form stays on its action's address (a share to an unknown user) and the user
reloads or reopens it; Django's 405 answer is empty, so the browser showed a blank page."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


class MethodNotAllowedPage:
    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code != 405 or request.method != "GET" or response.content:
            return response
        page = render(request, "405.html", status=405)
        if response.has_header("Allow"):
            page["Allow"] = response["Allow"]
        return page
