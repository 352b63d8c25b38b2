"""Word-level surgery for mutation: flipping a sentence's polarity, and names to swap."""

from __future__ import annotations

import re
from functools import lru_cache

import regex

from evals.checks.language import detect
from evals.checks.lexicon import capitalises_nouns
from evals.checks.matching import NEG, tokens
from evals.checks.values import parse_figures
from evals.mutate.text import MONTHS
from evals.mutate.word_order import VERB_SECOND, verb_second

# ---------------------------------------------------------------------------
# Negation, in every language the checks read. With a language given, only that language's
# words are used: no English "not" in a German answer, no Spanish "no" in Italian.

_NEG_EN = (
    r"\b(?:(?P<word>not|never|no longer)\s+)"
    r"|\b(?P<nt>(?:is|are|was|were|do|does|did|has|have|had|ca|wo|should|could|would|must))"
    r"n[’']t\b"
    r"|\b(?P<cannot>cannot)\b|\b(?P<no>no)\s+(?=\w)"
)
_NEG_DE = r"\b(?:(?P<word>nicht|nie|kein(?:e|en|er|em|es)?)\s+)|\s+(?:nicht|nie)(?=[.,;:!?]|$)"
_NEG_FR = r"\bn(?:e\s|')(?P<fr>\w+)\s+(?:pas|jamais|plus)\b"
_NEG_ES = r"\b(?:(?P<word>no|nunca)\s+)(?=\w)"
_NEG_IT = r"\b(?:(?P<word>non|mai)\s+)(?=\w)"
_NEG_PT = r"\b(?:(?P<word>não|nunca)\s+)(?=\w)"
_NEG_NL = r"\b(?:(?P<word>niet|nooit|geen)\s+)(?=\w)|\s+(?:niet|nooit)(?=[.,;:!?]|$)"
_NEG_DA = r"\b(?:(?P<word>ikke|aldrig|ingen)\s+)(?=\w)|\s+(?:ikke|aldrig)(?=[.,;:!?]|$)"
_NEGATION = re.compile(
    r"\bn(?:e\s|')(?P<fr>\w+)\s+pas\b"
    r"|\b(?:(?P<word>not|never|no longer|nicht|kein(?:e|en|er|em|es)?)\s+)"
    r"|\b(?P<nt>(?:is|are|was|were|do|does|did|has|have|had|ca|wo|should|could|would|must))"
    r"n[’']t\b"
    r"|\b(?P<cannot>cannot)\b|\b(?P<no>no)\s+(?=\w)",
    re.IGNORECASE,
)
_NEGATION_BY_LANG = {
    lang: re.compile(pat, re.IGNORECASE)
    for lang, pat in (
        ("en", _NEG_EN),
        ("de", _NEG_DE),
        ("fr", _NEG_FR),
        ("es", _NEG_ES),
        ("it", _NEG_IT),
        ("pt", _NEG_PT),
        ("nl", _NEG_NL),
        ("da", _NEG_DA),
    )
}
# "No longer" turned round is "still": the negation and its "more" go together.
_NO_LONGER = {
    "nl": (re.compile(r"\bniet\s+meer\b", re.I), "nog steeds"),
    "de": (re.compile(r"\bnicht\s+mehr\b", re.I), "noch"),
    "da": (re.compile(r"\bikke\s+(?:længere|mere)\b", re.I), "stadig"),
}
# A second negative word that agrees with the first ("non ... nessuna", "no ... nada"):
# dropping the first leaves a sentence that still denies.
_CONCORD = re.compile(
    r"\s*(?:\w+\s+){0,2}?(?:nessun\w*|niente|nulla|alcun\w*|nada|ningun\w*|ningún|nenhum\w*)\b",
    re.IGNORECASE,
)
_BARE_NO = re.compile(r"\s*(?:nee|neen|nein|nej)\b", re.I)
_ONLY_NEXT = re.compile(
    r"\s+(?:only|nur|alleen|kun|solo|solamente|soltanto|seulement|apenas)\b", re.I
)
_NOT_YET = re.compile(
    r"\b(?:noch\s+nicht|nicht\s+mehr\s+lange|non\s+ancora|ancora\s+non|nog\s+niet|not\s+yet|"
    r"todavía\s+no|aún\s+no|ainda\s+não|pas\s+encore|ikke\s+endnu|endnu\s+ikke)\b",
    re.IGNORECASE,
)
#: The languages `negate` has rules for.
NEGATION_LANGUAGES = tuple(_NEGATION_BY_LANG)
_NT_BASE = {"ca": "can", "wo": "will"}
# "you get", "we refund": a plain verb after a pronoun takes "do not".
_ADVERBS = {"also", "only", "still", "just", "then", "now", "already", "always", "usually"}
_PRONOUN_VERB = re.compile(
    r"\b(?i:you|we|they|i)\s+(?:(?:" + "|".join(_ADVERBS) + r")\s+)?(?P<verb>[a-z]+)\b"
)
# Where "not" goes: after an English or German auxiliary, before a Spanish verb, around a
# French one ("ne peut pas").
_AFTER_EN = "is are was were can will should must may could would might does do did has have"
_AFTER_DE = "ist sind kann können wird werden muss müssen darf gilt kostet"
_BEFORE_ES = "puede pueden es son está están tiene tienen incluye cuesta debe hay se"
_WRAP_FR = "peut peuvent est sont ont inclut coûte doit doivent"
# Italian and Portuguese negate before the verb, Dutch and Danish after it ("is niet", "er
# ikke"): a finite verb of the kind a support answer states facts with.
_BEFORE_IT = (
    "è sono può possono costa costano include includono ha hanno viene vengono serve deve "
    "devono vale valgono copre coprono prevede rimborsiamo restituiamo"
)
_BEFORE_PT = "é são pode podem custa custam inclui incluem tem têm está estão deve devem cobre"
_AFTER_NL = "is zijn kan kunnen wordt worden kost kosten moet moeten mag mogen geldt heeft hebben"
_AFTER_DA = "er kan koster skal må gælder har bliver får"
_SLOTS_BY_LANG = {
    "en": {w: ("after", " not") for w in _AFTER_EN.split()},
    "de": {w: ("after", " nicht") for w in _AFTER_DE.split()},
    "es": {w: ("before", "no ") for w in _BEFORE_ES.split()},
    "fr": {w: ("wrap", "") for w in _WRAP_FR.split()},
    "it": {w: ("before", "non ") for w in _BEFORE_IT.split()},
    "pt": {w: ("before", "não ") for w in _BEFORE_PT.split()},
    "nl": {w: ("after", " niet") for w in _AFTER_NL.split()},
    "da": {w: ("after", " ikke") for w in _AFTER_DA.split()},
}
# Without a language: the English, German, Spanish and French rules together, as before the
# other languages had theirs ("is" stays English "is not", never Dutch "is niet").
_SLOTS = {w: slot for lang in ("fr", "es", "de", "en") for w, slot in _SLOTS_BY_LANG[lang].items()}


