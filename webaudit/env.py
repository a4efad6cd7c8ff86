"""Strict readers for environment settings: a malformed value is an error, never a guess."""

from __future__ import annotations

import ipaddress
import math
import os

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean; use one of 1/0, true/false, yes/no, on/off")


def env_int(name: str, default: int, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """A whole number within [minimum, maximum] (each optional); anything else is an error naming the range."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a whole number") from None
    _check_range(name, value, minimum, maximum)
    return value


def env_float(
    name: str, default: float, *, minimum: float | None = None, maximum: float | None = None
) -> float:
    """A finite number within [minimum, maximum] (each optional): nan and infinity are refused."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a number") from None
    if not math.isfinite(value):
        raise ImproperlyConfigured(f"{name}={raw!r} is not a finite number")
    _check_range(name, value, minimum, maximum)
    return value


def _check_range(name: str, value: float, minimum: float | None, maximum: float | None) -> None:
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name}={value!r} is below its minimum {minimum!r}")
    if maximum is not None and value > maximum:
        raise ImproperlyConfigured(f"{name}={value!r} is above its maximum {maximum!r}")


def env_list(name: str, default: tuple[str, ...] = ()) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return list(default)
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_networks(name: str, default: tuple[str, ...] = ()) -> list[str]:
    """Return a list of CIDR networks, rejecting anything `ipaddress` cannot read."""
    networks = env_list(name, default)
    for network in networks:
        try:
            ipaddress.ip_network(network, strict=False)
        except ValueError:
            raise ImproperlyConfigured(f"{name}: {network!r} is not an IP network (CIDR)") from None
    return networks


def env_sigmas(name: str, default: tuple[float, ...]) -> list[float]:
    """A comma-separated list of probabilities strictly between 0 and 1 (decay's σ), at least one."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return list(default)
    try:
        values = [float(item) for item in raw.split(",") if item.strip()]
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be numbers separated by commas, not {raw!r}") from None
    if not values or not all(0.0 < value < 1.0 for value in values):
        raise ImproperlyConfigured(f"{name}: every value must be between 0 and 1 (exclusive), got {raw!r}")
    return values


def env_cache(name: str) -> dict:
    """A CACHES entry: Redis at the variable's redis:// URL, else memory local to the process."""
    url = env_str(name, "")
    if url.startswith(("redis://", "rediss://", "unix://")):
        return {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url}
    if url:
        raise ImproperlyConfigured(f"{name} must be a redis:// URL or empty, not {url!r}")
    return {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "webaudit"}
