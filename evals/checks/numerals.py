"""Numbers written in words, read by text2num in the text's own language: where each stands
in the text and the digits it reads as ("twenty-nine euros" -> (0, 11, "29"))."""

from __future__ import annotations

from functools import lru_cache

import regex

from evals.checks.text import LETTERS

_TEXT2NUM = {"en", "de", "fr", "es", "it", "nl", "pt", "da"}
_TOKEN = regex.compile(r"\S+")
# Compiled once: looked up by pattern text, each call cost more than text2num's own reading.
_LETTER = regex.compile(r"\p{L}")
# An ordinal keeps its mark ("terzo mese" is "3º mese", not a duration of 3 months).
_LEAD_NUMBER = regex.compile(r"(\d+(?:st|nd|rd|th|º|°|ª|ᵉʳ|er|re|ème|ste|de|e)?)")
_NON_WORD = regex.compile(r"\W*")
_ELIDED = regex.compile(r"\p{L}{1,3}’(?=\d)")
_STRAIGHT_ELISION = regex.compile(r"(?<=\b[dD])'(?=une?\b)")
_TRAILING = regex.compile(r"\p{L}(\W*)$")


@lru_cache(maxsize=8192)
def numerals(text: str, lang: str | None) -> tuple[tuple[int, int, str], ...]:
    """Numbers written in words in `text`, read in `lang` by text2num: (start, end, digits).

    "twenty-nine euros" gives (0, 11, "29"). A word is read in the text's own language only,
    so "once" is eleven in Spanish and nothing in English.
    """
    if lang not in _TEXT2NUM or not _LETTER.search(text):
        return ()
    # text2num reads French "d'un mois" only with a typographic apostrophe ("d’un mois"); the
    # two are one character each, so offsets hold. Only there: "un'offerta", "it's" read as
    # they are.
    text_read = _STRAIGHT_ELISION.sub("’", text) if lang == "fr" else text
    if not _has_number_word(text_read, lang):
        return ()
    # Imported here, past the test most texts fail: an import statement costs a microsecond.
    from text_to_num import alpha2digit

    converted = alpha2digit(text_read, lang, threshold=0)
    if converted == text_read:
        return ()
    src, dst, ops = _aligned(text, converted)
    out: list[tuple[int, int, str]] = []
    for tag, i1, i2, j1, j2 in ops:
        if tag != "replace" or i2 <= i1:
            continue
        if not any(_LETTER.search(t) for *_, t in src[i1:i2]):
            continue  # text2num also rewrites "20 %" as "20%": only words are numbers here
        # "twenty-nine euros," -> "29 euros,": keep the number; trailing punctuation stays out.
        got = " ".join(dst[j1:j2])
        # "d’1 mois": the elided word before the number stays out of it.
        elided = _ELIDED.match(got)
        cut = elided.end() if elided else 0
        m = _LEAD_NUMBER.match(got, cut)
        if m is None:
            continue
        lead = _NON_WORD.match(src[i1][2])
        start = src[i1][0] + (lead.end() if lead else 0) + cut
        end = src[i2 - 1][1]
        tail = _TRAILING.search(src[i2 - 1][2])
        if tail:
            end -= len(tail.group(1))
        out.append((start, end, m.group(1)))
    return tuple(out)


# Words text2num reads as a number on their own, and words it does not, by language: most
# texts hold none, and asking of each word once costs less than text2num reading each text.
_NUMBER_WORDS: dict[str, tuple[set[str], set[str]]] = {}
_NUMBER_WORDS_KEPT = 65536


def _has_number_word(text: str, lang: str) -> bool:
    """Whether some word of `text` is a number to text2num by itself. Every number in words
    holds such a word ("twenty", "vingt", "ventitré", "zweiundzwanzig"): the words that are
    one only beside another ("and", "et", "y") never stand alone in one."""
    numbers, others = _NUMBER_WORDS.setdefault(lang, (set(), set()))
    words = set(LETTERS.findall(text)) - others
    if not words:
        return False
    if not words.isdisjoint(numbers):
        return True
    from text_to_num import alpha2digit

    found = False
    for word in words:
        is_number = alpha2digit(word, lang, threshold=0) != word
        if len(numbers) + len(others) < _NUMBER_WORDS_KEPT:
            (numbers if is_number else others).add(word)
        found = found or is_number
    return found


_Token = tuple[int, int, str]
_Ops = list[tuple[str, int, int, int, int]]
_TRAILING_RUN = regex.compile(r"\S*\Z")
_LEADING_RUN = regex.compile(r"\S*")


def _aligned(text: str, converted: str) -> tuple[list[_Token], list[str], _Ops]:
    """The tokens of `text` and of text2num's `converted` text where they differ, and
    `_changed`'s opcodes between the two (indices into those tokens): what `_changed` says
    of all their tokens, read from the stretch between the characters they share at the
    head and at the tail (each cut back to whole tokens) instead of every token of both."""
    head = _common_prefix(text, converted)
    tail = _common_suffix(text[head:], converted[head:])
    # Whole tokens only: the stretch opens after a space (or at the start) and closes
    # before one (or at the end), so no token is cut and the tokens outside are the same.
    start = _TRAILING_RUN.search(text, 0, head).start()  # type: ignore[union-attr]
    end = _LEADING_RUN.match(text, len(text) - tail).end()  # type: ignore[union-attr]
    shift = len(converted) - len(text)
    src = [(m.start(), m.end(), m.group(0)) for m in _TOKEN.finditer(text, start, end)]
    dst = [m.group(0) for m in _TOKEN.finditer(converted, start, end + shift)]
    a = [t for *_, t in src]
    if a and dst and a[0] != dst[0] and a[-1] != dst[-1]:
        # Their first and last tokens differ: `_changed` of all the tokens meets the same
        # head and tail, and gives these opcodes, moved by the tokens before the stretch.
        return src, dst, _changed(a, dst)
    # Otherwise the common head or tail of all the tokens may reach past the stretch.
    src = [(m.start(), m.end(), m.group(0)) for m in _TOKEN.finditer(text)]
    dst = [m.group(0) for m in _TOKEN.finditer(converted)]
    return src, dst, _changed([t for *_, t in src], dst)


def _common_prefix(a: str, b: str) -> int:
    """How many characters `a` and `b` share at their start (halved by slices compared,
    not compared a character at a time)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: str, b: str) -> int:
    """How many characters `a` and `b` share at their end."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[len(a) - mid :] == b[len(b) - mid :]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _changed(a: list[str], b: list[str]) -> list[tuple[str, int, int, int, int]]:
    """`difflib`'s opcodes of two token lists, on what lies between their common head and
    tail only: text2num changes a few words of a text, and aligning the whole text again
    for each cost more than the reading."""
    import difflib

    head = 0
    while head < len(a) and head < len(b) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < len(a) - head and tail < len(b) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    mid_a, mid_b = a[head : len(a) - tail], b[head : len(b) - tail]
    if mid_a and mid_b and set(mid_a).isdisjoint(mid_b):
        # No word in common between them: difflib would say one replace, without a search.
        ops = [("replace", 0, len(mid_a), 0, len(mid_b))]
    else:
        ops = difflib.SequenceMatcher(None, mid_a, mid_b, autojunk=False).get_opcodes()
    return [(tag, i1 + head, i2 + head, j1 + head, j2 + head) for tag, i1, i2, j1, j2 in ops]
