"""Checks on what the answer says: facts, patterns, forbidden phrases, abstention, length."""

from __future__ import annotations

from evals.checks.base import (
    CheckInput,
    CheckResult,
    check,
    errored,
    failed,
    is_refusal,
    passed,
    ratio,
    skipped,
)
from evals.checks.text import contains_phrase, quote
from evals.suite import patterns


@check()
def facts_present(inp: CheckInput) -> CheckResult:
    facts = inp.case.expect.get("facts") or []
    if not facts:
        return skipped("no expect.facts")
    missing = [f for f in facts if not contains_phrase(inp.answer, f)]
    if missing:
        return ratio(len(facts) - len(missing), len(facts), f"missing {quote(missing)}")
    return ratio(len(facts), len(facts), f"all {len(facts)} facts present")


@check()
def mentions_expected(inp: CheckInput) -> CheckResult:
    pats = inp.case.expect.get("mentions") or []
    if not pats:
        return skipped("no expect.mentions")
    missing = []
    for p in pats:
        try:
            if not patterns.search(p, inp.answer):
                missing.append(p)
        except TimeoutError:
            return errored(f"pattern {p!r} timed out (catastrophic backtracking)")
    if missing:
        return ratio(len(pats) - len(missing), len(pats), f"pattern not found: {quote(missing)}")
    return ratio(len(pats), len(pats), f"all {len(pats)} patterns match")


@check()
def no_forbidden(inp: CheckInput) -> CheckResult:
    phrases = inp.case.expect.get("must_not_contain") or []
    if not phrases:
        return skipped("no expect.must_not_contain")
    hits = [p for p in phrases if contains_phrase(inp.answer, p)]
    if hits:
        return failed(f"forbidden phrase present: {quote(hits)}")
    return passed(f"none of {len(phrases)} forbidden phrases")


@check()
def abstention(inp: CheckInput) -> CheckResult:
    should = bool(inp.case.expect.get("abstain", False))
    did = is_refusal(inp)
    how = "flag" if inp.reply.abstained is not None else "refusal phrases"
    if did == should:
        return passed(f"{'declined' if did else 'answered'} as expected ({how})")
    if should:
        return failed(f"answered, but should decline or hand over ({how})")
    return failed(f"declined, but the question is answerable ({how})")


@check()
def max_words(inp: CheckInput) -> CheckResult:
    limit = inp.case.expect.get("max_words")
    if not limit:
        return skipped("no expect.max_words")
    n = len(inp.answer.split())
    if n > limit:
        return failed(f"{n} words, limit {limit}")
    return passed(f"{n} words, limit {limit}")
