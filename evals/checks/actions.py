"""The assistant's own actions and promises: "I've refunded the double charge", "I have
enabled the agreement for you", "we'll make an exception", "a callback is on its way". An
assistant answering from passages can do none of that; passing the request to a person
("I've forwarded this to billing", "I'll hand this over") is the hand-over, not an action.

Each language's forms are read in that language only: the first person with an account
action in its perfect or future. No library lists these; they are kept here, one pattern
per language, small enough to read.
"""

from __future__ import annotations

import regex

from evals.checks.language import detect
from evals.checks.matching import MARKER
from evals.checks.text import sentences

# Verbs that act on an account, an order or a bill (not "checked", "looked": reading the
# documentation is no action on the account).
_EN_DONE = (
    r"refunded|credited|reimbursed|waived|enabled|activated|unlocked|reset|upgraded|"
    r"downgraded|cancell?ed|booked|reserved|ordered|scheduled|arranged|applied|added|"
    r"changed|moved|issued|registered|extended|logged\s+the\s+claim|contacted|made\s+an\s+exception"
)
_EN_WILL = (
    r"refund|credit|reimburse|waive|enable|activate|unlock|reset|upgrade|cancel|book|"
    r"reserve|arrange|apply|extend|make\s+an\s+exception|keep\s+billing|email\s+you|add\s+you"
)
_PATTERNS: dict[str, str] = {
    "en": rf"\b(?:I|we)\s*(?:'ve|’ve|\s+have)\s+(?:just\s+|already\s+|now\s+|also\s+)*(?:{_EN_DONE})\b"
    rf"|\b(?:I|we)\s*(?:'ll|’ll|\s+will)\s+(?:just\s+|also\s+|now\s+|personally\s+)*(?:{_EN_WILL})\b"
    r"|\b(?:is|are)\s+(?:already\s+)?on\s+(?:its|their)\s+way\b"
    rf"|\b(?:I|we)\s*(?:'ve|’ve|\s+have)\s+(?:{_EN_DONE})\b[^.!?;]*\band\s+will\s+(?:email|send)\b",
    "de": r"\b(?:ich|wir)\s+(?:habe|haben)\b[^.!?;]{0,60}?\b(?:erstattet|gutgeschrieben|"
    r"aktiviert|freigeschaltet|gebucht|storniert|zurückgesetzt|veranlasst|reserviert|"
    r"bestellt|eingerichtet|geändert|verlängert)\b|\b(?:ich|wir)\s+(?:werde|werden)\s+"
    r"(?:ihnen\s+)?(?:den\s+betrag\s+)?(?:erstatten|gutschreiben|freischalten)\b",
    "fr": r"\b(?:j'ai|j’ai|nous\s+avons)\s+(?:déjà\s+)?(?:remboursé|crédité|activé|débloqué|"
    r"réservé|annulé|modifié|appliqué|ajouté|commandé|prolongé)\b|\b(?:je|nous)\s+"
    r"(?:vous\s+)?(?:rembourse(?:rai|rons)|créditerai|activerai|ferons\s+une\s+exception)\b",
    "es": r"\b(?:he|hemos)\s+(?:ya\s+)?(?:reembolsado|abonado|activado|desbloqueado|reservado|"
    r"cancelado|modificado|aplicado|añadido|pedido|ampliado)\b|\b(?:le|te)\s+"
    r"(?:reembolsaremos|reembolsaré|abonaremos)\b|\bharemos\s+una\s+excepción\b",
    "it": r"\b(?:ho|abbiamo)\s+(?:già\s+|appena\s+|anche\s+)?(?:rimborsato|accreditato|attivato|"
    r"sbloccato|prenotato|riservato|annullato|modificato|applicato|aggiunto|ordinato|"
    r"spostato|contattato|organizzato|prolungato)\b|\b(?:ti|le|vi)\s+(?:rimborsiamo|"
    r"rimborserò|rimborseremo|accrediteremo)\b|\bfaremo\s+un'eccezione\b",
    "nl": r"\b(?:ik\s+heb|we\s+hebben|wij\s+hebben)\b[^.!?;]{0,60}?\b(?:terugbetaald|"
    r"gecrediteerd|geactiveerd|ontgrendeld|gereserveerd|geannuleerd|gewijzigd|toegepast|"
    r"toegevoegd|besteld|geregeld|verlengd)\b|\b(?:we|wij)\s+(?:betalen|storten)\s+"
    r"(?:u|je)\b[^.!?;]{0,30}?\bterug\b",
    "pt": r"\b(?:já\s+)?(?:reembolsei|reembolsámos|reembolsamos|creditei|ativei|ativámos|"
    r"desbloqueei|reservei|cancelei|alterei|apliquei|adicionei|encomendei|prolonguei)\b"
    r"|\bvamos\s+(?:reembolsar|abrir\s+uma\s+exceção)\b|\bfaremos\s+uma\s+exceção\b",
}
_COMPILED = {lang: regex.compile(p, regex.IGNORECASE) for lang, p in _PATTERNS.items()}


def acts(answer: str, lang: str | None = None) -> list[str]:
    """The answer's sentences in which the assistant claims to have acted on the account or
    promises an outcome, read in the answer's own language, else the case's (`lang`), else
    (too short to tell, no case language) in each language read."""
    known = detect(answer) or lang
    patterns = [_COMPILED[known]] if known in _COMPILED else list(_COMPILED.values())
    plain = MARKER.sub(" ", answer)
    return [s.strip() for _, s in sentences(plain) if any(p.search(s) for p in patterns)]
