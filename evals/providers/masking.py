"""Text from outside the harness, made safe to store and print.

An endpoint can put anything in what it sends back: the API key it was sent (echoed in an
error, a model id, a `finish_reason`), terminal escape sequences, control characters.
Everything a provider returns passes through here on its way into a `Reply` or a
`ProviderError`, so every later use (row, console, report) gets the masked text.
"""

from __future__ import annotations

import re
from urllib.parse import unquote, urlsplit, urlunsplit

MASK = "***"
#: A fragment of the key this long or longer is masked too: quoting part of a key still
#: leaks it, and random 12-character runs of a real key never occur in ordinary text.
MIN_FRAGMENT = 12
# Error messages may quote a key partly masked ("Incorrect API key provided: sk-ab***yz").
_KEYLIKE = re.compile(r"\b(?:sk|api[-_]?key)-[\w*.-]+|\bBearer\s+[\w*.~+/=-]+", re.IGNORECASE)
# CSI and OSC sequences (colours, cursor moves, window titles, hyperlinks), then any other
# ESC-prefixed pair, then every C0/C1 control character but tab and newline.
_ANSI = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x9b[0-?]*[ -/]*[@-~]|\x1b[@-_]?"
)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_TOKEN_CHARS = re.compile(r"^[A-Za-z0-9_.~+=-]+$")


def printable(text: str, *, one_line: bool = False) -> str:
    """`text` without terminal escape sequences or control characters.

    With `one_line`, tabs and line breaks become spaces as well: a reason that ends up in a
    one-line error or a table cell must not start lines of its own.
    """
    out = _CONTROL.sub("", _ANSI.sub("", text))
    if one_line:
        out = " ".join(out.split())
    return out


def describe(exc: BaseException) -> str:
    """`Type: message` of an exception on one clean line; an exception whose text cannot
    even be produced (a hostile `__str__`) still gives a reason instead of a crash."""
    name = printable(type(exc).__name__, one_line=True)[:80] or "exception"
    try:
        text = str(exc)
    except Exception:
        text = "(its message could not be read)"
    return f"{name}: {printable(text, one_line=True)}"


class SecretMask:
    """Masks one secret (an API key) in text: the whole of it, and any long fragment of it."""

    def __init__(self, secret: str | None) -> None:
        self.secret = secret if secret and len(secret) >= 4 else None
        self._fragments: re.Pattern[str] | None = None
        if self.secret and len(self.secret) > MIN_FRAGMENT:
            grams = {
                self.secret[i : i + MIN_FRAGMENT]
                for i in range(len(self.secret) - MIN_FRAGMENT + 1)
            }
            # A lookahead finds every (overlapping) window that is a piece of the secret.
            alts = "|".join(map(re.escape, sorted(grams)))
            self._fragments = re.compile(f"(?=({alts}))")

    def text(self, text: str) -> str:
        """The text with the secret and every fragment of it of MIN_FRAGMENT chars masked."""
        if not self.secret or not text:
            return text
        text = text.replace(self.secret, MASK)
        if self._fragments is None:
            return text
        spans: list[list[int]] = []
        for m in self._fragments.finditer(text):
            start, end = m.start(1), m.end(1)
            if spans and start <= spans[-1][1]:
                spans[-1][1] = max(spans[-1][1], end)
            else:
                spans.append([start, end])
        if not spans:
            return text
        out, last = [], 0
        for start, end in spans:
            out += [text[last:start], MASK]
            last = end
        return "".join(out) + text[last:]

    def message(self, text: str, limit: int = 500) -> str:
        """An endpoint's message (an error, a model id, a finish reason) safe for a row or a
        terminal: the secret and anything shaped like a key masked, on one clean line."""
        return _KEYLIKE.sub(
            lambda m: _mask_keylike(m.group(0)), self.text(printable(text, one_line=True))
        )[:limit]


def _mask_keylike(token: str) -> str:
    """`Bearer ***`, `sk-***`: the kind of token stays readable, its value does not."""
    if token[:6].lower() == "bearer":
        return token.split()[0] + " " + MASK
    return token.split("-", 1)[0] + "-" + MASK


def secret_looking(segment: str, mask: SecretMask | None = None) -> bool:
    """Whether a URL part looks like a credential: it holds the key (or a long piece of it),
    is shaped like a key (`sk-...`), or is a long random token.

    A random token is 32+ hex digits (a UUID among them), or has a run of 16+ letters and
    digits mixed (or 24+ letters of both cases) with no separator in it. Path words such as
    `v1`, `openai`, `deployments`, or model names like `gpt-4o-mini-2024-07-18` and
    `Meta-Llama-3.1-70B-Instruct`, are none of these.
    """
    text = unquote(segment)
    if mask is not None and mask.secret and mask.text(text) != text:
        return True
    if _KEYLIKE.search(text):
        return True
    if not _TOKEN_CHARS.match(text):
        return False
    hexdigits = re.sub(r"[-_]", "", text)
    if len(hexdigits) >= 32 and re.fullmatch(r"[0-9a-fA-F]+", hexdigits):
        return True
    run = max(re.split(r"[-_.~+=]", text), key=len)
    letters, digits = bool(re.search(r"[A-Za-z]", run)), bool(re.search(r"[0-9]", run))
    mixed_case = bool(re.search(r"[a-z]", run)) and bool(re.search(r"[A-Z]", run))
    return (len(run) >= 16 and letters and digits) or (len(run) >= 24 and mixed_case)


def redact_url(url: str, secret: str | None = None) -> str:
    """The URL with every secret-looking part masked: user info dropped, every query value
    and the fragment masked, and each path segment that looks like a credential masked.

    Some gateways take the key in the query string (`?api-key=...`) or in the path; none of
    it may reach a run header, a cache key or a printed hint. A plain
    `http://127.0.0.1:8000/v1` is returned as it is.
    """
    mask = SecretMask(secret)
    parts = urlsplit(url)
    query = "&".join(
        f"{item.partition('=')[0]}={MASK}" if "=" in item else MASK
        for item in parts.query.split("&")
        if item
    )
    path = "/".join(MASK if secret_looking(seg, mask) else seg for seg in parts.path.split("/"))
    fragment = MASK if parts.fragment else ""
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 literal keeps its brackets
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:  # a port that is no number is no port; say nothing of what it was
        port = None
    netloc = host + (f":{port}" if port else "")
    return urlunsplit((parts.scheme, netloc, path, query, fragment))
