"""CheckResult, CheckInput and the `@check` registry: the contract every check keeps."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any, Literal

from evals.checks.language import detect
from evals.checks.lexicon import lexicon
from evals.checks.matching import phrase_words, says, token_set
from evals.checks.text import cited_refs, contains_any_phrase
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import SuiteSettings

# `review`: the check could not decide (key terms present but not their relation, a claim no
# passage backs, a figure it cannot bind); a person or the judge decides. Never scored.
Status = Literal["pass", "fail", "review", "error", "skip"]


@dataclass(frozen=True)
class CheckResult:
    """One check's verdict: `review`, `error` and `skip` carry no score."""

    status: Status
    score: float | None
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "score": self.score, "detail": self.detail}


def passed(detail: str, score: float = 1.0) -> CheckResult:
    return CheckResult("pass", score, detail)


def failed(detail: str, score: float = 0.0) -> CheckResult:
    return CheckResult("fail", score, detail)


def skipped(detail: str) -> CheckResult:
    return CheckResult("skip", None, detail)


def undecided(detail: str) -> CheckResult:
    """The check cannot decide: `detail` says what a person (or the judge) must look at."""
    return CheckResult("review", None, detail)


def errored(detail: str) -> CheckResult:
    return CheckResult("error", None, detail)


def ratio(found: int, total: int, detail: str) -> CheckResult:
    """Pass when everything was found; the score is the share found either way."""
    score = found / total if total else 1.0
    return passed(detail, score) if found == total else failed(detail, score)


@dataclass
class CheckInput:
    """Everything a check may read: the case, the reply and the suite's settings."""

    case: Case
    reply: Reply
    settings: SuiteSettings = field(default_factory=SuiteSettings)

    @property
    def answer(self) -> str:
        return self.reply.answer

    @cached_property
    def lang(self) -> str | None:
        """The language the case is read in: `expect.language`, else the customer's words'.

        Read once per graded reply: every check asks for it."""
        return case_language(self.case)

    @property
    def synonyms(self) -> tuple[tuple[str, ...], ...]:
        """The suite's synonym groups (synonyms.toml)."""
        return self.settings.synonyms

    @property
    def cited(self) -> list[str]:
        """Refs cited: what the system reported, else what the citation pattern finds."""
        if self.reply.cited is not None:
            return list(self.reply.cited)
        return cited_refs(self.reply.answer, self.settings.citation_pattern)

    @property
    def retrieved(self) -> list[str]:
        """Refs retrieved: what the system reported, else the case's frozen retrieval."""
        if self.reply.retrieved is not None:
            return list(self.reply.retrieved)
        return self.case.retrieved_refs


def case_language(case: Case) -> str | None:
    """`expect.language`, else the language of the customer's turns."""
    want = case.expect.get("language")
    if isinstance(want, str) and want:
        return want
    return detect(" ".join(case.user_texts))


CheckFn = Callable[[CheckInput], CheckResult]


@dataclass(frozen=True)
class CheckSpec:
    name: str
    fn: CheckFn


REGISTRY: dict[str, CheckSpec] = {}


def check(name: str | None = None) -> Callable[[CheckFn], CheckFn]:
    """Register a check under `name` (default: the function's name).

    Which checks a case runs when it lists none is decided in `grading.implied_checks`.
    """

    def register(fn: CheckFn) -> CheckFn:
        REGISTRY[name or fn.__name__] = CheckSpec(name or fn.__name__, fn)
        return fn

    return register


def refusal_phrases(inp: CheckInput) -> tuple[str, ...]:
    """The suite's refusal phrases, and the hand-over phrases of the case's language."""
    return tuple(dict.fromkeys((*inp.settings.refusal_phrases, *lexicon(inp.lang).handover)))


def is_refusal(inp: CheckInput) -> bool:
    """The explicit flag when the system gave one, else the suite's refusal phrases."""
    if inp.reply.abstained is not None:
        return inp.reply.abstained
    return says_refusal(inp.answer, refusal_phrases(inp), inp.lang)


# Memoised: the abstention, grounding and citation checks all ask it of the same answer.
@lru_cache(maxsize=4096)
def says_refusal(answer: str, phrases: tuple[str, ...], lang: str | None) -> bool:
    """Whether the answer says one of the refusal `phrases` (asked by several checks)."""
    if contains_any_phrase(answer, phrases):
        return True
    # `says` is False for a phrase with a word the answer lacks (most phrases of most
    # answers): the answer's words are looked up once here, not once per phrase.
    said = token_set(answer, lang, (), True)
    return any(
        phrase_words(p, lang, (), True) <= said and says(answer, p, lang=lang) for p in phrases
    )