def _slot_regex(words: dict[str, tuple[str, str]]) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(sorted(words, key=len, reverse=True)) + r")\b", re.I)


_SLOT = _slot_regex(_SLOTS)
_SLOT_BY_LANG = {lang: _slot_regex(words) for lang, words in _SLOTS_BY_LANG.items()}
_MAIN_VERB = re.compile(
    r"\b(?:costs|includes|takes|gives|offers|supports|allows|covers|requires|needs|runs|starts|"
    r"ends|applies|lasts|renews|charges|refunds|contains|comes|works|means|gets|keeps|stays|"
    r"expires|counts|pays|adds|provides|lets|remains)\b",
    re.IGNORECASE,
)


def _negations(text: str, lang: str | None) -> int:
    """How many negations the checks read in the text."""
    return tokens(text, lang or guess_language(text), general=False).count(NEG)


def guess_language(text: str) -> str:
    """The language whose stop words the text uses most (the checks' own detection), else en."""
    return detect(text) or "en"


def _remove_negation(sentence: str, m: re.Match[str]) -> str:
    groups = m.groupdict()
    if groups.get("fr"):
        return sentence[: m.start()] + groups["fr"] + sentence[m.end() :]
    if groups.get("nt"):
        base = _NT_BASE.get(groups["nt"].lower(), groups["nt"])
        return sentence[: m.start()] + base + sentence[m.end() :]
    if groups.get("cannot"):
        return sentence[: m.start()] + m.group(0)[:3] + sentence[m.end() :]
    return sentence[: m.start()] + sentence[m.end() :]


