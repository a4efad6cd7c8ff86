"""The HTTP client every fetch of webaudit goes through, with robots.txt and per-host politeness."""

from .client import Fetcher, json_body
from .decoding import decode_body, is_html_type
from .fetch_settings import FetchSettings
from .policy import FetchPolicy
from .polite import PoliteFetcher, robots_text_of
from .result import ErrorKind, FetchResult, Hop
from .robots import RobotsRules, parse_robots, robots_url
from .throttle import HostThrottle

__all__ = [
    "ErrorKind",
    "FetchPolicy",
    "FetchSettings",
    "FetchResult",
    "Fetcher",
    "HostThrottle",
    "Hop",
    "PoliteFetcher",
    "RobotsRules",
    "decode_body",
    "is_html_type",
    "json_body",
    "parse_robots",
    "robots_text_of",
    "robots_url",
]
