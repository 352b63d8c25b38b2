"""Text from outside the harness, made safe to store and print.

An endpoint can put anything in what it sends back: the API key it was sent (echoed in an
error, a model id, a `finish_reason`), terminal escape sequences, control characters.
Everything a provider returns passes through here on its way into a `Reply` or a
`ProviderError`, so every later use (row, console, report) gets the masked text.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable
from urllib.parse import unquote, urlsplit, urlunsplit

MASK = "***"
#: A fragment of the key this long or longer is masked too: quoting part of a key still
#: leaks it, and random 12-character runs of a real key never occur in ordinary text.
MIN_FRAGMENT = 12
#: A run this long that matches the key's first or last characters is masked too: an error
#: quoting `sk-ab12cd****wx90yz` gives away both ends of the key.
EDGE = 6
_STARS = "*."
# The token right after (or right before) a quoted key's stars.
_TOKEN = re.compile(r"[A-Za-z0-9_-]+")
_TOKEN_BEFORE = re.compile(r"[A-Za-z0-9_-]+$")
# Query parameter names that carry a credential whatever its value looks like.
_SECRET_NAME = re.compile(r"key|token|secret|sig|auth|pass|cred", re.IGNORECASE)
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
    """Masks secrets in text: an API key (the whole of it, any long fragment of it, and any
    run of EDGE+ characters matching its start or end) and any further secrets (credentials
    found in an endpoint's URL: whole, and any long fragment)."""

    def __init__(self, secret: str | None, extra: Iterable[str] = ()) -> None:
        self.secret = secret if secret and len(secret) >= 4 else None
        # Longest first, so a secret that holds another is masked whole.
        self.secrets = sorted(
            {s for s in (self.secret, *extra) if s and len(s) >= 4}, key=len, reverse=True
        )
        grams = {
            s[i : i + MIN_FRAGMENT]
            for s in self.secrets
            if len(s) > MIN_FRAGMENT
            for i in range(len(s) - MIN_FRAGMENT + 1)
        }
        # A lookahead finds every (overlapping) window that is a piece of a secret.
        alts = "|".join(map(re.escape, sorted(grams)))
        self._fragments = re.compile(f"(?=({alts}))") if grams else None

    def _spans(self, text: str) -> list[tuple[int, int]]:
        """Where a fragment of a secret, or a run matching the key's start or end, sits."""
        spans: list[tuple[int, int]] = []
        if self._fragments is not None:
            spans += [(m.start(1), m.end(1)) for m in self._fragments.finditer(text)]
        key = self.secret
        if key and len(key) >= EDGE:
            # "sk-ab12cd****wx90yz": a key quoted with its middle starred still leaks its ends.
            # A run counts only as a whole token ("quired" in "required" is no key's end).
            for m in re.finditer(re.escape(key[:EDGE]), text):
                end, j = m.end(), EDGE
                while j < len(key) and end < len(text) and text[end] == key[j]:
                    end, j = end + 1, j + 1
                if not _quoted_edge(text, m.start(), end, starred=end):
                    continue
                while end < len(text) and text[end] in _STARS:  # the quote's own stars
                    end += 1
                tail = _TOKEN.match(text, end)
                if tail and key.endswith(tail.group(0)):  # "sk-test***cdef": the end, too short
                    end = tail.end()
                spans.append((m.start(), end))
            for m in re.finditer(re.escape(key[-EDGE:]), text):
                start, j = m.start(), EDGE
                while j < len(key) and start > 0 and text[start - 1] == key[-j - 1]:
                    start, j = start - 1, j + 1
                if not _quoted_edge(text, start, m.end(), starred=start - 1):
                    continue
                while start > 0 and text[start - 1] in _STARS:
                    start -= 1
                head = _TOKEN_BEFORE.search(text, 0, start)
                if head and key.startswith(head.group(0)):
                    start = head.start()
                spans.append((start, m.end()))
        return sorted(spans)

    def text(self, text: str) -> str:
        """The text with every secret, every fragment of MIN_FRAGMENT chars of one, and every
        run of EDGE+ chars matching the key's start or end masked."""
        if not self.secrets or not text:
            return text
        for s in self.secrets:
            text = text.replace(s, MASK)
        merged: list[list[int]] = []
        for start, end in self._spans(text):
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        if not merged:
            return text
        out, last = [], 0
        for start, end in merged:
            out += [text[last:start], MASK]
            last = end
        return "".join(out) + text[last:]

    def message(self, text: str, limit: int = 500) -> str:
        """An endpoint's message (an error, a model id, a finish reason) safe for a row or a
        terminal: the secrets and anything shaped like a key masked, on one clean line."""
        return _KEYLIKE.sub(
            lambda m: _mask_keylike(m.group(0)), self.text(printable(text, one_line=True))
        )[:limit]


def _word(text: str, i: int) -> bool:
    """Whether text[i] exists and is a letter or digit (a token goes on there)."""
    return 0 <= i < len(text) and text[i].isalnum()


def _quoted_edge(text: str, start: int, end: int, *, starred: int) -> bool:
    """Whether text[start:end], a run matching the key's start or end, is a quoted piece of
    the key: a whole token, starred where the rest of the key was left out, or mixing
    letters and digits as keys do. "required" alone is a word, even when a key ends in it."""
    if _word(text, start - 1) or _word(text, end):
        return False
    run = text[start:end]
    mixed = any(c.isdigit() for c in run) and any(c.isalpha() for c in run)
    return mixed or (0 <= starred < len(text) and text[starred] in _STARS)


def url_secrets(url: str, secret: str | None = None) -> list[str]:
    """The credentials an endpoint's URL holds, as an endpoint could quote them back.

    The user info (and the `Basic` header's base64 form of it, which the client sends), each
    path segment that looks like a credential, and each query value that does or is named
    like one (`?api-key=...`); raw and percent-decoded.
    """
    mask = SecretMask(secret)
    parts = urlsplit(url)
    found: list[str] = []
    user, password = parts.username, parts.password
    if user is not None or password is not None:
        u, p = unquote(user or ""), unquote(password or "")
        found += [parts.netloc.rpartition("@")[0], f"{u}:{p}"]
        found.append(base64.b64encode(f"{u}:{p}".encode()).decode("ascii"))
        # A user name alone ("admin") is no secret unless it is the token itself; a password
        # is, unless it is too short to mask without masking ordinary words in answers.
        if not p or secret_looking(u, mask):
            found.append(u)
        if len(p) >= 8 or (p and secret_looking(p, mask)):
            found.append(p)
    found += [seg for seg in parts.path.split("/") if secret_looking(seg, mask)]
    for item in parts.query.split("&"):
        name, _, value = item.partition("=")
        if value and (secret_looking(value, mask) or _SECRET_NAME.search(name)):
            found.append(value)
    if parts.fragment:
        found.append(parts.fragment)
    return sorted({x for f in found for x in (f, unquote(f)) if len(x) >= 4})


def endpoint_mask(api_key: str | None, base_url: str | None) -> SecretMask:
    """The mask for everything an endpoint sends back: its key and its URL's credentials."""
    return SecretMask(api_key, url_secrets(base_url, api_key) if base_url else ())


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