def _does_not(sentence: str, v: re.Match[str]) -> str:
    """Negate a main verb: "costs" becomes "does not cost", "applies" "does not apply"."""
    word = v.group(0)
    base = word[:-3] + "y" if word.lower().endswith("ies") else word[:-1]
    aux_word = "Does" if word[0].isupper() else "does"
    return sentence[: v.start()] + f"{aux_word} not {base}" + sentence[v.end() :]


# Italian clitics stand between "non" and the verb: "non c'è", "non ci sono", "non si paga".
_IT_CLITIC = re.compile(
    r"(?:\b(?:c|l|m|t|s|v|n)['’]|\b(?:ci|vi|si|mi|ti|lo|la|li|le|ne|gli)\s+)$", re.I
)


def _insert_at_slot(sentence: str, pick: re.Match[str], lang: str | None = None) -> str | None:
    slots = _SLOTS_BY_LANG.get(lang or "", _SLOTS)
    how, word = slots.get(pick.group(0).lower()) or _SLOTS[pick.group(0).lower()]
    s, e = pick.start(), pick.end()
    if how == "after" and lang in VERB_SECOND:
        return verb_second(sentence, pick, word, lang)  # type: ignore[arg-type]
    if how == "after":
        if _ONLY_NEXT.match(sentence, e):
            return None  # "is not only covered if" denies no condition a speaker states so
        return sentence[:e] + word + sentence[e:]
    if how == "before" and lang == "it":
        clitic = _IT_CLITIC.search(sentence, 0, s)
        if clitic is not None:
            s = clitic.start()  # "c'è" -> "non c'è", not "c'non è"
        return sentence[:s] + word + sentence[s:]
    if how == "before":
        return sentence[:s] + word + sentence[s:]
    ne = "n'" if pick.group(0)[0].lower() in "aeiouéè" else "ne "
    return sentence[:s] + ne + pick.group(0) + " pas" + sentence[e:]


def negate(sentence: str, anchor: int, lang: str | None = None) -> str | None:
    """Flip the sentence's polarity: drop a negation it has, else add one near `anchor`.

    With `lang` (en, de, fr, es, it, pt, nl, da) only that language's negations are used,
    and None is returned when the sentence has no place its rules know for one: a skipped
    variant is better than a sentence no speaker would write. Without `lang`, the English,
    German, French and Spanish rules together."""
    still = _NO_LONGER.get(lang or "")
    m_still = still[0].search(sentence) if still else None
    if still and m_still is not None:
        # "geldt niet meer" -> "geldt nog steeds", not "geldt meer"
        flipped = sentence[: m_still.start()] + still[1] + sentence[m_still.end() :]
        if _negations(flipped, lang) != _negations(sentence, lang):
            return flipped
    if (
        lang in VERB_SECOND
        and _BARE_NO.match(sentence)
        and not _SLOT_BY_LANG[lang].search(sentence)
    ):
        # "Nee, helaas niet samen.": a fragment without its verb; without the "niet" it is
        # no sentence ("Nee, helaas samen"), and no place takes one.
        return None
    for m in _NEGATION_BY_LANG.get(lang or "", _NEGATION).finditer(sentence):
        # Only a negation the checks read as one: the "non" of "a meno che non", the "não"
        # of "a não ser que" negate nothing, and dropping them changes no claim.
        if _CONCORD.match(sentence, m.end()):
            return None  # "non paga nessuna indennità" without "non" still says none
        if _NOT_YET.search(sentence[max(0, m.start() - 12) : m.end() + 10]):
            return None  # "Noch nicht:", "Non ancora": "not yet" turned round is no sentence
        flipped = _remove_negation(sentence, m)
        if _negations(flipped, lang) != _negations(sentence, lang):
            return flipped
    slots = list(_SLOT_BY_LANG.get(lang or "", _SLOT).finditer(sentence))
    before = [a for a in slots if a.start() <= anchor]
    pick = before[-1] if before else (slots[0] if slots else None)
    if lang not in (None, "en"):
        if pick is not None:
            return _insert_at_slot(sentence, pick, lang)
        polite = re.match(r"\s*por favor\s+", sentence, re.I) if lang == "es" else None
        if polite:
            return sentence[: polite.end()] + "no " + sentence[polite.end() :]
        return None
    plain = [
        v
        for v in _PRONOUN_VERB.finditer(sentence)
        if v.start("verb") <= anchor
        and v.group("verb").lower() not in _SLOTS
        and v.group("verb").lower() not in _ADVERBS
    ]
    verbs = [v for v in _MAIN_VERB.finditer(sentence) if v.start() <= anchor]
    latest = max([pick.start()] if pick else [-1])
    if (
        plain
        and plain[-1].start("verb") > latest
        and not (verbs and verbs[-1].start() > plain[-1].start("verb"))
    ):
        at = plain[-1].start("verb")  # "you get" -> "you do not get"
        return sentence[:at] + "do not " + sentence[at:]
    if verbs and (pick is None or verbs[-1].start() > pick.start()):
        return _does_not(sentence, verbs[-1])
    if pick is not None:
        return _insert_at_slot(sentence, pick, lang)
    later = [v for v in _MAIN_VERB.finditer(sentence) if v.start() > anchor]
    if later:  # the fact names its subject first: "Pro costs 45 €" -> "Pro does not cost 45 €"
        return _does_not(sentence, later[0])
    plain_later = [
        v
        for v in _PRONOUN_VERB.finditer(sentence)
        if v.group("verb").lower() not in _SLOTS and v.group("verb").lower() not in _ADVERBS
    ]
    if plain_later:  # "For the shift at 21:45 you get ..." -> "... you do not get ..."
        at = plain_later[0].start("verb")
        return sentence[:at] + "do not " + sentence[at:]
    polite = re.match(r"\s*(please|por favor)\s+", sentence, re.I)
    if polite:  # an imperative: "Please ask ..." -> "Please do not ask ..."
        word = {"please": "do not ", "por favor": "no "}[polite.group(1).lower()]
        return sentence[: polite.end()] + word + sentence[polite.end() :]
    # No verb the rules know: a "not" put before a word ("Report ..." -> "not Report ...")
    # makes a sentence no speaker writes, so no variant is made.
    return None


