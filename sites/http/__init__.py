"""The HTTP client every fetch of webaudit goes through, with robots.txt and per-host politeness."""

from .client import Fetcher, json_body
from .decoding import decode_body, is_html_type
from .policy import FetchPolicy
from .result import ErrorKind, FetchResult, Hop
from .robots import RobotsRules, parse_robots, robots_url
from .throttle import HostThrottle

__all__ = [
    "ErrorKind",
    "FetchPolicy",
    "FetchResult",
    "Fetcher",
    "HostThrottle",
    "Hop",
    "RobotsRules",
    "decode_body",
    "is_html_type",
    "json_body",
    "parse_robots",
    "robots_url",
]
