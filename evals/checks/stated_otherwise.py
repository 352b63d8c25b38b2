"""A figure a passage states in another shape than the figure parser reads: a zero amount
as "free" ("0 kr." of "installationen er gratis") and a count written after its thing, as a
label ("8 seats" of "Seats limited: 8 per bus")."""

from __future__ import annotations

from decimal import Decimal

import regex

from evals.checks.figure_pattern import count_units
from evals.checks.polarity import says_free
from evals.checks.text import sentences
from evals.checks.values import Figure

# A whole number standing alone (not inside "2,50" or "2026").
_WHOLE = regex.compile(r"(?<![\d.,])\d+(?![\d]|[.,]\d)")
_WORD = regex.compile(r"[\p{L}']+")
# The last three words before a number (with what stands between them): a number among them
# would own the thing's word ("20 seats and 8" gives the seats to the 20).
_HEAD = regex.compile(r"(?:\S+\s+){0,2}\S+\s*$")


def states_otherwise(text: str, fig: Figure) -> bool:
    """Whether the passage `text` states the figure as a free thing or a labelled count."""
    if fig.kind == "money" and fig.value == 0:
        return says_free(text)
    if fig.kind == "count":
        return _counted_before(text, fig)
    return False


def _counted_before(text: str, fig: Figure) -> bool:
    """Whether a passage sentence names the figure's counted thing within three words before
    its number ("Plazas limitadas: 8 por autobús", "Max. Gepäckstücke: 2"), not anywhere
    before it ("20 seats and 8 locations")."""
    if not isinstance(fig.value, Decimal) or fig.value != int(fig.value):
        return False
    words = {w for w, unit in count_units().items() if unit == fig.unit}
    for _, sentence in sentences(text):
        folded = sentence.casefold()
        for m in _WHOLE.finditer(folded):
            if int(m.group(0)) != fig.value:
                continue
            head = _HEAD.search(folded, 0, m.start())
            said = head.group(0) if head is not None else ""
            if not any(ch.isdigit() for ch in said) and words & set(_WORD.findall(said)):
                return True
    return False
