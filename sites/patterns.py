"""Regular expressions typed by users (URL patterns of filters, exclude patterns of crawls), run in linear time.

Python's `re` backtracks: `(a+)+$` against forty a's and a b takes minutes, and a user pattern runs against
every URL of a crawl. `compile_user_pattern` compiles with RE2 (google-re2), whose automata match in time
linear in the text whatever the pattern, within a memory cap. What RE2 cannot run in linear time (back
references, look-around) is refused at input with a clear message, as is a pattern longer than
MAX_PATTERN_LENGTH. Every feature that takes a pattern from a user goes through here.
"""

from __future__ import annotations

import re2
from django.core.exceptions import ValidationError

MAX_PATTERN_LENGTH = 500
# RE2 compiles within this memory; a pattern whose automaton needs more is refused (`x{1000}` repeated).
MAX_PATTERN_MEMORY = 8 << 20

_OPTIONS = re2.Options()
_OPTIONS.max_mem = MAX_PATTERN_MEMORY
_OPTIONS.log_errors = False

_UNSUPPORTED_HINTS = {
    "invalid escape sequence: \\": "back references (\\1) are not supported",
    "invalid perl operator: (?=": "look-ahead (?=…) is not supported",
    "invalid perl operator: (?!": "look-ahead (?!…) is not supported",
    "invalid perl operator: (?<": "look-behind (?<…) is not supported",
}


def compile_user_pattern(text: str, *, what: str = "pattern"):
    """`text` compiled for `search`/`match` in linear time, or ValidationError saying what is wrong.

    The result has the `re` methods callers need (`search`, `match`, `fullmatch`, `pattern`)."""
    if not isinstance(text, str):
        raise ValidationError(f"the {what} must be text")
    if len(text) > MAX_PATTERN_LENGTH:
        raise ValidationError(f"the {what} is {len(text)} characters long; at most {MAX_PATTERN_LENGTH}")
    try:
        return re2.compile(text, options=_OPTIONS)
    except re2.error as exc:
        reason = (
            exc.args[0].decode("utf-8", "replace")
            if exc.args and isinstance(exc.args[0], bytes)
            else str(exc)
        )
        for start, hint in _UNSUPPORTED_HINTS.items():
            if reason.startswith(start):
                reason = f"{hint} (patterns run in linear time, RE2 syntax)"
                break
        raise ValidationError(f"the {what} is not a usable regular expression: {reason}") from None