# ---------------------------------------------------------------------------
# Names that an entity swap may exchange.

_STOP = set(
    """the a an you your we our it its this that these those if in on for to of and or but with
    by at from as all any each every no not yes please note see when after before until there
    they he she i my is are be can will monday tuesday wednesday thursday friday saturday sunday
    der die das ein eine sie wir und oder mit für im am bei el la los las un una y o en de del
    le les et ou du des sí si oui ja nein""".split()
)
_MONTH_WORDS = set(MONTHS.replace("?", "").split("|")) | {"sep", "sept", "may"}
_WORD = r"\p{Lu}[\p{L}\p{N}+&-]*"
# A name: one or more capitalised words in a row ("Pro", "Microsoft Teams").
NAME = regex.compile(rf"(?<![\p{{L}}\p{{N}}]){_WORD}(?:\s{_WORD})*(?![\p{{L}}\p{{N}}])")
_FIGURE_NEXT = re.compile(r"\s*(?:[€$£]\s?)?\d")
_LIST_GAP = re.compile(r"^\s*(?:,|/|&|,?\s*(?:and|or|und|oder|y|o|et|ou))\s*$", re.I)


# A number after a name, not a decimal, time, date or the first of a range.
_NUMBER_AFTER = regex.compile(r" (\d{1,4})(?![\d\p{L}]|[.,:/–-]\d)")


def _model_number(text: str, end: int) -> int:
    """Where a name's model number ends ("Aria 8 costa 99 €"), or 0: a number no figure
    starts at (not "Plus 39 €", "Pro 5 GB") and no year ("Preisliste 2025")."""
    m = _NUMBER_AFTER.match(text, end)
    if m is None or 1900 <= int(m.group(1)) <= 2100:
        return 0
    at = m.start(1)
    if any(f.start == 0 for f in parse_figures(text[at : at + 40])):
        return 0
    return m.end()


def _mid_sentence(text: str, start: int) -> bool:
    """Whether a word at `start` stands inside a sentence (so its capital marks a name)."""
    head = text[:start].rstrip()
    return bool(head) and head[-1] not in ".!?:\n\"'(*-•"


