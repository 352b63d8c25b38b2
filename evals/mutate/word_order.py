"""Where a negation goes in the verb-second languages (Dutch, German, Danish): after the
finite verb, or after the subject that follows it; and where it cannot go at all."""

from __future__ import annotations

import re

# Verb-second languages: a subject pronoun or a name right after the verb ("kost Max", "krijg
# je", "zijn dat", "kostet Sie") takes the negation after it; a subordinate clause (its verb
# last), an article after the verb (the subject's noun phrase ends who knows where) or a
# negation already there leaves no place a speaker would put one.
_SUBJECT_AFTER = {
    "nl": frozenset("je jij u we wij ze zij hij het dat dit er men".split()),
    "de": frozenset("sie er es wir ich du man das dies".split()),
    "da": frozenset("du de vi jeg han hun den det man".split()),
}
_ARTICLE_AFTER = {
    "nl": frozenset("de het een".split()),
    "de": frozenset("der die das den dem des ein eine einen einem einer".split()),
    "da": frozenset("en et den det de".split()),
}
_SUBORDINATORS = {
    "nl": frozenset(
        "omdat nadat als wanneer zodat terwijl of waar voordat zodra tenzij mits".split()
    ),
    "de": frozenset("dass weil nachdem wenn ob damit bevor sobald falls während welche".split()),
    "da": frozenset("at fordi når hvis om mens før".split()),
}
# Relative pronouns that are also demonstratives ("Dat kan", "Das ist möglich"): verb-last
# only inside a clause, not opening it.
_RELATIVES = {
    "nl": frozenset("dat die wat".split()),
    "de": frozenset("der die das".split()),
    "da": frozenset("som der".split()),
}
_NEGATORS_AFTER = {
    "nl": frozenset("niet nooit geen".split()),
    "de": frozenset("nicht nie kein keine".split()),
    "da": frozenset("ikke aldrig ingen".split()),
}
_WORD_AT = re.compile(r"\s*([\w’']+)")


def verb_second(sentence: str, pick: re.Match[str], word: str, lang: str) -> str | None:
    """Dutch, German and Danish: the negation after the finite verb, or after the subject
    that follows it; None where no speaker would put it."""
    e = pick.end()
    clause_start = max(sentence.rfind(c, 0, pick.start()) for c in ",;:(") + 1
    lead = sentence[clause_start : pick.start()].lower().split()
    if any(w in _SUBORDINATORS[lang] for w in lead) or any(w in _RELATIVES[lang] for w in lead[1:]):
        return None  # verb-last: "nadat we de fiets hebben gecontroleerd"
    nxt = _WORD_AT.match(sentence, e)
    following = nxt.group(1) if nxt else ""
    if following.lower() in _NEGATORS_AFTER[lang]:
        return None  # "dat kan niet niet"
    if following.lower() in _ARTICLE_AFTER[lang]:
        return None  # "op zondag is de klantenservice gesloten": where the subject ends is unknown
    if nxt and (following.lower() in _SUBJECT_AFTER[lang] or following[:1].isupper()):
        at = nxt.end()
        return sentence[:at] + word + sentence[at:]
    return sentence[:e] + word + sentence[e:]


#: The languages whose negation `verb_second` places.
VERB_SECOND = frozenset(_SUBJECT_AFTER)
