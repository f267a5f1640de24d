"""Text safe to show and to keep: control and bidi characters out, secret values scrubbed,
secret-named URL parameters redacted."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

REDACTED = "<redacted>"
# Query parameters whose values are credentials: never archived, logged or put in messages.
SECRET_PARAMS = frozenset({"api_key", "apikey", "key", "token", "access_token", "secret"})
# C0 and C1 controls (ESC starts terminal escape sequences, NUL cuts C strings, CR rewrites a
# line) and the Unicode bidi overrides, embeddings and isolates, which reorder what a reader
# sees (CVE-2021-42574). Tabs and line breaks become a space: a table cell is one line.
# The patterns are written so that Python's re and polars' (Rust) regex read them alike.
BREAKS = r"[\t\n\r\v\f\x85\u2028\u2029]"
# Zero-width and invisible characters too (a soft hyphen, the Mongolian vowel separator,
# zero-width space, joiners and no-break space, the word joiner): 'region\u200b' would show as
# 'region' and be another.
CONTROL = (
    r"[\x00-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069"
    r"\ufeff]"
)
_BREAKS = re.compile(BREAKS)
_CONTROL = re.compile(CONTROL)
# A cell a spreadsheet runs as a formula: one that starts, after any spaces, with = + - or @,
# or that starts with a tab or a carriage return; or one holding a ; followed (after any
# spaces) by = + - or @, which a spreadsheet whose list separator is ; splits into a cell
# starting with a formula (";=1+2"): the CSV writer quotes a cell holding a comma, which keeps
# it whole, but not one holding a ;. Searched, not matched at the start only; written for
# Python's re and polars' alike, the one rule every CSV writer applies (spreadsheet_text for
# rows, core/frames.py spreadsheet_safe for frames).
FORMULA = r"^(?:\s*[=+\-@]|[\t\r])|;\s*[=+\-@]"
_FORMULA = re.compile(FORMULA)


def spreadsheet_text(text: str) -> str:
    """The text, with a leading ' where a spreadsheet would otherwise run it as a formula, or
    would once a tool strips its control and invisible characters ('\x1b=1+1')."""
    return f"'{text}" if _runs(text) else text


def _runs(text: str) -> bool:
    return bool(_FORMULA.search(text) or _FORMULA.search(_CONTROL.sub("", text)))


def from_spreadsheet(text: str) -> str:
    """spreadsheet_text undone, for a CSV read back: a leading ' before what a spreadsheet
    would run is chipcost's (or the spreadsheet's own mark of text), not the value's."""
    return text[1:] if text.startswith("'") and _runs(text[1:]) else text


def printable(text: str) -> str:
    """The text with line breaks as spaces and every control or bidi character removed."""
    return _CONTROL.sub("", _BREAKS.sub(" ", text))


def redact(params: Mapping[str, Any]) -> dict[str, Any]:
    """The query parameters with the value of every secret-named one redacted."""
    return {k: (REDACTED if k.lower() in SECRET_PARAMS else v) for k, v in params.items()}


def public_url(url: str) -> str:
    """The URL with any secret-named query parameter redacted (safe to archive and print)."""
    import httpx  # imported when a source fetches: a replay only parses

    parsed = httpx.URL(url)
    pairs = parsed.params.multi_items()
    if not any(key.lower() in SECRET_PARAMS for key, _ in pairs):
        return url  # untouched: re-encoding would change a provider's own next-page link
    return str(parsed.copy_with(params=[(k, redact({k: v})[k]) for k, v in pairs]))


def scrub(value: Any, secrets: Sequence[str]) -> Any:
    """The value (text, or lists and mappings of it) with every secret replaced by REDACTED."""
    if not secrets:
        return value
    if isinstance(value, str):
        # Longest first: a key that contains another key is redacted whole.
        for secret in sorted(secrets, key=len, reverse=True):
            value = value.replace(secret, REDACTED)
        return value
    if isinstance(value, Mapping):
        return {scrub(k, secrets): scrub(v, secrets) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [scrub(v, secrets) for v in value]
    return value


# Passwords as connection strings carry them: a conninfo's `password=...` (quoted or not) and
# a URL's `//user:password@`. Shown as PASSWORD_MASK in every message chipcost prints, logs or
# stores (a key or token is REDACTED).
PASSWORD_MASK = "***"
# A password already masked (a warehouse shown in a message is masked, and the message is masked
# again where it is raised and where it is printed) is left as it is: read again as a password
# it took the text after it up to the next space, the ': ' a message goes on with.
_MASKED_ALREADY = r"\*\*\*(?=[:;,.)\]'\"]*(?:\s|$))"
_CONNINFO_PASSWORD = re.compile(
    rf"(?i)\b(password|passwd|pwd)(\s*=\s*)(?!{_MASKED_ALREADY})('(?:[^'\\]|\\.)*'|[^\s;]+)"
)
# The user may be empty (`//:password@`); a password holding a raw '/' ends the URL's authority
# early, so what follows it up to the '@' is masked too (over-masking a path with an '@' in it).
_URL_PASSWORD = re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://[^\s:/@]*):[^\s@]*@")


def masked(text: str) -> str:
    """The text with every password of a conninfo or URL replaced by PASSWORD_MASK."""
    text = _CONNINFO_PASSWORD.sub(lambda m: f"{m.group(1)}{m.group(2)}{PASSWORD_MASK}", text)
    return _URL_PASSWORD.sub(lambda m: f"{m.group(1)}:{PASSWORD_MASK}@", text)


def without_credentials(url: str) -> str:
    """A URL as a message shows it: no user or password (`s3://key:secret@host/x`)."""
    return re.sub(r"//[^/@]*@", "//", url, count=1)