def _trim(start: int, name: str) -> tuple[int, str] | None:
    """Drop leading stop words ("The Pro" -> "Pro"); None when nothing name-like is left."""
    words = name.split(" ")
    while words and (words[0].lower() in _STOP or words[0].lower() in _MONTH_WORDS):
        start += len(words[0]) + 1
        words = words[1:]
    if not words or len(words[0]) < 2 or all(w.lower() in _STOP for w in words):
        return None
    return start, " ".join(words)


class Names:
    """Names found in the passages: the words seen next to each, and the lists they share."""

    def __init__(self) -> None:
        self.contexts: dict[str, set[str]] = {}
        self.siblings: dict[str, set[str]] = {}

    def similarity(self, a: str, b: str) -> int:
        shared = len(self.contexts.get(a, set()) & self.contexts.get(b, set()))
        return shared + (2 if b in self.siblings.get(a, set()) else 0)

    def closest(self, name: str, avoid: set[str]) -> str | None:
        """The most similar other name, preferring one not in `avoid`; None when none is similar."""
        ranked = sorted(
            (n for n in self.contexts if n.lower() != name.lower()),
            key=lambda n: (-self.similarity(name, n), n in avoid),
        )
        ranked = [n for n in ranked if self.similarity(name, n) > 0]
        fresh = [n for n in ranked if n not in avoid]
        return (fresh or ranked or [None])[0]


@lru_cache(maxsize=1024)
def name_candidates(texts: tuple[str, ...]) -> Names:
    """Capitalised names in `texts`, each with its neighbouring words and list siblings.

    A word counts as a name when it is capitalised inside a sentence or labels a line
    ("Pro: 45 €"); a capital that only starts sentences is ordinary prose.
    """
    names = Names()
    strong: set[str] = set()
    for text in texts:
        prev: tuple[str, int] | None = None
        # German capitalises every noun: there a capital inside a sentence marks no name, but
        # a price after the word ("Power 49 €") or a list of such words still does.
        nouns_capitalised = capitalises_nouns(detect(text))
        for m in NAME.finditer(text):
            trimmed = _trim(m.start(), m.group(0))
            if trimmed is None:
                continue
            start, word = trimmed
            end = start + len(word)
            # A model's number is part of its name ("Gas 24", "Aria 8"): swapping the word
            # alone makes a model that does not exist ("Gas 8").
            numbered = _model_number(text, end)
            if numbered:
                word, end = text[start:numbered], numbered
            listed = bool(prev and _LIST_GAP.match(text[prev[1] : start]))
            if nouns_capitalised:
                # "pro Gerät und Monat": a German list of nouns is no list of names; one beside
                # a name already marked ("Basic, Plus und Pro 0 €") is.
                listed = listed and prev is not None and prev[0] in strong
            priced = bool(_FIGURE_NEXT.match(text, end))
            # Two capitals in a row ("Tarif Pro") or one inside a word ("DeviceCare") are no
            # plain German noun.
            name_like = " " in word or any(
                (c.isupper() and word[i] != "-") or c.isdigit() for i, c in enumerate(word[1:])
            )  # "Kfz-Steuer": a capital after a hyphen starts a compound's noun, no name
            marked = _mid_sentence(text, start) and (
                not nouns_capitalised or priced or listed or name_like
            )
            if marked or text[end : end + 1] == ":":
                strong.add(word)
            before = text[max(0, start - 30) : start].split()
            after = text[end : end + 30].split()
            ctx = names.contexts.setdefault(word, set())
            # A word that ends a clause ("mês," before "IVA") is no context the name shares
            # with its neighbours; a figure after a name is ("Plus 59 €", "Cargo 89 €").
            if before and before[-1][-1] not in ",;:.":
                ctx.add("<" + before[-1].lower())
            if after and after[0].strip(".,;:"):
                word_after = after[0].lower().strip(".,;:")
                ctx.add(">#" if word_after[0].isdigit() else ">" + word_after)
            if prev and _LIST_GAP.match(text[prev[1] : start]):
                names.siblings.setdefault(word, set()).add(prev[0])
                names.siblings.setdefault(prev[0], set()).add(word)
            prev = (word, end)
    names.contexts = {w: c for w, c in names.contexts.items() if w in strong}
    return names
